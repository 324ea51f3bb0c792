"""Локальное внимание (скользящее окно): каждый запрос видит только последние `window` токенов (урок 08)."""

import numpy as np


def local_mask(T, window):
    """Булева маска (T, T): True, если 0 ≤ i − j < window — ключ j не в будущем и не дальше окна.

    window = 1 — токен видит только себя; window ≥ T — то же, что causal_mask(T).
    Разрешённых клеток T·window − window·(window − 1)/2 (при window ≤ T), а не T·(T + 1)/2:
    растёт как T, а не как T². Цена — зависимость дальше окна этот слой не видит.
    """
    _check(T, window, "local_mask")
    distance = np.arange(T)[:, None] - np.arange(T)[None, :]     # (T, T): i − j, на сколько ключ левее запроса
    return (distance >= 0) & (distance < window)


def allowed_cells(T, window):
    """Сколько клеток разрешает local_mask(T, window) — по формуле, без матрицы T×T."""
    _check(T, window, "allowed_cells")
    window = min(window, T)
    return T * window - window * (window - 1) // 2


def _check(T, window, where):
    for name, value in (("T", T), ("window", window)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(
                f"{where}: {name} — целое число ≥ 1, а пришло {value!r}. "
                "window — сколько последних токенов (включая сам токен) видит запрос"
            )

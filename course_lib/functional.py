"""Функции без параметров: softmax, маски (причинная, локальное окно), scaled dot-product attention, GELU, кросс-энтропия.

Каждая принимает и Tensor, и обычный массив NumPy. Если на вход пришли только массивы,
на выходе тоже массивы — удобно в уроках; если хоть один Tensor — Tensor с графом.
"""

import numpy as np

from course_lib._checks import (check_axes, check_axis, check_bool, check_float, check_int, check_mask, check_memory,
                                check_numbers, check_qkv, check_real)
from course_lib.autograd.tensor import Tensor, as_tensor
from course_lib.engine_room import enabled as fast_enabled, fast_gelu, fused_attention


def softmax(x, axis=-1):
    """exp(x) / Σ exp(x) вдоль оси `axis` (урок 02). Форма не меняется.

    Устойчив к большим числам (вычитаем максимум строки), значения -inf дают вес 0,
    а строка целиком из -inf (всё замаскировано) — нулевые веса, без nan и предупреждений.
    """
    plain = not isinstance(x, Tensor)
    x = as_tensor(x, where="softmax")
    check_float(x.data, "softmax(x)", finite=False, variable="x")   # -inf можно: так маскируют; nan и +inf ловит x.softmax
    if x.ndim == 0:
        raise ValueError(f"softmax: ожидался массив оценок хотя бы с одной осью (строка чисел), а пришло одно число "
                         f"{x.data.item()!r}: вес единственного числа всегда 1. Передайте строку оценок: softmax(np.array([…]))")
    axis = check_axis(axis, x.ndim, "softmax", x.shape)
    if x.shape[axis] == 0:
        raise ValueError(f"softmax: вдоль оси {axis} нет ни одной оценки (форма {x.shape}) — "
                         "нечего превращать в веса. Пустая последовательность (T = 0)?")
    out = x.softmax(axis=axis)                              # операция движка: autograd/softmax.py
    return out.data if plain else out


def gelu(x):
    """GELU в приближении через tanh, как в GPT-2 (урок 09): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).

    Поэлементно, форма не меняется. Мягкий ReLU: большие x проходят почти как есть,
    большие отрицательные — почти в 0, а около нуля функция гладкая (градиент не обрывается).
    """
    plain = not isinstance(x, Tensor)
    x = as_tensor(x, where="gelu")
    check_float(x.data, "gelu(x)", variable="x")
    if fast_enabled():
        out = fast_gelu(x)                                 # машинное отделение: та же формула одной операцией (engine_room/gelu.py)
    else:
        inner = (x + 0.044715 * x**3) * np.sqrt(2 / np.pi)     # √(2/π)·(x + 0.044715·x³)
        out = 0.5 * x * (1 + inner.tanh())
    return out.data if plain else out


def causal_mask(T):
    """Булева маска (T, T): True — «можно смотреть» (нижний треугольник с диагональю), урок 05."""
    T = check_int(T, "T", "causal_mask", meaning=" (длина последовательности)")
    _check_mask_memory(T, "causal_mask")
    return np.tri(T, dtype=bool)                                 # сразу булева: без промежуточной матрицы чисел


def local_mask(T, window):
    """Локальное окно (урок 08): булева маска (T, T): True, если 0 ≤ i − j < window — ключ j не в будущем и не дальше окна.

    window = 1 — токен видит только себя; window ≥ T — то же, что causal_mask(T).
    Разрешённых клеток T·window − window·(window − 1)/2 (при window ≤ T), а не T·(T + 1)/2:
    растёт как T, а не как T². Цена — зависимость дальше окна этот слой не видит.
    """
    _check_window(T, window, "local_mask")
    _check_mask_memory(T, "local_mask")
    mask = np.tri(T, dtype=bool)                                 # (T, T): j ≤ i — ключ не в будущем
    mask &= ~np.tri(T, k=-window, dtype=bool)                    # ... и не дальше окна: убрать j ≤ i − window
    return mask


def allowed_cells(T, window):
    """Сколько клеток разрешает local_mask(T, window) — по формуле, без матрицы T×T."""
    _check_window(T, window, "allowed_cells")
    window = min(window, T)
    return T * window - window * (window - 1) // 2


def scaled_dot_product_attention(q, k, v, mask=None, scale=None, causal=False):
    """softmax(Q Kᵀ / √d_k) V — сердце внимания (урок 03) в три шага урока 05: оценки, маска, softmax.

    q: (..., T_q, d_k), k: (..., T_k, d_k), v: (..., T_k, d_v);
    mask: булева, True = «можно смотреть», растягивается до (..., T_q, T_k);
    scale: множитель оценок, по умолчанию 1/√d_k (scale=1 — «без деления», как в опыте урока 03);
    causal=True — вдобавок к mask запрос не видит ключей правее себя (как causal_mask; при T_q < T_k
    запросы — последние T_q позиций: так генерирует слой с KV-кэшем, урок 08).
    Возвращает (context (..., T_q, d_v), weights (..., T_q, T_k)).
    Запрос, которому не разрешено смотреть никуда, получает нулевые веса и нулевой context.
    Внутри `with nt.fast():` те же шаги идут одной слитой операцией (engine_room/attention.py, урок 08).
    """
    plain = not any(isinstance(t, Tensor) for t in (q, k, v))
    q, k, v, mask, scale = _attention_inputs(q, k, v, mask, scale, causal)
    if fast_enabled():
        context, weights = fused_attention(q, k, v, mask, scale)
    else:
        scores = (q * scale) @ k.swapaxes(-1, -2)        # (..., T_q, d_k) @ (..., d_k, T_k) -> (..., T_q, T_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, -np.inf)  # (..., T_q, T_k): закрытое -> −∞ -> вес 0
        weights = scores.softmax(axis=-1)                # (..., T_q, T_k): каждая строка в сумме 1 (или вся 0)
        context = weights @ v                            # (..., T_q, T_k) @ (..., T_k, d_v) -> (..., T_q, d_v)
    return (context.data, weights.data) if plain else (context, weights)


def _attention_inputs(q, k, v, mask, scale, causal):
    """Проверенные входы внимания: q, k, v — Tensor, маска вместе с причинной (или None), scale."""
    q, k, v = (as_tensor(t, name=name, where="scaled_dot_product_attention") for t, name in zip((q, k, v), "qkv"))
    batch = check_qkv(q, k, v)
    if scale is not None:
        scale = check_real(scale, "scale", "scaled_dot_product_attention", positive=True,
                           meaning=" (множитель оценок; None — 1/√d_k; 0 сделал бы веса ровными, минус — перевернул бы их)")
    causal = check_bool(causal, "causal", "scaled_dot_product_attention", meaning=" (закрыть ли ключи правее запроса)")
    T_q, T_k = q.shape[-2], k.shape[-2]
    if T_q == 0 or T_k == 0:
        raise ValueError(f"scaled_dot_product_attention: пустая последовательность (T = 0): q {q.shape}, k {k.shape} — "
                         "нет ни одной оценки, нечего превращать в веса")
    if not fast_enabled():                                  # быстрый путь проверяет свою память сам (engine_room/attention.py)
        cells = int(np.prod(batch)) * T_q * T_k
        check_memory(2 * cells * np.result_type(q.dtype, k.dtype).itemsize,
                     f"оценки и веса (два массива {batch + (T_q, T_k)} {np.result_type(q.dtype, k.dtype)})",
                     "scaled_dot_product_attention",
                     "`with nt.fast():` (слитое внимание держит один такой массив, а не два-три), "
                     "block_attention из урока 08 (course_lib.efficient: память T_q × block_size) или меньше T")
    if mask is not None:
        mask = check_mask(mask, batch + (T_q, T_k))
    if causal:
        past = np.arange(T_k) <= np.arange(T_k - T_q, T_k)[:, None]    # (T_q, T_k): ключ не правее запроса
        mask = past if mask is None else mask & past
    return q, k, v, mask, 1 / np.sqrt(q.shape[-1]) if scale is None else scale


def entropy(weights, axis=-1):
    """Энтропия распределения в битах (урок 02): 0 — весь вес в одной точке, log2(n) — поровну на n.

    weights: (..., n), строки в сумме 1 (нули допустимы: 0·log 0 = 0). Результат — (...) без оси `axis`.
    """
    weights = check_numbers(getattr(weights, "data", weights), "weights", "entropy")
    check_float(weights, "weights")
    check_axes(axis, weights.shape, "entropy")
    logs = np.log2(np.where(weights > 0, weights, 1))       # log2(1) = 0 там, где вес 0
    return 0.0 - (weights * logs).sum(axis=axis)            # 0.0 − …: без «−0.0» у строки с одним весом 1


def cross_entropy(logits, targets, reduction="mean"):
    """−log p(верного класса) (урок 07): средняя по позициям или, с reduction="none", в каждой позиции.

    logits: (..., C) — оценки классов, targets: (...) — целые номера классов из [0, C).
    reduction="mean" — одно число (loss обучения), "none" — массив формы targets (урок 09: loss по позициям).
    """
    if reduction not in ("mean", "none"):
        raise ValueError(f'cross_entropy: reduction — "mean" (среднее) или "none" (по позициям), а пришло {reduction!r}')
    plain = not isinstance(logits, Tensor)
    logits = as_tensor(logits, name="logits", where="cross_entropy")
    check_float(logits.data, "logits")
    targets = check_numbers(targets.data if isinstance(targets, Tensor) else targets, "targets", "cross_entropy")
    if logits.ndim == 0 or logits.shape[-1] == 0:
        raise ValueError(f"cross_entropy: logits — оценки (..., C) хотя бы одного класса (C ≥ 1), а пришла форма {logits.shape}")
    C = logits.shape[-1]
    if not np.issubdtype(targets.dtype, np.integer):
        raise TypeError(f"targets: ожидались целые номера классов, а пришёл dtype {targets.dtype}")
    if targets.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets формы {targets.shape} не подходит к logits формы {logits.shape}: "
            f"ожидалась форма {logits.shape[:-1]} — по одному номеру класса на каждую строку logits"
        )
    if targets.size and (targets.min() < 0 or targets.max() >= C):
        raise ValueError(f"targets: номера классов должны быть от 0 до {C - 1}, а встретились {targets.min()}…{targets.max()}")
    if targets.size == 0 and reduction == "mean":
        raise ValueError(f"cross_entropy: среднее по пустому батчу не определено — ожидалась хотя бы одна позиция, "
                         f"а пришли logits формы {logits.shape}. Пустой батч (N = 0 или T = 0)?")

    log_probs = logits.log_softmax(axis=-1)                                    # (..., C): log p каждого класса
    picked = log_probs.reshape(-1, C)[np.arange(targets.size), targets.reshape(-1)]   # (n,): log p верного класса
    losses = 0.0 - picked.reshape(targets.shape)                               # (...); 0.0 − …: без «−0.0» у точного ответа
    out = losses.mean() if reduction == "mean" else losses
    return out.data if plain else out


def _check_mask_memory(T, where):
    check_memory(T * T, f"маска ({T}, {T}) bool", where,
                 "меньше T или маску по кускам, как block_attention(causal=True) из урока 08 (course_lib.efficient)")


def _check_window(T, window, where):
    check_int(T, "T", where, meaning=" (длина последовательности)")
    check_int(window, "window", where, meaning=" (сколько последних токенов, включая сам токен, видит запрос)")

"""Выбор следующего токена по логитам: температура и top-k, как в nanoGPT (урок 10).

Урок 10 печатает next_token_probs и sample_next_token (`inspect.getsource`) — в них только счёт.
Входы проверяет обёртка `checked_inputs` внизу файла: тот, кто зовёт эти функции, получает ошибку
по-русски раньше, чем счёт начнётся, а урок показывает ту же формулу, что и раньше.
"""

import functools

import numpy as np

from course_lib._checks import check_float, check_generator, check_int, check_numbers, check_real
from course_lib.functional import softmax


def check_sampling(temperature, top_k, rng, vocab_size):
    """Проверяет настройки выборки и возвращает их (top_k — int или None)."""
    temperature = check_real(temperature, "temperature", "генерация", positive=True,
                             meaning=" (1.0 — как модель выучила, меньше 1 — смелее берём самые вероятные токены, "
                                     "больше 1 — текст случайнее; для жадного выбора: top_k=1)")
    if top_k is not None:
        top_k = check_int(top_k, "top_k", "генерация", high=vocab_size,
                          meaning=f" (из скольких самых вероятных токенов выбирать; None — из всех {vocab_size})")
    check_generator(rng, "генерация", allow_none=True)
    return float(temperature), top_k


def check_logits(logits, where):
    """Логиты (..., V) дробные, V ≥ 1; −inf можно (токен закрыт), nan и +inf — нет. Возвращает массив NumPy."""
    logits = check_numbers(getattr(logits, "data", logits), "logits", where)
    check_float(logits, f"{where}: logits", finite=False, variable="logits")
    if logits.ndim == 0 or logits.shape[-1] == 0:
        raise ValueError(f"{where}: logits — оценки (..., V) хотя бы одного токена, а пришла форма {logits.shape}")
    if np.isnan(logits).any() or np.isposinf(logits).any():
        raise ValueError(f"{where}: logits — числа или −inf (закрытый токен), а встретились nan или +inf: "
                         "из таких оценок вероятностей не получить. Модель разошлась при обучении?")
    if np.isneginf(logits).all(axis=-1).any():
        raise ValueError(f"{where}: в строке логитов все токены закрыты (−inf): выбирать не из чего")
    return logits


def next_token_probs(logits, temperature, top_k):
    """Вероятности следующего токена: logits (..., V) -> (..., V).

    Логиты делим на temperature, оставляем top_k самых больших (остальным — вероятность 0;
    None — все) и берём softmax.
    """
    logits = np.asarray(logits, dtype=np.float64) / temperature       # (..., V)
    if top_k is not None:
        kth = np.sort(logits, axis=-1)[..., -top_k, None]              # (..., 1): k-й по величине
        logits = np.where(logits < kth, -np.inf, logits)               # (..., V): остальные — вне игры
    return softmax(logits, axis=-1)                                    # (..., V)


def sample_next_token(logits, temperature, top_k, rng):
    """Один токен на строку: logits (N, V) -> номера (N,).

    Вероятности — next_token_probs (top_k=1 — жадный выбор), потом одна случайная точка u ∈ [0, 1)
    на строку: берём первый токен, на котором накопленная вероятность превысила u. rng — np.random.Generator.
    """
    probs = next_token_probs(logits, temperature, top_k)               # (N, V)
    u = rng.random((len(probs), 1))                                    # (N, 1)
    chosen = (np.cumsum(probs, axis=-1) <= u).sum(axis=-1)             # (N,): сколько токенов «не дотянули» до u
    last_possible = probs.shape[-1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=-1)   # (N,): сумма может не дойти до 1
    return np.minimum(chosen, last_possible)


def _checked_probs(probs):
    """next_token_probs с проверкой входов; крошечная температура (1e-308) — жадный выбор, а не переполнение."""
    @functools.wraps(probs)
    def next_token_probs(logits, temperature, top_k):
        logits = check_logits(logits, "next_token_probs")
        temperature, top_k = check_sampling(temperature, top_k, None, logits.shape[-1])
        with np.errstate(over="ignore"):
            finite = np.isfinite(logits)
            if np.isinf(logits[finite].astype(np.float64) / temperature).any():   # частное переполнилось бы: от лучшего
                logits = logits - logits.max(axis=-1, keepdims=True)    # 0 у лучшего, прочие — в −inf (вес 0)
            return probs(logits, temperature, top_k)
    return next_token_probs


def _checked_sample(sample):
    """sample_next_token с проверкой формы логитов (N, V) и генератора; остальное проверит next_token_probs."""
    @functools.wraps(sample)
    def sample_next_token(logits, temperature, top_k, rng):
        check_generator(rng, "sample_next_token")
        shape = np.shape(check_numbers(getattr(logits, "data", logits), "logits", "sample_next_token"))
        if len(shape) != 2 or shape[0] == 0:
            hint = " Для одной строки: logits[None]." if len(shape) == 1 else ""
            raise ValueError(f"sample_next_token: logits — форма (N, V), N ≥ 1 строк, а пришла форма {shape}.{hint}")
        return sample(logits, temperature, top_k, rng)
    return sample_next_token


next_token_probs = _checked_probs(next_token_probs)
sample_next_token = _checked_sample(sample_next_token)

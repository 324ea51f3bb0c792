"""Выбор следующего токена по логитам: температура и top-k, как в nanoGPT (урок 10)."""

import numpy as np

from course_lib._checks import check_generator, check_int, check_real
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

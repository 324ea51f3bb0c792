"""Упражнения урока 03: scaled dot-product attention и слой самовнимания из X, W_q, W_k, W_v."""

import numpy as np

from course_lib.exercises._checker import Wrong, call, checker, expect_close, expect_finite, expect_shape
from course_lib.functional import scaled_dot_product_attention, softmax


def _check_weights(weights, Q, K):
    """Разбирает веса (T_q, T_k): транспонирование, нормировка, забытый √d_k — по порядку."""
    T_q, T_k, d_k = Q.shape[0], K.shape[0], Q.shape[1]
    if weights.shape == (T_k, T_q) and T_k != T_q:
        raise Wrong("веса транспонированы: строка — запрос, столбец — ключ; нужна форма "
                    f"(T_q, T_k) = ({T_q}, {T_k}), то есть оценки Q @ K.T")
    expect_shape(weights, (T_q, T_k), "веса")
    expect_finite(weights, "на обычных числах nan быть не должно: проверьте softmax")
    if not np.allclose(weights.sum(axis=-1), 1):
        if np.allclose(weights.sum(axis=0), 1):
            raise Wrong("в сумме 1 дают столбцы весов, а нужны строки: softmax по axis=-1 — "
                        "каждый запрос распределяет свой вес по ключам")
        raise Wrong("строки весов не дают в сумме 1: после exp поделите каждую строку на её сумму")
    scores = Q @ K.T                                                       # (T_q, T_k)
    if np.allclose(weights, softmax(scores)):
        raise Wrong(f"вы забыли поделить оценки на √d_k (здесь d_k = {d_k}): веса вышли острее, "
                    "чем нужно — при больших d_k softmax насыщается")
    if np.allclose(weights, softmax(scores / d_k)):
        raise Wrong(f"оценки поделены на d_k = {d_k}, а нужно на √d_k = {np.sqrt(d_k):.0f}")
    expect_close(weights, softmax(scores / np.sqrt(d_k)), "веса неверные: softmax(Q @ K.T / √d_k) по строкам")


@checker
def check_attention(candidate):
    """candidate(Q, K, V) -> (context (T_q, d_v), weights (T_q, T_k)) = scaled dot-product attention."""
    rng = np.random.default_rng(3)
    T_q, T_k, d_k, d_v = 3, 4, 16, 5                      # все разные, d_k = 16: √d_k = 4 заметно отличается от 1
    Q, K, V = rng.normal(size=(T_q, d_k)), rng.normal(size=(T_k, d_k)), rng.normal(size=(T_k, d_v))
    out = call(candidate, Q, K, V)
    if not isinstance(out, tuple) or len(out) != 2:
        raise Wrong("верните пару (context, weights), как nt.scaled_dot_product_attention: "
                    "`return weights @ V, weights`")
    context, weights = out
    if context.shape == (T_q, T_k) and weights.shape == (T_q, d_v):
        raise Wrong("context и weights перепутаны местами: сначала context (T_q, d_v), потом weights (T_q, T_k)")
    _check_weights(weights, Q, K)
    expect_shape(context, (T_q, d_v), "context")
    expect_close(context, weights @ V, "context должен быть смесью значений: weights @ V")

    large_Q = 1000 * Q                                    # оценки в тысячи: exp(1000) не помещается в float
    with np.errstate(all="ignore"):
        context, weights = call(candidate, large_Q, K, V)
    expect_finite(weights, "при больших оценках exp переполняется: вычтите из каждой строки оценок её максимум "
                           "(softmax от этого не меняется) или возьмите nt.softmax")
    reference = scaled_dot_product_attention(large_Q, K, V)
    expect_close(weights, reference[1], "при больших оценках веса неверные")
    expect_close(context, reference[0], "при больших оценках context неверный")
    return "scaled dot-product attention работает: веса по строкам в сумме 1, деление на √d_k на месте"


@checker
def check_self_attention(candidate):
    """candidate(X, W_q, W_k, W_v) -> context (T, d_v): Q = X W_q, K = X W_k, V = X W_v, затем attention."""
    rng = np.random.default_rng(4)
    T, d_model, d_k, d_v = 5, 6, 4, 3                     # все разные: по форме видно, что перепутано
    X = rng.normal(size=(T, d_model))
    W_q, W_k, W_v = rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))
    out = call(candidate, X, W_q, W_k, W_v)
    if isinstance(out, tuple):
        raise Wrong("верните только context (T, d_v) — без весов")
    if out.shape == (T, d_model):
        raise Wrong(f"форма ({T}, {d_model}) = (T, d_model): похоже, вы смешали строки X, а нужно значения V = X @ W_v")
    if out.shape == (T, T):
        raise Wrong(f"вернулась матрица (T, T) = ({T}, {T}) — это веса; нужен context = weights @ V формы ({T}, {d_v})")
    expect_shape(out, (T, d_v), "context")
    expect_finite(out, "на обычных числах nan быть не должно")
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    if np.allclose(out, scaled_dot_product_attention(K, Q, V)[0]):
        raise Wrong("запросы и ключи перепутаны: Q = X @ W_q, K = X @ W_k, оценки = Q @ K.T")
    if np.allclose(out, softmax(Q @ K.T) @ V):
        raise Wrong(f"вы забыли поделить оценки на √d_k (здесь d_k = {d_k})")
    if np.allclose(out, softmax(Q @ K.T, axis=0) @ V) or np.allclose(out, softmax(Q @ K.T / np.sqrt(d_k), axis=0) @ V):
        raise Wrong("softmax взят по столбцам: строки весов должны давать 1 — axis=-1")
    expect_close(out, scaled_dot_product_attention(Q, K, V)[0],
                 "context неверный: Q, K, V = X @ W_q, X @ W_k, X @ W_v; веса = softmax(Q @ K.T / √d_k); context = веса @ V")
    return "слой самовнимания работает: три проекции одного X и scaled dot-product attention"

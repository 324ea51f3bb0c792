"""Упражнения урока 03: scaled dot-product attention и слой самовнимания из X, W_q, W_k, W_v."""

import numpy as np

from course_lib.exercises._checker import (Crashed, Wrong, attention_scale, call, checker, expect_close, expect_finite,
                                           expect_numbers, expect_shape, recognize, tolerance)
from course_lib.exercises._softmax import naive_softmax
from course_lib.functional import scaled_dot_product_attention, softmax

STABLE = ("exp(оценок) переполняется: вычтите из каждой строки оценок её максимум "
          "(softmax от этого не меняется) или возьмите nt.softmax")


def _weight_mistakes(Q, K, sizes):
    """Ошибки в весах: как их посчитал бы ошибившийся. sizes — {имя: число} других длин, на которые делят по ошибке."""
    scores, d_k = Q @ K.T, Q.shape[1]
    wrong_divisors = [
        (lambda name=name, n=n: softmax(scores / np.sqrt(n)),
         f"оценки поделены на √{name} = √{n}, а нужно на √d_k = √{d_k}: делим на корень из длины ключа "
         f"d_k = K.shape[-1] — это разброс q·k" + ("" if name != "d_model" else ", а d_model — длина входа X"))
        for name, n in sizes.items() if n != d_k
    ]
    return wrong_divisors + [
        (lambda: softmax(scores), f"вы забыли поделить оценки на √d_k (здесь d_k = {d_k}): веса вышли острее, "
                                  "чем нужно — при больших d_k softmax насыщается"),
        (lambda: softmax(scores / d_k), f"оценки поделены на d_k = {d_k}, а нужно на √d_k = {np.sqrt(d_k):.3g}"),
        (lambda: softmax(scores / np.sqrt(d_k), axis=0), "в сумме 1 дают столбцы весов, а нужны строки: softmax по "
                                                         "axis=-1 — каждый запрос распределяет свой вес по ключам"),
        (lambda: softmax(scores, axis=0), "в сумме 1 дают столбцы весов, а нужны строки: softmax по axis=-1"),
        (lambda: np.exp(scores / np.sqrt(d_k)), "строки весов не дают в сумме 1: после exp поделите каждую строку "
                                                "на её сумму"),
        (lambda: np.exp((scores - scores.max(axis=-1, keepdims=True)) / np.sqrt(d_k)),
         "exp со сдвигом на максимум есть, но строки весов не поделены на сумму: e / e.sum(axis=-1, keepdims=True)"),
        (lambda: (lambda e: e / e.sum(axis=-1))(np.exp((scores - scores.max(axis=-1, keepdims=True)) / np.sqrt(d_k))),
         "сумма по строкам взята без keepdims=True: e.sum(axis=-1) теряет ось, и клетка (i, j) делится на сумму "
         "строки j, а не i. Нужно e.sum(axis=-1, keepdims=True)"),
        (lambda: scores / np.sqrt(d_k), "оценки не превращены в веса: примените softmax по строкам"),
        (lambda: softmax(K @ Q.T / np.sqrt(d_k)), "оценки транспонированы: K @ Q.T вместо Q @ K.T — строка весов "
                                                  "должна быть запросом, столбец — ключом"),
        (lambda: naive_softmax(scores / np.sqrt(d_k)), STABLE),
    ]


def _attention_examples():
    rng = np.random.default_rng(3)
    T_q, T_k, d_k, d_v = 3, 4, 16, 5                      # все разные, d_k = 16: √d_k = 4 заметно отличается от 1
    Q, K, V = rng.normal(size=(T_q, d_k)), rng.normal(size=(T_k, d_k)), rng.normal(size=(T_k, d_v))
    yield Q, K, V, "для Q (3, 16), K (4, 16), V (4, 5)"
    yield 1000 * Q, K, V, "при больших оценках (Q в 1000 раз длиннее)"   # exp(1000) не помещается в float
    yield Q[:1], K[:1], V[:1], "для одного запроса и одного ключа (T_q = T_k = 1): вес 1"
    Q9, K9, V9 = rng.normal(size=(6, 9)), rng.normal(size=(6, 9)), rng.normal(size=(6, 2))
    yield Q9.astype(np.float32), K9.astype(np.float32), V9.astype(np.float32), "для float32, T_q = T_k = 6, d_k = 9"


@checker
def check_attention(candidate):
    """candidate(Q, K, V) -> (context (T_q, d_v), weights (T_q, T_k)) = scaled dot-product attention."""
    for Q, K, V, where in _attention_examples():
        (T_q, d_k), (T_k, d_v) = Q.shape, V.shape
        try:
            context, weights = call(candidate, Q.copy(), K.copy(), V.copy(), parts=("context", "weights"))
        except Crashed as crash:
            if crash.kind not in ("matmul", "broadcast"):
                raise
            raise Wrong(f"{crash}. Формы по шагам: оценки Q @ K.T — (T_q, T_k) = ({T_q}, {T_k}), "
                        f"context = weights @ V — (T_q, d_v) = ({T_q}, {d_v})") from None
        if context.shape == (T_q, T_k) and weights.shape == (T_q, d_v) and T_k != d_v:
            raise Wrong("context и weights перепутаны местами: сначала context (T_q, d_v), потом weights (T_q, T_k)")
        if weights.shape == (T_k, T_q) and T_k != T_q:
            raise Wrong("веса транспонированы: строка — запрос, столбец — ключ; нужна форма "
                        f"(T_q, T_k) = ({T_q}, {T_k}), то есть оценки Q @ K.T")
        expect_shape(weights, (T_q, T_k), f"{where}: веса")
        Q64, K64, V64 = (np.asarray(a, dtype=float) for a in (Q, K, V))
        right_context, right_weights = scaled_dot_product_attention(Q64, K64, V64)
        tol = tolerance(scale=attention_scale(Q, K, V))
        recognize(weights, right_weights, _weight_mistakes(Q64, K64, {"T_k": T_k, "T_q": T_q, "d_v": d_v}),
                  f"{where}: ", tol)
        expect_finite(weights, f"{where}: {STABLE}")
        if not np.allclose(weights.sum(axis=-1), 1):
            raise Wrong(f"{where}: строки весов не дают в сумме 1 — нормируйте каждую строку")
        expect_close(weights, right_weights, f"{where}: веса неверные — softmax(Q @ K.T / √d_k) по строкам", tol)
        expect_shape(context, (T_q, d_v), f"{where}: context")
        expect_close(context, right_context, f"{where}: context должен быть смесью значений: weights @ V", tol)
    return "scaled dot-product attention работает: веса по строкам в сумме 1, деление на √d_k на месте"


def _self_attention_examples():
    rng = np.random.default_rng(4)
    T, d_model, d_k, d_v = 5, 6, 4, 3                     # все разные: по форме видно, что перепутано
    X = rng.normal(size=(T, d_model))
    W = rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))
    yield X, W, "для X (5, 6), W_q и W_k (6, 4), W_v (6, 3)"
    yield X[:1], W, "для одного токена (T = 1): он смотрит только на себя"
    yield 30 * X, W, "для X в 30 раз крупнее (оценки в тысячи)"
    X32 = rng.normal(size=(7, d_model)).astype(np.float32)
    yield X32, tuple(w.astype(np.float32) for w in W), "для float32 и T = 7"


@checker
def check_self_attention(candidate):
    """candidate(X, W_q, W_k, W_v) -> context (T, d_v): Q = X W_q, K = X W_k, V = X W_v, затем attention."""
    for X, (W_q, W_k, W_v), where in _self_attention_examples():
        (T, d_model), d_k, d_v = X.shape, W_q.shape[1], W_v.shape[1]
        try:
            out = call(candidate, X.copy(), W_q.copy(), W_k.copy(), W_v.copy())
        except Crashed as crash:
            if crash.kind not in ("matmul", "broadcast"):
                raise
            raise Wrong(f"{crash}. Формы по шагам: Q = X @ W_q и K = X @ W_k — (T, d_k) = ({T}, {d_k}), "
                        f"V = X @ W_v — ({T}, {d_v}), оценки Q @ K.T — ({T}, {T}), context — ({T}, {d_v})") from None
        if isinstance(out, tuple):
            raise Wrong("верните только context (T, d_v) — без весов")
        expect_numbers(out, f"{where}: context", (T, d_v))
        if out.shape == (T, d_model) and T > 1:
            raise Wrong(f"форма ({T}, {d_model}) = (T, d_model): похоже, вы смешали строки X, "
                        "а нужно значения V = X @ W_v")
        if out.shape == (T, T) and T > 1:
            raise Wrong(f"вернулась матрица (T, T) = ({T}, {T}) — это веса; нужен context = weights @ V "
                        f"формы ({T}, {d_v})")
        if out.shape == (T, d_k):
            raise Wrong(f"форма ({T}, {d_k}) = (T, d_k): похоже, значения посчитаны через W_k или W_q, "
                        "а нужно V = X @ W_v")
        expect_shape(out, (T, d_v), f"{where}: context")
        X64, W_q, W_k, W_v = (np.asarray(a, dtype=float) for a in (X, W_q, W_k, W_v))
        Q, K, V = X64 @ W_q, X64 @ W_k, X64 @ W_v
        right = scaled_dot_product_attention(Q, K, V)[0]
        tol = tolerance(scale=attention_scale(*(np.abs(X64) @ np.abs(W) for W in (W_q, W_k, W_v))))
        mistakes = [(lambda make=make: make() @ V, hint)
                    for make, hint in _weight_mistakes(Q, K, {"d_model": d_model, "T": T, "d_v": d_v})]
        recognize(out, right, [(lambda: scaled_dot_product_attention(K, Q, V)[0],
                                "запросы и ключи перепутаны: Q = X @ W_q, K = X @ W_k, оценки = Q @ K.T"),
                               (lambda: scaled_dot_product_attention(Q, Q, V)[0],
                                "ключи посчитаны через W_q, а нужно K = X @ W_k: у запросов и ключей свои веса"),
                               (lambda: scaled_dot_product_attention(K, K, V)[0],
                                "запросы посчитаны через W_k, а нужно Q = X @ W_q: у запросов и ключей свои веса"),
                               ] + mistakes,
                  f"{where}: ", tol)
        expect_finite(out, f"{where}: {STABLE}")
        expect_close(out, right, f"{where}: context неверный — Q, K, V = X @ W_q, X @ W_k, X @ W_v; "
                                 "веса = softmax(Q @ K.T / √d_k); context = веса @ V", tol)
    return "слой самовнимания работает: три проекции одного X и scaled dot-product attention"

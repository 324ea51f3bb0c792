"""Упражнение «внимание для одного запроса»: q (d_k,), K (T, d_k), V (T, d_v) -> смесь значений (d_v,) (урок 02)."""

import re

import numpy as np

from course_lib.exercises._checker import (Crashed, Wrong, attention_scale, call, checker, expect_close, expect_finite,
                                           expect_numbers, expect_shape, recognize, tolerance)
from course_lib.exercises._softmax import naive_softmax
from course_lib.functional import softmax


def reference_weights(q, K):
    """softmax(K q / √d_k): веса одного запроса по T ключам."""
    return softmax(K @ q / np.sqrt(q.shape[-1]))    # (T, d_k) @ (d_k,) -> (T,)


def reference(q, K, V):
    """softmax(K q / √d_k) V — то же, что scaled_dot_product_attention для одного запроса."""
    return reference_weights(q, K) @ V              # (T,) @ (T, d_v) -> (d_v,)


def _diagnose_shape(out, q, K, V, where):
    """Подсказка по форме: чаще всего возвращают веса или взвешенные значения, сложенные не по той оси."""
    (T, d_v) = V.shape
    expect_numbers(out, where, (d_v,))
    if out.shape == (d_v,):
        return
    if out.shape == (T,) and T != d_v:
        weights = reference_weights(*(np.asarray(a, dtype=float) for a in (q, K)))
        recognize(out, weights, [(lambda: (weights[:, None] * V).sum(axis=1),
                                  f"значения взвешены, но сложены по оси значений (axis=1), а нужно по оси ключей: "
                                  f"(weights[:, None] * V).sum(axis=0) или weights @ V, форма ({d_v},)")], f"{where}: ")
        raise Wrong(f"{where}: вернулся вектор длины T = {T} — похоже, это веса. "
                    f"Нужна смесь значений: weights @ V, форма ({d_v},)")
    if out.shape == (T, d_v):
        raise Wrong(f"{where}: вернулась матрица ({T}, {d_v}): значения взвешены, но не сложены. "
                    f"Сложите их по оси ключей — это и делает weights @ V, форма ({d_v},)")
    expect_shape(out, (d_v,), f"{where}: нужен один вектор-смесь длины d_v")


def _mistakes(q, K, V):
    """Типичные ошибки: как посчитал бы ошибившийся и что ему сказать."""
    T, d_k = K.shape
    scores = K @ q
    return [
        (lambda: softmax(scores) @ V, f"почти: вы забыли поделить оценки на √d_k (здесь d_k = {d_k}) — так считает "
                                      "scaled_dot_product_attention; зачем это нужно — в уроке 03"),
        (lambda: softmax(scores / d_k) @ V, f"оценки поделены на d_k = {d_k}, а нужно на √d_k — корень из длины ключа"),
        (lambda: softmax(scores / np.sqrt(T)) @ V, f"оценки поделены на √T (T = {T} — число ключей), а нужно на √d_k "
                                                   f"(d_k = {d_k} — длина ключа и запроса, len(q))"),
        (lambda: softmax(scores / np.sqrt(V.shape[1])) @ V, f"оценки поделены на √d_v (d_v = {V.shape[1]} — длина "
                                                            f"значения), а нужно на √d_k = √len(q)"),
        (lambda: scores / np.sqrt(d_k) @ V, "оценки не превращены в веса: примените softmax — тогда веса положительны "
                                            "и в сумме дают 1"),
        (lambda: scores @ V, "оценки не превращены в веса: примените softmax — тогда веса положительны и в сумме дают 1"),
        (lambda: np.exp(scores / np.sqrt(d_k)) @ V, "exp есть, но веса не нормированы: поделите их на сумму, чтобы вышло 1"),
        (lambda: np.exp(scores / np.sqrt(d_k) - (scores / np.sqrt(d_k)).max()) @ V,
         "exp со сдвигом на максимум есть, но веса не поделены на сумму: поделите их на сумму, чтобы вышло 1"),
        (lambda: softmax(scores / np.sqrt(d_k)) @ K, "вы смешали ключи, а не значения: ключи нужны только для оценок, "
                                                     "в смесь идут V"),
        (lambda: softmax(V @ q / np.sqrt(d_k)) @ V, "оценки посчитаны по значениям V, а нужно по ключам: "
                                                    "оценки = K @ q / √d_k"),
        (lambda: naive_softmax(scores / np.sqrt(d_k)) @ V,
         "exp(оценки) переполняется: вычтите из оценок максимум (softmax от этого не меняется) "
         "или возьмите nt.softmax"),
    ]


def _examples():
    """Входы от обычного к трудному: (q, K, V, как о них сказать)."""
    rng = np.random.default_rng(2)
    T, d_k, d_v = 5, 4, 3                             # все разные: по форме видно, что перепутано
    q, K, V = rng.normal(size=d_k), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
    yield q, K, V, "для q (4,), K (5, 4), V (5, 3)"
    yield q, K, rng.normal(size=(T, d_k)), "при d_v = d_k = 4"      # теперь можно перепутать K и V
    yield 1000 * q, K, V, "при больших оценках (q в 1000 раз длиннее)"   # exp(1000) не помещается в float
    yield q, K[:1], V[:1], "для одного ключа (T = 1): вес 1, выход — V[0]"
    q9, K9, V9 = rng.normal(size=9), rng.normal(size=(7, 9)), rng.normal(size=(7, 2))
    yield q9.astype(np.float32), K9.astype(np.float32), V9.astype(np.float32), "для float32, d_k = 9, T = 7"


@checker
def check_attend_one(candidate):
    """candidate(q, K, V) -> softmax(K q / √d_k) V формы (d_v,)."""
    for q, K, V, where in _examples():
        (T, d_v) = V.shape
        try:
            out = call(candidate, q.copy(), K.copy(), V.copy())
        except Crashed as crash:
            shapes = set(re.findall(r"\([\d,]*\)", str(crash.error).replace(" ", "")))
            if crash.kind == "broadcast" and {f"({T},)", f"({T},{d_v})"} <= shapes:
                raise crash.retold(f"веса формы ({T},) и значения V формы ({T}, {d_v}) поэлементно не перемножаются. "
                                   f"Смесь значений — матричное произведение weights @ V, форма ({d_v},)") from None
            raise
        _diagnose_shape(out, q, K, V, where)
        q64, K64, V64 = (np.asarray(a, dtype=float) for a in (q, K, V))
        right = reference(q64, K64, V64)
        tol = tolerance(scale=attention_scale(q, K, V))
        recognize(out, right, _mistakes(q64, K64, V64), f"{where}: ", tol)
        expect_finite(out, f"{where}: проверьте деление и exp — вычтите из оценок максимум или возьмите nt.softmax")
        expect_close(out, right, f"{where}: смесь неверная — оценки = K @ q / √d_k, веса = softmax(оценки), "
                                 "выход = веса @ V", tol)
    return "внимание для одного запроса работает: оценки → softmax → смесь значений"

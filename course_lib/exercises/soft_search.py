"""Упражнение «внимание для одного запроса»: q (d_k,), K (T, d_k), V (T, d_v) -> смесь значений (d_v,) (урок 02)."""

import numpy as np

from course_lib.exercises._checker import Wrong, call, checker, expect_close, expect_finite
from course_lib.functional import softmax


def reference(q, K, V):
    """softmax(K q / √d_k) V — то же, что scaled_dot_product_attention для одного запроса."""
    scores = K @ q / np.sqrt(q.shape[-1])          # (T, d_k) @ (d_k,) -> (T,)
    return softmax(scores) @ V                      # (T,) @ (T, d_v) -> (d_v,)


def _diagnose_shape(out, T, d_v):
    """Подсказка по форме: чаще всего возвращают веса или невзвешенную сумму не по той оси."""
    if out.shape == (d_v,):
        return
    if out.shape == (T,):
        raise Wrong(f"вернулся вектор длины T = {T} — похоже, это веса. Нужна смесь значений: weights @ V, форма ({d_v},)")
    if out.shape == (T, d_v):
        raise Wrong(f"вернулась матрица ({T}, {d_v}): значения взвешены, но не сложены. "
                    f"Сложите их по оси ключей — это и делает weights @ V, форма ({d_v},)")
    raise Wrong(f"ожидалась форма ({d_v},) — один вектор-смесь длины d_v, а получилась {out.shape}")


@checker
def check_attend_one(candidate):
    """candidate(q, K, V) -> softmax(K q / √d_k) V формы (d_v,)."""
    rng = np.random.default_rng(2)
    T, d_k, d_v = 5, 4, 3                             # все разные: по форме видно, что перепутано
    q, K, V = rng.normal(size=d_k), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
    out = call(candidate, q, K, V)
    _diagnose_shape(out, T, d_v)
    expect_finite(out, "на обычных числах nan быть не должно: проверьте деление и exp")
    scores = K @ q
    if np.allclose(out, softmax(scores) @ V):
        raise Wrong("почти: вы забыли поделить оценки на √d_k (здесь d_k = 4, делить на 2) — "
                    "так считает scaled_dot_product_attention; зачем это нужно — в уроке 03")
    if np.allclose(out, softmax(scores / d_k) @ V):
        raise Wrong("оценки поделены на d_k, а нужно на √d_k — корень из длины ключа")
    if np.allclose(out, scores / np.sqrt(d_k) @ V) or np.allclose(out, scores @ V):
        raise Wrong("оценки не превращены в веса: примените softmax — тогда веса положительны и в сумме дают 1")
    if np.allclose(out, np.exp(scores / np.sqrt(d_k)) @ V):
        raise Wrong("exp есть, но веса не нормированы: поделите их на сумму, чтобы вышло 1")
    expect_close(out, reference(q, K, V), "смесь неверная: оценки = K @ q / √d_k, веса = softmax(оценки), выход = веса @ V")

    square_V = rng.normal(size=(T, d_k))              # d_v = d_k: теперь можно перепутать K и V
    out = call(candidate, q, K, square_V)
    _diagnose_shape(out, T, d_k)
    weights = softmax(K @ q / np.sqrt(d_k))
    if np.allclose(out, weights @ K):
        raise Wrong("вы смешали ключи, а не значения: ключи нужны только для оценок, в смесь идут V")
    if np.allclose(out, softmax(square_V @ q / np.sqrt(d_k)) @ square_V):
        raise Wrong("оценки посчитаны по значениям V, а нужно по ключам: оценки = K @ q / √d_k")
    expect_close(out, reference(q, K, square_V), "при d_v = d_k смесь неверная: оценки = K @ q / √d_k, выход = веса @ V")

    large = 1000 * q                                  # оценки в тысячи: exp(1000) не помещается в float
    with np.errstate(all="ignore"):
        out = call(candidate, large, K, V)
    expect_finite(out, "при больших оценках exp переполняется: вычтите из оценок максимум "
                       "(softmax от этого не меняется) или возьмите nt.softmax")
    expect_close(out, reference(large, K, V), "при больших оценках смесь неверная")
    return "внимание для одного запроса работает: оценки → softmax → смесь значений"

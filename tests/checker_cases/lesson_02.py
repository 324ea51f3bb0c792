"""Урок 02: softmax и внимание для одного запроса — неверные ответы (с куском подсказки) и верные (None)."""

import math

import numpy as np

import course_lib as nt
from course_lib.exercises._softmax import naive_softmax, stable_softmax
from course_lib.exercises.soft_search import check_attend_one
from course_lib.exercises.softmax import check_softmax

softmax = stable_softmax          # верный softmax — и, вызванный заранее, «результат вместо функции»


def softmax_nested_lists(s):
    """Списки списков: строка за строкой, math.exp, ответ — вложенные списки Python."""
    if np.ndim(s) > 1:
        return [softmax_nested_lists(row) for row in s]
    top = max(s)
    e = [math.exp(v - top) for v in s]
    return [v / sum(e) for v in e]


def softmax_float32_other_order(s):
    """Во float32, сумма — накоплением, деление — через обратную величину."""
    x = np.asarray(s, dtype=np.float32)
    e = np.exp(x - x.max(axis=-1)[..., None])
    total = np.zeros(e.shape[:-1] + (1,), dtype=np.float32)
    for j in range(e.shape[-1]):
        total[..., 0] += e[..., j]
    return e * (np.float32(1) / total)


def softmax_apply_along_axis(s):
    return np.apply_along_axis(lambda row: np.exp(row - row.max()) / np.exp(row - row.max()).sum(), -1, s)


def softmax_rows_loop(s):
    """Цикл по строкам любой формы: каждая строка — отдельный вектор."""
    out = np.empty(s.shape)
    for index in np.ndindex(s.shape[:-1]):
        row = np.exp(s[index] - max(s[index]))
        out[index] = row / sum(row)
    return out


def softmax_float32(s):
    e = np.exp(np.float32(s) - np.max(s, axis=-1, keepdims=True).astype(np.float32))
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_logsumexp(s):
    m = np.amax(s, axis=-1, keepdims=True)
    return np.exp(s - m - np.log(np.exp(s - m).sum(axis=-1, keepdims=True)))


def shifted(shift):
    def my_softmax(s):
        e = np.exp(s - shift(s))
        return e / e.sum(axis=-1, keepdims=True)
    return my_softmax


def no_keepdims(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def max_no_keepdims(s):
    e = np.exp(s - s.max(axis=-1))
    return e / e.sum(axis=-1, keepdims=True)


def attend(q, K, V):
    scores = K @ q / np.sqrt(len(q))
    weights = np.exp(scores - scores.max())
    return weights / weights.sum() @ V


def attend_loop(q, K, V):
    d_k = q.shape[0]
    scores = [sum(q[j] * K[i, j] for j in range(d_k)) / d_k ** 0.5 for i in range(K.shape[0])]
    top = max(scores)
    weights = [np.exp(s - top) for s in scores]
    return sum(w * V[i] for i, w in enumerate(weights)) / sum(weights)


def attend_average(q, K, V):
    scores = K @ q / math.sqrt(K.shape[1])
    return np.average(V, axis=0, weights=np.exp(scores - scores.max()))


def attend_float32_list(q, K, V):
    q, K, V = (np.asarray(a, dtype=np.float32) for a in (q, K, V))
    weights = nt.softmax(K @ q / np.float32(np.sqrt(q.size)))
    return [float(sum(weights[i] * V[i, j] for i in range(len(K)))) for j in range(V.shape[1])]


def softmax_in_place(scores):
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


def attend_one_in_place(q, K, V):
    q /= np.sqrt(len(q))                               # запрос вызывающего поделён на √d_k
    s = K @ q
    e = np.exp(s - s.max())
    return e / e.sum() @ V


def attend_one_not_divided(q, K, V):
    s = K @ q / np.sqrt(len(q))
    return np.exp(s - s.max()) @ V


CASES = [
    # ---- softmax: неверные
    (check_softmax, lambda s: np.exp(s), "не нормированы", "exp-only"),
    (check_softmax, lambda s: np.exp(s) / np.exp(s).sum(axis=0, keepdims=True), "столбцы", "axis0"),
    (check_softmax, lambda s: np.exp(s) / np.exp(s).sum(axis=1, keepdims=True), "axis=-1", "axis1-on-vector"),
    (check_softmax, lambda s: np.exp(s) / np.exp(s).sum(), "по всей матрице", "whole-sum"),
    (check_softmax, no_keepdims, "keepdims=True", "no-keepdims"),
    (check_softmax, max_no_keepdims, "keepdims=True", "max-no-keepdims"),
    (check_softmax, shifted(lambda s: 0), "переполняет", "no-shift"),
    (check_softmax, shifted(lambda s: s.min(axis=-1, keepdims=True)), "вычли минимум", "min-shift"),
    (check_softmax, shifted(lambda s: s.mean(axis=-1, keepdims=True)), "вычли среднее", "mean-shift"),
    (check_softmax, shifted(lambda s: s.max()), "максимум всей матрицы", "global-max"),
    (check_softmax, shifted(lambda s: s.max(axis=0, keepdims=True)), "максимум столбца", "column-max"),
    (check_softmax, lambda s: softmax(s)[..., :-1], "ожидалась форма", "shape"),
    (check_softmax, lambda s: softmax(s) + 0.01, "строки не дают в сумме 1", "offset"),
    (check_softmax, lambda s: None, "return", "no-return"),
    (check_softmax, lambda s: 1 / 0, "ZeroDivisionError", "crash"),
    (check_softmax, softmax(np.array([1.0, 2.0])), "имя функции без скобок", "result-instead-of-function"),
    (check_softmax, lambda s: naive_softmax(s - max(s)), "встроенных max", "builtin-max"),
    (check_softmax, lambda s: np.exp(s) / np.exp(s).sum(axis=-1, keepdim=True), "keepdims", "torch-keepdim"),
    (check_softmax, lambda s: s.exp() / s.exp().sum(-1, keepdims=True), "np.exp", "exp-method"),
    (check_softmax, lambda s: stable_softmax(s).tolist, "функция", "tolist-without-call"),
    (check_softmax, lambda s: naive_softmax(s, axis=0), "столбцы", "axis0-naive"),
    (check_softmax, lambda s: np.log(softmax(s)), "log-softmax", "log-softmax"),
    (check_softmax, lambda s: str(softmax(s)), "текст", "string"),
    # ---- softmax: верные
    (check_softmax, softmax, None, "max-keepdims"),
    (check_softmax, softmax_rows_loop, None, "loop-over-rows"),
    (check_softmax, softmax_float32, None, "float32"),
    (check_softmax, softmax_logsumexp, None, "logsumexp"),
    (check_softmax, nt.softmax, None, "library"),
    (check_softmax, lambda s: nt.softmax(nt.tensor(s)), None, "tensor"),
    (check_softmax, softmax_nested_lists, None, "nested-lists"),
    (check_softmax, softmax_float32_other_order, None, "float32-other-order"),
    (check_softmax, softmax_apply_along_axis, None, "apply-along-axis"),
    (check_softmax, lambda s: nt.softmax(s.astype(np.float32)), None, "float32-library"),
    (check_softmax, lambda s: np.exp(s - s.max(-1)[..., None]) / np.exp(s - s.max(-1)[..., None]).sum(-1)[..., None],
     None, "none-index"),

    # ---- внимание для одного запроса: неверные
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q))), "похоже, это веса", "weights"),
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q)))[:, None] * V, "не сложены", "not-summed"),
    (check_attend_one, lambda q, K, V: V[0, :2], "ожидалась форма (3,)", "shape"),
    (check_attend_one, lambda q, K, V: nt.scaled_dot_product_attention(q[None], K, V)[0], "лишняя или недостающая ось",
     "extra-axis"),
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q) @ V, "забыли поделить оценки на √d_k", "no-sqrt"),
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q / len(q)) @ V, "поделены на d_k = 4, а нужно на √d_k", "by-d_k"),
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(K))) @ V, "√T", "by-sqrt-T"),
    (check_attend_one, lambda q, K, V: (K @ q / np.sqrt(len(q))) @ V, "примените softmax", "no-softmax"),
    (check_attend_one, lambda q, K, V: np.exp(K @ q / np.sqrt(len(q))) @ V, "не нормированы", "not-normalized"),
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q))) @ (K if K.shape == V.shape else V),
     "смешали ключи", "mix-keys"),
    (check_attend_one, lambda q, K, V: nt.softmax(V @ q / np.sqrt(len(q))) @ V if K.shape == V.shape else attend(q, K, V),
     "по значениям V", "scores-from-values"),
    (check_attend_one, lambda q, K, V: naive_softmax(K @ q / np.sqrt(len(q))) @ V, "вычтите из оценок максимум",
     "unstable"),
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q))) * V, "weights @ V", "weights-times-V"),
    (check_attend_one, lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q)), dim=-1) @ V, "axis", "torch-dim"),
    (check_attend_one, lambda q, K, V: list(nt.softmax(K @ q / np.sqrt(len(q)))), "похоже, это веса", "weights-list"),
    (check_attend_one, lambda q, K, V: (nt.softmax(K @ q / np.sqrt(len(q)))[:, None] * V).sum(axis=1), "по оси значений",
     "summed-over-values"),
    (check_attend_one, lambda q, K, V: attend(q, K, V) + 0.1, "смесь неверная", "offset"),
    (check_attend_one, lambda q, K, V: None, "return", "no-return"),
    (check_attend_one, lambda q, K, V: q @ K, "в умножении матриц", "q-at-K"),
    # ---- внимание для одного запроса: верные
    (check_attend_one, attend, None, "numpy"),
    (check_attend_one, attend_loop, None, "loops"),
    (check_attend_one, lambda q, K, V: nt.scaled_dot_product_attention(q[None], K, V)[0][0], None, "library-one-row"),
    (check_attend_one, lambda q, K, V: nt.tensor(attend(q, K, V)), None, "tensor"),
    (check_attend_one, lambda q, K, V: np.einsum("t,tv->v", nt.softmax(np.einsum("tk,k->t", K, q) / np.sqrt(q.size)), V),
     None, "einsum"),
    (check_attend_one, lambda q, K, V: attend(q.astype(np.float32), K.astype(np.float32), V.astype(np.float32)),
     None, "float32"),
    (check_attend_one, attend_average, None, "np-average"),
    (check_attend_one, attend_float32_list, None, "float32-list-loops"),
    (check_attend_one, lambda q, K, V: tuple(attend(q, K, V)), None, "tuple"),
    (check_softmax, softmax_in_place, "изменила свой вход scores на месте", "in-place"),
    (check_softmax, lambda s: np.exp(s - s.max(axis=-1, keepdims=True)), "ещё не нормированы", "exp-shifted-no-sum"),
    (check_attend_one, attend_one_in_place, "изменила свой вход q на месте", "in-place"),
    (check_attend_one, attend_one_not_divided, "не поделены на сумму", "exp-shifted-no-sum"),
]

"""Упражнение «напишите softmax» (урок 02)."""

import numpy as np

from course_lib.exercises._checker import Wrong, call, checker, expect_close, expect_finite, expect_shape
from course_lib.functional import softmax as reference


@checker
def check_softmax(candidate):
    """candidate(scores) -> веса той же формы, softmax по последней оси."""
    small = np.array([1.0, 2.0, 3.0])
    out = call(candidate, small)
    expect_shape(out, small.shape)
    if np.allclose(out, np.exp(small)):
        raise Wrong("это exp(scores), но веса ещё не нормированы: поделите на сумму, чтобы вышло 1")
    expect_close(out, reference(small), "на [1, 2, 3] веса неверные: softmax = exp(x) / сумма exp(x)")

    matrix = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    out = call(candidate, matrix)
    expect_shape(out, matrix.shape, "для матрицы (2, 3)")
    if np.allclose(out.sum(axis=0), 1) and not np.allclose(out.sum(axis=-1), 1):
        raise Wrong("для матрицы в сумме 1 дают столбцы, а нужны строки: суммируйте по axis=-1 с keepdims=True")
    if not np.allclose(out.sum(axis=-1), 1):
        raise Wrong("строки матрицы не дают в сумме 1: нормируйте каждую строку отдельно (axis=-1, keepdims=True)")
    expect_close(out, reference(matrix), "для матрицы (2, 3) веса неверные")

    large = np.array([1000.0, 1001.0, 1002.0])
    with np.errstate(all="ignore"):
        out = call(candidate, large)
    expect_finite(out, "exp(1000) переполняет float: вычтите из оценок их максимум — softmax от этого не меняется")
    expect_close(out, reference(large), "на больших оценках [1000, 1001, 1002] веса неверные")
    return "softmax работает: веса положительны, в сумме 1 и не боятся больших чисел"

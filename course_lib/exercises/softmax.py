"""Упражнение «напишите softmax» (урок 02): проверка на строках очень разного масштаба, батчах и float32."""

import numpy as np

from course_lib.exercises._checker import (Crashed, Wrong, call, checker, expect_close, expect_finite, expect_shape,
                                           matches, recognize, tolerance)
from course_lib.exercises._softmax import naive_softmax, stable_softmax
from course_lib.functional import softmax as reference

KEEPDIMS = ("без keepdims=True сумма (или максимум) по строкам теряет ось: из {shape} выходит {lost}, и NumPy "
            "растягивает её не по строкам, а по столбцам (или не может растянуть вовсе). "
            "С keepdims=True выходит {kept} — по числу на строку")
COLUMNS = "в сумме 1 дают столбцы, а нужны строки: суммируйте по axis=-1 с keepdims=True"
WHOLE = "поделили на сумму по всей матрице, а нужно по каждой строке: e.sum(axis=-1, keepdims=True)"


def _shifted(shift):
    """softmax со сдвигом `shift(x)` вместо максимума строки: так считают, когда вычитают не то."""
    return lambda x: naive_softmax(x - shift(x))


def _lost_axis(e):
    """Сумма по строкам без keepdims: делится не по строкам."""
    return e / e.sum(axis=-1)


# Ошибки, которые узнаём по ответу: как посчитал бы ошибившийся, и что ему сказать.
MISTAKES = [  # сначала сдвиги: они видны только на больших оценках, где все прочие ошибки тоже дают nan
    (_shifted(lambda x: x.min(axis=-1, keepdims=True)),
     "вы вычли минимум строки, а нужно максимум: на строке [-1000, 0, 1000] после вычитания минимума остаётся "
     "exp(2000) = inf, и веса становятся nan. После вычитания максимума все оценки ≤ 0 и exp ≤ 1"),
    (_shifted(lambda x: x.mean(axis=-1, keepdims=True)),
     "вы вычли среднее строки, а нужно максимум: на строке [-1000, 0, 1000] среднее 0 и exp(1000) всё равно "
     "переполняется. После вычитания максимума все оценки ≤ 0 и exp ≤ 1"),
    (_shifted(lambda x: x.max()),
     "вы вычли максимум всей матрицы, а нужен максимум каждой строки: в строке, где оценки намного меньше "
     "общего максимума, все exp становятся 0 и выходит 0/0. Берите scores.max(axis=-1, keepdims=True)"),
    (_shifted(lambda x: x.max(axis=0, keepdims=True)),
     "вы вычли максимум столбца (axis=0), а нужен максимум строки: scores.max(axis=-1, keepdims=True)"),
    (naive_softmax, "exp(1000) переполняет float: вычтите из оценок их максимум — softmax от этого не меняется"),
    (np.exp, "это exp(scores), но веса ещё не нормированы: поделите на сумму, чтобы вышло 1"),
    (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), "это exp(scores − max), но веса ещё не нормированы: "
                                                          "поделите на сумму по строке, чтобы вышло 1"),
    (lambda x: np.log(stable_softmax(x)), "это логарифм весов (log-softmax): нужны сами веса — уберите log"),
    (lambda x: naive_softmax(x, axis=0), COLUMNS),
    (lambda x: stable_softmax(x, axis=0), COLUMNS),
    (lambda x: np.exp(x) / np.exp(x).sum(), WHOLE),
    (lambda x: _lost_axis(np.exp(x - x.max(axis=-1, keepdims=True))), KEEPDIMS),
    (lambda x: _lost_axis(np.exp(x)), KEEPDIMS),
    (lambda x: naive_softmax(x - x.max(axis=-1)), KEEPDIMS),
]

MULTISCALE = np.array([[-1000.0, 0.0, 1000.0],        # одна матрица — строки очень разного масштаба
                       [1000.0, 1001.0, 1002.0],
                       [-1000.0, -999.0, -998.0],
                       [0.001, 0.002, 0.0]])

EXAMPLES = [  # (оценки, как о них сказать)
    (np.array([1.0, 2.0, 3.0]), "на [1, 2, 3]"),
    (np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), "для матрицы (2, 3)"),
    (np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [3.0, -1.0, 0.5]]), "для матрицы (3, 3)"),
    (np.array([1000.0, 1001.0, 1002.0]), "на больших оценках [1000, 1001, 1002]"),
    (np.array([-1000.0, 0.0, 1000.0]), "на оценках [-1000, 0, 1000]"),
    (MULTISCALE, "для матрицы, где строки очень разного масштаба (от ±0.001 до ±1000)"),
    (np.array([5.0]), "для одной оценки [5] (вес должен быть 1)"),
    (np.random.default_rng(2).normal(scale=30, size=(2, 4, 5)).astype(np.float32), "для батча (2, 4, 5) во float32"),
]


def _diagnose(out, x, right, where, tol):
    shape = x.shape
    hints = [(lambda m=mistake: m(x), hint.format(shape=shape, lost=shape[:-1], kept=shape[:-1] + (1,)))
             for mistake, hint in MISTAKES]
    recognize(out, right, hints, f"{where}: ", tol)
    if x.ndim > 1 and np.allclose(out.sum(axis=-2), 1):
        raise Wrong(f"{where}: {COLUMNS}")
    if x.ndim > 1 and np.isclose(out.sum(), 1):
        raise Wrong(f"{where}: {WHOLE}")


@checker
def check_softmax(candidate):
    """candidate(scores) -> веса той же формы, softmax по последней оси."""
    for x, where in EXAMPLES:
        try:
            out = call(candidate, x.copy())
        except Crashed as crash:
            if crash.kind == "broadcast" and x.ndim > 1 and "keepdims" not in str(crash):
                raise Wrong(f"{crash}. Похоже, {KEEPDIMS.format(shape=x.shape, lost=x.shape[:-1], kept=x.shape[:-1] + (1,))}"
                            ) from None
            raise
        expect_shape(out, x.shape, where)
        right = reference(x.astype(float))
        tol = tolerance(scale=1 + np.abs(x).max())      # exp(x − max) теряет eps · |x|
        if matches(out, right, tol):
            continue
        _diagnose(out, x.astype(float), right, where, tol)
        if not np.allclose(out.sum(axis=-1), 1):
            raise Wrong(f"{where}: строки не дают в сумме 1 — нормируйте каждую строку отдельно "
                        "(axis=-1, keepdims=True)")
        expect_finite(out, f"{where}: вычтите из оценок максимум строки — softmax от этого не меняется")
        expect_close(out, right, f"{where}: веса неверные — softmax = exp(x) / сумма exp(x) по строке", tol)
    return "softmax работает: веса положительны, в сумме 1 и не боятся больших чисел"

"""Упражнения урока 05: причинная маска поверх оценок и маска паддинга для батча."""

import numpy as np

from course_lib.exercises._checker import (Crashed, Wrong, call, checker, expect_close, expect_finite, expect_numbers,
                                           expect_shape, recognize, tolerance)
from course_lib.exercises._softmax import naive_softmax, stable_softmax
from course_lib.functional import softmax
from course_lib.nn import MultiHeadAttention
from course_lib.rng import temporary_seed

FLIPPED = ("маска перевёрнута: открыто только будущее, а прошлое и сам токен спрятаны — последнему токену смотреть "
           "вовсе некуда. Клетки выше диагонали, np.triu(..., k=1), — это и есть будущее, то, что надо спрятать. "
           "«Можно смотреть» — нижний треугольник с диагональю: np.tril(np.ones((T, T))) или nt.causal_mask(T), "
           "и np.where(можно, scores, -np.inf)")
SHAPES = ("broadcast", "matmul", "index", "axis", "transpose", "reshape")   # ошибки форм, а не типов или имён
SELF_HIDDEN = ("на диагонали нули: токену запрещено смотреть на себя. Прятать нужно только будущее — клетки строго "
               "выше диагонали; диагональ остаётся открытой: np.tril(np.ones((T, T))) с k=0 или nt.causal_mask(T)")


ZERO_SCORES = ("оценки, равные нулю, спрятаны вместе с будущим: маску узнали по значению (scores * tril, потом "
               "0 -> -inf), а ноль бывает и настоящей оценкой — у нулевых оценок токен делит вес поровну между собой "
               "и прошлым. Прячьте по положению, а не по значению: np.where(nt.causal_mask(T), scores, -np.inf)")
NOT_NORMALIZED = ("exp посчитан, но строки не поделены на сумму: веса каждого запроса должны давать в сумме 1 — "
                  "e / e.sum(axis=-1, keepdims=True)")
KEEPDIMS = ("сумма по строкам взята без keepdims=True: e.sum(axis=-1) теряет ось, и NumPy растягивает её по другой "
            "оси — клетка (i, j) поделена на сумму строки j, а не i. Нужно e.sum(axis=-1, keepdims=True)")


def lost_axis(e):
    """Сумма по строкам без keepdims: (..., T, T) / (..., T) делит столбец j на сумму строки j."""
    return e / e.sum(axis=-1)


def _causal_mistakes(scores):
    """Ошибки ученика: как вышли бы веса, и что ему сказать. Каждую считаем с двумя softmax: nt.softmax и «свой»."""
    *_, T = scores.shape
    ones = np.ones((T, T))
    allowed = np.tril(ones) == 1
    masks = [
        (np.triu(ones, k=1) == 1, -np.inf, FLIPPED),                     # triu(k=1) принят за «можно»
        (np.tril(ones, k=-1) == 1, -np.inf, SELF_HIDDEN),                # спрятан и сам токен
        (np.triu(ones) == 1, -np.inf, "вы спрятали прошлое, а не будущее: нули должны быть выше диагонали. "
                                      "«Можно смотреть» — это np.tril, будущее — клетки выше диагонали"),
        (allowed, 0.0, "оценки будущего заменены нулём, а exp(0) = 1 — будущее всё равно получает вес. Нужно -np.inf"),
    ]
    masked = np.where(allowed, scores, -np.inf)
    mistakes = [(lambda: np.full(scores.shape, np.nan), "всё вышло nan, даже там, где маски нет: −inf · 0 = nan. "
                                                        "Маску-слагаемое стройте через np.where(можно, 0.0, -np.inf)")]
    for mask, fill, hint in masks:
        for soft in (softmax, stable_softmax):
            mistakes.append((lambda m=mask, f=fill, s=soft: s(np.where(m, scores, f)), hint))
    return mistakes + [
        (lambda: softmax(scores), "маски нет: веса такие же, как без неё. Замените оценки выше диагонали на -np.inf "
                                  "до softmax"),
        (lambda: softmax(scores) * allowed, "маска применена после softmax: будущее обнулено, но строки больше "
                                            "не дают в сумме 1. Сначала -np.inf в оценках, потом softmax"),
        (lambda: softmax(scores) * allowed / (softmax(scores) * allowed).sum(axis=-1, keepdims=True),
         "будущее обнулено после softmax и строки нормированы заново: если оценка будущего намного больше прошлых, "
         "весь вес уходит ей, прошлому остаются нули, и выходит 0/0. Прячьте будущее до softmax: -np.inf в оценках"),
        (lambda: softmax(np.where(allowed, scores, -np.inf), axis=-2), "в сумме 1 дают столбцы, а нужны строки: "
                                                                       "softmax по последней оси (axis=-1)"),
        (lambda: naive_softmax(np.where(allowed, scores, -np.inf)), "exp переполнился: вычтите максимум строки "
                                                                    "или берите nt.softmax"),
        (lambda: softmax(np.where(allowed & (scores != 0), scores, -np.inf)), ZERO_SCORES),
        (lambda: np.where(allowed, scores, -np.inf), "вернулись оценки с -inf над диагональю, а нужны веса: "
                                                     "осталось взять от них softmax по строкам"),
        (lambda: np.exp(masked - masked.max(axis=-1, keepdims=True)), NOT_NORMALIZED),
        (lambda: np.exp(masked), NOT_NORMALIZED),
        (lambda: lost_axis(np.exp(masked - masked.max(axis=-1, keepdims=True))), KEEPDIMS),
        (lambda: lost_axis(np.exp(masked)), KEEPDIMS),
    ]


def _causal_reference(scores):
    *_, T = scores.shape
    return softmax(np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf))


def _causal_examples():
    rng = np.random.default_rng(0)
    yield rng.normal(size=(5, 5)), "для оценок (5, 5)"
    yield np.array([[0.7]]), "для одного токена (T = 1): он видит только себя, вес 1"
    yield np.random.default_rng(1).normal(size=(2, 3, 4, 4)), "для батча оценок (N, h, T, T) = (2, 3, 4, 4)"
    yield np.array([[1000.0, 2000.0, 1500.0], [3000.0, 1000.0, 0.0], [0.0, 500.0, 2500.0]]), "на больших оценках"
    yield rng.normal(scale=5, size=(6, 6)).astype(np.float32), "для оценок (6, 6) во float32"
    yield np.zeros((4, 4)), "для нулевых оценок (4, 4)"
    yield np.array([[0.0, 0.0, 0.0], [1.0, 0.0, -2.0], [0.0, -1.0, 0.0]]), "для оценок (3, 3) с нулями в прошлом"


@checker
def check_causal_weights(candidate):
    """candidate(scores (..., T, T)) -> веса той же формы: будущее спрятано, строки в сумме 1."""
    for scores, where in _causal_examples():
        try:
            out = call(candidate, scores.copy())
        except Crashed as crash:
            if "nan" in str(crash.error):
                raise Wrong(f"{crash}. Во входе nan нет — он появился у вас: −inf · 0 = nan. Маску-слагаемое "
                            "стройте через np.where(можно, 0.0, -np.inf)") from None
            if scores.ndim > 2 and crash.kind in SHAPES:
                raise Wrong(f"{crash}. {where[0].upper()}{where[1:]} длина — последняя ось: T = scores.shape[-1], "
                            "а маска (T, T) сама растянется на первые оси") from None
            raise
        expect_numbers(out, where, scores.shape)
        if out.ndim and out.shape != scores.shape:
            raise Wrong(f"{where}: ожидалась форма {scores.shape}, а получилась {out.shape}. Веса той же формы, "
                        "что оценки: берите T = scores.shape[-1], маска (T, T) сама растянется на первые оси")
        expect_shape(out, scores.shape, where)
        scores64 = scores.astype(float)
        right = _causal_reference(scores64)
        tol = tolerance(scale=1 + np.abs(scores64).max())
        recognize(out, right, _causal_mistakes(scores64), f"{where}: ", tol)
        if np.isnan(out).any() and np.isnan(out[..., 0, :]).all():
            raise Wrong(f"{where}: первая строка — nan: её токену не на кого смотреть. Диагональ должна остаться "
                        "открытой — токен видит сам себя")
        expect_finite(out, f"{where}: маскируйте оценки значением -np.inf и берите устойчивый softmax (nt.softmax)")
        if not np.allclose(np.triu(out, k=1), 0):
            raise Wrong(f"{where}: выше диагонали остались ненулевые веса — токен подглядывает в будущее")
        if not np.allclose(out.sum(axis=-1), 1):
            raise Wrong(f"{where}: строки не дают в сумме 1 — нормируйте по последней оси после маски")
        expect_close(out, right, f"{where}: веса неверные — маска -inf выше диагонали, потом softmax по строкам", tol)
    return "будущее спрятано, строки в сумме 1, работает для любого числа осей впереди"


def _padding_examples():
    yield np.array([4, 2, 6]), 6, "для lengths = [4, 2, 6], T = 6"
    yield np.array([3, 1]), 5, "для lengths = [3, 1], T = 5 (паддинг есть у всех)"
    yield np.array([1, 3, 2]), 3, "для lengths = [1, 3, 2], T = 3 (N = T)"
    yield np.array([2]), 2, "для одной фразы без паддинга: lengths = [2], T = 2"


@checker
def check_padding_mask(candidate):
    """candidate(lengths (N,), T) -> булева маска (N, 1, 1, T): True там, где настоящий токен."""
    for lengths, T, where in _padding_examples():
        N = len(lengths)
        try:
            mask = call(candidate, lengths.copy(), T)
        except Crashed as crash:
            if crash.kind != "broadcast":
                raise
            raise Wrong(f"{crash}. Позиции np.arange(T) — форма ({T},), длины — ({N},): чтобы сравнить каждую "
                        f"позицию с каждой длиной, поставьте длины столбцом, lengths[:, None] -> ({N}, 1)") from None
        reference = (np.arange(T) < lengths[:, None])[:, None, None, :]      # (N, 1, 1, T)
        expect_numbers(mask, f"{where}: маска", reference.shape)
        if mask.dtype != bool:
            raise Wrong(f"маска должна быть булевой (dtype bool), а пришёл {mask.dtype}: сравнение `<` даёт bool сразу")
        if mask.shape == (N, T) and T > 1:
            raise Wrong("форма (N, T) — это маска по ключам, но без осей голов и запросов. "
                        "Добавьте их: mask[:, None, None, :] -> (N, 1, 1, T)")
        if mask.shape == (N, 1, T, 1) and T > 1:
            raise Wrong("форма (N, 1, T, 1) прячет запросы, а не ключи: последняя ось маски — ключи, "
                        "нужна (N, 1, 1, T)")
        if mask.shape[:-1] == (N, 1, 1) and mask.shape[-1] == lengths.max() != T:
            raise Wrong(f"{where}: последняя ось маски — {mask.shape[-1]} = max(lengths), а нужна T = {T}: "
                        "паддинг доходит до длины батча T, даже если самая длинная фраза короче")
        expect_shape(mask, (N, 1, 1, T), f"{where}: маска")
        recognize(mask, reference, [
            (lambda: ~reference, "маска перевёрнута: в курсе True значит «можно смотреть» (настоящий токен), "
                                 "False — паддинг. Наоборот устроен key_padding_mask в torch.nn.MultiheadAttention"),
            (lambda: (np.arange(T) <= lengths[:, None])[:, None, None, :],
             "на одну позицию больше: у фразы длины L настоящие позиции 0…L−1, сравнивайте строго, np.arange(T) < L"),
            (lambda: (np.arange(T) < lengths)[None, None, None, :].repeat(N, axis=0),
             "позиции сравнены с длинами поэлементно: позиция t — с длиной фразы t. Поставьте длины столбцом: "
             "np.arange(T) < lengths[:, None]"),
        ], f"{where}: ")
        if not np.array_equal(mask, reference):
            raise Wrong(f"{where}: маска неверная — у фразы длины L открыты ключи 0…L−1, остальные — паддинг")

    lengths, T = np.array([4, 2, 6]), 6
    x = np.random.default_rng(0).normal(size=(3, T, 8))
    with temporary_seed(0):
        mha = MultiHeadAttention(d_model=8, num_heads=2)
    padded = mha(x, mask=call(candidate, lengths, T)).data
    for n, L in enumerate(lengths):                 # каждая фраза — как если бы она была в батче одна
        alone = mha(x[n:n + 1, :L]).data[0]
        if not np.allclose(padded[n, :L], alone):
            raise Wrong(f"с вашей маской выход фразы {n} зависит от паддинга")
    return "паддинг спрятан: каждая фраза в батче считается так, будто она одна"

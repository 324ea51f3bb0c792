"""Упражнения урока 05: причинная маска поверх оценок и маска паддинга для батча."""

import numpy as np

from course_lib.exercises._checker import Wrong, call, checker, expect_close, expect_finite, expect_shape
from course_lib.functional import softmax
from course_lib.nn import MultiHeadAttention
from course_lib.rng import temporary_seed


def _causal_reference(scores):
    T = scores.shape[-1]
    return softmax(np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf))


@checker
def check_causal_weights(candidate):
    """candidate(scores (..., T, T)) -> веса той же формы: будущее спрятано, строки в сумме 1."""
    scores = np.random.default_rng(0).normal(size=(5, 5))
    with np.errstate(all="ignore"):
        out = call(candidate, scores)
    expect_shape(out, scores.shape, "для оценок (5, 5)")
    if np.isnan(out).any() and np.isnan(out[0]).all():
        raise Wrong("первая строка — nan: её токену не на кого смотреть. Диагональ должна остаться открытой — "
                    "токен видит сам себя (np.tril с k=0 или np.triu с k=1)")
    expect_finite(out, "Маскируйте оценки значением -np.inf и берите устойчивый softmax (nt.softmax).")
    upper, lower = np.triu(out, k=1), np.tril(out, k=-1)
    if np.allclose(np.diag(out), 0):
        raise Wrong("на диагонали нули: токену запрещено смотреть на себя. Прятать нужно только будущее — "
                    "клетки строго выше диагонали (np.triu(..., k=1))")
    if not np.allclose(upper, 0) and np.allclose(lower, 0):
        raise Wrong("вы спрятали прошлое, а не будущее: нули должны быть выше диагонали. "
                    "«Можно смотреть» — это np.tril, а np.triu(k=1) — то, что прятать")
    if not np.allclose(upper, 0):
        if np.allclose(out, softmax(scores)):
            raise Wrong("маски нет: веса такие же, как без неё. Замените оценки выше диагонали на -np.inf до softmax")
        if np.allclose(out, softmax(np.where(np.tril(np.ones((5, 5))) == 1, scores, 0.0))):
            raise Wrong("оценки будущего заменены нулём, а exp(0) = 1 — будущее всё равно получает вес. Нужно -np.inf")
        raise Wrong("выше диагонали остались ненулевые веса: токен подглядывает в будущее")
    if np.allclose(out.sum(axis=0), 1) and not np.allclose(out.sum(axis=-1), 1):
        raise Wrong("в сумме 1 дают столбцы, а нужны строки: softmax по последней оси (axis=-1)")
    if not np.allclose(out.sum(axis=-1), 1):
        if np.allclose(out, softmax(scores) * np.tril(np.ones((5, 5)))):
            raise Wrong("маска применена после softmax: будущее обнулено, но строки больше не дают в сумме 1. "
                        "Сначала -np.inf в оценках, потом softmax")
        raise Wrong("строки не дают в сумме 1: нормируйте по последней оси")
    expect_close(out, _causal_reference(scores), "веса неверные: маска -inf выше диагонали, потом softmax по строкам")

    batch = np.random.default_rng(1).normal(size=(2, 3, 4, 4))          # (N, h, T, T): маска одна на всех
    try:
        out = call(candidate, batch)
    except Wrong as wrong:
        raise Wrong(f"{wrong}. На батче оценок (N, h, T, T) = (2, 3, 4, 4) длина — последняя ось: "
                    "T = scores.shape[-1], а маска (T, T) сама растянется на первые оси") from None
    expect_shape(out, batch.shape, "для батча оценок (N, h, T, T) = (2, 3, 4, 4)")
    expect_close(out, _causal_reference(batch), "для батча (2, 3, 4, 4) веса неверные: берите T из scores.shape[-1]")

    large = np.array([[1000.0, 2000.0], [3000.0, 1000.0]])
    with np.errstate(all="ignore"):
        out = call(candidate, large)
    expect_finite(out, "на больших оценках exp переполняется: вычтите максимум строки или берите nt.softmax")
    expect_close(out, _causal_reference(large), "на больших оценках веса неверные")
    return "будущее спрятано, строки в сумме 1, работает для любого числа осей впереди"


@checker
def check_padding_mask(candidate):
    """candidate(lengths (N,), T) -> булева маска (N, 1, 1, T): True там, где настоящий токен."""
    lengths, T = np.array([4, 2, 6]), 6
    mask = call(candidate, lengths, T)
    reference = (np.arange(T) < lengths[:, None])[:, None, None, :]      # (N, 1, 1, T)
    if mask.dtype != bool:
        raise Wrong(f"маска должна быть булевой (dtype bool), а пришёл {mask.dtype}: сравнение `<` даёт bool сразу")
    if mask.shape == (3, T):
        raise Wrong("форма (N, T) — это маска по ключам, но без осей голов и запросов. "
                    "Добавьте их: mask[:, None, None, :] -> (N, 1, 1, T)")
    if mask.shape == (3, 1, T, 1):
        raise Wrong("форма (N, 1, T, 1) прячет запросы, а не ключи: последняя ось маски — ключи, нужна (N, 1, 1, T)")
    expect_shape(mask, (3, 1, 1, T), "маска для lengths = [4, 2, 6], T = 6")
    if np.array_equal(mask, ~reference):
        raise Wrong("маска перевёрнута: в курсе True значит «можно смотреть» (настоящий токен), False — паддинг. "
                    "Наоборот устроен key_padding_mask в torch.nn.MultiheadAttention")
    if np.array_equal(mask, (np.arange(T) <= lengths[:, None])[:, None, None, :]):
        raise Wrong("на одну позицию больше: у фразы длины L настоящие позиции 0…L−1, сравнивайте строго, np.arange(T) < L")
    if not np.array_equal(mask, reference):
        raise Wrong("маска неверная: у фразы длины L открыты ключи 0…L−1, остальные — паддинг")

    x = np.random.default_rng(0).normal(size=(3, T, 8))
    with temporary_seed(0):
        mha = MultiHeadAttention(d_model=8, num_heads=2)
    padded = mha(x, mask=call(candidate, lengths, T)).data
    for n, L in enumerate(lengths):                 # каждая фраза — как если бы она была в батче одна
        alone = mha(x[n:n + 1, :L]).data[0]
        if not np.allclose(padded[n, :L], alone):
            raise Wrong(f"с вашей маской выход фразы {n} зависит от паддинга")
    return "паддинг спрятан: каждая фраза в батче считается так, будто она одна"

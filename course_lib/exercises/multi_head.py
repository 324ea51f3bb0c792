"""Упражнения урока 06: разрезать последнюю ось на головы (_split) и склеить обратно (_merge)."""

import numpy as np

from course_lib.exercises._checker import Wrong, call, checker, expect_close, expect_numbers, expect_shape, recognize
from course_lib.nn import MultiHeadAttention
from course_lib.rng import temporary_seed

# (N, T, D) = (2, 3, 8): числа 0…47 подряд — по ним видно, какой столбец куда уехал.
N, T, D = 2, 3, 8
# Другие формы: одна фраза из одного токена, и батч побольше во float32.
SPLITS = [((N, T, D), 4, float), ((N, T, D), 2, float), ((N, T, D), 1, float), ((N, T, D), 8, float),
          ((1, 1, 6), 3, float), ((3, 5, 12), 3, np.float32)]
MERGES = [((N, 4, T, 2), float), ((N, 2, T, 4), float), ((N, 1, T, 8), float), ((1, 3, 1, 2), float),
          ((3, 3, 5, 4), np.float32)]


def _numbered(shape, dtype=float):
    return np.arange(np.prod(shape), dtype=dtype).reshape(shape)


# Эталоны собраны иначе, чем решение урока (reshape и transpose): этот файл ученик может открыть,
# и строк решения в нём нет (tests/test_checkers_hold_no_solutions.py). Числа те же, бит в бит.
def _split_reference(x, h):
    width = x.shape[-1] // h
    return np.stack([x[..., i * width:(i + 1) * width] for i in range(h)], axis=1)   # (N, h, T, d_head)


def _merge_reference(x):
    return np.concatenate([x[:, i] for i in range(x.shape[1])], axis=-1)             # (N, T, h·d_head)


def _where_from(out, shape):
    """Вход — числа 0, 1, 2, … подряд: по числу в ответе видно, откуда оно взято. -> оси входа для каждого числа
    ответа (кортеж массивов) или None, если в ответе не номера входа."""
    if not np.all((out == np.round(out)) & (out >= 0) & (out < np.prod(shape))):
        return None
    return np.unravel_index(out.astype(int), shape)


def _split_story(out, shape, h):
    """Что случилось с головами, словами: батч, токены, головы, столбцы внутри головы — что не на месте."""
    N, T, D = shape
    d_head = D // h
    source = _where_from(out, shape)
    if source is None:
        return None
    batch, token, column = source                                   # каждое — (N, h, T, d_head)
    n, i, t, k = np.indices(out.shape)
    if not np.array_equal(batch, n):
        return ("числа разных фраз батча перемешались: x.T у трёхмерного массива переворачивает все оси, "
                "(N, T, D) -> (D, T, N). Переставляйте только оси токенов и голов: transpose(0, 2, 1, 3)")
    if not np.array_equal(token, t):
        if np.array_equal(token, T - 1 - t):
            return "токены встали в обратном порядке: голова i токена t должна получить числа токена t"
        return "голова получила числа чужого токена: out[:, i, t] — кусок вектора токена t, x[:, t]"
    if not np.array_equal(column // d_head, i):
        if np.array_equal(column // d_head, h - 1 - i):
            return ("головы встали в обратном порядке: голова 0 — первые d_head столбцов x, "
                    "x[:, :, 0:d_head], голова 1 — следующие")
        return "головы получили не свои столбцы: голова i — это x[:, :, i·d_head:(i+1)·d_head]"
    if np.array_equal(column % d_head, d_head - 1 - k):
        return "внутри головы столбцы встали в обратном порядке: голова i — это x[:, :, i·d_head:(i+1)·d_head] подряд"
    return "внутри головы столбцы переставлены: голова i — это x[:, :, i·d_head:(i+1)·d_head] подряд"


def _merge_story(out, shape):
    """То же для склейки: out[n, t, j] должен прийти из головы j // d_head, числа j % d_head, токена t."""
    N, h, T, d_head = shape
    source = _where_from(out, shape)
    if source is None:
        return None
    batch, head, token, number = source                             # каждое — (N, T, D)
    n, t, j = np.indices(out.shape)
    if not np.array_equal(batch, n):
        return "числа разных фраз батча перемешались: ось батча (0) должна остаться на месте"
    if not np.array_equal(token, t):
        if np.array_equal(token, T - 1 - t):
            return "токены встали в обратном порядке: в строке токена t — головы этого же токена t"
        return "в строку токена t попали числа другого токена: склеивайте головы одного токена, x[:, :, t]"
    if np.array_equal(head, j % h) and h > 1:
        return ("числа голов перемежаются: transpose(0, 2, 3, 1) ставит рядом k-е числа всех голов. Нужно "
                "transpose(0, 2, 1, 3) -> (N, T, h, d_head), тогда в строке подряд идут все числа головы 0, потом 1, …")
    if not np.array_equal(head, j // d_head):
        if np.array_equal(head, h - 1 - j // d_head):
            return "головы склеены в обратном порядке: сначала голова 0, потом 1, …"
        return "головы склеены не в том порядке: сначала все числа головы 0, потом головы 1, …"
    return "внутри головы числа переставлены: d_head чисел головы идут подряд, как были"


@checker
def check_split_heads(candidate):
    """candidate(x (N, T, D), h) -> (N, h, T, d_head): голова i получает столбцы i·d_head … (i+1)·d_head − 1."""
    for shape, h, dtype in SPLITS:
        x = _numbered(shape, dtype)
        N, T, D = shape
        d_head = D // h
        out = call(candidate, x.copy(), h)
        if out.shape == (N, T, h, d_head) and T != h:
            raise Wrong(f"форма {out.shape} — это (N, T, h, d_head): ось голов надо вынести вперёд, "
                        "transpose(0, 2, 1, 3) -> (N, h, T, d_head)")
        expect_numbers(out, f"для x {x.shape} и h = {h}", (N, h, T, d_head))
        if out.shape == (h, N, T, d_head) and h != N:
            raise Wrong(f"форма {out.shape} — это (h, N, T, d_head): ось голов должна стоять после батча. "
                        "Если головы собраны списком — np.stack(головы, axis=1)")
        expect_shape(out, (N, h, T, d_head), f"для x {x.shape} и h = {h} (N, T, D = x.shape; d_head = D // h)")
        recognize(out, _split_reference(x, h), [
            (lambda: x.reshape(N, h, T, d_head),
             "reshape сразу в (N, h, T, d_head) перемешивает токены: голова 0 получила кусок токена 1. "
             "Сначала reshape(N, T, h, d_head) — разрезать вектор каждого токена, потом transpose(0, 2, 1, 3)"),
            (lambda: x.reshape(N, T, d_head, h).transpose(0, 3, 1, 2),
             "голове i достался каждый h-й столбец, а нужны подряд идущие столбцы "
             "i·d_head … (i+1)·d_head − 1: режьте reshape(N, T, h, d_head), а не (N, T, d_head, h)"),
        ], tol=0)
        story = None if np.array_equal(out, _split_reference(x, h)) else _split_story(out, shape, h)
        if story:
            raise Wrong(f"при x {shape} и h = {h}: {story}")
        expect_close(out, _split_reference(x, h), f"при h = {h} головы получили не те числа: голова i — это "
                                                  "x[:, :, i·d_head:(i+1)·d_head]")
    return "головы нарезаны как в MultiHeadAttention._split"


@checker
def check_merge_heads(candidate):
    """candidate(x (N, h, T, d_head)) -> (N, T, h·d_head): обратно к _split."""
    for shape, dtype in MERGES:
        N, h, T, d_head = shape
        heads = _numbered(shape, dtype)
        D = h * d_head
        out = call(candidate, heads.copy())
        if out.shape == (N, h, T * d_head) and h != T:
            raise Wrong(f"форма {out.shape}: склеились токены одной головы, а надо головы одного токена. "
                        "Сначала transpose(0, 2, 1, 3) -> (N, T, h, d_head), потом reshape(N, T, h·d_head)")
        expect_numbers(out, f"для голов формы {heads.shape}", (N, T, D))
        if out.shape == (N, h * T, d_head) and h > 1:
            raise Wrong(f"форма {out.shape} = (N, h·T, d_head): головы склеены по оси токенов, а нужно по последней "
                        "оси — числа голов одного токена подряд: np.concatenate(головы, axis=-1)")
        if out.shape == (N, T, d_head) and h > 1:
            raise Wrong(f"для голов формы {heads.shape}: вышла форма {out.shape} = (N, T, d_head) — одна голова или "
                        "головы сложены (sum, mean по оси голов). Головы не складывают, а ставят рядом: "
                        "transpose(0, 2, 1, 3), потом reshape(N, T, h·d_head)")
        expect_shape(out, (N, T, D), f"для голов формы {heads.shape} (N, h, T, d_head = x.shape)")
        recognize(out, _merge_reference(heads), [
            (lambda: heads.reshape(N, T, D), "reshape без transpose склеивает соседние токены одной головы. "
                                             "Сначала верните ось голов на место: transpose(0, 2, 1, 3), "
                                             "потом reshape(N, T, D)"),
        ], tol=0)
        story = None if np.array_equal(out, _merge_reference(heads)) else _merge_story(out, shape)
        if story:
            raise Wrong(f"при головах формы {shape}: {story}")
        expect_close(out, _merge_reference(heads), f"при h = {h} числа встали не на свои места: в строке токена t "
                                                   "подряд идут головы 0, 1, …")

    N, T, D = 2, 3, 8
    x = _numbered((N, T, D))
    expect_close(call(candidate, _split_reference(x, 4)), x, "merge(split(x)) должно вернуть x")
    with temporary_seed(0):
        mha = MultiHeadAttention(d_model=D, num_heads=4)
    inputs = np.random.default_rng(0).normal(size=(N, T, D))
    expected = mha(inputs).data
    mha._merge = lambda context: candidate(context.data)     # слой с вашей склейкой (на массивах NumPy)
    try:
        got = call(mha, inputs)
    finally:
        del mha._merge
    expect_close(got, expected, "MultiHeadAttention с вашим _merge даёт другой выход")
    return "головы склеены обратно: merge(split(x)) == x, и слой с вашим _merge считает то же самое"

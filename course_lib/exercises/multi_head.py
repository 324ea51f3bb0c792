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


def _split_reference(x, h):
    N, T, D = x.shape
    return x.reshape(N, T, h, D // h).transpose(0, 2, 1, 3)          # (N, h, T, d_head)


def _merge_reference(x):
    N, h, T, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(N, T, h * d_head)          # (N, T, D)


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
        expect_shape(out, (N, T, D), f"для голов формы {heads.shape} (N, h, T, d_head = x.shape)")
        recognize(out, _merge_reference(heads), [
            (lambda: heads.reshape(N, T, D), "reshape без transpose склеивает соседние токены одной головы. "
                                             "Сначала верните ось голов на место: transpose(0, 2, 1, 3), "
                                             "потом reshape(N, T, D)"),
        ], tol=0)
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

"""Урок 06: разрезать на головы и склеить обратно — неверные ответы (с куском подсказки) и верные (None)."""

import numpy as np

from course_lib.exercises.multi_head import check_merge_heads, check_split_heads


def split_heads(x, h):
    N, T, D = x.shape
    return x.reshape(N, T, h, D // h).transpose(0, 2, 1, 3)


def split_loop(x, h):
    N, T, D = x.shape
    d_head = D // h
    out = np.empty((N, h, T, d_head), dtype=x.dtype)
    for i in range(h):
        out[:, i] = x[:, :, i * d_head:(i + 1) * d_head]
    return out


def merge_heads(x):
    N, h, T, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(N, T, h * d_head)


def merge_loop(x):
    N, h, T, d_head = x.shape
    out = np.empty((N, T, h * d_head), dtype=x.dtype)
    for i in range(h):
        out[:, :, i * d_head:(i + 1) * d_head] = x[:, i]
    return out


def split_float_d_head(x, h):
    N, T, D = x.shape
    return x.reshape(N, T, h, D / h).transpose(0, 2, 1, 3)


def split_torch_view(x, h):
    N, T, D = x.shape
    return x.view(N, T, h, D // h).permute(0, 2, 1, 3)


def merge_float32_list_of_tokens(x):
    """Токен за токеном: головы одного токена подряд, ответ — вложенный список во float32."""
    N, h, T, d_head = x.shape
    return [[np.concatenate([x[n, i, t] for i in range(h)]).astype(np.float32).tolist() for t in range(T)]
            for n in range(N)]


def _split_in_place(x, h):
    """Разрезает верно, но сначала портит вход: x *= 1 + 0 — не портит, а x += 0.5 — да."""
    x += 0.5
    N, T, D = x.shape
    return (x - 0.5).reshape(N, T, h, D // h).transpose(0, 2, 1, 3)


CASES = [
    # ---- разрезать на головы: неверные
    (check_split_heads, lambda x, h: x.reshape(x.shape[0], x.shape[1], h, -1), "ось голов", "no-transpose"),
    (check_split_heads, lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1), "перемешивает токены", "reshape-only"),
    (check_split_heads, lambda x, h: x.reshape(x.shape[0], x.shape[1], -1, h).transpose(0, 3, 1, 2),
     "каждый h-й столбец", "strided"),
    (check_split_heads, lambda x, h: x.reshape(x.shape[0], x.shape[1], h, -1).transpose(0, 2, 3, 1), "форма",
     "wrong-transpose"),
    (check_split_heads, lambda x, h: split_heads(x, 4), "форма", "h-fixed"),
    (check_split_heads, lambda x, h: split_heads(x, h)[:, ::-1], "головы встали в обратном", "heads-reversed"),
    (check_split_heads, lambda x, h: x.reshape(2, 3, h, -1).transpose(0, 2, 1, 3), "reshape невозможен", "N-T-fixed"),
    (check_split_heads, lambda x, h: None, "return", "no-return"),
    (check_split_heads, split_float_d_head, "делите через //", "float-d_head"),
    (check_split_heads, split_torch_view, "reshape", "torch-view"),
    (check_split_heads, lambda x, h: list(np.split(x, h, axis=-1)), "np.stack(головы, axis=1)", "list-of-heads"),
    (check_split_heads, lambda x, h: x.reshape(*x.shape[:2], h, -1).transpose(0, 2, 1), "transpose", "transpose-3-axes"),
    (check_split_heads, lambda x, h: x.T.reshape(x.shape[0], h, x.shape[1], -1), "x.T у трёхмерного", "x-T"),
    (check_split_heads, lambda x, h: np.stack(np.split(x, h, axis=-1)[::-1], axis=1), "головы встали в обратном",
     "split-list-reversed"),
    (check_split_heads, lambda x, h: np.stack(np.split(x, h, axis=-1), axis=1)[:, :, ::-1], "токены встали в обратном",
     "tokens-reversed"),
    (check_split_heads, lambda x, h: np.stack(np.split(x, h, axis=-1), axis=1)[..., ::-1], "внутри головы столбцы",
     "columns-reversed"),
    (check_split_heads, lambda x, h: _split_in_place(x, h), "изменила свой вход x на месте", "in-place"),
    # ---- разрезать на головы: верные
    (check_split_heads, split_heads, None, "reshape-transpose"),
    (check_split_heads, lambda x, h: x.reshape(*x.shape[:2], h, -1).swapaxes(1, 2), None, "swapaxes"),
    (check_split_heads, lambda x, h: np.stack(np.split(x, h, axis=-1), axis=1), None, "split-stack"),
    (check_split_heads, split_loop, None, "loop"),
    (check_split_heads, lambda x, h: np.transpose(np.reshape(x, (*x.shape[:2], h, x.shape[2] // h)), (0, 2, 1, 3)).tolist(),
     None, "np-functions-tolist"),
    (check_split_heads, lambda x, h: np.moveaxis(x.reshape(*x.shape[:-1], h, -1), -2, 1).astype(np.float32), None,
     "moveaxis-float32"),

    # ---- склеить обратно: неверные
    (check_merge_heads, lambda x: x.reshape(x.shape[0], x.shape[2], -1), "reshape без transpose", "reshape-only"),
    (check_merge_heads, lambda x: x.reshape(x.shape[0], x.shape[1], -1), "склеились токены одной головы", "heads-kept"),
    (check_merge_heads, lambda x: x.transpose(0, 2, 3, 1).reshape(x.shape[0], x.shape[2], -1), "перемежаются",
     "wrong-transpose"),
    (check_merge_heads, lambda x: x[:, 0], "форма", "first-head"),
    (check_merge_heads, lambda x: x.sum(axis=1), "форма", "summed-heads"),
    (check_merge_heads, lambda x: x.transpose(0, 2, 1, 3).reshape(2, 3, -1), "N, h, T, d_head = x.shape", "N-T-fixed"),
    (check_merge_heads, lambda x: 1 / 0, "ZeroDivisionError", "crash"),
    (check_merge_heads, lambda x: x.permute(0, 2, 1, 3).reshape(x.shape[0], x.shape[2], -1), ".transpose", "torch-permute"),
    (check_merge_heads, lambda x: x.transpose(0, 2, 1, 3).reshape(x.shape[0], x.shape[2], x.shape[1] * x.shape[3] / 1),
     "делите через //", "float-D"),
    (check_merge_heads, lambda x: np.hstack(list(x.swapaxes(0, 1))), "по оси токенов", "hstack"),
    (check_merge_heads, lambda x: np.concatenate([x[:, i] for i in reversed(range(x.shape[1]))], axis=-1),
     "головы склеены в обратном", "heads-reversed"),
    (check_merge_heads, lambda x: x.swapaxes(1, 2).reshape(x.shape[0], x.shape[2], -1)[:, ::-1],
     "токены встали в обратном", "tokens-reversed"),
    (check_merge_heads, lambda x: x.transpose(2, 0, 1, 3).reshape(x.shape[0], x.shape[2], -1), "фраз батча",
     "batch-mixed"),
    (check_merge_heads, lambda x: x.sum(axis=1), "головы сложены", "sum-heads"),
    (check_merge_heads, lambda x: x[:, 0], "одна голова", "only-head-0"),
    # ---- склеить обратно: верные
    (check_merge_heads, merge_heads, None, "transpose-reshape"),
    (check_merge_heads, lambda x: np.concatenate(list(x.swapaxes(0, 1)), axis=-1), None, "concatenate"),
    (check_merge_heads, lambda x: np.moveaxis(x, 1, 2).reshape(*np.moveaxis(x, 1, 2).shape[:2], -1), None, "moveaxis"),
    (check_merge_heads, merge_loop, None, "loop"),
    (check_merge_heads, merge_float32_list_of_tokens, None, "float32-nested-list"),
    (check_merge_heads, lambda x: np.dstack(list(x.swapaxes(0, 1))), None, "dstack"),
]

"""Упражнения урока 06: верное решение — ✅, заготовка — ⏳, типичные ошибки — ❌ со своей подсказкой."""

import numpy as np
import pytest

from course_lib.exercises.multi_head import check_merge_heads, check_split_heads

from checker_asserts import assert_hint, assert_not_solved


def right_split(x, h):
    N, T, D = x.shape
    return x.reshape(N, T, h, D // h).transpose(0, 2, 1, 3)


def right_merge(x):
    N, h, T, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(N, T, h * d_head)


@pytest.mark.parametrize("check, right", [(check_split_heads, right_split), (check_merge_heads, right_merge)])
def test_right_answer_passes_and_stub_is_not_solved(check, right, capsys):
    assert check(right).passed
    assert capsys.readouterr().out.startswith("✅")
    assert_not_solved(check, capsys)


def test_swapaxes_and_slicing_solutions_also_pass():
    assert check_split_heads(lambda x, h: x.reshape(*x.shape[:2], h, -1).swapaxes(1, 2)).passed
    assert check_split_heads(lambda x, h: np.stack(np.split(x, h, axis=-1), axis=1)).passed
    assert check_merge_heads(lambda x: np.concatenate(list(x.swapaxes(0, 1)), axis=-1)).passed


@pytest.mark.parametrize("wrong, hint", [
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], h, -1), "ось голов"),
    (lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1), "перемешивает токены"),
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], -1, h).transpose(0, 3, 1, 2), "каждый h-й столбец"),
    (lambda x, h: x.reshape(x.shape[0], x.shape[1], h, -1).transpose(0, 2, 3, 1), "форма"),
    (lambda x, h: right_split(x, 4), "форма"),                          # h = 4 навсегда
    (lambda x, h: right_split(x, h)[:, ::-1], "не те числа"),          # головы в обратном порядке
    (lambda x, h: None, "return"),
])
def test_split_mistakes(wrong, hint):
    assert_hint(check_split_heads, wrong, hint)


@pytest.mark.parametrize("wrong, hint", [
    (lambda x: x.reshape(x.shape[0], x.shape[2], -1), "reshape без transpose"),
    (lambda x: x.reshape(x.shape[0], x.shape[1], -1), "склеились токены одной головы"),
    (lambda x: x.transpose(0, 2, 3, 1).reshape(x.shape[0], x.shape[2], -1), "не на свои места"),
    (lambda x: x[:, 0], "форма"),
    (lambda x: 1 / 0, "ZeroDivisionError"),
])
def test_merge_mistakes(wrong, hint):
    assert_hint(check_merge_heads, wrong, hint)

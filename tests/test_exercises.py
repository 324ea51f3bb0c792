"""Проверки упражнений: верное решение — ✅, типичные ошибки — ❌ с нужной подсказкой, заготовка — ⏳."""

import numpy as np
import pytest

from course_lib.exercises import check_softmax

from checker_asserts import assert_hint, assert_not_solved


def right(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_stub_is_not_solved_and_does_not_raise(capsys):
    assert_not_solved(check_softmax, capsys)


def test_right_answer_passes(capsys):
    assert check_softmax(right).passed
    assert capsys.readouterr().out.startswith("✅")


@pytest.mark.parametrize("wrong, hint", [
    (lambda s: np.exp(s), "не нормированы"),
    (lambda s: np.exp(s) / np.exp(s).sum(axis=0, keepdims=True), "столбцы"),
    (lambda s: np.exp(s) / np.exp(s).sum(), "строки"),
    (lambda s: np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True), "максимум"),
    (lambda s: s[:-1], "форма"),
    (lambda s: None, "return"),
    (lambda s: 1 / 0, "ZeroDivisionError"),
])
def test_typical_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_softmax, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")

"""Упражнение урока 02 «внимание для одного запроса»: верное — ✅, типичные ошибки — ❌ с подсказкой, заготовка — ⏳."""

import numpy as np
import pytest

import course_lib as nt
from course_lib.exercises.soft_search import check_attend_one

from checker_asserts import assert_hint, assert_not_solved


def right(q, K, V):
    scores = K @ q / np.sqrt(len(q))
    weights = np.exp(scores - scores.max())
    return weights / weights.sum() @ V


def softmax_unstable(x):
    e = np.exp(x)
    return e / e.sum()


def test_stub_is_not_solved_and_does_not_raise(capsys):
    assert_not_solved(check_attend_one, capsys)


@pytest.mark.parametrize("solution", [
    right,
    lambda q, K, V: nt.scaled_dot_product_attention(q[None], K, V)[0][0],     # библиотека, один запрос как (1, d_k)
    lambda q, K, V: nt.tensor(right(q, K, V)),                                  # Tensor тоже принимается
])
def test_right_answers_pass(solution, capsys):
    assert check_attend_one(solution).passed
    assert capsys.readouterr().out.startswith("✅")


@pytest.mark.parametrize("wrong, hint", [
    (lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q))), "похоже, это веса"),
    (lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q)))[:, None] * V, "не сложены"),
    (lambda q, K, V: V[0, :2], "ожидалась форма (3,)"),
    (lambda q, K, V: nt.softmax(K @ q) @ V, "забыли поделить оценки на √d_k"),
    (lambda q, K, V: nt.softmax(K @ q / len(q)) @ V, "на d_k, а нужно на √d_k"),
    (lambda q, K, V: (K @ q / np.sqrt(len(q))) @ V, "примените softmax"),
    (lambda q, K, V: np.exp(K @ q / np.sqrt(len(q))) @ V, "не нормированы"),
    (lambda q, K, V: nt.softmax(K @ q / np.sqrt(len(q))) @ (K if K.shape == V.shape else V), "смешали ключи"),
    (lambda q, K, V: nt.softmax(V @ q / np.sqrt(len(q))) @ V if K.shape == V.shape else right(q, K, V),
     "по значениям V"),
    (lambda q, K, V: softmax_unstable(K @ q / np.sqrt(len(q))) @ V, "вычтите из оценок максимум"),
    (lambda q, K, V: right(q, K, V) + 0.1, "смесь неверная"),
    (lambda q, K, V: None, "return"),
    (lambda q, K, V: q @ K, "ValueError"),
])
def test_typical_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_attend_one, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")

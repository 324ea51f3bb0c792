"""Упражнения урока 03: scaled dot-product attention и слой самовнимания — ✅, ❌ с подсказкой, ⏳."""

import numpy as np
import pytest

import course_lib as nt
from course_lib.exercises.self_attention import check_attention, check_self_attention

from checker_asserts import assert_hint, assert_not_solved


def softmax_rows(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(Q, K, V):
    weights = softmax_rows(Q @ K.T / np.sqrt(K.shape[-1]))
    return weights @ V, weights


def with_weights(make_weights):
    """Решение, у которого context честно равен weights @ V, а ошибка только в весах."""
    def solution(Q, K, V):
        weights = make_weights(Q, K)
        return weights @ V, weights
    return solution


def unstable(scores, axis=-1):
    e = np.exp(scores)
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("check", [check_attention, check_self_attention])
def test_stub_is_not_solved_and_does_not_raise(check, capsys):
    assert_not_solved(check, capsys)


@pytest.mark.parametrize("solution", [attention, nt.scaled_dot_product_attention])
def test_attention_right_answers_pass(solution, capsys):
    assert check_attention(solution).passed
    assert capsys.readouterr().out.startswith("✅")


@pytest.mark.parametrize("wrong, hint", [
    (lambda Q, K, V: attention(Q, K, V)[0], "верните пару"),
    (lambda Q, K, V: attention(Q, K, V)[::-1], "перепутаны местами"),
    (lambda Q, K, V: (attention(Q, K, V)[0], attention(Q, K, V)[1].T), "транспонированы"),
    (with_weights(lambda Q, K: unstable(Q @ K.T / np.sqrt(K.shape[-1]), axis=0)), "столбцы"),
    (with_weights(lambda Q, K: np.exp(Q @ K.T / np.sqrt(K.shape[-1]))), "строки весов не дают в сумме 1"),
    (with_weights(lambda Q, K: softmax_rows(Q @ K.T)), "забыли поделить оценки на √d_k"),
    (with_weights(lambda Q, K: softmax_rows(Q @ K.T / K.shape[-1])), "а нужно на √d_k = 4"),
    (with_weights(lambda Q, K: unstable(Q @ K.T / np.sqrt(K.shape[-1]))), "вычтите из каждой строки"),
    (lambda Q, K, V: (attention(Q, K, V)[1] @ V + 1, attention(Q, K, V)[1]), "weights @ V"),
    (lambda Q, K, V: (attention(Q, K, V)[0][:, :2], attention(Q, K, V)[1]), "context: ожидалась форма"),
    (lambda Q, K, V: None, "return"),
])
def test_attention_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_attention, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")


def self_attention(X, W_q, W_k, W_v):
    return attention(X @ W_q, X @ W_k, X @ W_v)[0]


@pytest.mark.parametrize("solution", [
    self_attention,
    lambda X, W_q, W_k, W_v: nt.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)[0],
])
def test_self_attention_right_answers_pass(solution, capsys):
    assert check_self_attention(solution).passed
    assert capsys.readouterr().out.startswith("✅")


@pytest.mark.parametrize("wrong, hint", [
    (lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_k, X @ W_v), "только context"),
    (lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_k, X)[0], "вы смешали строки X"),
    (lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_k, X @ W_v)[1], "это веса"),
    (lambda X, W_q, W_k, W_v: attention(X @ W_k, X @ W_q, X @ W_v)[0], "запросы и ключи перепутаны"),
    (lambda X, W_q, W_k, W_v: softmax_rows(X @ W_q @ (X @ W_k).T) @ (X @ W_v), "забыли поделить"),
    (lambda X, W_q, W_k, W_v: unstable(X @ W_q @ (X @ W_k).T / 2, axis=0) @ (X @ W_v), "по столбцам"),
    (lambda X, W_q, W_k, W_v: self_attention(X, W_q, W_k, W_v) * 2, "context неверный"),
    (lambda X, W_q, W_k, W_v: self_attention(X, W_q, W_k, W_v)[:, :2], "ожидалась форма (5, 3)"),
    (lambda X, W_q, W_k, W_v: W_q @ X, "ValueError"),
])
def test_self_attention_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_self_attention, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")

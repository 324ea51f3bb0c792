"""Упражнения урока 05: верное решение — ✅, заготовка — ⏳, типичные ошибки — ❌ со своей подсказкой."""

import numpy as np
import pytest

import course_lib as nt
from course_lib.exercises.causal import check_causal_weights, check_padding_mask

from checker_asserts import assert_hint, assert_not_solved


def right_weights(scores):
    T = scores.shape[-1]
    return nt.softmax(np.where(nt.causal_mask(T), scores, -np.inf))


def right_padding(lengths, T):
    return (np.arange(T) < np.asarray(lengths)[:, None])[:, None, None, :]


def naive_softmax(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def hide(scores, hidden, fill=-np.inf, softmax=nt.softmax, axis=-1):
    return softmax(np.where(hidden(scores.shape[-1]), fill, scores), axis=axis)


@pytest.mark.parametrize("check, right", [(check_causal_weights, right_weights), (check_padding_mask, right_padding)])
def test_right_answer_passes_and_stub_is_not_solved(check, right, capsys):
    assert check(right).passed
    assert capsys.readouterr().out.startswith("✅")
    assert_not_solved(check, capsys)


@pytest.mark.parametrize("right", [
    lambda s: hide(s, lambda T: np.triu(np.ones((T, T)), k=1) == 1),               # «True = спрятать»
    lambda s: hide(s, lambda T: np.tril(np.ones((T, T))) == 0),                    # tril == 0
    lambda s: nt.softmax(s + np.triu(np.full(s.shape[-2:], -np.inf), k=1)),        # прибавить маску из 0 и −inf
    lambda s: hide(s, lambda T: np.triu(np.ones((T, T)), k=1) == 1, fill=-1e9),    # −1e9 вместо −inf
])
def test_every_convention_passes(right):
    assert check_causal_weights(right).passed


@pytest.mark.parametrize("wrong, hint", [
    (lambda s: nt.softmax(s), "маски нет"),
    (lambda s: hide(s, lambda T: np.triu(np.ones((T, T)), k=1) == 1, fill=0.0), "exp(0) = 1"),
    (lambda s: hide(s, lambda T: np.tril(np.ones((T, T)), k=-1) == 1), "прошлое"),
    (lambda s: hide(s, lambda T: np.triu(np.ones((T, T))) == 1, softmax=naive_softmax), "nan"),
    (lambda s: hide(s, lambda T: np.triu(np.ones((T, T))) == 1), "диагонали нули"),
    (lambda s: hide(s, lambda T: np.triu(np.ones((T, T)), k=1) == 1, axis=-2), "столбцы"),
    (lambda s: nt.softmax(s) * np.tril(np.ones(s.shape[-2:])), "после softmax"),
    (lambda s: hide(s, lambda T: np.triu(np.ones((T, T)), k=1) == 1, softmax=naive_softmax), "переполняется"),
    (lambda s: right_weights(s)[..., :-1], "форма"),
    (lambda s: nt.softmax(np.where(nt.causal_mask(len(s)), s, -np.inf)), "scores.shape[-1]"),   # T = len(s)
    (lambda s: nt.softmax(np.where(nt.causal_mask(5), s, -np.inf)), "scores.shape[-1]"),        # T = 5 навсегда
    (lambda s: None, "return"),
])
def test_causal_weights_mistakes(wrong, hint):
    assert_hint(check_causal_weights, wrong, hint)


@pytest.mark.parametrize("wrong, hint", [
    (lambda lengths, T: np.arange(T) < np.asarray(lengths)[:, None], "(N, T)"),
    (lambda lengths, T: (np.arange(T) < np.asarray(lengths)[:, None])[:, None, :, None], "запросы"),
    (lambda lengths, T: (np.arange(T) >= np.asarray(lengths)[:, None])[:, None, None, :], "перевёрнута"),
    (lambda lengths, T: (np.arange(T) <= np.asarray(lengths)[:, None])[:, None, None, :], "строго"),
    (lambda lengths, T: (np.arange(T) < np.asarray(lengths)[:, None])[:, None, None, :].astype(float), "булевой"),
    (lambda lengths, T: np.ones((len(lengths), 1, 1, T), dtype=bool), "неверная"),
])
def test_padding_mask_mistakes(wrong, hint):
    assert_hint(check_padding_mask, wrong, hint)

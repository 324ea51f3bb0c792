"""Упражнения урока 04: верное решение — ✅, заготовка — ⏳, типичные ошибки — ❌ со своей подсказкой."""

import numpy as np
import pytest

from course_lib.exercises.permutation import check_equivariance_gap, check_permutation_matrix

from checker_asserts import assert_hint, assert_not_solved


def right_matrix(order):
    return np.eye(len(order))[order]


def right_gap(f, X, order):
    return np.abs(f(X[order]) - f(X)[order]).max()


@pytest.mark.parametrize("check, right", [(check_permutation_matrix, right_matrix), (check_equivariance_gap, right_gap)])
def test_right_answer_passes_and_stub_is_not_solved(check, right, capsys):
    assert check(right).passed
    assert capsys.readouterr().out.startswith("✅")
    assert_not_solved(check, capsys)


def test_matrix_built_from_argsort_is_also_right():
    """P[i, order[i]] = 1 можно записать и через обратную перестановку столбцов — это та же матрица."""
    assert check_permutation_matrix(lambda order: np.eye(len(order))[:, np.argsort(order)]).passed


@pytest.mark.parametrize("wrong, hint", [
    (lambda order: np.eye(len(order))[order].T, "Pᵀ"),
    (lambda order: np.eye(len(order)), "X[order]"),
    (lambda order: np.eye(len(order))[order] * 2, "нули и единицы"),
    (lambda order: np.ones((len(order), len(order))) * (np.arange(len(order)) == 0), "ровно одна единица"),
    (lambda order: np.eye(len(order) + 1), "форма"),
    (lambda order: np.eye(4)[[2, 0, 3, 1]], "форма"),                 # T не взят из order
    (lambda order: None, "return"),
])
def test_permutation_matrix_mistakes(wrong, hint):
    assert_hint(check_permutation_matrix, wrong, hint)


@pytest.mark.parametrize("wrong, hint", [
    (lambda f, X, order: np.abs(f(X[order]) - f(X)).max(), "не переставили"),
    (lambda f, X, order: np.abs(f(X[order]) - f(X)[np.argsort(order)]).max(), "обратной перестановкой"),
    (lambda f, X, order: (f(X[order]) - f(X)[order]).max(), "модуль"),
    (lambda f, X, order: (f(X)[order] - f(X[order])).max(), "модуль"),
    (lambda f, X, order: np.abs(f(X[order]) - f(X)[order]).mean(), "среднее"),
    (lambda f, X, order: np.allclose(f(X[order]), f(X)[order]), "True/False"),
    (lambda f, X, order: np.abs(f(X[order]) - f(X)[order]), "одно число"),
    (lambda f, X, order: np.abs(f(X) - f(X)).max() + 1.0, "Посчитайте f"),
])
def test_equivariance_gap_mistakes(wrong, hint):
    assert_hint(check_equivariance_gap, wrong, hint)

"""Урок 04: матрица перестановки и расхождение эквивариантности — неверные ответы (с куском подсказки) и верные (None)."""

import numpy as np

from course_lib.exercises.permutation import check_equivariance_gap, check_permutation_matrix


def permutation_loop(order):
    T = len(order)
    P = np.zeros((T, T))
    for i, j in enumerate(order):
        P[i, j] = 1
    return P


def permutation_nested_list(order):
    return [[1 if column == row_source else 0 for column in range(len(order))] for row_source in order]


def permutation_zeros_two_args(order):
    P = np.zeros(len(order), len(order))
    P[np.arange(len(order)), order] = 1
    return P


def permutation_fancy_float32(order):
    P = np.zeros((len(order), len(order)), dtype=np.float32)
    P[np.arange(len(order)), order] = 1
    return P


def gap(f, X, order):
    return np.abs(f(X[order]) - f(X)[order]).max()


def gap_loop(f, X, order):
    moved, same = f(X[order]), f(X)
    return max(abs(moved[i, j] - same[order[i], j]) for i in range(len(order)) for j in range(X.shape[1]))


def _gap_in_place(f, X, order):
    """Переставляет X на месте: X[:] = X[order] портит вход вызывающего."""
    out = f(X)[order]
    X[:] = X[order]
    return np.abs(f(X) - out).max()


CASES = [
    # ---- матрица перестановки: неверные
    (check_permutation_matrix, lambda order: np.eye(len(order))[order].T, "Pᵀ", "transposed"),
    (check_permutation_matrix, lambda order: np.eye(len(order))[:, order], "Pᵀ", "columns-by-order"),
    (check_permutation_matrix, lambda order: np.eye(len(order)), "единичная матрица", "identity"),
    (check_permutation_matrix, lambda order: np.eye(len(order))[np.roll(order, 1)], "ставит строки X в порядке",
     "rolled-order"),
    (check_permutation_matrix, lambda order: np.eye(len(order))[order] * 2, "нули и единицы", "twos"),
    (check_permutation_matrix, lambda order: np.ones((len(order), len(order))) * (np.arange(len(order)) == 0),
     "ровно одна единица", "one-column"),
    (check_permutation_matrix, lambda order: np.eye(len(order) + 1), "форма", "too-big"),
    (check_permutation_matrix, lambda order: np.eye(4)[[2, 0, 3, 1]], "T = len(order) = 1", "T-fixed"),
    (check_permutation_matrix, lambda order: np.array(order)[:, None] * np.ones(len(order)), "нули и единицы",
     "order-broadcast"),
    (check_permutation_matrix, lambda order: None, "return", "no-return"),
    (check_permutation_matrix, permutation_zeros_two_args, "np.zeros((T, T))", "zeros-two-args"),
    (check_permutation_matrix, lambda order: np.eye(order), "где ждут одно целое число", "eye-of-order"),
    (check_permutation_matrix, lambda order: [list(row) for row in np.eye(len(order))], "единичная", "identity-list"),
    (check_permutation_matrix, lambda o: np.eye(len(o))[(np.asarray(o) + 1) % len(o)], "сдвинуты на один вперёд",
     "shifted"),
    (check_permutation_matrix, lambda o: np.eye(len(o))[list(o[1:]) + list(o[:1])], "ставит строки X в порядке",
     "rotated-order"),
    # ---- матрица перестановки: верные
    (check_permutation_matrix, lambda order: np.eye(len(order))[order], None, "eye-rows"),
    (check_permutation_matrix, permutation_loop, None, "loop"),
    (check_permutation_matrix, lambda order: np.eye(len(order))[:, np.argsort(order)], None, "argsort-columns"),
    (check_permutation_matrix, lambda order: (np.asarray(order)[:, None] == np.arange(len(order))).astype(int), None,
     "comparison-int"),
    (check_permutation_matrix, lambda order: np.eye(len(order), dtype=bool)[order], None, "bool"),
    (check_permutation_matrix, permutation_nested_list, None, "nested-list"),
    (check_permutation_matrix, permutation_fancy_float32, None, "fancy-float32"),
    (check_permutation_matrix, lambda order: np.identity(len(order))[list(order)].tolist(), None, "identity-tolist"),

    # ---- расхождение эквивариантности: неверные
    (check_equivariance_gap, lambda f, X, order: np.abs(f(X[order]) - f(X)).max(), "не переставили", "not-permuted"),
    (check_equivariance_gap, lambda f, X, order: np.abs(f(X[order]) - f(X)[np.argsort(order)]).max(),
     "обратной перестановкой", "inverse"),
    (check_equivariance_gap, lambda f, X, order: (f(X[order]) - f(X)[order]).max(), "модуль", "no-abs"),
    (check_equivariance_gap, lambda f, X, order: (f(X)[order] - f(X[order])).max(), "модуль", "no-abs-flipped"),
    (check_equivariance_gap, lambda f, X, order: np.abs(f(X[order]) - f(X)[order]).mean(), "среднее", "mean"),
    (check_equivariance_gap, lambda f, X, order: np.allclose(f(X[order]), f(X)[order]), "True/False", "allclose"),
    (check_equivariance_gap, lambda f, X, order: np.abs(f(X[order]) - f(X)[order]), "одно число", "array"),
    (check_equivariance_gap, lambda f, X, order: np.abs(f(X) - f(X)).max() + 2.0, "Посчитайте f", "nonsense"),
    (check_equivariance_gap, lambda f, X, order: str(gap(f, X, order)), "одно число", "string"),
    (check_equivariance_gap, lambda f, X, order: None, "return", "no-return"),
    (check_equivariance_gap, lambda f, X, order: max(abs(f(X[order]) - f(X)[order])), "встроенных max", "builtin-max"),
    (check_equivariance_gap, lambda f, X, order: np.abs(f(X[order]) - f(X)[order]).max, "без скобок", "max-no-call"),
    (check_equivariance_gap, lambda f, X, order: (gap(f, X, order), gap(f, X, order) == 0), "одно число",
     "with-flag"),
    (check_equivariance_gap, lambda f, X, order: float(np.abs(f(X[order]) - f(X)[order]).sum()), "сумма модулей",
     "sum"),
    (check_equivariance_gap, lambda f, X, order: gap(f, X, order) / np.abs(f(X) - f(X)).max(), "не делите ли вы на ноль",
     "divided-by-zero"),
    (check_equivariance_gap, lambda f, X, o: np.abs(f(X[o]) - f(X[o])).max(), "с ним же самим", "same-side"),
    (check_equivariance_gap, lambda f, X, o: np.abs(f(X[o]) - X[o]).max(), "с самим входом", "input-not-output"),
    (check_equivariance_gap, lambda f, X, o: np.linalg.norm(f(X[o]) - f(X)[o]), "np.linalg.norm", "norm"),
    (check_equivariance_gap, lambda f, X, o: ((f(X[o]) - f(X)[o]) ** 2).max(), "квадрат разности", "squared"),
    (check_equivariance_gap, lambda f, X, o: ((f(X[o]) - f(X)[o]) ** 2).mean(), "средний квадрат", "mse"),
    (check_equivariance_gap, lambda f, X, o: np.abs(f(X[o]) - f(X)[o]).max() / np.abs(f(X)).max(),
     "поделено на величину", "relative"),
    (check_equivariance_gap, lambda f, X, o: float(np.allclose(f(X[o]), f(X)[o])), "float(np.allclose", "allclose-float"),
    (check_equivariance_gap, _gap_in_place, "изменила свой вход X на месте", "in-place"),
    # ---- расхождение эквивариантности: верные
    (check_equivariance_gap, gap, None, "abs-max"),
    (check_equivariance_gap, gap_loop, None, "loops"),
    (check_equivariance_gap, lambda f, X, order: float(np.linalg.norm((f(X[order]) - f(X)[order]).ravel(), ord=np.inf)),
     None, "inf-norm"),
    (check_equivariance_gap, lambda f, X, order: np.max(np.abs(f(X[order]) - np.take(f(X), order, axis=0))), None,
     "take"),
    (check_equivariance_gap, lambda f, X, order: [gap(f, X, order)], None, "list-of-one"),
    (check_equivariance_gap, lambda f, X, order: np.float32(gap(f, X, order)), None, "float32"),
    (check_equivariance_gap, lambda f, X, order: max(abs(x) for x in (f(X[order]) - f(X)[order]).flat), None,
     "builtin-max-flat"),
    (check_equivariance_gap, lambda f, X, order: np.abs(f(X[order]).astype(np.float32) - f(X)[order]).max(), None,
     "float32-difference"),
]

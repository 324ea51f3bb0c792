"""Упражнения урока 04: матрица перестановки и численная проверка эквивариантности."""

import numpy as np

from course_lib.exercises._checker import (Wrong, arrived, call, checker, expect_close, expect_shape, recognize,
                                           tolerance)
from course_lib.functional import scaled_dot_product_attention
from course_lib.nn.positional import sinusoidal_encoding

# Не инволюция: P и Pᵀ у неё разные, поэтому «обратную» перестановку видно сразу.
ORDER = np.array([2, 0, 3, 1])


@checker
def check_permutation_matrix(candidate):
    """candidate(order) -> P (T, T) из нулей и единиц, такая что P @ X == X[order]."""
    T = len(ORDER)
    X = np.arange(T * 3, dtype=float).reshape(T, 3)           # строки легко узнать: 0 1 2 / 3 4 5 / …
    P = call(candidate, ORDER.copy())
    expect_shape(P, (T, T), f"для order = {ORDER.tolist()}")
    if not np.isin(P, (0, 1)).all():
        raise Wrong("в матрице перестановки только нули и единицы")
    if not ((P.sum(axis=0) == 1).all() and (P.sum(axis=1) == 1).all()):
        raise Wrong("в каждой строке и в каждом столбце должна быть ровно одна единица")
    recognize(P, np.eye(T)[ORDER], [
        (lambda: np.eye(T), "это единичная матрица: P @ X = X, ничего не переставлено. "
                            "В строке i единица должна стоять в столбце order[i]: np.eye(T)[order]"),
        (lambda: np.eye(T)[ORDER].T, "это Pᵀ: она ставит строки в обратном порядке, X[np.argsort(order)]. "
                                     "Строка i матрицы P выбирает строку order[i] из X: P[i, order[i]] = 1"),
    ])
    _expect_order(P, ORDER)

    for order in ([0], [1, 0], [4, 2, 0, 1, 3]):              # другие длины: T берётся из order
        P = call(candidate, np.array(order))
        T = len(order)
        expect_shape(P, (T, T), f"для order = {order} (T = len(order) = {T})")
        if not (np.isin(P, (0, 1)).all() and (P.sum(axis=0) == 1).all() and (P.sum(axis=1) == 1).all()):
            raise Wrong(f"для order = {order}: в каждой строке и в каждом столбце должна быть ровно одна единица, "
                        "остальное — нули")
        _expect_order(P, np.array(order))
    return "P @ X == X[order], а Pᵀ P = I: перестановку отменяет транспонированная матрица"


def _expect_order(P, order):
    """P — матрица перестановки; она ставит в строку i строку X[P[i].argmax()]. Совпало ли это с order — а если нет,
    то какой порядок вышел на самом деле (сдвиг на один, обратный порядок, …)."""
    found = np.argmax(P, axis=1)
    if np.array_equal(found, order):
        return
    T = len(order)
    where = f"для order = {order.tolist()}: ваша P ставит строки X в порядке {found.tolist()}"
    for guess, why in [((order + 1) % T, "номера сдвинуты на один вперёд: order + 1"),
                       ((order - 1) % T, "номера сдвинуты на один назад: order − 1"),
                       (order[::-1], "это order задом наперёд: order[::-1]"),
                       (np.argsort(order), "это обратная перестановка np.argsort(order) — такую даёт Pᵀ")]:
        if np.array_equal(found, guess):
            raise Wrong(f"{where} — {why}. В строке i единица должна стоять в столбце order[i]: np.eye(T)[order]")
    raise Wrong(f"{where}, а нужно {order.tolist()}: в строке i единица должна стоять в столбце order[i] — "
                "np.eye(T)[order]")


def _self_attention(seed):
    """Самовнимание одной головы со случайными W_Q, W_K, W_V: X (T, d) -> (T, d)."""
    W_q, W_k, W_v = np.random.default_rng(seed).normal(size=(3, 6, 6)) / np.sqrt(6)
    return lambda X: scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)[0]


def _with_positions(f):
    """Та же функция, но к входу сначала прибавлены позиционные кодировки: эквивариантность ломается."""
    return lambda X: f(X + sinusoidal_encoding(len(X), X.shape[1]))


@checker
def check_equivariance_gap(candidate):
    """candidate(f, X, order) -> float: max |f(X[order]) − f(X)[order]|."""
    X = np.random.default_rng(1).normal(size=(len(ORDER), 6))
    attention = _self_attention(2)
    positional = _with_positions(attention)

    gap = _scalar(call(candidate, attention, X.copy(), ORDER.copy()))
    tol = tolerance(scale=1 + np.abs(attention(X)).max())
    if gap > tol:
        where = f"для самовнимания без позиций расхождение должно быть ≈ 0, а у вас {gap:.3g}. "
        recognize(gap, 0.0, _gap_mistakes(attention, X), where, tol)
        raise Wrong(where + GENERIC)

    # два входа: у одного наибольшая разность положительна, у другого — отрицательна (так видно пропущенный модуль)
    for seed in (1, 2):
        X = np.random.default_rng(seed).normal(size=(len(ORDER), 6))
        gap = _scalar(call(candidate, positional, X.copy(), ORDER.copy()))
        truth = np.abs(positional(X[ORDER]) - positional(X)[ORDER]).max()
        tol = tolerance(scale=1 + np.abs(positional(X)).max())
        if abs(gap - truth) > tol:
            where = f"с позиционными кодировками расхождение {truth:.4f}, а у вас {gap:.4g}. "
            recognize(gap, truth, _gap_mistakes(positional, X), where, tol)
            raise Wrong(where + GENERIC)

    rowwise = _scalar(call(candidate, np.tanh, X.copy(), ORDER.copy()))    # поэлементная функция тоже эквивариантна
    if rowwise > tolerance():
        raise Wrong(f"np.tanh действует на каждую строку отдельно, перестановка ему безразлична, "
                    f"а у вас расхождение {rowwise:.3g}")
    return ("без позиций расхождение ≈ 0, с позициями — заметное: "
            "позиционные кодировки ломают эквивариантность, как и задумано")


def _scalar(out):
    if isinstance(out, tuple):
        raise Wrong(f"ожидалось одно число — наибольшее расхождение, а пришло несколько значений ({len(out)})")
    if out.dtype == bool:
        raise Wrong("верните число — наибольшее расхождение, а не True/False: "
                    "np.allclose отвечает «да/нет», а число показывает, насколько")
    if out.dtype.kind not in "iuf":
        raise Wrong(f"ожидалось одно число — наибольшее расхождение, а пришло {arrived(out)}")
    if out.size != 1:
        raise Wrong(f"ожидалось одно число, а пришёл массив формы {out.shape}: возьмите .max() от модуля разности")
    gap = float(out.reshape(-1)[0])
    if not np.isfinite(gap):
        raise Wrong(f"вышло {gap}, а наибольшее расхождение — конечное число ≥ 0: проверьте, не делите ли вы на ноль "
                    "и не берёте ли максимум пустого массива")
    return gap


GENERIC = "Посчитайте f от переставленного входа X[order] и сравните с переставленным выходом f(X)[order]."


def _gap_mistakes(f, X):
    """Типичные ошибки: какое число вышло бы у ошибившегося и что ему сказать."""
    moved, same = f(X[ORDER]), f(X)
    gap = moved - same[ORDER]
    no_abs = "Похоже, вы забыли модуль: берите np.abs(разность).max()"
    return [
        (lambda: 0.0, "Похоже, вы сравнили значение с ним же самим (f(X[order]) с f(X[order]) или f(X)[order] "
                      "с f(X)[order]): такая разность — всегда 0. Сравнивайте f(X[order]) с f(X)[order]"),
        (lambda: np.abs(moved - X[ORDER]).max(), "Похоже, выход f сравнили с самим входом X[order], а нужно с "
                                                 "выходом: f(X)[order]"),
        (lambda: np.abs(same[ORDER] - X[ORDER]).max(), "Похоже, выход f сравнили с самим входом X[order], а нужно "
                                                       "f от переставленного входа: f(X[order])"),
        (lambda: np.linalg.norm(gap), "Похоже, это длина разности (np.linalg.norm — корень из суммы квадратов), "
                                      "а нужно наибольшее расхождение одного числа: np.abs(разность).max()"),
        (lambda: np.abs(gap).sum(), "Похоже, это сумма модулей по всем числам, а нужно наибольшее: .max()"),
        (lambda: (gap ** 2).max(), "Похоже, это квадрат разности: наибольшее расхождение — модуль, np.abs(...).max()"),
        (lambda: (gap ** 2).mean(), "Похоже, это средний квадрат разности, а нужно наибольшее расхождение: "
                                    "np.abs(разность).max()"),
        (lambda: np.abs(gap).max() / np.abs(same).max(), "Похоже, расхождение поделено на величину выхода: "
                                                         "нужно само расхождение, np.abs(разность).max()"),
        (lambda: float(np.allclose(moved, same[ORDER])), "Похоже, это float(np.allclose(...)) — «да» (1.0) или "
                                                         "«нет» (0.0), а нужно само расхождение: "
                                                         "np.abs(разность).max()"),
        (lambda: np.abs(moved - same).max(), "Похоже, выход f(X) вы не переставили: сравнивать нужно с f(X)[order]"),
        (lambda: np.abs(moved - same[np.argsort(ORDER)]).max(),
         "Похоже, выход переставлен обратной перестановкой: нужно f(X)[order], а не f(X)[np.argsort(order)]"),
        (lambda: (moved - same[ORDER]).max(), no_abs),
        (lambda: (same[ORDER] - moved).max(), no_abs),
        (lambda: np.abs(moved - same[ORDER]).mean(), "Похоже, это среднее расхождение, а нужно наибольшее: .max()"),
    ]

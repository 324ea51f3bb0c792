"""Общие стратегии hypothesis и случайные входы тестов — в одном месте, как tensor_strategies в minitorch.

Тест берёт отсюда числа, матрицы и тройки q, k, v, а не строит свои: поменять границы или
допуски можно один раз, и поменяются они у всех.
"""

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

# Без deadline: первый вызов NumPy и сборка графа автограда бывают медленными на занятой машине.
FAST = settings(max_examples=40, deadline=None)

seeds = st.integers(0, 2**16)


def rng(seed=0):
    return np.random.default_rng(seed)


def floats(bound):
    """Конечные float64 из [-bound, bound]."""
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=64)


def float_arrays(shape, bound):
    """Массивы float64 формы shape (кортеж или стратегия кортежей) с числами из [-bound, bound]."""
    return arrays(np.float64, shape, elements=floats(bound))


def matrices(bound, min_side=1, max_side=8, elements=None):
    """Матрицы float64 любой формы от min_side до max_side по каждой оси; elements — свои числа вместо floats(bound)."""
    shapes = array_shapes(min_dims=2, max_dims=2, min_side=min_side, max_side=max_side)
    return arrays(np.float64, shapes, elements=floats(bound) if elements is None else elements)


@st.composite
def qkv(draw, lead=st.just(()), max_T=12, max_d=6, bound=4):
    """q (…, T_q, d_k), k (…, T_k, d_k), v (…, T_k, d_v); lead — стратегия осей батча и голов впереди."""
    lead = draw(lead)
    T_q, T_k = draw(st.integers(1, max_T)), draw(st.integers(1, max_T))
    d_k, d_v = draw(st.integers(1, max_d)), draw(st.integers(1, max_d))
    return tuple(draw(float_arrays(lead + shape, bound)) for shape in ((T_q, d_k), (T_k, d_k), (T_k, d_v)))

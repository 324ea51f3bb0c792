"""Единый генератор случайных чисел курса: `manual_seed(n)` делает уроки воспроизводимыми."""

import contextlib

import numpy as np

from course_lib._checks import check_int

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Задаёт зерно, из которого берутся все начальные веса слоёв (как torch.manual_seed)."""
    global _generator
    check_int(seed, "seed", "manual_seed", low=0, meaning=" (зерно генератора)")
    _generator = np.random.default_rng(seed)


def generator():
    """Текущий генератор; слои берут из него начальные веса."""
    return _generator


@contextlib.contextmanager
def temporary_seed(seed):
    """Внутри блока веса берутся из зерна `seed`, после него генератор курса — прежний.

    Так виджет может построить «свою» случайную модель, не сбив зерно в ячейках урока.
    """
    global _generator
    saved = _generator
    manual_seed(seed)
    try:
        yield
    finally:
        _generator = saved

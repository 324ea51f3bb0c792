"""Единый генератор случайных чисел курса: `manual_seed(n)` делает уроки воспроизводимыми."""

import numpy as np

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Задаёт зерно, из которого берутся все начальные веса слоёв (как torch.manual_seed)."""
    global _generator
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"manual_seed: ожидалось целое число ≥ 0, а пришло {seed!r}")
    _generator = np.random.default_rng(seed)


def generator():
    """Текущий генератор; слои берут из него начальные веса."""
    return _generator

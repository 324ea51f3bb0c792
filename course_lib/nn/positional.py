"""Позиционные кодировки: как сообщить вниманию, где стоит токен (урок 04)."""

import numpy as np


def sinusoidal_encoding(T, d_model, base=10000.0):
    """Синусоидальные кодировки из «Attention Is All You Need»: матрица (T, d_model).

    PE[pos, 2i] = sin(pos / base^(2i/d_model)), PE[pos, 2i+1] = cos(того же угла):
    у каждой пары столбцов своя частота, от быстрой (i = 0) до очень медленной.
    """
    for name, value in (("T", T), ("d_model", d_model)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"sinusoidal_encoding: {name} — целое число ≥ 1, а пришло {value!r}")
    positions = np.arange(T)[:, None]                             # (T, 1)
    frequencies = base ** (-np.arange(0, d_model, 2) / d_model)   # (ceil(d_model / 2),)
    angles = positions * frequencies                              # (T, ceil(d_model / 2))
    encoding = np.empty((T, d_model))
    encoding[:, 0::2] = np.sin(angles)
    encoding[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return encoding

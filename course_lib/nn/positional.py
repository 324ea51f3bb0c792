"""Позиционные кодировки: как сообщить вниманию, где стоит токен (урок 04)."""

import numpy as np

from course_lib._checks import check_int, check_memory, check_real


def sinusoidal_encoding(T, d_model, base=10000.0):
    """Синусоидальные кодировки из «Attention Is All You Need»: матрица (T, d_model).

    PE[pos, 2i] = sin(pos / base^(2i/d_model)), PE[pos, 2i+1] = cos(того же угла):
    у каждой пары столбцов своя частота, от быстрой (i = 0) до очень медленной.
    """
    check_int(T, "T", "sinusoidal_encoding", meaning=" (сколько позиций)")
    check_int(d_model, "d_model", "sinusoidal_encoding", meaning=" (длина вектора позиции)")
    check_real(base, "base", "sinusoidal_encoding", positive=True, meaning=" (основание частот, обычно 10000)")
    check_memory(8 * T * d_model, f"кодировки ({T}, {d_model}) float64", "sinusoidal_encoding", "меньше T")
    positions = np.arange(T)[:, None]                             # (T, 1)
    frequencies = base ** (-np.arange(0, d_model, 2) / d_model)   # (ceil(d_model / 2),)
    angles = positions * frequencies                              # (T, ceil(d_model / 2))
    encoding = np.empty((T, d_model))
    encoding[:, 0::2] = np.sin(angles)
    encoding[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return encoding

"""Три детали матричного умножения для Tensor.__matmul__ (tensor.py): быстрый батч, большие — на все ядра, градиенты для векторов."""

import numpy as np

from course_lib.autograd._parallel import matmul


def batched_matmul(a, b):
    """a @ b; батч (..., n, k) на одну матрицу (k, m) — одним умножением (…·n, k) @ (k, m).

    Ответ тот же, но NumPy сам вызвал бы BLAS отдельно для каждого элемента батча,
    а одно большое умножение BLAS делает заметно быстрее. Большое идёт на все ядра (_parallel.py).
    """
    if a.ndim < 2 or b.ndim != 2 or a.size == 0:
        return a @ b
    return matmul(a.reshape(-1, a.shape[-1]), b).reshape(a.shape[:-1] + b.shape[-1:])


def vector_matmul_grads(a, b, g):
    """Градиенты `a @ b`, когда хотя бы один из них — вектор (NumPy тогда не добавляет ось)."""
    if a.ndim == 1 and b.ndim == 1:                                    # скалярное произведение
        return g * b, g * a
    if a.ndim == 1:                                                    # (n,) @ (..., n, m) -> (..., m)
        return (b @ g[..., None])[..., 0], a[:, None] * g[..., None, :]
    return g[..., None] * b, (np.swapaxes(a, -1, -2) @ g[..., None])[..., 0]   # (..., n, m) @ (m,)

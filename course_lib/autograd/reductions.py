"""Свёртки по осям: sum, mean, max (урок 02 — сумма и максимум строки в softmax, урок 07 — средний loss).

Градиент суммы растягивается обратно на все слагаемые, градиент максимума достаётся
тем, кто был максимумом. Tensor (tensor.py) получает эти методы от класса Reductions.
"""

import numpy as np

from course_lib._checks import check_axes, check_bool


class Reductions:
    """Свёртки для Tensor; `_child` — из Tensor: результат помнит свой вход."""

    def sum(self, axis=None, keepdims=False):
        try:
            total = self.data.sum(axis=axis, keepdims=keepdims)
        except (TypeError, ValueError):             # NumPy не принял ось: объясним по-русски, что не так
            check_axes(axis, self.shape, "sum")
            check_bool(keepdims, "keepdims", "sum", meaning=" (оставить ли свёрнутые оси длиной 1)")
            raise
        out = self._child(total)

        def _backward(g):
            if not keepdims and axis is not None:
                g = np.expand_dims(g, axis)
            return (np.broadcast_to(g, self.shape),)

        out._backward = _backward
        return out

    def mean(self, axis=None, keepdims=False):
        check_axes(axis, self.shape, "mean")
        total = self.sum(axis=axis, keepdims=keepdims)
        axes = range(self.ndim) if axis is None else np.atleast_1d(axis)
        return total * (1.0 / int(np.prod([self.shape[a] for a in axes])))

    def max(self, axis=None, keepdims=False):
        """Максимум; градиент делится поровну между равными максимумами."""
        if self.data.size == 0:
            raise ValueError(f"max: у пустого тензора формы {self.shape} нет максимума")
        try:
            peak = self.data.max(axis=axis, keepdims=True)
        except (TypeError, ValueError):
            check_axes(axis, self.shape, "max")
            check_bool(keepdims, "keepdims", "max", meaning=" (оставить ли свёрнутые оси длиной 1)")
            raise
        out = self._child(peak if keepdims else np.squeeze(peak, axis=axis))

        def _backward(g):
            hits = self.data == peak
            return (np.reshape(g, peak.shape) * hits / hits.sum(axis=axis, keepdims=True),)

        out._backward = _backward
        return out


"""Свёртки по осям: sum, mean, max (урок 02 — сумма и максимум строки в softmax, урок 07 — средний loss).

Градиент суммы растягивается обратно на все слагаемые, градиент максимума достаётся
тем, кто был максимумом. Tensor (tensor.py) получает эти методы от класса Reductions.
"""

import numpy as np

from course_lib._checks import check_axis


class Reductions:
    """Свёртки для Tensor; `_child` — из Tensor: результат помнит свой вход."""

    def sum(self, axis=None, keepdims=False):
        _check_axes(axis, self, "sum")
        out = self._child(self.data.sum(axis=axis, keepdims=keepdims))

        def _backward(g):
            if not keepdims and axis is not None:
                g = np.expand_dims(g, axis)
            return (np.broadcast_to(g, self.shape),)

        out._backward = _backward
        return out

    def mean(self, axis=None, keepdims=False):
        axes = range(self.ndim) if axis is None else np.atleast_1d(axis)
        count = int(np.prod([self.shape[a] for a in axes]))
        return self.sum(axis=axis, keepdims=keepdims) * (1.0 / count)

    def max(self, axis=None, keepdims=False):
        """Максимум; градиент делится поровну между равными максимумами."""
        _check_axes(axis, self, "max")
        if self.data.size == 0:
            raise ValueError(f"max: у пустого тензора формы {self.shape} нет максимума")
        peak = self.data.max(axis=axis, keepdims=True)
        out = self._child(peak if keepdims else np.squeeze(peak, axis=axis))

        def _backward(g):
            hits = self.data == peak
            return (np.reshape(g, peak.shape) * hits / hits.sum(axis=axis, keepdims=True),)

        out._backward = _backward
        return out


def _check_axes(axis, tensor, where):
    """axis — None, номер оси или кортеж номеров осей тензора."""
    for a in (() if axis is None else np.atleast_1d(axis)):
        check_axis(int(a) if isinstance(a, np.integer) else a, tensor.ndim, where, tensor.shape)

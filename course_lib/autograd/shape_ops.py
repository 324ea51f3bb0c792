"""Операции над формой тензора: reshape, transpose, индексация, смена типа (урок 06 режет головы ими).

Значения они не меняют — только раскладывают по-другому, поэтому градиент просто
раскладывается обратно. Tensor (tensor.py) получает эти методы от класса ShapeOps.
Оси проверяет сам NumPy; только если он отказал, наша проверка объясняет по-русски, что не так
(так нарезка голов в каждом шаге обучения не платит за проверки, которые уже прошла).
"""

import numpy as np

from course_lib._checks import check_axis, check_dtype, reshape_error


class ShapeOps:
    """Методы формы для Tensor; `_child` — из Tensor: результат помнит свой вход."""

    @property
    def T(self):
        """Меняет местами две последние оси (для батча матриц — транспонирует каждую)."""
        return self.swapaxes(-1, -2)

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        try:
            data = self.data.reshape(shape)
        except (TypeError, ValueError):
            raise reshape_error(self.shape, shape) from None
        out = self._child(data)
        out._backward = lambda g: (g.reshape(self.shape),)
        return out

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        axes = axes or tuple(reversed(range(self.ndim)))
        try:
            data = self.data.transpose(axes)
        except (TypeError, ValueError):                       # NumPy не принял оси: объясним по-русски, что не так
            if sorted(check_axis(a, self.ndim, "transpose", self.shape) for a in axes) != list(range(self.ndim)):
                raise ValueError(f"transpose: нужна перестановка всех {self.ndim} осей, каждая по разу, "
                                 f"а пришло {tuple(axes)}") from None
            raise
        out = self._child(data)
        inverse = np.argsort([a % self.ndim for a in axes])   # оси могут быть отрицательными, как в NumPy
        out._backward = lambda g: (g.transpose(inverse),)
        return out

    def swapaxes(self, axis1, axis2):
        try:
            data = self.data.swapaxes(axis1, axis2)
        except (TypeError, ValueError):                       # NumPy не принял оси: объясним по-русски
            check_axis(axis1, self.ndim, "swapaxes", self.shape)
            check_axis(axis2, self.ndim, "swapaxes", self.shape)
            raise
        out = self._child(data)
        out._backward = lambda g: (g.swapaxes(axis1, axis2),)
        return out

    def __getitem__(self, index):
        index = index.data if isinstance(index, ShapeOps) else index   # Tensor-индексы тоже годятся
        try:
            data = self.data[index]
        except IndexError as error:
            raise IndexError(f"индекс {index!r} не помещается в тензор формы {self.shape}: "
                             f"по оси размера n номера от 0 до n − 1 (или от −n до −1). NumPy: {error}") from None
        out = self._child(data)

        def _backward(g):
            grad = np.zeros_like(self.data)
            np.add.at(grad, index, g)   # одна строка может быть выбрана несколько раз
            return (grad,)

        out._backward = _backward
        return out

    def astype(self, dtype):
        """Приведение типа; градиент возвращается в исходном типе."""
        dtype = check_dtype(dtype, "astype", floating=False)
        if self.dtype == dtype:
            return self
        out = self._child(self.data.astype(dtype))
        out._backward = lambda g: (g.astype(self.dtype),)
        return out

"""Маска и softmax — операции, из которых складывается внимание (уроки 02, 05) и кросс-энтропия (урок 07).

Tensor (tensor.py) получает эти методы от класса SoftmaxOps. Публичные `nt.softmax` и
`nt.cross_entropy` (functional.py) проверяют входы и зовут их.
"""

import numpy as np

from course_lib._checks import check_axes, check_mask, check_peak, check_real


class SoftmaxOps:
    """masked_fill, softmax, log_softmax для Tensor; `_child` — из Tensor: результат помнит свой вход."""

    def masked_fill(self, mask, value):
        """Ставит `value` там, где mask == True; туда градиент не течёт."""
        mask = check_mask(mask, self.shape)
        check_real(value, "value", "masked_fill", finite=False, meaning=" (что поставить вместо закрытого, обычно −inf)")
        out = self._child(np.where(mask, np.asarray(value, dtype=self.dtype), self.data))
        out._backward = lambda g: (np.where(mask, 0, g),)
        return out

    def softmax(self, axis=-1):
        """exp(x) / Σ exp(x) вдоль оси `axis` (урок 02); строка из одних −∞ — нулевые веса, без nan."""
        peak = self._peak(axis, "softmax")                       # nan и +inf «всплывают» в максимум строки
        check_peak(peak, "softmax")
        peak[np.isneginf(peak)] = 0                              # строка из одних −∞: вычитаем 0, не −∞
        weights = self.data - peak
        np.exp(weights, out=weights)                             # exp на месте: без ещё одного массива формы x
        total = weights.sum(axis=axis, keepdims=True)
        total[total == 0] = 1                                    # ... и получаем нули вместо 0/0
        weights /= total
        out = self._child(weights)

        def _backward(g):
            grad = g - (g * weights).sum(axis=axis, keepdims=True)   # g − Σ g·w по строке
            grad *= weights                                          # w ⊙ (g − Σ g·w), на месте
            return (grad,)

        out._backward = _backward
        return out

    def log_softmax(self, axis=-1):
        """log softmax(x) = (x − max) − log Σ exp(x − max): конечен, даже где softmax округлился до 0 (урок 07)."""
        shifted = self.data - self._peak(axis, "log_softmax")
        probs = np.exp(shifted)
        total = probs.sum(axis=axis, keepdims=True)
        probs /= total                                           # softmax — для backward
        out = self._child(shifted - np.log(total))

        def _backward(g):
            return (g - probs * g.sum(axis=axis, keepdims=True),)   # d log p_i / d x_j = [i = j] − p_j

        out._backward = _backward
        return out

    def _peak(self, axis, where):
        """Максимум вдоль оси (keepdims); ось вне массива — ошибка по-русски, как у sum и max."""
        try:
            return self.data.max(axis=axis, keepdims=True)
        except (TypeError, ValueError):                  # AxisError — тоже ValueError
            check_axes(axis, self.shape, where)
            raise

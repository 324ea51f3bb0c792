"""Движок — «книга»: тензор с автоградом (урок 03 и дальше). Здесь пишут `_backward` у операций книги.

`tensor.py` — Tensor, арифметика и backward, `shape_ops.py` — операции над формой,
`reductions.py` — sum, mean, max, `softmax.py` — masked_fill, softmax, log_softmax,
`conversions.py` — item(), float(t), np.asarray(t) и массив NumPy слева от оператора,
`graph.py` — обход графа для backward: порядок узлов, отказ пройти граф дважды или по изменённым весам,
`switch.py` — выключатели `nt.no_grad` и `nt.fast`: вызов даёт блок для with, ошибки с with — по-русски.
Код здесь простой, без веток ради скорости; быстрые версии — в `course_lib/engine_room/` за `nt.fast()`.
"""

from course_lib.autograd.tensor import Tensor, as_tensor, concatenate, no_grad, tensor

__all__ = ["Tensor", "as_tensor", "concatenate", "no_grad", "tensor"]

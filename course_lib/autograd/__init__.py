"""Движок: тензор с автоградом (урок 03 и дальше). Единственное место, где пишут `_backward`.

`tensor.py` — Tensor, арифметика и backward, `shape_ops.py` — операции над формой,
`reductions.py` — sum, mean, max, `attention.py` — внимание одной операцией (ради скорости),
`_matmul.py` — как одним вызовом BLAS умножить пачку матриц на одну,
`_parallel.py` — пул потоков для больших операций (куски на все ядра, BLAS в каждом — в один поток).
"""

from course_lib.autograd.tensor import Tensor, as_tensor, concatenate, no_grad, tensor

__all__ = ["Tensor", "as_tensor", "concatenate", "no_grad", "tensor"]

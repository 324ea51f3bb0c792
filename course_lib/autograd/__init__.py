"""Движок: тензор с автоградом (урок 03 и дальше). Единственное место, где пишут `_backward`.

`tensor.py` — Tensor и арифметика, `shape_ops.py` — операции над формой,
`_matmul.py` — как одним вызовом BLAS умножить пачку матриц на одну.
"""

from course_lib.autograd.tensor import Tensor, as_tensor, concatenate, no_grad, tensor

__all__ = ["Tensor", "as_tensor", "concatenate", "no_grad", "tensor"]

"""Module — базовый класс слоёв: находит свои параметры и печатается как в PyTorch."""

import numpy as np

from course_lib._checks import check_dtype
from course_lib.autograd.tensor import Tensor


class Module:
    """Слой или модель. Параметры — атрибуты-Tensor с requires_grad=True, в том числе у вложенных слоёв."""

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}: опишите вычисление в методе forward")

    def named_parameters(self, prefix=""):
        """Пары (имя, параметр) в порядке объявления атрибутов: 'W_q.weight', 'W_q.bias', …"""
        for name, value in vars(self).items():
            if isinstance(value, Tensor) and value.requires_grad:
                yield prefix + name, value
            elif isinstance(value, Module):
                yield from value.named_parameters(prefix + name + ".")
            elif isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    if isinstance(item, Module):
                        yield from item.named_parameters(f"{prefix}{name}.{i}.")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def num_params(self):
        """Сколько чисел модель учит."""
        return sum(p.data.size for p in self.parameters())

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def to(self, dtype):
        """Приводит все параметры к типу dtype (например, np.float32 для скорости)."""
        dtype = check_dtype(dtype, f"{type(self).__name__}.to")
        for p in self.parameters():
            p.data = p.data.astype(dtype)
            p.grad = None
        return self

    def extra_repr(self):
        return ""

    def __repr__(self):
        children = [(n, m) for n, m in vars(self).items() if isinstance(m, Module)]
        children += [(f"{n}.{i}", item) for n, m in vars(self).items() if isinstance(m, (list, tuple))
                     for i, item in enumerate(m) if isinstance(item, Module)]         # стопка слоёв: blocks.0, blocks.1…
        if not children:
            return f"{type(self).__name__}({self.extra_repr()})"
        lines = [self.extra_repr()] if self.extra_repr() else []
        lines += [f"({name}): " + repr(child).replace("\n", "\n  ") for name, child in children]
        return f"{type(self).__name__}(\n" + "".join(f"  {line}\n" for line in lines) + ")"


def parameter(data):
    """Обучаемый параметр: Tensor с requires_grad=True."""
    return Tensor(np.asarray(data), requires_grad=True)

"""Оптимизаторы: шаг по градиенту для каждого параметра (урок 07)."""

import numpy as np

from course_lib._checks import check_real
from course_lib.autograd.tensor import Tensor


def _check_fraction(value, name, where, meaning):
    """Доля «памяти» скользящего среднего: число из [0, 1) (1 — среднее бы не сдвигалось никогда)."""
    check_real(value, name, where, meaning=meaning)
    if not 0 <= value < 1:
        raise ValueError(f"{where}: {name} — число от 0 до 1, не включая 1{meaning}, а пришло {value!r}")
    return float(value)


class Optimizer:
    """Общее у SGD и Adam: список параметров, шаг lr и zero_grad()."""

    def __init__(self, params, lr):
        name = type(self).__name__
        if isinstance(params, Tensor) or not hasattr(params, "__iter__"):
            hint = " Похоже, передана сама модель: нужен model.parameters()" if hasattr(params, "parameters") else ""
            raise TypeError(f"{name}: params — список параметров (model.parameters()), а пришло {type(params).__name__}.{hint}")
        self.params = list(params)
        if not self.params:
            raise ValueError(f"{name}: ожидался непустой список параметров, а пришёл пустой: передайте model.parameters()")
        for p in self.params:
            if not isinstance(p, Tensor) or not p.requires_grad:
                what = "Tensor без requires_grad=True" if isinstance(p, Tensor) else type(p).__name__
                raise TypeError(f"{name}: каждый параметр — Tensor с requires_grad=True (как в model.parameters()), "
                                f"а пришёл {what}")
        self.lr = check_real(lr, "lr", name, positive=True, meaning=" (шаг обучения, например 1e-3)")

    def zero_grad(self):
        for p in self.params:
            p.grad = None


class SGD(Optimizer):
    """θ ← θ − lr · (градиент, сглаженный моментом)."""

    def __init__(self, params, lr=0.1, momentum=0.0):
        super().__init__(params, lr)
        self.momentum = _check_fraction(momentum, "momentum", "SGD", " (0 — без момента, обычно 0.9)")
        self.velocity = [np.zeros_like(p.data) for p in self.params]

    def step(self):
        for p, v in zip(self.params, self.velocity):
            if p.grad is None:
                continue
            v *= self.momentum
            v += p.grad
            p.data -= self.lr * v


class Adam(Optimizer):
    """Adam: шаг по градиенту, делённому на его скользящую «типичную величину» (Kingma, Ba, 2014)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, lr)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"Adam: betas — пара чисел от 0 до 1, обычно (0.9, 0.999), а пришло {betas!r}")
        self.beta1, self.beta2 = (_check_fraction(beta, f"betas[{i}]", "Adam", " (обычно (0.9, 0.999))")
                                  for i, beta in enumerate(betas))
        self.eps = check_real(eps, "eps", "Adam", positive=True, meaning=" (маленькое, обычно 1e-8)")
        self.t = 0
        self.m = [np.zeros_like(p.data) for p in self.params]   # среднее градиента
        self.v = [np.zeros_like(p.data) for p in self.params]   # среднее квадрата градиента

    def step(self):
        self.t += 1
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            m += (1 - self.beta1) * (p.grad - m)
            v += (1 - self.beta2) * (p.grad**2 - v)
            m_hat = m / (1 - self.beta1**self.t)          # поправка: в начале m и v смещены к нулю
            v_hat = v / (1 - self.beta2**self.t)
            p.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)

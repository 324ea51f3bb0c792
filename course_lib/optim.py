"""Оптимизаторы: шаг по градиенту для каждого параметра (урок 07)."""

import numpy as np


class Optimizer:
    def __init__(self, params, lr):
        self.params = list(params)
        if not self.params:
            raise ValueError("оптимизатору передан пустой список параметров: передайте model.parameters()")
        if not lr > 0:
            raise ValueError(f"lr (шаг обучения) должен быть > 0, а пришло {lr}")
        self.lr = lr

    def zero_grad(self):
        for p in self.params:
            p.grad = None


class SGD(Optimizer):
    """θ ← θ − lr · (градиент, сглаженный моментом)."""

    def __init__(self, params, lr=0.1, momentum=0.0):
        super().__init__(params, lr)
        self.momentum = momentum
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
        self.beta1, self.beta2 = betas
        self.eps = eps
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

"""LayerNorm одной операцией со своим backward: та же формула, что `LayerNorm.forward` в nn/norm.py (урок 09)."""

import numpy as np

from course_lib._checks import check_eps
from course_lib.engine_room.inputs import check_tensor


def fast_layer_norm(x, weight, bias, eps):
    """(x − mean) / √(var + eps) · weight + bias по последней оси, как в книге — и тоже во float64 внутри.

    Книга собирает слой из дюжины операций (приведения типа, среднее, разность, квадрат, деление…), и
    backward проходит каждую. Здесь градиент по x — готовой формулой (x̂ — нормированный x, σ = √(var + eps)):
        dL/dx = (ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) / σ,   ĝ = g·weight,
    а градиенты weight и bias — суммы g·x̂ и g по всем токенам.
    """
    check_tensor(x, "x", "fast_layer_norm", "(…, D)", "nt.nn.LayerNorm(D)", axes=1)
    for name, t in (("weight", weight), ("bias", bias)):
        check_tensor(t, name, "fast_layer_norm", "(D,)", "nt.nn.LayerNorm(D)")
        if t.shape != x.shape[-1:]:
            raise ValueError(f"fast_layer_norm: {name} — по числу на каждое из D = {x.shape[-1]} чисел токена, форма "
                             f"{x.shape[-1:]}, а пришла форма {t.shape} (x {x.shape})")
    eps = check_eps(eps, "fast_layer_norm")
    x64 = x.data.astype(np.float64)                                    # (..., D)
    centered = x64 - x64.mean(axis=-1, keepdims=True)                  # (..., D)
    std = np.sqrt((centered * centered).mean(axis=-1, keepdims=True) + eps)   # (..., 1)
    normalized = centered / std                                        # (..., D), float64
    x_hat = normalized.astype(x.dtype)
    w, b = weight.data.astype(x.dtype), bias.data.astype(x.dtype)
    out = x._child(x_hat * w + b, weight, bias)

    def _backward(g):
        tokens = tuple(range(g.ndim - 1))                              # все оси, кроме последней
        g_hat = (g * w).astype(np.float64)                             # (..., D)
        grad_x = (g_hat - g_hat.mean(axis=-1, keepdims=True)
                  - normalized * (g_hat * normalized).mean(axis=-1, keepdims=True)) / std
        return (grad_x.astype(x.dtype), (g * x_hat).sum(axis=tokens).astype(weight.dtype),
                g.sum(axis=tokens).astype(bias.dtype))

    out._backward = _backward
    return out

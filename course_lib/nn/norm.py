"""LayerNorm: каждый вектор-токен приводится к среднему 0 и дисперсии 1, потом масштаб и сдвиг (урок 09)."""

import numpy as np

from course_lib._checks import check_eps, check_float, check_int
from course_lib.autograd.tensor import as_tensor
from course_lib.engine_room import enabled as fast_enabled, fast_layer_norm
from course_lib.nn.module import Module, parameter


class LayerNorm(Module):
    """(x − mean) / √(var + eps) · weight + bias по последней оси; то же, что torch.nn.LayerNorm.

    x: (..., d_model) -> (..., d_model). Среднее и дисперсия — по d_model чисел одного токена,
    дисперсия смещённая (делим на d_model, а не на d_model − 1). `.weight` (d_model,) сначала
    единицы, `.bias` (d_model,) — нули: слой начинает с чистой нормировки и учится её поправлять.
    """

    def __init__(self, d_model, eps=1e-5):
        check_int(d_model, "d_model", "LayerNorm", meaning=" (длина вектора токена)")
        check_eps(eps, "LayerNorm")
        self.d_model, self.eps = d_model, eps
        self.weight = parameter(np.ones(d_model))
        self.bias = parameter(np.zeros(d_model))

    def forward(self, x):
        x = as_tensor(x, where="LayerNorm")
        check_float(x.data, "x")
        if x.shape[-1:] != (self.d_model,):
            raise ValueError(
                f"LayerNorm(d_model={self.d_model}): последняя ось входа должна быть {self.d_model}, "
                f"а пришла форма {x.shape}"
            )
        if fast_enabled():                                           # машинное отделение: то же одной операцией
            return fast_layer_norm(x, self.weight, self.bias, self.eps)   # (engine_room/layer_norm.py; проверит и eps)
        check_eps(self.eps, "LayerNorm")                             # eps могли поменять после создания слоя
        # Считаем во float64 и возвращаемся в тип входа: у float32 около 1e4 шаг сетки ~1e-3, и среднее,
        # округлённое до float32, сдвигает токен с разбросом 1e-3 на ту же величину — ошибка в десятки процентов.
        x64 = x.astype(np.float64)                                   # (..., D)
        mean = x64.mean(axis=-1, keepdims=True)                      # (..., D) -> (..., 1)
        centered = x64 - mean                                        # (..., D): сначала вычесть среднее, потом квадраты
        variance = (centered**2).mean(axis=-1, keepdims=True)        # (..., 1): смещённая, делим на D
        normalized = (centered / (variance + self.eps) ** 0.5).astype(x.dtype)   # (..., D): среднее 0, дисперсия ≈ 1
        return normalized * self.weight.astype(x.dtype) + self.bias.astype(x.dtype)

    def extra_repr(self):
        return f"d_model={self.d_model}, eps={self.eps}"

"""Простые слои: Linear (y = x W + b) и Embedding (строка таблицы по номеру токена)."""

import numpy as np

from course_lib._checks import check_bool, check_float, check_int, check_memory, check_numbers
from course_lib.engine_room import enabled as fast_enabled, fast_linear
from course_lib.nn.module import Module, parameter
from course_lib.rng import generator
from course_lib.autograd.tensor import Tensor, as_tensor


class Linear(Module):
    """y = x @ weight + bias; weight (d_in, d_out), как в записи Q = X W_Q (урок 03).

    x: (..., d_in) -> (..., d_out). Начальные веса — равномерные в ±1/√d_in, как в PyTorch.
    """

    def __init__(self, d_in, d_out, bias=True):
        check_int(d_in, "d_in", "Linear", meaning=" (длина входного вектора)")
        check_int(d_out, "d_out", "Linear", meaning=" (длина выходного вектора)")
        bias = check_bool(bias, "bias", "Linear", meaning=" (нужен ли сдвиг b)")
        check_memory(8 * d_in * d_out, f"веса ({d_in}, {d_out}) float64", "Linear", "меньше d_in или d_out")
        bound = 1 / np.sqrt(d_in)
        self.d_in, self.d_out = d_in, d_out
        self.weight = parameter(generator().uniform(-bound, bound, size=(d_in, d_out)))
        self.bias = parameter(generator().uniform(-bound, bound, size=d_out)) if bias else None

    def forward(self, x):
        x = as_tensor(x, where="Linear")
        check_float(x.data, "x", finite=False)          # иначе веса молча округлились бы до целых
        if x.shape[-1:] != (self.d_in,):
            raise ValueError(
                f"Linear({self.d_in} -> {self.d_out}): последняя ось входа должна быть {self.d_in}, "
                f"а пришла форма {x.shape}"
            )
        weight = self.weight.astype(x.dtype)
        y = fast_linear(x, weight) if fast_enabled() else x @ weight   # (..., d_in) @ (d_in, d_out) -> (..., d_out)
        return y + self.bias.astype(x.dtype) if self.bias is not None else y

    def extra_repr(self):
        return f"d_in={self.d_in}, d_out={self.d_out}, bias={self.bias is not None}"


class Embedding(Module):
    """Таблица (num_embeddings, dim): номер токена -> строка таблицы (урок 01).

    ids: целые (...) -> векторы (..., dim). Это то же, что one_hot(ids) @ weight, только без умножения.
    """

    def __init__(self, num_embeddings, dim):
        check_int(num_embeddings, "num_embeddings", "Embedding", meaning=" (сколько строк в таблице: размер словаря)")
        check_int(dim, "dim", "Embedding", meaning=" (длина вектора)")
        check_memory(8 * num_embeddings * dim, f"таблица ({num_embeddings}, {dim}) float64", "Embedding",
                     "меньше num_embeddings (словарь, max_len) или dim")
        self.num_embeddings, self.dim = num_embeddings, dim
        self.weight = parameter(generator().normal(size=(num_embeddings, dim)))

    def forward(self, ids):
        ids = check_numbers(ids.data if isinstance(ids, Tensor) else ids, "ids", "Embedding")
        if not np.issubdtype(ids.dtype, np.integer):
            raise TypeError(f"Embedding: ожидались целые номера токенов, а пришёл dtype {ids.dtype}")
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_embeddings):
            raise ValueError(
                f"Embedding: номера строк должны быть от 0 до {self.num_embeddings - 1}, "
                f"а встретились {ids.min()}…{ids.max()}. Таблица меньше, чем нужно: "
                f"увеличьте num_embeddings (размер словаря или наибольшую длину T)"
            )
        return self.weight[ids]                          # (...) -> (..., dim)

    def extra_repr(self):
        return f"num_embeddings={self.num_embeddings}, dim={self.dim}"

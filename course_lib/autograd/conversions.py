"""Тензор и остальной Python: item(), float(loss), np.asarray(t), массив NumPy слева от оператора (уроки 00, 07).

Как у torch.Tensor: тензор из одного числа превращается в число, np.asarray(t) даёт его числа без графа.
Функции NumPy вроде np.exp(t) граф не продолжат — они отвечают ошибкой по-русски и называют метод
тензора. Tensor (tensor.py) получает эти методы от класса Conversions.
"""

_NUMPY_OPERATORS = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "truediv",
                    "true_divide": "truediv", "matmul": "matmul"}


class Conversions:
    """item, float, int, bool и встреча с NumPy для Tensor."""

    def item(self):
        """Число из тензора с одним числом (loss.item()); у тензора из многих чисел — ошибка по-русски."""
        if self.data.size != 1:
            raise ValueError(
                f"item(), float(), int() и bool() берут тензор из одного числа, а у этого форма {self.shape} "
                f"({self.data.size} чисел). Сверните его (.sum(), .mean()) или возьмите элемент: t[0]"
            )
        return self.data.item()

    def __float__(self):
        return float(self.item())            # float(loss), как в PyTorch: losses.append(float(loss))

    def __int__(self):
        return int(self.item())

    def __bool__(self):
        return bool(self.item())

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t) — его числа (без графа), как у torch.Tensor."""
        return self.data if dtype is None else self.data.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """`массив * tensor`, `np.float32(2) * tensor` — наши операции с графом; np.exp(t) и прочие — ошибка по-русски."""
        operator = _NUMPY_OPERATORS.get(ufunc.__name__)
        if operator and method == "__call__" and not kwargs and len(inputs) == 2:
            a, b = inputs
            return getattr(self, f"__{operator}__")(b) if a is self else getattr(self, f"__r{operator}__")(a)
        own = f"t.{ufunc.__name__}()" if hasattr(self, ufunc.__name__) else "операции тензора (+, *, @, exp, log, …)"
        raise TypeError(
            f"np.{ufunc.__name__} не умеет считать градиент через Tensor: ожидалась функция тензора — {own}, "
            f"а пришёл вызов функции NumPy. Нужны только числа, без градиента: np.{ufunc.__name__}(t.data)"
        )

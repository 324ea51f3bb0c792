"""Тензор с автоматическим дифференцированием — весь «движок» курса.

Каждая операция делает две вещи рядом: считает результат и объявляет `_backward` —
как градиент результата раскладывается по входам. `backward()` обходит граф
от результата к листьям в обратном топологическом порядке. Урок 00 показывает,
как этим пользоваться, урок 07 — как на этом учится модель.
"""

import inspect
import numbers

import numpy as np

from course_lib._checks import broadcast_error, check_axis, check_bool, check_numbers, matmul_error
from course_lib.autograd.conversions import Conversions
from course_lib.autograd.graph import check_graph, spent, topological_order, unbroadcast
from course_lib.autograd.reductions import Reductions
from course_lib.autograd.shape_ops import ShapeOps
from course_lib.autograd.softmax import SoftmaxOps
from course_lib.autograd.switch import Block, Switch, pop_entry

_grad_enabled = True


_grad_stack = []                          # (блок,) каждого открытого входа в no_grad(): пока он не пуст, графа нет


class NoGradBlock(Block):
    """Блок `with no_grad():` — его даёт вызов no_grad(); войти в него можно снова и вложенно."""

    call = "nt.no_grad()"

    def __init__(self, *args, **kwargs):
        super().__init__()
        if args or kwargs:
            given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            raise TypeError(f"nt.no_grad() — без аргументов (внутри блока граф не строится), а пришло nt.no_grad({given})")

    def _enter(self):
        global _grad_enabled
        _grad_stack.append((self,))
        _grad_enabled = False

    def _exit(self, *error):
        global _grad_enabled
        pop_entry(_grad_stack, self)
        _grad_enabled = not _grad_stack


class NoGrad(Switch):
    """`with no_grad():` — внутри граф не строится: быстрее и без лишней памяти (генерация, оценка).

    `@nt.no_grad()` над функцией — вся функция без графа. Сам `nt.no_grad` без скобок — не блок (autograd/switch.py).
    """

    name, block = "nt.no_grad", NoGradBlock
    __signature__ = inspect.Signature()                  # без аргументов (NoGradBlock ловит лишние сам, по-русски)


no_grad = NoGrad()


class Tensor(ShapeOps, Reductions, SoftmaxOps, Conversions):
    """Массив NumPy плюс то, что нужно для градиента: `.grad` и ссылки на входы."""

    def __init__(self, data, requires_grad=False, _parents=()):
        self._data = check_numbers(data, "data", "Tensor")
        self._version = 0                    # +1 при каждой записи в .data: backward заметит, что числа сменились
        self.grad = None
        self.requires_grad = check_bool(requires_grad, "requires_grad", "Tensor")
        self._parents = _parents
        self._backward = None

    # ---- служебное ----------------------------------------------------------------

    @property
    def data(self):
        """Сами числа — массив NumPy."""
        return self._data

    @data.setter
    def data(self, value):
        # `p.data -= lr * p.grad` тоже проходит здесь: Python вычитает на месте и присваивает результат
        self._data = value
        self._version += 1

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def dtype(self):
        return self.data.dtype

    def __len__(self):
        return len(self.data)

    def __repr__(self):
        grad = ", requires_grad=True" if self.requires_grad else ""
        body = np.array2string(self.data, precision=4, separator=", ", prefix="tensor(")
        return f"tensor({body}{grad})"

    def numpy(self):
        return self.data

    def _child(self, data, *parents):
        """Результат операции: запоминает входы (и номера версий их чисел), только если кому-то нужен градиент."""
        parents = (self,) + parents
        if _grad_enabled and any(p.requires_grad for p in parents):
            out = Tensor(data, requires_grad=True, _parents=parents)
            out._versions = tuple(p._version for p in parents)
            return out
        return Tensor(data)

    def backward(self, grad=None, retain_graph=False):
        """Считает d(self)/d(лист) для всех листьев с requires_grad=True и кладёт в `.grad`.

        Как в micrograd: узлы от результата к листьям (обратный топологический порядок),
        каждый отдаёт свой градиент входам через `_backward`, входы складывают пришедшее.
        Как в PyTorch, граф проходится один раз: второй backward() того же результата — ошибка,
        если первый не попросил retain_graph=True (иначе градиент молча сложился бы дважды).
        """
        retain_graph = check_bool(retain_graph, "retain_graph", "backward")
        start = self._start_grad(grad)
        order = topological_order(self)
        check_graph(order)                              # до первого шага: .grad не меняется, если ошибка
        grads = {id(self): start}                       # id(узла) -> dL/d(узел), пока его не обработали
        for node in reversed(order):
            node_grad = grads.pop(id(node), None)
            if node_grad is None:
                continue
            if not node._parents:                       # лист: градиент — в .grad
                node._accumulate(node_grad)
                continue
            for parent, parent_grad in zip(node._parents, node._backward(node_grad)):
                if parent_grad is None or not parent.requires_grad:
                    continue
                parent_grad = unbroadcast(parent_grad, parent.shape)   # свернуть оси, растянутые broadcasting'ом
                if id(parent) in grads:
                    parent_grad = grads[id(parent)] + parent_grad       # значение использовано дважды: складываем
                grads[id(parent)] = parent_grad
        if not retain_graph:
            for node in order:
                if node._parents:
                    node._backward = spent              # граф пройден; замыкания с промежуточными массивами — в сборщик

    def _start_grad(self, grad):
        """Градиент, с которого начинается backward: 1 для скаляра или переданный массив формы self."""
        if grad is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() без аргумента работает только для скаляра, а у тензора форма {self.shape}. "
                    "Сверните результат в число (например, .sum() или .mean()) "
                    "или передайте градиент той же формы: backward(np.ones(shape))."
                )
            grad = np.ones_like(self.data)
        grad = check_numbers(getattr(grad, "data", grad), "grad", "backward").astype(self.dtype)
        if grad.shape != self.shape:
            raise ValueError(f"градиент должен иметь форму тензора {self.shape}, а пришла форма {grad.shape}")
        if not self.requires_grad:
            raise ValueError(
                "у этого тензора нет графа вычислений: ни один его вход не создан с requires_grad=True "
                "(или он посчитан внутри no_grad()). Создайте параметры через tensor(..., requires_grad=True)."
            )
        return grad

    def _accumulate(self, grad):
        """Прибавляет градиент (уже формы self) к `.grad` листа."""
        grad = grad.astype(self.dtype)                  # копия: .grad не делит память с соседями
        self.grad = grad if self.grad is None else self.grad + grad   # не `+=`: grad мог прийти общим массивом

    # ---- арифметика (с broadcasting) ------------------------------------------------

    def __add__(self, other):
        other = as_tensor(other, like=self, where="a + b")
        out = self._child(_elementwise(np.add, "+", self, other), other)
        out._backward = lambda g: (g, g)
        return out

    def __mul__(self, other):
        other = as_tensor(other, like=self, where="a * b")
        out = self._child(_elementwise(np.multiply, "*", self, other), other)
        out._backward = lambda g: (g * other.data, g * self.data)
        return out

    def __truediv__(self, other):
        other = as_tensor(other, like=self, where="a / b")
        out = self._child(_elementwise(np.divide, "/", self, other), other)
        out._backward = lambda g: (g / other.data, -g * self.data / other.data**2)
        return out

    def __neg__(self):
        out = self._child(-self.data)
        out._backward = lambda g: (-g,)
        return out

    def __sub__(self, other):
        return self + (-as_tensor(other, like=self, where="a - b"))

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return as_tensor(other, like=self, where="a - b") - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return as_tensor(other, like=self, where="a / b") / self

    def __pow__(self, p):
        if isinstance(p, bool) or not isinstance(p, numbers.Real):
            raise TypeError(f"степень должна быть числом (int или float), а пришёл {type(p).__name__}")
        out = self._child(self.data**p)
        out._backward = lambda g: (g * p * self.data ** (p - 1),)
        return out

    def __matmul__(self, other):
        other = as_tensor(other, like=self, where="A @ B")
        try:
            product = self.data @ other.data
        except ValueError:
            raise matmul_error(self.shape, other.shape) from None
        out = self._child(product, other)

        def _backward(g):
            a, b = self.data, other.data
            if a.ndim == 1 or b.ndim == 1:
                return _vector_matmul_grads(a, b, g)
            return g @ np.swapaxes(b, -1, -2), np.swapaxes(a, -1, -2) @ g   # dL/dA = G Bᵀ, dL/dB = Aᵀ G

        out._backward = _backward
        return out

    def __rmatmul__(self, other):
        return as_tensor(other, like=self, where="A @ B") @ self

    # ---- поэлементные функции -----------------------------------------------------

    def exp(self):
        out = self._child(np.exp(self.data))
        out._backward = lambda g: (g * out.data,)
        return out

    def log(self):
        out = self._child(np.log(self.data))
        out._backward = lambda g: (g / self.data,)
        return out

    def tanh(self):
        out = self._child(np.tanh(self.data))
        out._backward = lambda g: (g * (1 - out.data**2),)
        return out

    def relu(self):
        out = self._child(np.maximum(self.data, 0))
        out._backward = lambda g: (g * (self.data > 0),)
        return out


def concatenate(tensors, axis=0):
    """Склеивает тензоры вдоль оси `axis`; градиент режется обратно на куски."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"concatenate: tensors — список тензоров [a, b, …], а пришло {type(tensors).__name__}")
    tensors = [as_tensor(t, where="concatenate") for t in tensors]
    if not tensors:
        raise ValueError("concatenate: нужен хотя бы один тензор, а пришёл пустой список")
    first = tensors[0]
    if any(t.ndim == 0 for t in tensors):
        raise ValueError(f"concatenate: склеивать можно тензоры хотя бы с одной осью, а пришли формы {[t.shape for t in tensors]}")
    axis = check_axis(axis, first.ndim, "concatenate", first.shape)
    if len({(t.ndim, t.shape[:axis] + t.shape[axis + 1:]) for t in tensors}) > 1:
        raise ValueError(f"concatenate по оси {axis}: все оси, кроме неё, должны совпадать, "
                         f"а пришли формы {[t.shape for t in tensors]}")
    out = first._child(np.concatenate([t.data for t in tensors], axis=axis), *tensors[1:])
    bounds = np.cumsum([t.shape[axis] for t in tensors])[:-1]
    out._backward = lambda g: tuple(np.split(g, bounds, axis=axis))
    return out


def tensor(data, requires_grad=False):
    """Создаёт Tensor из списка, массива NumPy или числа (урок 00)."""
    data = data.data if isinstance(data, Tensor) else np.array(check_numbers(data, "data", "tensor"))
    if check_bool(requires_grad, "requires_grad", "tensor") and not np.issubdtype(data.dtype, np.floating):
        raise TypeError(
            f"градиент бывает только у дробных чисел, а пришёл dtype {data.dtype}. "
            "Передайте float: tensor(np.asarray(x, dtype=float), requires_grad=True)"
        )
    return Tensor(data, requires_grad=requires_grad)


def _elementwise(op, symbol, a, b):
    """op(a, b) над данными двух тензоров с broadcasting; несовместимые формы — ошибка по-русски."""
    try:
        return op(a.data, b.data)
    except ValueError:
        raise broadcast_error(symbol, a.shape, b.shape) from None


def as_tensor(x, like=None, name="x", where="as_tensor"):
    """Tensor как есть; число или массив — в Tensor (числа — в тип `like`, чтобы не было float64 из float32).

    None, строка, рваный список или комплексные числа — ошибка по-русски от имени `where` («a + b», «softmax»).
    """
    if isinstance(x, Tensor):
        return x
    data = check_numbers(x, "b" if like is not None else name, where)
    if like is not None and data.ndim == 0 and not isinstance(x, (bool, np.bool_)) and np.issubdtype(like.dtype, np.floating):
        return Tensor(data.astype(like.dtype))
    return Tensor(data)


def _vector_matmul_grads(a, b, g):
    """Градиенты `a @ b`, когда хотя бы один из них — вектор (NumPy тогда не добавляет ось)."""
    if a.ndim == 1 and b.ndim == 1:                                    # скалярное произведение
        return g * b, g * a
    if a.ndim == 1:                                                    # (n,) @ (..., n, m) -> (..., m)
        return (b @ g[..., None])[..., 0], a[:, None] * g[..., None, :]
    return g[..., None] * b, (np.swapaxes(a, -1, -2) @ g[..., None])[..., 0]   # (..., n, m) @ (m,)

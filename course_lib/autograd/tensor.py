"""Тензор с автоматическим дифференцированием — весь «движок» курса.

Каждая операция делает две вещи рядом: считает результат и объявляет `_backward` —
как градиент результата раскладывается по входам. `backward()` обходит граф
от результата к листьям в обратном топологическом порядке. Урок 00 показывает,
как этим пользоваться, урок 07 — как на этом учится модель.
"""

import contextlib
import numbers

import numpy as np

from course_lib._checks import broadcast_error, check_axis, matmul_error
from course_lib.autograd.reductions import Reductions
from course_lib.autograd.shape_ops import ShapeOps
from course_lib.autograd.softmax import SoftmaxOps

_grad_enabled = True


@contextlib.contextmanager
def no_grad():
    """Внутри `with no_grad():` граф не строится: быстрее и без лишней памяти (генерация, оценка)."""
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, False
    try:
        yield
    finally:
        _grad_enabled = previous


class Tensor(ShapeOps, Reductions, SoftmaxOps):
    """Массив NumPy плюс то, что нужно для градиента: `.grad` и ссылки на входы."""

    __array_ufunc__ = None   # `массив @ tensor`, `np.float64 * tensor`: NumPy уступает нашим __rmatmul__, __rmul__, …

    def __init__(self, data, requires_grad=False, _parents=()):
        self.data = data if isinstance(data, np.ndarray) else np.asarray(data)
        self.grad = None
        self.requires_grad = requires_grad
        self._parents = _parents
        self._backward = None

    # ---- служебное ----------------------------------------------------------------

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

    def item(self):
        return self.data.item()

    def _child(self, data, *parents):
        """Результат операции: запоминает входы, только если кому-то нужен градиент."""
        parents = (self,) + parents
        if _grad_enabled and any(p.requires_grad for p in parents):
            return Tensor(data, requires_grad=True, _parents=parents)
        return Tensor(data)

    def backward(self, grad=None):
        """Считает d(self)/d(лист) для всех листьев с requires_grad=True и кладёт в `.grad`.

        Как в micrograd: узлы от результата к листьям (обратный топологический порядок),
        каждый отдаёт свой градиент входам через `_backward`, входы складывают пришедшее.
        """
        grads = {id(self): self._start_grad(grad)}      # id(узла) -> dL/d(узел), пока его не обработали
        for node in reversed(_topological_order(self)):
            node_grad = grads.pop(id(node), None)
            if node_grad is None:
                continue
            if not node._parents:                       # лист: градиент — в .grad
                node._accumulate(node_grad)
                continue
            for parent, parent_grad in zip(node._parents, node._backward(node_grad)):
                if parent_grad is None or not parent.requires_grad:
                    continue
                parent_grad = _unbroadcast(parent_grad, parent.shape)   # свернуть оси, растянутые broadcasting'ом
                if id(parent) in grads:
                    parent_grad = grads[id(parent)] + parent_grad       # значение использовано дважды: складываем
                grads[id(parent)] = parent_grad

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
        grad = np.asarray(grad, dtype=self.dtype)
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
        other = as_tensor(other, like=self)
        out = self._child(_elementwise(np.add, "+", self, other), other)
        out._backward = lambda g: (g, g)
        return out

    def __mul__(self, other):
        other = as_tensor(other, like=self)
        out = self._child(_elementwise(np.multiply, "*", self, other), other)
        out._backward = lambda g: (g * other.data, g * self.data)
        return out

    def __truediv__(self, other):
        other = as_tensor(other, like=self)
        out = self._child(_elementwise(np.divide, "/", self, other), other)
        out._backward = lambda g: (g / other.data, -g * self.data / other.data**2)
        return out

    def __neg__(self):
        out = self._child(-self.data)
        out._backward = lambda g: (-g,)
        return out

    def __sub__(self, other):
        return self + (-as_tensor(other, like=self))

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return as_tensor(other, like=self) - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return as_tensor(other, like=self) / self

    def __pow__(self, p):
        if isinstance(p, bool) or not isinstance(p, numbers.Real):
            raise TypeError(f"степень должна быть числом (int или float), а пришёл {type(p).__name__}")
        out = self._child(self.data**p)
        out._backward = lambda g: (g * p * self.data ** (p - 1),)
        return out

    def __matmul__(self, other):
        other = as_tensor(other, like=self)
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
        return as_tensor(other, like=self) @ self

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
    tensors = [as_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError("concatenate: нужен хотя бы один тензор, а пришёл пустой список")
    first = tensors[0]
    axis = check_axis(axis, first.ndim, "concatenate", first.shape) if first.ndim else axis
    if len({(t.ndim, t.shape[:axis] + t.shape[axis + 1:]) for t in tensors}) > 1:
        raise ValueError(f"concatenate по оси {axis}: все оси, кроме неё, должны совпадать, "
                         f"а пришли формы {[t.shape for t in tensors]}")
    out = first._child(np.concatenate([t.data for t in tensors], axis=axis), *tensors[1:])
    bounds = np.cumsum([t.shape[axis] for t in tensors])[:-1]
    out._backward = lambda g: tuple(np.split(g, bounds, axis=axis))
    return out


def tensor(data, requires_grad=False):
    """Создаёт Tensor из списка, массива NumPy или числа (урок 00)."""
    data = data.data if isinstance(data, Tensor) else np.array(data)
    if data.dtype.kind not in "biuf":
        raise TypeError(f"tensor: нужны числа (или True/False), а пришёл dtype {data.dtype}: {data!r}"[:200])
    if requires_grad and not np.issubdtype(data.dtype, np.floating):
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


def as_tensor(x, like=None):
    """Tensor как есть; число или массив — в Tensor (числа — в тип `like`, чтобы не было float64 из float32)."""
    if isinstance(x, Tensor):
        return x
    if like is not None and np.isscalar(x) and np.issubdtype(like.dtype, np.floating):
        return Tensor(np.asarray(x, dtype=like.dtype))
    return Tensor(np.asarray(x))


def _vector_matmul_grads(a, b, g):
    """Градиенты `a @ b`, когда хотя бы один из них — вектор (NumPy тогда не добавляет ось)."""
    if a.ndim == 1 and b.ndim == 1:                                    # скалярное произведение
        return g * b, g * a
    if a.ndim == 1:                                                    # (n,) @ (..., n, m) -> (..., m)
        return (b @ g[..., None])[..., 0], a[:, None] * g[..., None, :]
    return g[..., None] * b, (np.swapaxes(a, -1, -2) @ g[..., None])[..., 0]   # (..., n, m) @ (m,)


def _unbroadcast(grad, shape):
    """Сворачивает градиент до формы входа: суммирует по осям, добавленным broadcasting'ом."""
    if grad.shape == shape:
        return grad
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape)))) if grad.ndim > len(shape) else grad
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def _topological_order(root):
    """Узлы графа так, что каждый идёт после всех своих входов (без рекурсии)."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((p, False) for p in node._parents if p.requires_grad and id(p) not in seen)
    return order

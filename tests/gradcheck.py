"""Проверка градиентов конечными разностями (float64).

`assert_grads_match(f, arrays)` сравнивает градиенты автограда с численными:
строит из массивов листья с requires_grad=True, вызывает f(*tensors) -> Tensor,
сворачивает результат в число со случайными весами `(out * R).sum()` (так
проверяются неравномерные градиенты сверху, а не только «все единицы»)
и сообщает, у какого входа и насколько разошлись градиенты.
`gradcheck_module(module, x)` делает то же для входа и всех параметров слоя.
"""

import numpy as np

from course_lib.autograd.tensor import Tensor, no_grad


def numeric_grad(f, arrays, eps=1e-6):
    """Центральные разности: d f(*arrays) / d arrays[i] для каждого i.

    f принимает массивы (float64) и возвращает число. Массивы не меняются.
    """
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    grads = []
    for a in arrays:
        grad = np.zeros_like(a)
        for index in np.ndindex(a.shape):
            original = a[index]
            a[index] = original + eps
            plus = float(f(*arrays))
            a[index] = original - eps
            minus = float(f(*arrays))
            a[index] = original
            grad[index] = (plus - minus) / (2 * eps)
        grads.append(grad)
    return grads


def upstream_weights(shape, seed=1234):
    """Фиксированные случайные веса R для свёртки выхода в число."""
    return np.random.default_rng(seed).normal(size=shape)


def assert_grads_match(f, arrays, rtol=1e-5, atol=1e-7, eps=1e-6, names=None):
    """Градиенты автограда для f(*tensors) совпадают с конечными разностями.

    f: Tensor-и -> Tensor; arrays: входы (будут приведены к float64).
    Возвращает аналитические градиенты, чтобы тест мог проверить что-то ещё.
    """
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    names = names or [f"#{i}" for i in range(len(arrays))]

    leaves = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    out = f(*leaves)
    assert isinstance(out, Tensor), f"функция должна вернуть Tensor, а вернула {type(out).__name__}"
    assert out.requires_grad, "у результата нет графа: градиент не сможет дойти до входов"
    R = upstream_weights(out.shape)
    (out * R).sum().backward()

    def scalar(*plain):
        with no_grad():
            result = f(*(Tensor(p) for p in plain))
        return float((np.asarray(result.data, dtype=np.float64) * R).sum())

    numeric = numeric_grad(scalar, arrays, eps=eps)
    analytic = []
    for name, leaf, expected in zip(names, leaves, numeric):
        assert leaf.grad is not None, f"градиент по входу {name} не дошёл до листа (.grad is None)"
        got = np.asarray(leaf.grad)
        assert got.shape == expected.shape, (
            f"градиент по входу {name} формы {got.shape}, а вход формы {expected.shape}"
        )
        error = np.abs(got - expected)
        allowed = atol + rtol * np.abs(expected)
        if not (error <= allowed).all():
            worst = np.unravel_index(np.argmax(error - allowed), error.shape)
            raise AssertionError(
                f"градиент по входу {name} не совпал с конечными разностями: "
                f"максимальная ошибка {error.max():.3e} (допустимо {atol:.0e} + {rtol:.0e}·|числ.|); "
                f"в позиции {tuple(int(i) for i in worst)} автоград дал {got[worst]:.6e}, "
                f"а численно {expected[worst]:.6e}"
            )
        analytic.append(got)
    return analytic


def set_param(module, name, value):
    """module.'W_q.weight' = value — подменяем параметр листом из проверки градиентов."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    setattr(owner, attr, value)


def gradcheck_module(module, x, **kwargs):
    """Градиенты по входу и по каждому параметру модуля — против конечных разностей."""
    named = list(module.named_parameters())
    names = [name for name, _ in named]

    def fn(x, *params):
        for name, p in zip(names, params):
            set_param(module, name, p)
        return module(x)

    assert_grads_match(fn, [x] + [p.data for _, p in named], names=["x"] + names, **kwargs)

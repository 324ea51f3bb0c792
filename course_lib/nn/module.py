"""Module — базовый класс слоёв: находит свои параметры, сохраняет их по именам и печатается как в PyTorch."""

from collections.abc import Mapping

import numpy as np

from course_lib._checks import check_dtype, check_numbers
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

    def state_dict(self):
        """Все параметры по именам: {'tokens.weight': массив, 'blocks.0.ln1.weight': …} — копии, как снимок.

        Имена — из named_parameters; так чекпойнт хранят PyTorch и nanoGPT. Дальше модель можно
        учить: снимок не изменится.
        """
        return {name: p.data.copy() for name, p in self.named_parameters()}

    def load_state_dict(self, state):
        """Кладёт в параметры числа из state (словарь имя -> массив, как у state_dict) — по именам, не по порядку.

        Имена должны совпасть все до одного, формы — тоже; числа — дробные и конечные. Иначе ошибка
        называет параметр, и ни один параметр не меняется. Тип чисел остаётся типом модели (`.to(dtype)`).
        """
        where = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state, Mapping):
            raise TypeError(f"{where}: state — словарь имя -> массив, как model.state_dict(), "
                            f"а пришёл {type(state).__name__}")
        named = dict(self.named_parameters())
        missing = [name for name in named if name not in state]
        unexpected = [str(name) for name in state if name not in named]
        if missing or unexpected:
            raise ValueError(
                f"{where}: имена параметров не совпадают: нет {_listed(missing)}; лишние {_listed(unexpected)}. "
                f"У этой модели {len(named)} параметров ({_listed(list(named))}) — state от другой модели или от другой её версии?"
            )
        values = {}
        for name, p in named.items():
            value = state[name]
            value = check_numbers(value.data if isinstance(value, Tensor) else value, name, where)
            if value.shape != p.shape:
                raise ValueError(f"{where}: параметр {name} — формы {p.shape}, а в state — формы {value.shape}")
            if not np.issubdtype(value.dtype, np.floating):
                raise TypeError(f"{where}: параметр {name} — дробные числа, а в state — {value.dtype}")
            if not np.isfinite(value).all():
                bad = int((~np.isfinite(value)).sum())
                raise ValueError(f"{where}: в параметре {name} {bad} чисел nan или ±inf из {value.size}: "
                                 "такие веса сломали бы каждый ответ модели (обучение разошлось? попробуйте lr поменьше)")
            values[name] = value
        for name, p in named.items():                        # проверено всё — теперь можно менять
            p.data = values[name].astype(p.dtype, copy=True)

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


def _listed(names, limit=6):
    """«a, b, c и ещё 4» — для сообщений об именах параметров; пусто — «—»."""
    if not names:
        return "—"
    return ", ".join(names[:limit]) + (f" и ещё {len(names) - limit}" if len(names) > limit else "")

"""Как устроена проверка упражнений: ✅, ❌ с подсказкой или ⏳ «ещё не решено».

Проверка — обычная функция, которая гоняет решение ученика на примерах и при первой
ошибке бросает `Wrong("что не так и что попробовать")`. Декоратор `checker` превращает это
в напечатанный вердикт и возвращает `Result`. Нерешённое упражнение (в нём ещё стоит
`raise NotImplementedError`) не бросает исключение дальше: урок выполняется целиком.
Если функция ученика упала, `call` бросает `Crashed` — подсказку со входами и переводом
ошибки NumPy на русский (`_errors.explain`); проверка может уточнить её по `crash.kind`.
"""

import functools
import inspect
from dataclasses import dataclass

import numpy as np

from course_lib.exercises._errors import describe, explain


class Wrong(Exception):
    """Решение неверно; текст — подсказка ученику."""


class Crashed(Wrong):
    """Функция ученика упала. `kind` — что за ошибка ('broadcast', 'matmul', 'index', 'axis', …), `error` — она сама."""

    def __init__(self, message, error, kind):
        super().__init__(message)
        self.error, self.kind = error, kind


class _NotSolved(Exception):
    pass


@dataclass
class Result:
    passed: bool
    solved: bool          # False — ученик ещё не начинал (NotImplementedError)
    message: str

    def _ipython_display_(self):
        """Вердикт уже напечатан — второй раз в выводе ячейки он не нужен."""


NOT_SOLVED = "⏳ ещё не решено: допишите функцию вместо `raise NotImplementedError` и выполните ячейку снова"
UNREADABLE = ("❌ проверка не смогла разобрать ваш ответ ({error}). Посмотрите, что возвращает функция: "
              "массив нужной формы из чисел, как сказано в задании")


def checker(check):
    """Декоратор: check(candidate) бросает Wrong или возвращает текст похвалы."""

    @functools.wraps(check)
    def run(candidate, *args, **kwargs):
        if not callable(candidate):
            result = Result(False, True, f"❌ {check.__name__} проверяет саму функцию, а пришло значение "
                                         f"{describe(candidate)}. Передайте имя функции без скобок: "
                                         f"{check.__name__}(my_function)")
            print(result.message)
            return result
        try:
            with np.errstate(all="ignore"):
                praise = check(candidate, *args, **kwargs)
        except _NotSolved:
            result = Result(False, False, NOT_SOLVED)
        except Wrong as wrong:
            result = Result(False, True, f"❌ {wrong}")
        except Exception as error:                  # noqa: BLE001 — ответ такой, что сравнить не вышло
            result = Result(False, True, UNREADABLE.format(error=type(error).__name__))
        else:
            result = Result(True, True, f"✅ {praise or 'верно!'}")
        print(result.message)
        return result

    return run


def _as_array(out, what):
    if not isinstance(out, np.ndarray):
        out = getattr(out, "data", out)             # Tensor -> ndarray
    try:
        return np.asarray(out)
    except (ValueError, TypeError):
        raise Wrong(f"{what}: ожидался массив чисел, а пришло {describe(out)} — из него не собрать массив") from None


def call(candidate, *args):
    """Вызывает решение ученика; результат — ndarray (Tensor разворачивается), пара — кортеж ndarray."""
    try:
        with np.errstate(all="ignore"):
            out = candidate(*args)
    except NotImplementedError:
        raise _NotSolved from None
    except Exception as error:                      # noqa: BLE001 — любую ошибку ученика объясняем словами
        kind, text = explain(error)
        raise Crashed(f"функция упала на входе {_inputs(candidate, args)}: {text}", error, kind) from None
    if out is None:
        raise Wrong("функция ничего не вернула: не забыли `return`?")
    if isinstance(out, tuple):
        return tuple(_as_array(o, f"значение {i + 1} из {len(out)}") for i, o in enumerate(out))
    return _as_array(out, "результат")


def _inputs(candidate, args):
    """«scores (2, 3), k = 3»: что получила функция — по именам её аргументов."""
    try:
        names = list(inspect.signature(candidate).parameters)
    except (TypeError, ValueError):
        names = []
    if len(names) < len(args) or any(n.startswith("*") for n in names):
        names = [f"аргумент {i + 1}" for i in range(len(args))]
    return ", ".join(f"{name} {describe(arg)}" for name, arg in zip(names, args))


def expect_shape(out, shape, what="результат"):
    if not isinstance(out, np.ndarray) or out.dtype.kind not in "biuf":
        raise Wrong(f"{what}: ожидался массив чисел формы {tuple(shape)}, а пришло {describe(out)}")
    if out.shape != tuple(shape):
        raise Wrong(f"{what}: ожидалась форма {tuple(shape)}, а получилась {out.shape}")


def expect_finite(out, hint):
    if not np.isfinite(out).all():
        raise Wrong(f"в результате есть nan или inf. {hint}")


def same(out, value, atol=1e-8):
    """Совпадает ли ответ с `value` (той же формы; nan там же, где у value) — так узнаём типичную ошибку."""
    value = np.asarray(value)
    return out.shape == value.shape and bool(np.allclose(out, value, atol=atol, equal_nan=True))


def recognize(out, right, mistakes, where=""):
    """Узнаёт типичную ошибку по ответу. mistakes — пары (функция без аргументов: что вышло бы у ошибившегося,
    подсказка); ошибка, которая на этом входе даёт верный ответ, здесь ни при чём."""
    for compute, hint in mistakes:
        try:
            expected = compute()
        except (ValueError, IndexError):            # у ошибившегося этот вход упал бы, а у ученика — нет
            continue
        if same(out, expected) and not same(expected, right):
            raise Wrong(f"{where}{hint}")


def expect_close(out, reference, hint, atol=1e-8):
    reference = np.asarray(reference)
    expect_shape(out, reference.shape)
    if not np.allclose(out, reference, atol=atol):
        gap = np.abs(out - reference)
        gap = "nan" if np.isnan(gap).any() else f"{gap.max():.3g}"
        raise Wrong(f"{hint} (наибольшее расхождение {gap})")

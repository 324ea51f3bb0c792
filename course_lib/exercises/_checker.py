"""Как устроена проверка упражнений: ✅, ❌ с подсказкой или ⏳ «ещё не решено».

Проверка — обычная функция, которая гоняет решение ученика на примерах и при первой
ошибке бросает `Wrong("что не так и что попробовать")`. Декоратор `checker` превращает это
в напечатанный вердикт и возвращает `Result`. Нерешённое упражнение (в нём ещё стоит
`raise NotImplementedError`) не бросает исключение дальше: урок выполняется целиком.
"""

import functools
from dataclasses import dataclass

import numpy as np


class Wrong(Exception):
    """Решение неверно; текст — подсказка ученику."""


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


def checker(check):
    """Декоратор: check(candidate) бросает Wrong или возвращает текст похвалы."""

    @functools.wraps(check)
    def run(candidate, *args, **kwargs):
        try:
            praise = check(candidate, *args, **kwargs)
        except _NotSolved:
            result = Result(False, False, NOT_SOLVED)
        except Wrong as wrong:
            result = Result(False, True, f"❌ {wrong}")
        else:
            result = Result(True, True, f"✅ {praise or 'верно!'}")
        print(result.message)
        return result

    return run


def call(candidate, *args):
    """Вызывает решение ученика; результат — ndarray (Tensor разворачивается)."""
    try:
        out = candidate(*args)
    except NotImplementedError:
        raise _NotSolved from None
    except Exception as error:                      # noqa: BLE001 — любую ошибку ученика объясняем словами
        raise Wrong(f"функция упала с ошибкой {type(error).__name__}: {error}") from None
    if out is None:
        raise Wrong("функция ничего не вернула: не забыли `return`?")
    if isinstance(out, tuple):
        return tuple(np.asarray(getattr(o, "data", o)) for o in out)
    return np.asarray(getattr(out, "data", out))


def expect_shape(out, shape, what="результат"):
    if out.shape != tuple(shape):
        raise Wrong(f"{what}: ожидалась форма {tuple(shape)}, а получилась {out.shape}")


def expect_finite(out, hint):
    if not np.isfinite(out).all():
        raise Wrong(f"в результате есть nan или inf. {hint}")


def expect_close(out, reference, hint, atol=1e-8):
    if not np.allclose(out, reference, atol=atol):
        raise Wrong(f"{hint} (наибольшее расхождение {np.abs(out - reference).max():.3g})")

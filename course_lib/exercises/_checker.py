"""Как устроена проверка упражнений: ✅, ❌ с подсказкой или ⏳ «ещё не решено».

Проверка — обычная функция, которая гоняет решение ученика на примерах и при первой
ошибке бросает `Wrong("что не так и что попробовать")`. Декоратор `checker` превращает это
в напечатанный вердикт и возвращает `Result`. Нерешённое упражнение (в нём ещё стоит
`raise NotImplementedError`) не бросает исключение дальше: урок выполняется целиком. Вердикт ещё и
записывается в work/ ученика, откуда его собирает учитель (`_record.py`).
Если функция ученика упала, `call` бросает `Crashed` — подсказку со входами и переводом
ошибки NumPy или Python на русский (`_errors.explain`); проверка может уточнить её по `crash.kind`
(`crash.retold`). Функция получает копии входов, и если она изменила свой вход на месте, это и есть
подсказка (`_untouched.py`). Ответ сравнивают с эталоном с допуском `tolerance` — по точности float32 и величине
чисел в вычислении, а типичную ошибку узнают одним способом — `recognize`: пересчитывают, что вышло бы
у ошибившегося, и называют ошибку, если ответ с этим совпал.
"""

import functools
import inspect
from dataclasses import dataclass

import numpy as np

from course_lib.autograd.tensor import Tensor
from course_lib.exercises._errors import describe, explain
from course_lib.exercises._record import record
from course_lib.exercises._untouched import changed_input, fresh


class Wrong(Exception):
    """Решение неверно; текст — подсказка ученику."""


class Crashed(Wrong):
    """Функция ученика упала. `kind` — что за ошибка ('broadcast', 'matmul', 'index', 'axis', …), `error` — она сама,
    `inputs` — на каких входах."""

    def __init__(self, error, inputs):
        self.kind, text = explain(error)
        super().__init__(f"функция упала на входе {inputs}: {text}")
        self.error, self.inputs = error, inputs

    def retold(self, text):
        """Та же ошибка, но объяснённая проверкой, которая знает, что тут скорее всего случилось."""
        return Wrong(f"функция упала на входе {self.inputs}: {type(self.error).__name__} — {text}")


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
    """Декоратор: check(candidate) бросает Wrong или возвращает текст похвалы. Вердикт печатается и записывается
    для учителя (`_record.py`), если тетрадка открыта из work/ ученика."""

    @functools.wraps(check)
    def run(candidate, *args, **kwargs):
        result = _verdict(check, candidate, *args, **kwargs)
        print(result.message)
        record(check.__name__, candidate, result)
        return result

    return run


def _verdict(check, candidate, *args, **kwargs):
    if not callable(candidate):
        return Result(False, True, f"❌ {check.__name__} проверяет саму функцию, а пришло значение "
                                   f"{describe(candidate)}. Передайте имя функции без скобок: "
                                   f"{check.__name__}(my_function)")
    try:
        with np.errstate(all="ignore"):
            praise = check(candidate, *args, **kwargs)
    except _NotSolved:
        return Result(False, False, NOT_SOLVED)
    except Wrong as wrong:
        return Result(False, True, f"❌ {wrong}")
    except Exception as error:                      # noqa: BLE001 — ответ такой, что сравнить не вышло
        return Result(False, True, UNREADABLE.format(error=type(error).__name__))
    return Result(True, True, f"✅ {praise or 'верно!'}")


def _unwrap(value):
    """Tensor -> ndarray; остальное как есть."""
    return value.data if isinstance(value, Tensor) else value


def _as_array(out, what):
    out = _unwrap(out)
    try:
        return np.asarray(out)
    except (ValueError, TypeError):
        raise Wrong(f"{what}: ожидался массив чисел, а пришло {describe(out)} — из него не собрать массив") from None


def call(candidate, *args, parts=None, raw=False):
    """Вызывает решение ученика. Результат — ndarray (Tensor и список чисел разворачиваются); если из кортежа
    или списка массив не собрать — кортеж ndarray. parts — имена значений, если функция должна вернуть
    несколько: тогда годится и кортеж, и список такой длины, а результат — кортеж ndarray. raw=True — ответ
    как есть (его разберёт сама проверка)."""
    kept = tuple(fresh(arg) for arg in args)        # какими входы были — сравним после вызова
    # ученик получает копии (входы проверки он не испортит); наблюдателей проверки (подклассы) — как есть
    given = tuple(fresh(arg) if type(arg) in (np.ndarray, list) else arg for arg in args)
    try:
        with np.errstate(all="ignore"):
            out = candidate(*given)
    except NotImplementedError:
        raise _NotSolved from None
    except Exception as error:                      # noqa: BLE001 — любую ошибку ученика объясняем словами
        raise Crashed(error, _inputs(candidate, args)) from None
    if out is None:
        raise Wrong("функция ничего не вернула: не забыли `return`?")
    edited = changed_input(_names(candidate, len(args)), kept, given)
    if edited:
        raise Wrong(edited)
    if raw:
        return out
    if parts is not None:
        return _parts(out, parts)
    if isinstance(out, (tuple, list)):
        try:
            return np.asarray([_unwrap(o) for o in out])
        except (ValueError, TypeError):             # разной формы: так возвращают несколько значений
            return tuple(_as_array(o, f"значение {i + 1} из {len(out)}") for i, o in enumerate(out))
    return _as_array(out, "результат")


def _parts(out, names):
    together = ", ".join(names)
    if isinstance(out, np.ndarray) and out.ndim > 1 and len(out) == len(names):   # np.stack([a, b]) распакуется так же
        out = list(out)
    if not isinstance(out, (tuple, list)) or len(out) != len(names):
        count = {2: "пару", 3: "три значения"}.get(len(names), f"{len(names)} значений")
        raise Wrong(f"верните {count} ({together}) через запятую: `return {together}`, а пришло {describe(out)}")
    return tuple(_as_array(o, name) for o, name in zip(out, names))


def _names(candidate, count):
    """Имена первых `count` аргументов функции ученика («аргумент 2», если имён не узнать)."""
    try:
        params = inspect.signature(candidate).parameters.values()
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    if len(names) < count:
        names = [f"аргумент {i + 1}" for i in range(count)]
    return names[:count]


def _inputs(candidate, args):
    """«scores (2, 3), k = 3»: что получила функция — по именам её аргументов."""
    return ", ".join(f"{name} {describe(arg)}" for name, arg in zip(_names(candidate, len(args)), args))


def expect_numbers(out, what="результат", shape=None):
    """Пришли числа (массив), а не текст, функция, словарь или несколько значений — до подсказок по форме."""
    if not isinstance(out, np.ndarray) or out.dtype.kind not in "biuf":
        expected = "массив чисел" + ("" if shape is None else f" формы {tuple(shape)}")
        raise Wrong(f"{what}: ожидался {expected}, а пришло {arrived(out)}")


def expect_shape(out, shape, what="результат"):
    expect_numbers(out, what, shape)
    shape = tuple(shape)
    if out.shape != shape:
        ones = ""
        if out.shape and np.squeeze(out).shape == tuple(n for n in shape if n != 1):
            target = f"({shape[0]})" if len(shape) == 1 else str(shape)
            ones = f". Похоже, лишняя или недостающая ось длины 1: out.reshape{target}"
        raise Wrong(f"{what}: ожидалась форма {shape}, а получилась {out.shape}{ones}")


def arrived(out):
    """Что пришло вместо массива чисел — словами: «текст (строка)», «(функция) — метод без скобок?», …."""
    if isinstance(out, tuple):
        return f"несколько значений разной формы ({len(out)})"
    if out.dtype.kind in "US":
        return "текст (строка)"
    if out.dtype.kind == "O" and out.ndim == 0:
        value = out.item()
        return describe(value) + (" — метод без скобок? Допишите ()" if callable(value) else "")
    return describe(out) + (" — не числа" if out.dtype.kind == "O" else "")


def expect_finite(out, hint):
    if not np.isfinite(out).all():
        raise Wrong(f"в результате есть nan или inf. {hint}")


def tolerance(scale=1.0):
    """Допуск сравнения с эталоном: по точности float32 (eps ≈ 1.2e-7), умноженной на `scale` — насколько велики
    числа внутри вычисления (ошибка округления растёт вместе с ними; scale может быть и массивом — по числу на
    элемент ответа). Точность float32, даже если вход и ответ float64: ученик вправе считать во float32 где угодно
    (np.float32(...), .astype), и такой ответ верный. Запас 32 eps покрывает любой порядок сложений — циклом,
    einsum, другой функцией NumPy, — поэтому вердикт один и тот же на любом процессоре; типичные ошибки дают
    расхождения на порядки больше."""
    return 32 * np.finfo(np.float32).eps * np.asarray(scale, dtype=float)


def matches(out, value, tol=0.0):
    """Совпадает ли ответ с `value` в пределах `tol`: та же форма, nan там же; слова и пары — поэлементно."""
    try:
        out, value = np.asarray(out), np.asarray(value)
    except (ValueError, TypeError):
        return False
    if out.shape != value.shape:
        return False
    if out.dtype.kind in "biuf" and value.dtype.kind in "biuf":
        # допуск растягиваем до формы ответа сами: np.allclose в NumPy 1.24 с допуском-массивом падает,
        # если в ответе есть nan или inf (сравнивает только конечные числа, а допуск не режет)
        tol = np.broadcast_to(np.asarray(tol, dtype=float), out.shape)
        out, value = out.astype(float), value.astype(float)
        with np.errstate(invalid="ignore"):
            close = np.abs(out - value) <= tol
        return bool(np.all(close | (out == value) | (np.isnan(out) & np.isnan(value))))
    return bool(np.array_equal(out, value))


def recognize(out, right, mistakes, where="", tol=None):
    """Узнаёт типичную ошибку по ответу — единственный способ, которым проверки называют ошибку. mistakes — пары
    (функция без аргументов: что вышло бы у ошибившегося, подсказка); ошибка, которая на этом входе даёт верный
    ответ, здесь ни при чём. tol — допуск (см. `tolerance`), по умолчанию — по типу ответа и величине эталона."""
    if tol is None:
        tol = _default_tolerance(right)
    for compute, hint in mistakes:
        try:
            with np.errstate(all="ignore"):
                expected = compute()
        except (ValueError, IndexError):            # у ошибившегося этот вход упал бы, а у ученика — нет
            continue
        if matches(out, expected, tol) and not matches(expected, right, tol):
            raise Wrong(f"{where}{hint}")


def _default_tolerance(reference):
    values = np.asarray(reference)
    if values.dtype.kind not in "biuf":
        return 0.0
    finite = np.abs(values[np.isfinite(values)])
    return tolerance(scale=1 + (finite.max() if finite.size else 0))


def expect_close(out, reference, hint, tol=None):
    """Ответ той же формы, что эталон, и отличается от него не больше допуска `tol` (см. `tolerance`)."""
    reference = np.asarray(reference)
    expect_shape(out, reference.shape)
    if tol is None:
        tol = _default_tolerance(reference)
    if not matches(out, reference, tol):
        gap = np.abs(out - reference)
        gap = "nan" if np.isnan(gap).any() else f"{np.max(gap):.3g}"
        raise Wrong(f"{hint} (наибольшее расхождение {gap})")


def attention_scale(Q, K, V=None):
    """Насколько велики числа внутри softmax(Q Kᵀ / √d_k) V: оценки — до Σ|q·k| / √d_k, а смесь ещё и умножена
    на значения. Это `scale` для `tolerance` у проверок внимания."""
    Q, K = np.abs(np.asarray(Q, dtype=float)), np.abs(np.asarray(K, dtype=float))
    scores = (Q @ np.swapaxes(K, -1, -2) if Q.ndim > 1 else K @ Q) / np.sqrt(Q.shape[-1])
    values = 1.0 if V is None else 1 + np.abs(V).max(initial=0)
    return (1 + scores.max(initial=0)) * values

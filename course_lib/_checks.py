"""Проверки входов: понятная ошибка на русском вместо загадочной ошибки NumPy в глубине."""

import inspect
import math
import numbers
import os

import numpy as np


def check_numbers(x, name, where):
    """x как массив NumPy из чисел (bool, целые или дробные); None, текст, рваный список, комплексные — ошибка.

    where — кто спрашивает («a + b», «softmax»), name — что это за вход.
    """
    try:
        array = x if isinstance(x, np.ndarray) else np.asarray(x)
    except ValueError:                                       # [[1, 2], [3]]: строки разной длины
        raise ValueError(f"{where}: {name} — прямоугольный массив чисел (строки одной длины), "
                         f"а пришёл рваный список {_short(x)}: NumPy не может сложить его в таблицу") from None
    if array.dtype.kind not in "biuf":
        what = "комплексные числа (курс считает только вещественные)" if array.dtype.kind == "c" else \
            f"{_short(x)} ({type(x).__name__})"
        raise TypeError(f"{where}: {name} — число, массив NumPy или Tensor из чисел, а пришло {what}")
    return array


def _short(x):
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "…"


def check_float(x, name, finite=True, variable=None):
    """Убеждается, что `x` (ndarray) — дробные числа и, если finite, все конечные.

    variable — имя переменной в подсказке «приведите тип» (по умолчанию name).
    """
    if not np.issubdtype(x.dtype, np.floating):
        advice = (f" Приведите тип: np.asarray({variable or name}, dtype=np.float64)"
                  if x.dtype.kind in "biu" else "")
        raise TypeError(f"{name}: ожидались дробные числа (float32 или float64), а пришёл dtype {x.dtype}.{advice}")
    if finite and not np.isfinite(x).all():
        bad = x[~np.isfinite(x)]
        raise ValueError(
            f"{name}: ожидались конечные числа, а встретилось {bad[0]} ({bad.size} шт.). "
            "Проверьте, откуда берутся inf/nan — обычно это переполнение exp или деление на 0."
        )


def check_peak(peak, where):
    """Максимумы строк оценок перед softmax: nan или +inf — ошибка (−inf — строка закрыта маской целиком)."""
    if np.isnan(peak).any() or np.isposinf(peak).any():
        big = np.finfo(peak.dtype).max
        raise ValueError(
            f"{where}: ожидались конечные оценки (или −inf там, где смотреть нельзя), а во входе softmax есть "
            f"nan или +inf — такие оценки нельзя превратить в веса. Если на входе их не было, оценки переполнили "
            f"{peak.dtype} (больше {big:.1e}): уменьшите числа на входе (например, LayerNorm) или считайте во float64"
        )


def check_mask(mask, scores_shape):
    """Маска «можно смотреть»: булева и растягивается (broadcast) до формы scores (..., T_q, T_k)."""
    mask = np.asarray(getattr(mask, "data", mask))          # Tensor-маска тоже годится
    if mask.dtype != bool:
        raise TypeError(
            f"маска должна быть булевой (True = можно смотреть), а пришёл dtype {mask.dtype}. "
            "Например: mask = causal_mask(T) или mask = lengths[:, None] > np.arange(T)"
        )
    scores_shape = tuple(scores_shape)
    if mask.shape == scores_shape[len(scores_shape) - mask.ndim:]:
        return mask                                         # хвост формы оценок: растягивается без проверки
    try:
        fits = np.broadcast_shapes(mask.shape, scores_shape) == scores_shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"маска формы {mask.shape} не растягивается до формы оценок {tuple(scores_shape)} "
            "(…, T_q, T_k). Последние две оси маски — запросы и ключи; для батча используйте форму (N, 1, 1, T_k) "
            "или (N, 1, T_q, T_k)."
        )
    return mask


def check_qkv(q, k, v, numbers=True):
    """Запросы, ключи, значения (Tensor): дробные, хотя бы (…, T, d), с согласованными осями. -> общие оси батча.

    numbers=False — только формы, без прохода по числам (машинное отделение: тип проверен, числа проверила
    книга, а nan поймает check_peak)."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if numbers:
            check_float(t.data, name)
        if t.ndim < 2:
            raise ValueError(f"{name}: ожидался массив формы (…, T, d) — хотя бы две оси, а пришла форма {t.shape}")
    for name, t, size in (("q", q, "d_k"), ("k", k, "d_k"), ("v", v, "d_v")):
        if t.shape[-1] == 0:
            raise ValueError(f"{name}: у векторов нет ни одного числа ({size} = 0), а пришла форма {t.shape}: "
                             f"ожидалось {size} ≥ 1 — пустые векторы нечего сравнивать и смешивать")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"у запросов и ключей должна быть одна длина d_k, чтобы их перемножить: "
            f"q (…, T_q, {q.shape[-1]}), k (…, T_k, {k.shape[-1]})"
        )
    try:
        batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"начальные (батчевые) оси q {q.shape}, k {k.shape}, v {v.shape} не согласуются: "
            "всё, кроме двух последних осей (T, d), должно совпадать или быть равно 1"
        ) from None
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"ключей и значений должно быть поровну (T_k): k {k.shape}, v {v.shape} — "
            "у каждого ключа своё значение"
        )
    return batch


def check_int(value, name, where, low=1, high=None, meaning=""):
    """Целое число от low до high включительно (high=None — без верхней границы); иначе ошибка по-русски.

    bool отвергается (True — не «1»), как и 2.0 или "8": где ждут целое, дробное — почти всегда опечатка.
    Возвращает int(value). where — кто спрашивает («causal_mask»), meaning — что значит число.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} — целое число {_bounds(low, high)}{meaning}, "
                        f"а пришло {value!r} ({type(value).__name__})")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{where}: {name} — целое число {_bounds(low, high)}{meaning}, а пришло {value!r}")
    return int(value)


def check_bool(value, name, where, meaning=""):
    """True или False (и np.bool_); «no», 0 или None — ошибка: строка «no» в if была бы истиной."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} — True или False{meaning}, а пришло {value!r} ({type(value).__name__})")
    return bool(value)


def check_real(value, name, where, positive=False, finite=True, meaning="", nonnegative=False):
    """Одно вещественное число (не bool, не строка); positive — строго > 0, nonnegative — ≥ 0,
    finite — без nan и ±inf. Возвращает float."""
    wanted = ("число > 0" if positive else "конечное число ≥ 0" if nonnegative else
              "конечное число" if finite else "число")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} — {wanted}{meaning}, а пришло {value!r} ({type(value).__name__})")
    is_finite = math.isfinite(value) if isinstance(value, float) else np.isfinite(value)   # math — вдвое быстрее для float
    if (finite and not is_finite) or (positive and not value > 0) or (nonnegative and not value >= 0):
        raise ValueError(f"{where}: {name} — {wanted}{meaning}, а пришло {value!r}")
    return float(value)


def check_eps(eps, where):
    """eps слоя LayerNorm — число > 0: при eps < 0 корень из дисперсии + eps у ровного токена — nan, молча."""
    return check_real(eps, "eps", where, positive=True,
                      meaning=" (маленькое, обычно 1e-5: не даёт делить на ноль, когда все числа токена равны)")


def check_text(value, name, where, meaning="", empty=False):
    """Строка (str); пустая — ошибка, если не empty. Возвращает её."""
    if not isinstance(value, str):
        raise TypeError(f"{where}: {name} — строка{meaning}, а пришло {_short(value)} ({type(value).__name__})")
    if not value and not empty:
        raise ValueError(f"{where}: {name} — непустая строка{meaning}, а пришла пустая строка ''")
    return value


def check_callable(fn, name, where, wanted, args=None):
    """Функция (что угодно вызываемое); wanted — какая: «функция без аргументов, например lambda: attention(x)».

    args — пример аргументов, с которыми её позовут: функция, которая их не примет, — ошибка сейчас, а не на
    первом вызове посреди работы (функция без описания аргументов, как у иных встроенных, — как есть).
    """
    if not callable(fn):
        raise TypeError(f"{where}: {name} — {wanted}, а пришло {fn!r} ({type(fn).__name__}). "
                        "Передайте саму функцию, не результат её вызова")
    if args is not None:
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError):
            return fn
        try:
            signature.bind(*args)
        except TypeError:
            shown = ", ".join(repr(a) for a in args)
            raise TypeError(f"{where}: {name} — {wanted}, а пришла функция {getattr(fn, '__name__', type(fn).__name__)}"
                            f"{signature}: её позовут как {name}({shown}), а столько аргументов она не берёт") from None
    return fn


def check_generator(rng, where, allow_none=False):
    """Генератор случайных чисел np.random.default_rng(зерно) (или None, если allow_none)."""
    if not (isinstance(rng, np.random.Generator) or (allow_none and rng is None)):
        extra = " или None (генератор курса, nt.manual_seed)" if allow_none else ""
        raise TypeError(f"{where}: rng — генератор np.random.default_rng(зерно){extra}, "
                        f"а пришёл {type(rng).__name__}")
    return rng


def check_dtype(dtype, where, floating=True):
    """Тип чисел: дробный (float32, float64) или, если floating=False, любой числовой (и bool). Возвращает np.dtype."""
    try:
        result = np.dtype(dtype)
    except TypeError:
        result = None
    if result is None or result.kind not in ("f" if floating else "biuf") or dtype is None:
        wanted = "дробный тип (np.float32 или np.float64)" if floating else "числовой тип (np.float64, np.int64, bool, …)"
        raise TypeError(f"{where}: dtype — {wanted}, а пришло {dtype!r}")
    return result


# ---- память: оценить до того, как выделять ----------------------------------------------

def memory_limit():
    """Сколько байт одна операция курса может попросить: половина физической памяти (или 4 ГиБ, если её не узнать)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, ValueError, OSError):
        return 4 * 2**30


class MemoryLimitError(ValueError, MemoryError):
    """Массив не поместится: и ValueError (вход слишком велик), и MemoryError (как у NumPy)."""


def check_memory(nbytes, what, where, advice):
    """Отказ по-русски, если операции понадобится больше memory_limit() байт: до выделения, а не MemoryError посреди.

    what — что именно выделяется («оценки (N, h, T, T) float64»), advice — что попробовать.
    """
    limit = memory_limit()
    if nbytes > limit:
        raise MemoryLimitError(
            f"{where}: {what} займут {format_bytes(nbytes)}, а на этой машине одной операции разумно дать "
            f"не больше {format_bytes(limit)} (половина памяти). Попробуйте: {advice}"
        )


WORK_LIMIT = 10**14   # умножений-сложений: на ноутбуке это больше часа процессора


class WorkLimitError(ValueError):
    """Работа на часы: курс не начинает её одной ячейкой (ячейка выглядела бы зависшей)."""


def check_work(operations, what, where, advice):
    """Отказ по-русски, если работы больше WORK_LIMIT умножений-сложений: до начала, а не после часа ожидания.

    what — что считается («1100 шагов обучения по 16 окон»), advice — что попробовать.
    """
    if operations > WORK_LIMIT:
        raise WorkLimitError(
            f"{where}: {what} — это около {operations:.1e} умножений-сложений, а одной ячейкой курс начинает "
            f"не больше {WORK_LIMIT:.0e} (на ноутбуке это уже больше часа процессора, и ячейка всё это время занята). "
            f"Попробуйте: {advice}"
        )


def format_bytes(nbytes):
    """1536 -> «1.5 КиБ»: двоичные единицы, как в уроках 03 и 08."""
    for unit, size in (("ТиБ", 2**40), ("ГиБ", 2**30), ("МиБ", 2**20), ("КиБ", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{int(nbytes)} Б"


def _bounds(low, high):
    return f"от {low} до {high}" if high is not None else f"≥ {low}"


# ---- формы: понятная ошибка вместо английской ошибки NumPy ------------------------------

def broadcast_error(symbol, a_shape, b_shape):
    """ValueError для `a symbol b`, когда формы не растягиваются друг к другу (broadcasting)."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    for axis in range(1, min(len(a_shape), len(b_shape)) + 1):
        x, y = a_shape[-axis], b_shape[-axis]
        if x != y and 1 not in (x, y):
            break
    return ValueError(
        f"a {symbol} b: формы {a_shape} и {b_shape} не растягиваются друг к другу (broadcasting). "
        f"Оси сравниваются с конца; в каждой паре размеры равны или один из них 1, "
        f"а на оси −{axis} встретились {x} и {y}."
    )


def matmul_error(a_shape, b_shape):
    """ValueError для `A @ B` с несогласованными формами."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    inner_a = a_shape[-1] if a_shape else None
    inner_b = (b_shape[-2] if len(b_shape) >= 2 else b_shape[0]) if b_shape else None
    if not a_shape or not b_shape:
        return ValueError(f"A @ B: умножать матрицы можно, если у обоих хотя бы одна ось, а пришли формы {a_shape} и {b_shape}")
    if inner_a != inner_b:
        hint = " Может быть, нужно B.T?" if b_shape[-1:] == (inner_a,) else ""
        return ValueError(
            f"A @ B: последняя ось A ({inner_a}) должна совпадать с предпоследней осью B ({inner_b}), "
            f"а пришли формы {a_shape} и {b_shape}.{hint}"
        )
    return ValueError(
        f"A @ B: ведущие (батчевые) оси {a_shape[:-2]} и {b_shape[:-2]} не растягиваются друг к другу: "
        "в каждой паре размеры равны или один из них 1"
    )


def check_axis(axis, ndim, where, shape=None):
    """Ось от −ndim до ndim − 1; возвращает её неотрицательный номер."""
    check_int(axis, "axis", where, low=-ndim, high=ndim - 1,
              meaning=f" (номер оси массива формы {tuple(shape) if shape is not None else f'с {ndim} осями'})")
    return axis % ndim


def check_axes(axis, shape, where):
    """axis — None, номер оси или кортеж разных номеров осей массива формы shape."""
    if isinstance(axis, (list, np.ndarray)):
        raise TypeError(f"{where}: axis — номер оси или кортеж номеров, например axis=(0, 1), "
                        f"а пришёл {type(axis).__name__} {_short(axis)}: напишите axis=tuple(…)")
    axes = () if axis is None else axis if isinstance(axis, tuple) else (axis,)
    seen = {}
    for a in axes:
        number = check_axis(int(a) if isinstance(a, np.integer) else a, len(shape), where, shape)
        if number in seen:
            raise ValueError(f"{where}: в axis={axis!r} одна и та же ось названа дважды ({seen[number]} и {a}: "
                             f"у массива формы {tuple(shape)} это ось {number}) — каждую ось сворачивают один раз")
        seen[number] = a


def reshape_error(shape, new_shape):
    """Ошибка reshape: TypeError, если форма не из целых чисел, иначе ValueError — меняется число элементов."""
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in new_shape):
        return TypeError(f"reshape: новая форма — целые числа (−1 в форме — «досчитай сам»), а пришло {tuple(new_shape)!r}")
    size = int(np.prod(shape))
    return ValueError(
        f"reshape: в тензоре формы {tuple(shape)} {size} чисел, а форма {tuple(new_shape)} их не вмещает: "
        "числа не должны ни пропадать, ни появляться (−1 в форме — «досчитай сам»)"
    )


def divisors(n):
    """Делители n по возрастанию: столько голов и можно взять при d_model = n (для подсказок и виджетов)."""
    return [h for h in range(1, n + 1) if n % h == 0]

"""Ошибки NumPy словами: что за ошибка, какие формы встретились и что обычно помогает (для проверок упражнений)."""

import re

import numpy as np

_SHAPE = r"\(([\d, ]*)\)"


def describe(value):
    """Коротко, что это за значение: «формы (2, 3)», «= 3», «функция», «список из 4 элементов»."""
    if not isinstance(value, np.ndarray):
        value = getattr(value, "data", value)           # Tensor -> ndarray
    if isinstance(value, np.ndarray):
        return f"формы {value.shape}" + ("" if value.dtype.kind in "fb" else f" ({value.dtype})")
    if callable(value):
        return "(функция)"
    if isinstance(value, (list, tuple)):
        kind = "список" if isinstance(value, list) else "кортеж"
        return f"({kind} из {len(value)} элементов)"
    if isinstance(value, (bool, int, float, str, np.generic)):
        return f"= {value!r}"
    return f"(объект {type(value).__name__})"


def _shape(text):
    return tuple(int(n) for n in text.replace(" ", "").split(",") if n)


def _broadcast(message):
    shapes = [_shape(s) for s in re.findall(_SHAPE, message.split("shapes", 1)[-1])]
    text = (f"поэлементная операция над массивами форм {' и '.join(map(str, shapes))} невозможна: "
            "формы не растягиваются друг на друга (broadcasting сравнивает оси с конца)")
    for a in shapes:
        for b in shapes:
            if len(a) >= 2 and b == a[:-1]:
                text += (f". Похоже, сумма или максимум по последней оси потеряли её: {a} -> {b}. "
                         "Добавьте keepdims=True, тогда выйдет форма " + str(a[:-1] + (1,)))
                return text
    return text


def _matmul(message):
    sizes = re.search(r"size (\d+) is different from (\d+)", message) or re.search(r"(\d+) \(dim \d+\) != (\d+)", message)
    text = "в умножении матриц A @ B не совпали внутренние размеры"
    if sizes:
        right, left = sizes.groups() if "different" in message else sizes.groups()[::-1]
        text += f": у A последняя ось длины {left}, а у B предпоследняя — {right}"
    return text + ". Число столбцов A должно равняться числу строк B; проверьте, что ничего не транспонировано"


_KNOWN = [  # (вид ошибки, регулярное выражение для текста NumPy, перевод)
    ("broadcast", r"could not be broadcast", _broadcast),
    ("matmul", r"matmul|not aligned|core dimension", _matmul),
    ("axis", r"axis (-?\d+) is out of bounds for array of dimension (\d+)",
     lambda m: (f"оси {m[1]} нет: у массива осей — {m[2]}. "
                "Последняя ось есть всегда — axis=-1")),
    ("index", r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)",
     lambda m: f"номер {m[1]} вне массива: длина оси {m[2]} — {m[3]} (номера 0…{int(m[3]) - 1})"),
    ("reshape", r"cannot reshape array of size (\d+) into shape \(([^)]*)\)",
     lambda m: (f"reshape невозможен: в массиве {m[1]} чисел, а форма ({m[2].replace('newaxis', '-1')}) "
                "столько не вмещает: проверьте, откуда взяты размеры — их берут из формы входа (x.shape)")),
    ("concatenate", r"along dimension (\d+), the array at index (\d+) has size (\d+) and the array at index (\d+) "
                    r"has size (\d+)",
     lambda m: (f"np.concatenate: кроме оси склейки все оси должны совпадать, а по оси {m[1]} у массивов "
                f"длины {m[3]} и {m[5]}")),
    ("concatenate", r"must have same number of dimensions",
     lambda m: "np.concatenate: у склеиваемых массивов разное число осей"),
    ("transpose", r"axes don't match array",
     lambda m: "transpose: в перестановке осей должно быть столько номеров, сколько осей у массива"),
]


def explain(error):
    """(вид, текст по-русски) для исключения из кода ученика. Вид 'other' — ошибка не из NumPy, её текст сохраняем."""
    message = str(error)
    for kind, pattern, translate in _KNOWN:
        found = re.search(pattern, message)
        if found:
            text = translate(message) if kind in ("broadcast", "matmul") else translate(found)
            return kind, f"{type(error).__name__} — {text}"
    if isinstance(error, ZeroDivisionError):
        return "zero", "ZeroDivisionError — деление на ноль"
    return "other", f"Python сообщил {type(error).__name__}: {message}"

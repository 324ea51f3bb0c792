"""Ошибки NumPy словами: что за ошибка, какие формы встретились и что обычно помогает (для проверок упражнений)."""

import inspect
import re

import numpy as np

from course_lib.autograd.tensor import Tensor

_SHAPE = r"\(([\d, ]*)\)"


def describe(value):
    """Коротко, что это за значение: «формы (2, 3)», «= 3», «функция», «список из 4 элементов»."""
    if isinstance(value, Tensor):
        value = value.data
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return f"формы {value.shape}" + ("" if value.dtype.kind in "fb" else f" ({value.dtype})")
    if inspect.isroutine(value) or isinstance(value, np.ufunc):
        return "(функция)"
    if isinstance(value, (list, tuple)):
        kind = "список" if isinstance(value, list) else "кортеж"
        return f"({kind} из {len(value)} элементов)"
    if isinstance(value, (bool, int, float, str, np.generic)):
        return f"= {value!r}"
    return f"(объект {type(value).__name__})"


def _shape(text):
    return tuple(int(n) for n in text.replace(" ", "").split(",") if n)


def _broadcast(found):
    message = found.string
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


def _matmul(found):
    message = found.string
    sizes = re.search(r"size (\d+) is different from (\d+)", message) or re.search(r"(\d+) \(dim \d+\) != (\d+)", message)
    text = "в умножении матриц A @ B не совпали внутренние размеры"
    if sizes:
        right, left = sizes.groups() if "different" in message else sizes.groups()[::-1]
        text += f": у A последняя ось длины {left}, а у B предпоследняя — {right}"
    return text + ". Число столбцов A должно равняться числу строк B; проверьте, что ничего не транспонировано"


_INTEGER = ("нужно целое число, а пришло дробное (float): `/` даёт float даже при делении нацело (8 / 2 = 4.0). "
            "Размеры в reshape, np.zeros, range и номера в индексах — целые: делите через // или оберните в int(...)")

# Имена из PyTorch, которых нет в NumPy: что писать вместо них.
_TORCH = {"keepdim": "keepdims", "dim": "axis", "masked_fill": "np.where(маска, значение, x)", "view": ".reshape(...)",
          "permute": ".transpose(...)", "unsqueeze": "x[:, None] или np.expand_dims", "size": ".shape",
          "softmax": "nt.softmax(x)", "matmul": "A @ B", "norm": "np.linalg.norm(x)", "clone": ".copy()",
          "numpy": "сам массив (он уже NumPy)"}


def _attribute(found):
    owner, name = found[1], found[2]
    text = f"у значения типа {owner} нет атрибута .{name}"
    if owner in ("list", "tuple"):
        return text + ": это список Python, а не массив — сделайте массив, np.array(...)"
    if name in _TORCH:
        return text + f": так пишут в PyTorch, а в NumPy — {_TORCH[name]}"
    if hasattr(np, name):
        return text + f": это функция NumPy, np.{name}(...)"
    return text


def _keyword(found):
    function, name = found[1].lstrip("_"), found[2]
    text = f"у {function}() нет аргумента {name}"
    if name in _TORCH:
        return text + f": так пишут в PyTorch, а в NumPy и course_lib — {_TORCH[name]}"
    return text + ": проверьте его имя"


_KNOWN = [  # (вид ошибки, регулярное выражение для текста NumPy или Python, перевод)
    ("integer", r"'float' object cannot be interpreted as an integer|slice indices must be integers",
     lambda m: _INTEGER),
    ("integer", r"arrays used as indices must be of integer \(or boolean\) type",
     lambda m: ("массив в квадратных скобках — из дробных чисел, а индексом бывает массив целых номеров "
                "или булева маска: маску из нулей и единиц сделайте булевой (mask == 1), номера — целыми (//)")),
    ("integer", r"only integers, slices",
     lambda m: ("в квадратных скобках массива — не номер: индекс бывает целым числом, срезом, массивом целых "
                "номеров или булевой маской. Дробный номер — делите через //; слово — сначала найдите его номер")),
    ("integer", r"only integer scalar arrays can be converted to a scalar index",
     lambda m: ("массив стоит там, где ждут одно целое число — номер, размер или ось. Так бывает: с np.max(a, b) "
                "(второй аргумент — ось; поэлементный максимум — np.maximum(a, b)), с np.concatenate(a, b) "
                "(склеиваемые массивы передают списком: np.concatenate([a, b], axis=...)), со списком Python по "
                "массиву номеров ([vocab[i] for i in order]) и с размером-массивом (нужно len(x) или x.shape[0])")),
    ("dtype", r"Cannot interpret '(.+)' as a data type",
     lambda m: ("второй аргумент np.zeros, np.ones, np.full — тип чисел (dtype), а не размер: форму передают "
                f"одним кортежем, в двойных скобках: np.zeros((T, T)). Здесь вторым пришло {m[1]}")),
    ("index", r"shape mismatch: indexing arrays could not be broadcast together with shapes (.*)",
     lambda m: (f"массивы-индексы форм {m[1].strip()} не растягиваются друг на друга: в x[rows, cols] номера строк "
                "и столбцов берутся парами, поэтому списков номеров должно быть поровну (или один — столбцом)")),
    ("broadcast", r"could not be broadcast", _broadcast),
    ("matmul", r"does not have enough dimensions",
     lambda m: "в умножении матриц @ участвует число без осей: @ — для векторов и матриц, на число умножают через *"),
    ("matmul", r"matmul|not aligned|core dimension", _matmul),
    ("axis", r"axis (-?\d+) is out of bounds for array of dimension (\d+)",
     lambda m: (f"оси {m[1]} нет: у массива осей — {m[2]}. "
                "Последняя ось есть всегда — axis=-1")),
    ("index", r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)",
     lambda m: f"номер {m[1]} вне массива: длина оси {m[2]} — {m[3]} (номера 0…{int(m[3]) - 1})"),
    ("index", r"too many indices for array: array is (\d+)-dimensional, but (\d+) were indexed",
     lambda m: f"у массива осей — {m[1]}, а номеров в квадратных скобках — {m[2]}: проверьте форму массива"),
    ("index", r"list indices must be integers or slices, not tuple",
     lambda m: "у списка Python нет индексов через запятую [i, j]: сделайте из него массив, np.array(...)"),
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
    ("truth", r"truth value of an array with more than one element is ambiguous",
     lambda m: ("массив из нескольких чисел нельзя считать одним «да» или «нет». Так бывает во встроенных max, min "
                "и sorted (они сравнивают строки массива целиком), в if и в and/or. Для массивов — np.max(...), "
                "np.min(...), .any(), .all(), а вместо and/or — & и |")),
    ("empty", r"zero-size array to reduction operation (\w+)",
     lambda m: f"{m[1]} пустого массива: в нём нет ни одного числа. Проверьте срез или маску, которые его дали"),
    ("argument", r"(\w+)\(\) got an unexpected keyword argument '(\w+)'", _keyword),
    # «(pos 2)» в конце дописывают функции на C в Python 3.10 — ученику это не нужно, а текст стал бы зависеть от версии
    ("argument", r"([\w.<>]+)\(\) missing (?:\d+ )?required (?:positional )?arguments?:? (.*?)(?: \(pos \d+\))?$",
     lambda m: f"{m[1]}() вызвана без нужных аргументов: не хватает {m[2]}"),
    ("argument", r"(\w+)\(\) takes (?:from \d+ to )?(\d+) positional arguments? but (\d+) (?:was|were) given",
     lambda m: (f"{m[1]}() принимает не больше {m[2]} аргументов без имени, а получила {m[3]}" +
                (f": так пишут в PyTorch, а в NumPy — {_TORCH[m[1]]}" if m[1] in _TORCH else ""))),
    ("number", r"float\(\) argument must be a string or a (?:real )?number, not '(\w+)'",
     lambda m: (f"float() не умеет превращать {m[1]} в число" +
                (": у тензора число достают через .item()" if m[1] == "Tensor" else ""))),
    ("sequence", r"can't multiply sequence by non-int",
     lambda m: "список умножен на дробное число, а список так не умножается: сделайте из него массив, np.array(...)"),
    ("attribute", r"'([\w.]+)' object has no attribute '(\w+)'", _attribute),
    ("call", r"'(\w+(?:\.\w+)?)' object is not callable", lambda m: f"значение типа {m[1]} вызвано как функция, скобками"),
    ("name", r"name '(\w+)' is not defined",
     lambda m: f"имя {m[1]} не определено: опечатка или ячейка, где оно задано, ещё не выполнена"),
    ("sequence", r"setting an array element with a sequence",
     lambda m: "в одну клетку массива записывают несколько чисел: сравните формы слева и справа от ="),
    ("operand", r"unsupported operand type\(s\) for (.+): '([\w.]+)' and '([\w.]+)'",
     lambda m: (f"операция {m[1]} не определена для {m[2]} и {m[3]}" +
                (": range и список Python не умеют считать поэлементно — сделайте массив, np.arange(...) или "
                 "np.array(...)" if {m[2], m[3]} & {"range", "list", "tuple"} else ""))),
]

# Что значит ошибка данного вида, когда её текст не узнан (он по-английски, ученику его не показываем).
_CLASSES = [
    (ZeroDivisionError, "деление на ноль"),
    (NameError, "имя не определено: опечатка или ячейка, где оно задано, ещё не выполнена"),
    (AttributeError, "у значения нет такого атрибута или метода"),
    (KeyError, "такого ключа нет в словаре"),
    (IndexError, "номер вне списка или массива"),
    (TypeError, "операция получила значение не того типа (список вместо массива, число вместо функции, …)"),
    (ValueError, "недопустимое значение: форма или содержимое не те, что ждёт функция"),
    (RecursionError, "функция вызывает сама себя без конца"),
    (OverflowError, "число слишком велико для float"),
    (AssertionError, "не выполнилось условие assert в вашем коде"),
]


def explain(error):
    """(вид, текст по-русски) для исключения из кода ученика. Английский текст Python ученику не показываем:
    узнанный переводим, русский (из course_lib) оставляем, об остальном говорим по виду исключения."""
    message = str(error)
    name = type(error).__name__
    for kind, pattern, translate in _KNOWN:
        found = re.search(pattern, message)
        if found:
            return kind, f"{name} — {translate(found)}"
    if re.search("[а-яё]", message, flags=re.I):
        return "other", f"{name} — {message}"
    meaning = next((text for cls, text in _CLASSES if isinstance(error, cls)), "ошибка в коде функции")
    return ("zero" if isinstance(error, ZeroDivisionError) else "other"), f"{name} — {meaning}"

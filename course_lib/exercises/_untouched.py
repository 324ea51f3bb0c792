"""Входы решения ученика: копии для вызова и подсказка, если функция изменила свой вход на месте (для `call`)."""

import numpy as np


def fresh(arg):
    """Копия входа (массив — ndarray, список — список), остальное как есть."""
    if isinstance(arg, np.ndarray):
        return np.array(arg, copy=True)
    if type(arg) is list:
        return list(arg)
    return arg


def _same(before, after):
    if isinstance(before, np.ndarray):
        after = np.asarray(after)
        if before.shape != after.shape or before.dtype != after.dtype:
            return False
        return bool(np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"))
    try:
        return bool(before == after)
    except (ValueError, TypeError):                 # в списке массивы: сравниваем поштучно
        return len(before) == len(after) and all(a is b for a, b in zip(before, after))


IN_PLACE = ("функция изменила свой вход {name} на месте ({how}): ответ, может, и верный, но у того, кто её вызвал, "
            "{name} теперь испорчен — а модель и урок пользуются им и дальше. {advice}")
ARRAY_ADVICE = ("Не пишите во вход: `x = x / t` вместо `x /= t`, `x = np.where(условие, значение, x)` вместо "
                "`x[условие] = значение` (или сначала `x = x.copy()`)")
LIST_ADVICE = "Не меняйте список-вход (remove, pop, sort, append): соберите новый или сначала сделайте копию, list(x)"


def changed_input(names, args, given):
    """Подсказка, если ученик изменил свой вход (`logits /= t`, `scores[маска] = -np.inf` портят массив
    вызывающего), иначе None. args — входы до вызова (копии), given — те же, что получила функция, после."""
    for name, before, after in zip(names, args, given):
        if isinstance(before, np.ndarray) and not _same(np.asarray(before), after):
            before, after = np.asarray(before), np.asarray(after)
            if after.shape != before.shape or after.dtype != before.dtype:
                how = f"был формы {before.shape} ({before.dtype}), стал {after.shape} ({after.dtype})"
            else:
                changed = before != after
                if before.dtype.kind == "f":
                    changed &= ~(np.isnan(before) & np.isnan(after))
                how = f"поменялось чисел: {int(changed.sum())} из {before.size}"
            return IN_PLACE.format(name=name, how=how, advice=ARRAY_ADVICE)
        if type(before) is list and not _same(before, after):
            how = (f"было {len(before)} элементов, стало {len(after)}" if len(after) != len(before)
                   else "поменялся порядок или сами элементы")
            return IN_PLACE.format(name=name, how=how, advice=LIST_ADVICE)
    return None

"""Договор виджета в коде: что такое «вид» и что умеет «художник» (см. _live.py — кто их вызывает).

Вид (`View`) — что рисовать: чистые данные, посчитанные из положений ползунков функцией
`*_view(...)`. Художник (`Painter`) — как рисовать: строит фигуру для раскладки и потом
только меняет данные у своих меняющихся артистов. Когда строить и когда обновлять, решает
`LiveFigure`, а не художник.
"""

from dataclasses import dataclass
from math import floor, isfinite

import numpy as np


@dataclass(kw_only=True)
class View:
    """Что рисует виджет. `message` — пояснение ученику про странные положения ползунков ("" — всё в порядке).

    Наследники — датаклассы со своими полями; чистая функция вида никогда не бросает исключение
    на значения ползунков, а пишет, что сделала вместо них, в `message`.
    """
    message: str = ""


def clamp(value, low, high, what, notes):
    """Значение ползунка в пределах [low, high] (high=None — без верха); если сдвинули — пояснение в `notes`.

    Вид никогда не сдвигает значение молча: `notes` (список) уходит в его `message`.
    what — что это за значение для ученика: «запрос №», «зерно», «T».
    """
    shown = max(value, low) if high is None else min(max(value, low), high)
    if shown != value:
        limits = f"не меньше {low}" if high is None else f"от {low} до {high}"
        notes.append(f"Значение «{what}» бывает {limits}, а пришло {value} — показываю {shown}.")
    return shown


class Painter:
    """Художник одного виджета.

    - `layout_key(вид)` — раскладка: пока ключ тот же, фигура та же (по умолчанию — одна на всё);
    - `draw(fig, вид)` — нарисовать фигуру для этой раскладки и вернуть меняющихся артистов
      (картинки весов, столбики, заголовки с числами); их данные задаст `refresh`;
    - `refresh(вид)` — поменять данные у меняющихся артистов (по умолчанию — ничего);
    - `caption(вид)` — HTML с числами под ползунками (по умолчанию — пусто).

    `build` вызывает `draw` и запоминает, что меняется, в `self.dynamic`; LiveFigure рисует
    фон без них один раз на раскладку, а потом поверх — только их, после каждого `refresh`.
    """

    dynamic = ()

    def layout_key(self, view):
        return ()

    def build(self, fig, view):
        self.dynamic = list(self.draw(fig, view))

    def draw(self, fig, view):
        raise NotImplementedError(f"{type(self).__name__}.draw(fig, view) должен нарисовать фигуру "
                                  "и вернуть список меняющихся артистов")

    def refresh(self, view):
        pass

    def caption(self, view):
        return ""


def switch(value, what, notes, fallback):
    """Значение флажка как bool: True/False (и np.bool_) — как есть; текст, число, None — `fallback`
    с пояснением в `notes` («yes» — тоже: непустая строка истинна, но флажок ученик так не ставит)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    shown = "включено" if fallback else "выключено"
    notes.append(f"«{what}» — флажок, True или False, а пришло {value!r} — показываю {shown} ({fallback}).")
    return fallback


def real(value, what, notes, fallback):
    """Значение дробного ползунка как float: числа (и числа NumPy) — как есть, бесконечность и nan тоже (их
    объясняет вид); текст, None, True — `fallback` с пояснением в `notes`: «0.5» строкой ползунок не даёт."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    notes.append(f"«{what}» — число, а пришло {value!r} — показываю {fallback}.")
    return fallback


def whole(value, what, notes, fallback):
    """Значение целого ползунка как int: 3 и 3.0 — как есть; 2.5 — вниз, до 2; текст, None, nan, inf, True —
    `fallback`. Всё, что не целое число, — с пояснением в `notes` (вид не бросает исключение и не молчит)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if hasattr(value, "dtype") and getattr(value, "shape", None) == () and value.dtype.kind in "iu":
        return int(value)                                   # np.int64 и т. п.
    number = value if isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f") else None
    if number is not None and isfinite(number):
        shown = floor(number)
        if shown != number:
            notes.append(f"Значение «{what}» — целое число, а пришло {value} — показываю {shown}.")
        return shown
    notes.append(f"Значение «{what}» — целое число, а пришло {value!r} — показываю {fallback}.")
    return fallback


def rounded(value, digits, what, notes):
    """Значение дробного ползунка, округлённое до digits знаков (так его помнит кэш кадров и печатает заголовок);
    если округление его сдвинуло — пояснение в `notes` (0.30000000000000004 ползунка — не сдвиг)."""
    shown = round(value, digits)
    if abs(shown - value) > 1e-9:
        notes.append(f"Значение «{what}» берётся с точностью до {10.0 ** -digits:g}, а пришло {value} — показываю {shown}.")
    return shown


def check_seed(seed, notes):
    """Зерно случайных данных — целое от 0 (NumPy не берёт отрицательные); сдвиг — с пояснением в notes."""
    return clamp(whole(seed, "зерно", notes, 0), 0, None, "зерно", notes)

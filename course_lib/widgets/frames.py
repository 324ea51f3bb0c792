"""Виджет без Jupyter: его кадры и его показы — для тех, кто рисует виджет сам (сборщик сайта, тесты).

- `Explorer.frame()` (см. _live.py) отдаёт `Frame` — кадр при нынешних положениях ползунков;
- `Explorer.quiet()` — ползунки двигаются без перерисовки виджета, на выходе встают, как были;
- `recording_shown()` — какие виджеты показаны, пока исполнялся блок кода, и с какими положениями.

Здесь нет ipywidgets: только договор этих трёх вещей и запись показов.
"""

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from course_lib.widgets.base import View


@dataclass(frozen=True)
class Frame:
    """Кадр виджета: что нарисовано при одних положениях ползунков.

    image — пиксели (H, W, 4) uint8, RGBA, своя копия; caption — HTML с числами под ползунками
    (`Painter.caption`); view — вид, из которого нарисован кадр (в `view.message` — пояснение ученику);
    figure — фигура matplotlib, на которой он нарисован: она верна, пока виджет не нарисовал
    следующий кадр (её данные читают, например, чтобы описать рисунок словами).
    """
    image: np.ndarray
    caption: str
    view: View
    figure: Any


class Shown(NamedTuple):
    """Один показ виджета: сам виджет и положения его ползунков в момент показа ({имя: значение})."""
    explorer: Any
    values: dict


# Открытые записи этого потока (и этой задачи asyncio): другие потоки их не видят и не пополняют.
_recordings = contextvars.ContextVar("course_lib_widgets_recordings", default=())


@contextlib.contextmanager
def recording_shown():
    """Записывает каждый показ виджета, пока исполняется блок `with`: `with recording_shown() as shown: ...`.

    shown — список `Shown(виджет, положения)` в порядке показа (один виджет, показанный дважды, — две записи).
    Записи вкладываются: показ внутри внутреннего блока попадает и во внешний. После выхода из блока
    (в том числе по исключению) список больше не пополняется. Пишутся показы из этого же потока.
    """
    shown = []
    _recordings.set(_recordings.get() + (shown,))
    try:
        yield shown
    finally:
        # убираем именно этот список (по тождеству: два пустых списка равны), даже если блоки закрыли не по порядку
        _recordings.set(tuple(other for other in _recordings.get() if other is not shown))


def note_shown(explorer):
    """Отметить показ виджета во всех открытых записях; зовёт Explorer._repr_mimebundle_."""
    recordings = _recordings.get()
    if recordings:
        values = explorer.values()
        for shown in recordings:
            shown.append(Shown(explorer, dict(values)))

"""Полоса прогресса обучения для Jupyter (урок 10): `train_gpt(..., progress=progress_bar())`.

Реквизит (props) зовёт `progress(step, steps, loss)` и о виджетах не знает; здесь — та же
строка, что у текстового TextProgress, под полосой ipywidgets. Вне ядра Jupyter (скрипт,
терминал) `progress_bar()` отдаёт текстовую строку.
"""

import time

import ipywidgets as widgets
from IPython import get_ipython
from IPython.display import display

from course_lib.props.progress import TextProgress, progress_text


class ProgressBar:
    """Полоса и подпись «шаг · потери · прошло · осталось». Появляется при первом вызове: прогон,
    взятый из памяти (train_gpt с теми же аргументами), полосы не показывает."""

    def __init__(self, every=0.2):
        self.bar = widgets.IntProgress(min=0, max=1, value=0, layout=widgets.Layout(width="40%"))
        self.label = widgets.Label()
        self.box = widgets.HBox([self.bar, self.label])
        self.every = every
        self.start = self.last = None

    def __call__(self, step, steps, loss):
        now = time.monotonic()
        if self.start is None:
            self.start = now
            display(self.box)
        if step < steps and self.last is not None and now - self.last < self.every:
            return                                            # браузеру хватит пяти обновлений в секунду
        self.bar.max, self.bar.value = steps, step
        self.label.value = progress_text(step, steps, loss, now - self.start)
        self.bar.bar_style = "success" if step == steps else ""
        self.last = now


def progress_bar():
    """Прогресс обучения: полоса-виджет в ядре Jupyter, строка текста (TextProgress) в остальных местах."""
    shell = get_ipython()
    return ProgressBar() if getattr(shell, "kernel", None) is not None else TextProgress()

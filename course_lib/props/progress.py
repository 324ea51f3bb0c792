"""Прогресс долгого обучения: шаг, потери и сколько осталось — простым текстом (урок 10).

Обучение зовёт `progress(step, steps, loss)` перед первым шагом (step = 0, loss = nan) и после
каждого шага. Здесь — текстовая строка,
которая переписывает себя (`\\r`) в терминале и в Jupyter; полоса-виджет для Jupyter —
`course_lib.widgets.progress_bar()` с тем же текстом. Реквизит (props) виджетов не знает: ему
передают готовую функцию, поэтому `import course_lib` не тянет ipywidgets.
"""

import sys
import time


def progress_text(step, steps, loss, elapsed):
    """«шаг 120 из 800 · потери 2.31 · прошло 0:12 · осталось ≈ 1:08» — elapsed в секундах."""
    left = elapsed / step * (steps - step) if step else float("nan")
    tail = f"осталось ≈ {clock(left)}" if step < steps else "готово"
    loss = f"{loss:.3f}" if loss == loss else "—"          # nan (ещё ни одного шага) -> прочерк
    return f"шаг {step} из {steps} · потери {loss} · прошло {clock(elapsed)} · {tail}"


def clock(seconds):
    """Секунды -> «1:05» (или «1:02:05»); nan -> «?»."""
    if seconds != seconds:
        return "?"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class TextProgress:
    """Строка прогресса в stream (по умолчанию — stderr, как у tqdm).

    Короткий прогон ничего не печатает: строка появляется, когда обучение идёт дольше delay
    секунд, и обновляется не чаще раза в every секунд; в конце — итог и перевод строки.
    """

    def __init__(self, stream=None, delay=2.0, every=0.5):
        self.stream, self.delay, self.every = stream, delay, every
        self.start = self.last = None

    def __call__(self, step, steps, loss):
        now = time.monotonic()
        if self.start is None:
            self.start = now
        elapsed = now - self.start
        shown = self.last is not None
        if step < steps and (elapsed < self.delay or shown and now - self.last < self.every):
            return
        if step == steps and not shown and elapsed < self.delay:
            return                                          # быстрый прогон: строка не нужна
        stream = self.stream or sys.stderr
        line = progress_text(step, steps, loss, elapsed).ljust(72)   # пробелы стирают хвост прошлой строки
        stream.write("\r" + line + ("\n" if step == steps else ""))
        stream.flush()
        self.last = now

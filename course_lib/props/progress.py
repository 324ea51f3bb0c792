"""Прогресс долгого обучения (урок 10): шаг, потери, сколько прошло и сколько осталось — полосой tqdm.

Обучение зовёт `progress(step, steps, loss)` перед первым шагом (step = 0, loss = nan) и после
каждого шага. `TrainingProgress` — такая функция поверх `tqdm.auto`: в ядре Jupyter это полоса-виджет,
в терминале и в скрипте — строка текста, которая переписывает себя. Полосу рисует tqdm, а выбирает
её вид он сам; реквизит (props) о виджетах не знает, и `import course_lib` не тянет ни tqdm, ни
ipywidgets: tqdm импортируется при первом вызове.

Время — по часам (сколько вы ждёте), а не процессорное: процессорное время складывает все ядра.
"""

# Слева от полосы — шаг, справа — потери (в поле desc: у postfix tqdm дописывает запятую) и время;
# так и в строке терминала, и по бокам виджета.
BAR_FORMAT = "шаг {n_fmt} из {total_fmt} {bar} {desc} · прошло {elapsed} · осталось ≈ {remaining}"


def loss_text(loss):
    """«потери 2.310»; nan (ещё ни одного шага) — «потери —»."""
    return f"потери {loss:.3f}" if loss == loss else "потери —"


class TrainingProgress:
    """progress(step, steps, loss) на полосе tqdm.auto: создаётся при первом вызове, закрывается на последнем шаге.

    Прогон, взятый из памяти (train_gpt с теми же аргументами), progress не зовёт — полосы нет.
    Короткий прогон (меньше delay секунд) ничего не показывает; обновления — не чаще раза в every секунд.
    file — куда писать строку вне Jupyter (None — stderr, как у tqdm); tqdm_class — другой вид полосы
    (по умолчанию tqdm.auto.tqdm: сам выбирает между виджетом и текстом).
    """

    def __init__(self, delay=2.0, every=0.2, file=None, tqdm_class=None):
        self.delay, self.every, self.file, self.tqdm_class = delay, every, file, tqdm_class
        self.bar = None

    def __call__(self, step, steps, loss):
        if self.bar is None:
            tqdm = self.tqdm_class
            if tqdm is None:
                from tqdm.auto import tqdm
            self.bar = tqdm(total=steps, initial=step, desc=loss_text(loss), bar_format=BAR_FORMAT, delay=self.delay,
                            mininterval=self.every, file=self.file, dynamic_ncols=True)
        self.bar.set_description_str(loss_text(loss), refresh=False)
        self.bar.update(step - self.bar.n)
        if step >= steps:
            self.bar.close()

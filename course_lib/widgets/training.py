"""Ползунок по снимкам обучения: как узор внимания появляется шаг за шагом (урок 07).

`snapshot_view(step, head, history, tokens, query)` — чистая функция: какой снимок показать;
`SnapshotPainter` рисует веса головы, строку выбранного запроса и кривую loss с отметкой шага.
"""

import functools
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, clamp, whole
from course_lib.widgets.masked_row import ROW_LABEL


@dataclass
class SnapshotView(View):
    tokens: list
    weights: np.ndarray        # (T, T) — веса головы `head` на снимке `step`
    step: int                  # после скольких шагов снят снимок (0 — до обучения)
    head: int                  # номер головы, с 1
    heads: int                 # сколько голов всего
    query: int                 # чья строка показана столбиками
    losses: np.ndarray         # (steps,) — вся кривая loss
    loss: float                # loss на этом шаге (для шага 0 — loss первого шага)


def snapshot_view(step, head=1, history=None, tokens=None, query=0):
    """Чистая функция: шаг и голова -> ближайший снятый снимок не позже шага. Никогда не бросает
    исключение на «плохие» значения ползунков — объясняет их в `message`."""
    steps, snapshots = np.asarray(history.snapshot_steps), np.asarray(history.snapshots)
    if snapshots.ndim != 4 or len(snapshots) == 0:
        raise ValueError("в истории обучения нет снимков: передайте train(..., probe=номера токенов)")
    h, T = snapshots.shape[1], snapshots.shape[-1]
    tokens = list(tokens) if tokens is not None else [str(t) for t in range(T)]
    if len(tokens) != T:
        raise ValueError(f"подписей {len(tokens)}, а у снимков T = {T}: нужна подпись на каждый токен пробы")
    notes = []
    step = whole(step, "шаг", notes, int(steps[-1]))
    head = whole(head, "голова", notes, 1)
    if step > steps[-1]:
        notes.append(f"обучение шло {steps[-1]} шагов — показываю последний снимок")
    index = max(int(np.searchsorted(steps, step, side="right")) - 1, 0)    # последний снимок не позже step
    if step < steps[-1] and steps[index] != step:
        notes.append(f"снимка после шага {step} нет — показываю шаг {steps[index]}")
    if not 1 <= head <= h:
        notes.append(f"голов {h}, а выбрана {head} — показываю ближайшую")
    head = min(max(head, 1), h)
    query = clamp(whole(query, "запрос №", notes, 0), 0, T - 1, "запрос №", notes)
    losses = np.asarray(history.losses)
    loss = float(losses[max(steps[index], 1) - 1])                           # losses[s − 1] — loss шага s
    return SnapshotView(tokens, snapshots[index, head - 1], int(steps[index]), head, h, query, losses, loss,
                        message="; ".join(notes))


class SnapshotPainter(Painter):
    """Слева — веса головы, справа — столбики строки запроса, снизу — кривая loss с отметкой шага."""

    def layout_key(self, view):
        return tuple(view.tokens), len(view.losses)

    def draw(self, fig, view):
        left, below = layout.heatmap_margins(view.tokens)
        side, bar, loss_top = 2.8, 3.6, 2.3                       # снизу — кривая loss высотой 1.3 дюйма
        width = left + side + 1.55 + bar + 0.2
        grid = layout.Inches(fig, width, loss_top + below + side + 0.4)
        matrix_ax, cax = grid.axes(left, loss_top + below, side, side), grid.axes(left + side + 0.2, loss_top + below, 0.15, side)
        bar_ax = grid.axes(left + side + 1.55, loss_top + below, bar, side)
        loss_ax = grid.axes(1.0, 0.55, width - 1.2, 1.3)
        vis.heatmap(view.weights, view.tokens, view.tokens, title=" ", ax=matrix_ax, cax=cax)
        vis.row(view.weights, view.tokens, view.query, ax=bar_ax, title=" ")
        bar_ax.set_ylabel(ROW_LABEL)
        bar_ax.set_xlabel("ключ: на кого смотрим")
        steps = np.arange(1, len(view.losses) + 1)
        loss_ax.plot(steps, view.losses, color=vis.BAR_COLOR, lw=1.5)
        loss_ax.set_yscale("log")
        loss_ax.set_xlim(-0.025 * len(view.losses), 1.025 * len(view.losses))   # точка шага 0 и последнего — целиком
        loss_ax.margins(y=0.12)
        loss_ax.set_xlabel("шаг обучения")
        loss_ax.set_ylabel("потери (лог. шкала)")
        (self.marker,) = loss_ax.plot([view.step], [view.loss], "o", color="#e8384f", markersize=8)
        self.cursor = loss_ax.axvline(view.step, color="#e8384f", lw=1)
        self.image, self.title = matrix_ax.images[0], matrix_ax.title
        self.bars, self.bar_title, self.loss_title = list(bar_ax.patches), bar_ax.title, loss_ax.title
        return [self.image, self.title, *self.bars, self.bar_title, self.marker, self.cursor, self.loss_title]

    def refresh(self, view):
        self.image.set_data(view.weights)
        head = f", голова {view.head} из {view.heads}" if view.heads > 1 else ""
        when = f"после {view.step} шагов" if view.step else "до обучения"
        self.title.set_text(f"веса {when}{head}")
        for bar, weight in zip(self.bars, view.weights[view.query]):
            bar.set_height(weight)
        self.bar_title.set_text(f"куда смотрит «{view.tokens[view.query]}»")
        self.marker.set_data([view.step], [view.loss])
        self.cursor.set_xdata([view.step, view.step])
        self.loss_title.set_text(f"потери на шаге {max(view.step, 1)}: {view.loss:.3g}")


def training_explorer(history, tokens, query=0):
    """Ползунок «шаг» по снимкам из `train(..., probe=...)` (и «голова», если голов больше одной).

    Сначала показан последний снимок — обученная модель: его картинка и остаётся в сохранённой
    тетрадке; ползунок влево — назад к началу обучения.
    """
    steps = np.asarray(history.snapshot_steps)
    view = functools.partial(snapshot_view, history=history, tokens=tokens, query=query)
    first = view(0)                                      # сразу проверяет историю и подписи
    every = int(steps[1] - steps[0]) if len(steps) > 1 else 1
    controls = {"step": widgets.IntSlider(value=int(steps[-1]), min=0, max=int(steps[-1]), step=every, description="шаг")}
    if first.heads > 1:
        controls["head"] = widgets.IntSlider(value=1, min=1, max=first.heads, description="голова")
    return Explorer(controls, view, SnapshotPainter(), new_figure(9, 6, layout=None))

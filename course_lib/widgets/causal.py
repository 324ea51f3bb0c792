"""Причинная маска: какие клетки спрятаны и куда смотрит выбранный токен (урок 05)."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.explorer import attention_view

SENTENCE = "Your journey starts with one step and then another one follows"


@dataclass
class CausalView:
    tokens: list
    weights: np.ndarray        # (T, T)
    mask: np.ndarray           # (T, T) bool, True = можно смотреть
    query: int
    hidden: int                # сколько клеток спрятано маской
    message: str = ""


def causal_view(T, causal, query, sentence=SENTENCE, seed=0):
    """Чистая функция: T, маска вкл/выкл, выбранный запрос -> веса одной головы и спрятанные клетки."""
    full = attention_view(sentence, T=T, d_k=8, heads=1, causal=causal, seed=seed, query=query)
    hidden = int((~full.mask).sum())
    return CausalView(full.tokens, full.weights[0], full.mask, full.query, hidden, full.message)


class MaskedRowPainter:
    """Матрица весов со спрятанными (серыми) клетками и столбики строки выбранного запроса.

    Общий для причинной маски и локального окна (урок 08): наследник задаёт подписи —
    `matrix_title(вид)` и `row_title(вид)`.
    """

    def layout_key(self, view):
        return tuple(view.tokens)

    def build(self, fig, view):
        matrix_ax, bar_ax = fig.subplots(1, 2, width_ratios=[1.1, 1])
        # место под заголовки — по числу их строк, а не по тексту первого вида: раскладка общая для всех видов
        vis.heatmap(view.weights, view.tokens, view.tokens, ax=matrix_ax, mask=view.mask,
                    title="\n".join(" " * self.matrix_title(view).count("\n") + " "))
        vis.row(view.weights, view.tokens, view.query, ax=bar_ax, title="\n".join(" " * self.row_title(view).count("\n") + " "))
        self.image, self.title = matrix_ax.images[0], matrix_ax.title
        self.bars, self.bar_title = list(bar_ax.patches), bar_ax.title
        self.dynamic = [self.image, self.title, *self.bars, self.bar_title]

    def refresh(self, view):
        self.image.set_data(np.ma.masked_where(~view.mask, view.weights))
        self.title.set_text(self.matrix_title(view))
        for bar, weight, allowed in zip(self.bars, view.weights[view.query], view.mask[view.query]):
            bar.set_height(weight)
            bar.set_color(vis.BAR_COLOR if allowed else vis.HIDDEN_COLOR)
        self.bar_title.set_text(self.row_title(view))

    def matrix_title(self, view):
        return ""

    def row_title(self, view):
        return f"куда смотрит «{view.tokens[view.query]}»"


class CausalPainter(MaskedRowPainter):
    def matrix_title(self, view):
        return f"серые клетки спрятаны: {view.hidden} из {view.mask.size}"


def causal_explorer(T=6, causal=True):
    """Ползунок T, маска вкл/выкл, выбор запроса; спрятанные маской клетки — серые."""
    controls = {
        "T": widgets.IntSlider(value=T, min=1, max=len(SENTENCE.split()), description="T", continuous_update=False),
        "causal": widgets.Checkbox(value=causal, description="причинная маска"),
        "query": widgets.IntSlider(value=T - 1, min=0, max=len(SENTENCE.split()) - 1, description="запрос №"),
    }
    return Explorer(controls, causal_view, CausalPainter(), new_figure(9, 4.2))

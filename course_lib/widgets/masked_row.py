"""Художник матрицы весов со спрятанными клетками и строки выбранного запроса (уроки 05 и 08).

Общий для причинной маски (causal.py) и локального окна (efficient.py): наследник задаёт
только подписи — `matrix_title(вид)` и `row_title(вид)`. Вид должен нести `tokens`,
`weights` (T, T), `mask` (T, T) и `query`.
"""

import numpy as np

from course_lib import vis
from course_lib.widgets import layout
from course_lib.widgets.base import Painter

ROW_LABEL = "вес в строке запроса"


def blank(text):
    """Пустой заголовок с тем же числом строк, что у `text`: раскладке важна высота, а не слова."""
    return "\n".join(" " for _ in text.split("\n"))


class MaskedRowPainter(Painter):
    """Слева — веса (T, T), серые клетки спрятаны; справа — столбики строки выбранного запроса."""

    def layout_key(self, view):
        return tuple(view.tokens)

    def draw(self, fig, view):
        lines = max(self.matrix_title(view).count("\n"), self.row_title(view).count("\n")) + 1
        left, bottom = layout.heatmap_margins(view.tokens)
        side, bar, title = 3.0, 3.6, layout.lines_height(lines)
        grid = layout.Inches(fig, left + side + 1.55 + bar + 0.2, bottom + side + title + 0.1)
        matrix_ax, cax = grid.axes(left, bottom, side, side), grid.axes(left + side + 0.2, bottom, 0.15, side)
        bar_ax = grid.axes(left + side + 1.55, bottom, bar, side)
        # место под заголовки — по числу их строк, а не по тексту вида: раскладка общая для всех видов
        vis.heatmap(view.weights, ax=matrix_ax, mask=view.mask, cax=cax,
                    title=blank(self.matrix_title(view)))
        # подписи токенов — тексты, а не деления (у карты их нет вовсе): при смене T создание
        # и отрисовка делений были половиной кадра (benchmarks/widgets.py)
        self.bars = layout.token_bars(bar_ax, view.weights[view.query], view.tokens, 10, blank(self.row_title(view)))
        layout.token_labels(matrix_ax, view.tokens, 10)
        bar_ax.set_ylabel(ROW_LABEL)                     # «вес» уже у цветового столбика слева
        bar_ax.set_xlabel("ключ")
        self.image, self.title = matrix_ax.images[0], matrix_ax.title
        self.bar_title = bar_ax.title
        return [self.image, self.title, *self.bars, self.bar_title]

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

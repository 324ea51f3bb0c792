"""Главный исследователь внимания: предложение, T, d_k, число голов, маска, √d_k (уроки 03–07).

`attention_view(...)` — чистая функция от положений ползунков к тому, что рисуется;
`ExplorerPainter` рисует это; `attention_explorer(...)` только связывает ползунки.
"""

import functools
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib import patheffects
from matplotlib.patches import Rectangle

from course_lib import vis
from course_lib.functional import entropy
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, check_seed, clamp, switch, whole
from course_lib.widgets.common import (DEFAULT_SENTENCE, attention_weights, check_vmax, embed_words,
                                       longest_T, random_model, sentence_tokens)
from course_lib.widgets.mosaic import HeadPanels


@dataclass
class AttentionView(View):
    tokens: list             # T подписей
    weights: np.ndarray      # (h, T, T): строки в сумме 1
    mask: np.ndarray         # (T, T) bool, True = «можно смотреть» (без маски — все True)
    query: int               # выбранный запрос (строка)
    head: int                # голова, чью строку показывают столбики
    entropy: np.ndarray      # (h,) энтропия строки `query` в битах: 0 — смотрит в одну точку
    peak: np.ndarray         # (h,) наибольший вес в строке `query`


def attention_view(sentence=DEFAULT_SENTENCE, T=5, d_k=8, heads=2, causal=False, scaled=True,
                   seed=0, query=0, head=1, model=None, embed=None):
    """Чистая функция: положения ползунков -> AttentionView. Никогда не бросает исключение
    на «плохие» значения ползунков — объясняет их в `message`.

    model: любой MultiHeadAttention (тогда d_k и heads берутся из него), embed(tokens) -> (T, d_model).
    """
    notes = []
    tokens, heads = _shape(sentence, T, heads, model, notes)
    seed = check_seed(seed, notes)
    if model is None:
        model = random_model(heads, clamp(whole(d_k, "d_k", notes, 8), 1, 512, "d_k", notes), seed)
        X = embed_words(tokens, model.d_model, seed)
    else:
        X = np.asarray(embed(tokens) if embed is not None else embed_words(tokens, model.d_model, seed), dtype=float)
    if len(tokens) == 1:
        notes.append("Один токен может смотреть только на себя — его вес всегда 1. Добавьте слов.")
    if model.d_head == 1:
        notes.append("d_k = 1: запрос и ключ — по одному числу, оценка — их произведение, "
                     "поэтому голова смотрит на слово с самым большим (или самым маленьким) ключом.")
    causal = switch(causal, "маска", notes, False)
    scaled = switch(scaled, "делить на √d_k", notes, True)
    weights, mask = attention_weights(model, X, causal, scaled)
    query = clamp(whole(query, "запрос №", notes, 0), 0, len(tokens) - 1, "запрос №", notes)
    head = clamp(whole(head, "голова", notes, 1), 1, heads, "голова", notes)
    chosen = weights[:, query]                                          # (h, T)
    return AttentionView(tokens, weights, mask, query, head, entropy(chosen), chosen.max(axis=-1),
                         message=" ".join(notes))


def attention_layout(sentence=DEFAULT_SENTENCE, T=5, heads=2, model=None, **other_sliders):
    """Вид только для раскладки (токены и число голов, веса — нули): без внимания, из одних положений ползунков.

    Его ключ раскладки тот же, что у attention_view с теми же ползунками; по нему фоновый поток
    строит фигуру соседнего T или числа голов (Explorer(layout_view=...)).
    """
    tokens, heads = _shape(sentence, T, heads, model, [])
    T = len(tokens)
    return AttentionView(tokens, np.zeros((heads, T, T)), np.ones((T, T), dtype=bool), 0, 1,
                         np.zeros(heads), np.zeros(heads))


def _shape(sentence, T, heads, model, notes):
    """Токены и число голов из ползунков (у готовой модели — её число голов); пояснения — в notes."""
    tokens, message = sentence_tokens(sentence, T)
    if message:
        notes.append(message)
    heads = model.num_heads if model is not None else clamp(whole(heads, "число голов", notes, 2), 1, 64, "число голов", notes)
    return tokens, heads


class ExplorerPainter(Painter):
    """Панель на голову + столбики строки выбранного запроса. Раскладка — (токены, число голов).

    vmax — верх цветовой шкалы (1 — как везде в курсе; меньше — чтобы разглядеть почти ровные веса).
    """

    def __init__(self, vmax=1.0):
        self.vmax = vmax

    def layout_key(self, view):
        return tuple(view.tokens), len(view.weights)

    def draw(self, fig, view):
        h, T = len(view.weights), len(view.tokens)
        size = layout.tick_size(T)
        rows, cols = vis.head_grid(h)
        panel = layout.panel_size(T)
        labels = layout.text_width(view.tokens, size)               # повёрнутые подписи ключей
        gap, left, colorbar, bar, title = 0.3, 0.55 + labels, 1.0, 1.5, layout.lines_height(1)
        grid_height = rows * (title + panel) + labels + 0.45       # головы с заголовками и подписями снизу
        width = left + cols * panel + (cols - 1) * gap + colorbar
        height = 0.1 + grid_height + layout.lines_height(2) + bar + labels + 0.5
        grid = layout.Inches(fig, width, height)
        panels = HeadPanels(grid, view.weights, view.tokens, left, height - 0.1, view.mask, self.vmax, gap=gap)
        panels.colorbar(grid.axes(width - colorbar + 0.2, height - 0.1 - title - panel, 0.15, panel), self.vmax)
        bar_ax = grid.axes(left, labels + 0.5, width - left - colorbar, bar)
        self.bars = layout.token_bars(bar_ax, view.weights[view.head - 1, view.query], view.tokens, size, " \n ")
        bar_ax.set_xlabel("ключ: на кого смотрим")
        self.panels, self.images = panels, panels.images
        # add_artist, а не add_patch: пределы оси уже заданы, пересчёт их по рамкам — лишняя работа
        self.frames = [panels.ax.add_artist(_row_frame(T, *panels.corner(i))) for i in range(h)]
        self.bar_title = bar_ax.title
        return self.images + self.frames + self.bars + [self.bar_title]

    def refresh(self, view):
        hidden = ~view.mask
        for i, (image, frame) in enumerate(zip(self.images, self.frames)):
            image.set_data(np.ma.masked_where(hidden, view.weights[i]))
            frame.set_y(self.panels.corner(i)[1] + view.query)
        for bar, weight in zip(self.bars, view.weights[view.head - 1, view.query]):
            bar.set_height(weight)
        self.bar_title.set_text(f"куда смотрит «{view.tokens[view.query]}» (голова {view.head}):\nего строка — в красной рамке")

    def caption(self, view):
        """Числа по головам для строки выбранного запроса — HTML-таблицей под ползунками."""
        cells = "".join(f"<td style='padding:0 10px'>голова {i + 1}: H = {H:.2f} бит, max = {top:.2f}</td>"
                        for i, (H, top) in enumerate(zip(view.entropy, view.peak)))
        return (f"<b>запрос «{view.tokens[view.query]}»</b> (его строка — в красной рамке) — энтропия строки (0 — смотрит в одну точку, "
                f"{np.log2(len(view.tokens)):.2f} — поровну на всех) и наибольший вес:<table><tr>{cells}</tr></table>")


def _row_frame(T, x0=-0.5, y0=-0.5):
    """Красная рамка вокруг строки выбранного запроса в панели с левым верхним углом (x0, y0).

    С белой каймой: красный на зелёно-бирюзовой середине viridis по яркости почти тот же (а для читателя,
    не различающего красный и зелёный, сливается вовсе), белая кайма отделяет рамку от любой клетки."""
    return Rectangle((x0, y0), T, 1, fill=False, edgecolor="#e8384f", linewidth=1.6,
                     path_effects=[patheffects.withStroke(linewidth=3.6, foreground="white")])


class AttentionExplorer(Explorer):
    """Виджет: ползунки + `ExplorerPainter`. Предложение задаёт токены, T следует за ним."""

    def sync(self, change):
        c = self.controls
        if change["owner"] is c["sentence"]:
            c["T"].max = longest_T(change["new"])     # T берёт первые T слов: длиннее предложения не бывает
            c["T"].value = c["T"].max
        if change["owner"] in (c["sentence"], c["T"]):
            c["query"].max = c["T"].value - 1           # T не длиннее предложения: за ним следит T.max
        if change["owner"] is c["heads"]:
            c["head"].max = c["heads"].value


def attention_explorer(sentence=DEFAULT_SENTENCE, d_k=8, heads=2, causal=False, model=None, embed=None, seed=0,
                       vmax=1.0):
    """Главный исследователь: веса каждой головы, строка выбранного запроса, энтропия и max по головам.

    model — любой MultiHeadAttention (например, обученный в уроке 07), embed(tokens) -> (T, d_model).
    vmax — верх цветовой шкалы: у случайных весов все клетки около 1/T, и при шкале 0…1 карта
    ровно-фиолетовая; vmax=0.3 растягивает шкалу, и разница между клетками становится видна.
    """
    vmax = check_vmax(vmax, "attention_explorer")
    T = longest_T(sentence)
    if model is not None:
        d_k, heads = model.d_head, model.num_heads
    controls = {
        "sentence": widgets.Text(value=sentence, description="текст", continuous_update=False,
                                 layout=widgets.Layout(width="420px")),
        # T и число голов меняют раскладку (фигура строится заново): кадр — когда ползунок отпустили
        "T": widgets.IntSlider(value=T, min=1, max=T, description="T", continuous_update=False),
        "d_k": widgets.IntSlider(value=d_k, min=1, max=64, description="d_k", disabled=model is not None),
        "heads": widgets.IntSlider(value=heads, min=1, max=8, description="голов", disabled=model is not None,
                                   continuous_update=False),
        "causal": widgets.Checkbox(value=causal, description="причинная маска"),
        "scaled": widgets.Checkbox(value=True, description="делить на √d_k"),
        "seed": widgets.IntSlider(value=seed, min=0, max=99, description="зерно", disabled=model is not None),
        "query": widgets.IntSlider(value=0, min=0, max=T - 1, description="запрос №"),
        "head": widgets.IntSlider(value=1, min=1, max=heads, description="голова"),
    }
    view = functools.partial(attention_view, model=model, embed=embed)
    return AttentionExplorer(controls, view, ExplorerPainter(vmax), new_figure(8, 6, layout=None),
                             prefetch=("T", "heads"), layout_view=functools.partial(attention_layout, model=model))

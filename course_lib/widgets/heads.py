"""Сколько голов при той же ширине: d_model не меняется, h режет его на d_head = d_model / h (урок 06).

`heads_view(...)` — чистая функция от положений ползунков к тому, что рисуется; `HeadsPainter`
рисует по панели на голову; `heads_explorer(...)` только связывает ползунки.
"""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib._checks import check_int, divisors
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, check_seed, clamp, whole
from course_lib.widgets.common import (attention_weights, check_vmax, embed_words, random_model,
                                       sentence_tokens)
from course_lib.widgets.mosaic import HeadPanels

D_MODEL = 24
MAX_HEADS = 8
SENTENCE = "The glass ball fell on the steel table, and it shattered"
# Векторы слов втрое длиннее обычного: со случайными весами внимание иначе почти равномерное
# (самый большой вес строки ≈ 0.15) и головы не отличить друг от друга; так он ≈ 0.6, как у
# заметных голов обученных моделей.
WORD_SCALE = 3.0


@dataclass
class HeadsView(View):
    tokens: list
    d_model: int
    requested: int           # сколько голов просили ползунком
    heads: int               # сколько нарисовано: делитель d_model, ближайший снизу к requested
    d_head: int              # d_model // heads
    weights: np.ndarray      # (heads, T, T): строки в сумме 1
    params: int              # параметров у слоя — 4·d_model² + 4·d_model при любом числе голов


def heads_view(heads, seed=0, sentence=SENTENCE, d_model=D_MODEL):
    """Чистая функция: число голов (и зерно) -> веса каждой головы слоя ширины d_model.

    Если d_model не делится на heads, берёт ближайший делитель снизу и объясняет это в `message`.
    При одном зерне матрицы W_Q, W_K, W_V, W_O одни и те же при любом h: меняется только разрез.
    """
    check_int(d_model, "d_model", "heads_view", meaning=" (ширина слоя)")
    tokens, message = sentence_tokens(sentence)
    notes = [message] if message else []
    requested = clamp(whole(heads, "h", notes, 1), 1, None, "h", notes)
    seed = check_seed(seed, notes)
    h = max(d for d in divisors(d_model) if d <= requested)
    if h != requested:
        notes.append(f"d_model = {d_model} не делится на h = {requested}: каждой голове нужно d_model / h "
                     f"целых измерений. Показываю h = {h}; подходят h из {divisors(d_model)}.")
    model = random_model(h, d_model // h, seed)            # d_model = h · d_head: та же ширина, другой разрез
    X = WORD_SCALE * embed_words(tokens, d_model, seed)    # (T, d_model)
    weights, _ = attention_weights(model, X, causal=False, scaled=True)
    return HeadsView(tokens, d_model, requested, h, d_model // h, weights, model.num_params(), message=" ".join(notes))


class HeadsPainter(Painter):
    """Панель на голову с подписью «какие столбцы Q и K её»; сверху — d_model, h, d_head и параметры."""

    def layout_key(self, view):
        return tuple(view.tokens), view.heads

    def __init__(self, vmax=1.0):
        self.vmax = vmax

    def draw(self, fig, view):
        h, T = view.heads, len(view.tokens)
        rows, cols = vis.head_grid(h)
        panel = layout.panel_size(T)
        labels = layout.text_width(view.tokens, layout.tick_size(T))
        gap, left, colorbar, headline = 0.3, 0.55 + labels, 1.0, layout.lines_height(2, 12)
        title = layout.lines_height(1, 10)
        width = max(6.0, left + cols * panel + (cols - 1) * gap + colorbar)
        height = headline + rows * (title + panel) + labels + 0.55
        grid = layout.Inches(fig, width, height)
        titles = []
        for i in range(h):
            first, last = i * view.d_head, (i + 1) * view.d_head - 1
            titles.append(f"голова {i + 1}: столбцы {first}–{last}" if last > first else f"голова {i + 1}: столбец {first}")
        panels = HeadPanels(grid, view.weights, view.tokens, left, height - headline, vmax=self.vmax, titles=titles, gap=gap)
        panels.colorbar(grid.axes(left + cols * panel + (cols - 1) * gap + 0.2, height - headline - title - panel,
                                  0.15, panel), self.vmax)
        self.images = panels.images
        self.headline = fig.text(0.5, 1 - 0.05 / height, " \n ", ha="center", va="top", fontsize=12)
        return self.images + [self.headline]

    def refresh(self, view):
        for image, weights in zip(self.images, view.weights):
            image.set_data(weights)
        d = view.d_model
        asked = "" if view.requested == view.heads else f"  (h = {view.requested} не делит {d})"
        self.headline.set_text(f"d_model = {d}, h = {view.heads}, d_head = {d} / {view.heads} = {view.d_head}{asked}\n"
                               f"параметров {view.params} = 4·{d}² + 4·{d} — при любом h")


def heads_explorer(heads=2, sentence=SENTENCE, d_model=D_MODEL, seed=0, vmax=1.0):
    """Ползунок числа голов h при неизменной ширине d_model и зерно случайных весов (vmax — верх цветовой шкалы)."""
    vmax = check_vmax(vmax, "heads_explorer")
    controls = {
        "heads": widgets.IntSlider(value=heads, min=1, max=MAX_HEADS, description="h", continuous_update=False),
        "seed": widgets.IntSlider(value=seed, min=0, max=99, description="зерно"),
    }

    def view(heads, seed):
        return heads_view(heads, seed, sentence=sentence, d_model=d_model)

    explorer = Explorer(controls, view, HeadsPainter(vmax), new_figure(9, 6, layout=None))
    # раскладок столько, сколько делителей d_model до MAX_HEADS (у 24 — шесть): строим их сразу
    # (≈ 0.4 с при запуске ячейки), и сдвиг h — только новые данные на готовом фоне
    explorer.prepare(view(h, seed) for h in divisors(d_model) if h <= MAX_HEADS)
    return explorer

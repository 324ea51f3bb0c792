"""Softmax с температурой: как одно число делает распределение острым или ровным (уроки 00 и 02)."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.functional import entropy, softmax
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, clamp

# Оценки «кто на кого смотрит» для «кот сел на тёплый коврик»: придуманы для примера,
# чтобы были и сильные, и слабые связи (в уроке 03 они будут из Q Kᵀ).
DEMO_TOKENS = ["кот", "сел", "на", "тёплый", "коврик"]
DEMO_SCORES = np.array([
    [2.0, 1.5, 0.0, 0.2, 0.8],
    [2.5, 0.5, 0.3, 0.0, 0.6],
    [0.1, 0.8, 0.2, 0.4, 2.2],
    [0.2, 0.0, 0.1, 0.5, 2.8],
    [0.5, 0.7, 1.2, 1.9, 0.6],
])


@dataclass
class TemperatureView(View):
    tokens: list
    weights: np.ndarray        # (T, T), строки в сумме 1
    temperature: float


def temperature_view(temperature, scores=DEMO_SCORES, tokens=DEMO_TOKENS):
    """Чистая функция: температура τ -> веса softmax(scores / τ)."""
    scores = np.asarray(scores, dtype=float)
    try:
        temperature = float(temperature)
    except (TypeError, ValueError):
        return TemperatureView(list(tokens), softmax(scores), 1.0,
                               message=f"температура — число больше 0, а пришло {temperature!r}; показываю τ = 1")
    if not temperature > 0:
        return TemperatureView(list(tokens), softmax(scores), 1.0,
                               message=f"температура должна быть больше 0, а пришло {temperature}; показываю τ = 1")
    notes = []
    # оценки / τ должны поместиться во float: при τ ≈ 1e-308 деление даёт inf, и softmax не из чего считать
    smallest = max(float(np.abs(scores).max(initial=0.0)) / np.finfo(float).max * 1e6, np.finfo(float).tiny)
    shown = clamp(temperature, float(10.0 ** np.ceil(np.log10(smallest))), None, "температура", notes)
    return TemperatureView(list(tokens), softmax(scores / shown), shown, message=" ".join(notes))


class TemperaturePainter(Painter):
    def layout_key(self, view):
        return tuple(view.tokens)

    def draw(self, fig, view):
        (ax,), cax = layout.heatmap_row(fig, view.tokens, panels=1, top=0.45)
        vis.heatmap(view.weights, view.tokens, view.tokens, title=" ", ax=ax, cax=cax)
        self.image, self.title = ax.images[0], ax.title
        return [self.image, self.title]

    def refresh(self, view):
        self.image.set_data(view.weights)
        self.title.set_text(f"softmax(оценки / τ), τ = {view.temperature:.2f}")


def temperature_heatmap(scores=DEMO_SCORES, tokens=DEMO_TOKENS, temperature=1.0):
    """Ползунок температуры над тепловой картой весов (урок 00)."""
    slider = widgets.FloatLogSlider(value=temperature, base=10, min=-1, max=1, step=0.05, description="τ")
    return Explorer({"temperature": slider},
                    lambda temperature: temperature_view(temperature, scores, tokens),
                    TemperaturePainter(), new_figure(5.0, 4.4, layout=None))


@dataclass
class SoftmaxView(View):
    labels: list
    scores: np.ndarray         # (n,) оценки до softmax
    weights: np.ndarray        # (n,) softmax(scores / τ), в сумме 1
    temperature: float
    entropy: float             # в битах: 0 — весь вес на одном, log2(n) — поровну


def softmax_view(temperature, scores, labels):
    """Чистая функция: оценки и τ -> веса, энтропия и пояснение."""
    base = temperature_view(temperature, np.asarray(scores, dtype=float)[None], [""])
    weights = base.weights[0]
    return SoftmaxView(list(labels), np.asarray(scores, dtype=float), weights, base.temperature,
                       float(entropy(weights)), message=base.message)


class SoftmaxPainter(Painter):
    def layout_key(self, view):
        return tuple(view.labels)

    def draw(self, fig, view):
        n = len(view.labels)
        below = layout.slanted_height(view.labels)
        overhang = 0.82 * layout.text_width(view.labels, 10)            # повёрнутая подпись уходит влево
        left, gap, panel, top = max(0.8, overhang - 0.1), max(0.9, overhang + 0.2), 3.2, 0.6
        grid = layout.Inches(fig, left + 2 * panel + gap + 0.2, below + 2.3 + top)
        score_ax = grid.axes(left, below, panel, 2.3)
        weight_ax = grid.axes(left + panel + gap, below, panel, 2.3)
        score_ax.bar(range(n), view.scores, color=vis.BAR_COLOR)
        score_ax.axhline(0, color="grey", lw=0.5)
        score_ax.set_xticks(range(n), labels=view.labels, rotation=35, ha="right")
        score_ax.set_title("оценки (до softmax)")
        score_ax.set_ylabel("оценка")
        self.bars = list(weight_ax.bar(range(n), view.weights, color=vis.BAR_COLOR))
        weight_ax.set_xticks(range(n), labels=view.labels, rotation=35, ha="right")
        weight_ax.set_ylim(0, 1)
        weight_ax.set_ylabel("вес")
        self.title = weight_ax.set_title(" \n ")
        return self.bars + [self.title]

    def refresh(self, view):
        for bar, weight in zip(self.bars, view.weights):
            bar.set_height(weight)
        self.title.set_text(f"softmax(оценки / τ), τ = {view.temperature:.2f}\nэнтропия {view.entropy:.2f} бит, сумма = {view.weights.sum():.3f}")


def softmax_explorer(scores, labels, temperature=1.0):
    """Столбики оценок и весов softmax с ползунком температуры (урок 02)."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or len(labels) != len(scores):
        raise ValueError(f"softmax_explorer: нужен вектор оценок (n,) и n подписей, а пришли {scores.shape} и {len(labels)}")
    slider = widgets.FloatLogSlider(value=temperature, base=10, min=-1, max=1, step=0.05, description="τ")
    return Explorer({"temperature": slider}, lambda temperature: softmax_view(temperature, scores, labels),
                    SoftmaxPainter(), new_figure(8, 3.6, layout=None))

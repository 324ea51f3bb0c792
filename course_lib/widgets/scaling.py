"""Зачем делить на √d_k: разброс оценок q·k растёт как √d_k, и softmax «насыщается» (урок 03)."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.functional import entropy, softmax
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, check_seed, clamp, whole

N_KEYS = 8          # ключей у одного запроса на столбиках справа
N_SAMPLES = 4000    # пар (q, k) для гистограммы разброса оценок
BINS = np.linspace(-40, 40, 81)
HEIGHTS = (100, 150, 200, 300, 400, 600, 800, 1200, 1800, 2400)   # верх оси гистограммы: ближайший над самым высоким столбиком

D_K_MAX = 4096              # больше ползунку не нужно: 4000 оценок по 4096 чисел — уже 130 МБ на q и k

@dataclass
class ScalingView(View):
    d_k: int
    scaled: bool
    sample_scores: np.ndarray   # (N_SAMPLES,) оценки q·k (или q·k/√d_k) для случайных q и k
    weights: np.ndarray         # (N_KEYS,) веса одного запроса по N_KEYS ключам
    spread: float               # стандартное отклонение оценок
    entropy: float              # энтропия весов в битах; максимум log2(N_KEYS) = 3


def scaling_view(d_k, scaled, seed=0):
    """Чистая функция: d_k и «делить ли на √d_k» -> разброс оценок и веса одного запроса."""
    notes = []
    d_k = clamp(whole(d_k, "d_k", notes, 64), 1, D_K_MAX, "d_k", notes)
    rng = np.random.default_rng(check_seed(seed, notes))
    q, k = rng.normal(size=(N_SAMPLES, d_k)), rng.normal(size=(N_SAMPLES, d_k))   # компоненты ~ N(0, 1)
    divisor = np.sqrt(d_k) if scaled else 1.0
    sample = (q * k).sum(axis=1) / divisor                       # (N_SAMPLES,)
    weights = softmax((k[:N_KEYS] @ q[0]) / divisor)             # один запрос, N_KEYS ключей
    outside = int(((sample < BINS[0]) | (sample > BINS[-1])).sum())
    if outside:
        notes.append(f"{outside} из {N_SAMPLES} оценок дальше ±{BINS[-1]:.0f} — за краями гистограммы, "
                     "но в стандартном отклонении они учтены.")
    return ScalingView(d_k, bool(scaled), sample, weights, float(sample.std()), float(entropy(weights)),
                       message=" ".join(notes))


def histogram_top(view):
    """Верх оси гистограммы: из HEIGHTS, выше самого высокого столбика (узкая гистограмма — выше, широкая — ниже)."""
    peak = np.histogram(view.sample_scores, BINS)[0].max() * 1.08
    return next((top for top in HEIGHTS if top >= peak), HEIGHTS[-1])


class ScalingPainter(Painter):
    def layout_key(self, view):
        return histogram_top(view)              # ось x одна на все d_k, ось y — по высоте столбиков

    def draw(self, fig, view):
        grid = layout.Inches(fig, 9, 3.8)                 # одна раскладка на все d_k
        hist_ax, weight_ax = grid.axes(0.8, 0.55, 3.6, 2.6), grid.axes(5.3, 0.55, 3.5, 2.6)
        counts, _ = np.histogram(view.sample_scores, BINS)
        self.hist = list(hist_ax.bar(BINS[:-1], counts, width=np.diff(BINS), align="edge", color=vis.BAR_COLOR))
        hist_ax.set_ylim(0, histogram_top(view))
        hist_ax.set_xlabel("оценка q·k")
        hist_ax.set_ylabel(f"сколько из {N_SAMPLES} пар")
        self.bars = list(weight_ax.bar(range(N_KEYS), view.weights, color=vis.BAR_COLOR))
        weight_ax.set_xticks(range(N_KEYS), labels=[f"k{i + 1}" for i in range(N_KEYS)])
        weight_ax.set_xlabel("ключ")
        weight_ax.set_ylim(0, 1)
        weight_ax.set_ylabel("вес")
        self.hist_title, self.weight_title = hist_ax.set_title(" \n "), weight_ax.set_title(" \n ")
        return self.hist + self.bars + [self.hist_title, self.weight_title]

    def refresh(self, view):
        counts, _ = np.histogram(view.sample_scores, BINS)
        for bar, count in zip(self.hist, counts):
            bar.set_height(count)
        for bar, weight in zip(self.bars, view.weights):
            bar.set_height(weight)
        how = "q·k / √d_k" if view.scaled else "q·k без деления"
        self.hist_title.set_text(f"разброс оценок ({how})\nстанд. отклонение {view.spread:.2f}, √d_k = {np.sqrt(view.d_k):.2f}")
        self.weight_title.set_text(f"веса одного запроса, d_k = {view.d_k}\nэнтропия {view.entropy:.2f} бит (максимум 3), max {view.weights.max():.2f}")


def scaling_explorer(d_k=64, scaled=False):
    """Ползунок d_k и переключатель «делить на √d_k»: гистограмма оценок и веса одного запроса."""
    controls = {
        "d_k": widgets.IntSlider(value=d_k, min=1, max=512, description="d_k"),
        "scaled": widgets.Checkbox(value=scaled, description="делить на √d_k"),
    }
    return Explorer(controls, scaling_view, ScalingPainter(), new_figure(9, 3.8, layout=None))

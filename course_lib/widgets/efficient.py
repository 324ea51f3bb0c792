"""Цена внимания (урок 08): online softmax блок за блоком и локальное окно.

- `online_softmax_explorer` — размер блока и «сколько блоков обработано»: бегущий максимум m
  и бегущая сумма ℓ поправляются, когда приходит блок с оценкой больше прежнего максимума;
- `local_window_explorer` — размер окна: сколько клеток осталось и какие связи пропали.
"""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import LineCollection

from course_lib import vis
from course_lib.efficient import online_softmax_step
from course_lib.functional import allowed_cells, local_mask, softmax
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, check_seed, clamp, whole
from course_lib.widgets.masked_row import MaskedRowPainter

N_KEYS = 24
CURRENT_COLOR, WAITING_COLOR = "#fde725", vis.HIDDEN_COLOR    # текущий блок — жёлтый из viridis, не прочитанные — серые


def demo_scores(seed=0):
    """Оценки одного запроса по N_KEYS ключам: шум плюс два пика подальше, чтобы максимум менялся."""
    scores = np.random.default_rng(seed).normal(scale=1.2, size=N_KEYS)
    scores[10] += 2.5                                        # пик в середине
    scores[19] += 3.0                                        # и ещё больше — ближе к концу
    return scores


@dataclass
class OnlineSoftmaxView(View):
    scores: np.ndarray         # (N_KEYS,) оценки одного запроса
    block_size: int
    step: int                  # сколько блоков уже прочитано, 1…n_blocks
    n_blocks: int
    m_history: np.ndarray      # (n_blocks,) бегущий максимум после каждого блока
    l_history: np.ndarray      # (n_blocks,) бегущая сумма ℓ после каждого блока
    corrections: np.ndarray    # (n_blocks,) поправка exp(m_old − m_new) на каждом блоке
    weights_so_far: np.ndarray  # (N_KEYS,) exp(s − m) / l по прочитанным ключам, 0 — по остальным
    weights: np.ndarray        # (N_KEYS,) настоящий softmax всей строки
    l_bound: float             # наибольшее ℓ при любом размере блока: верх шкалы ℓ, одной на все B

    @property
    def seen(self):
        """Сколько ключей уже прочитано."""
        return min(self.step * self.block_size, len(self.scores))


def online_softmax_view(block_size, step, seed=0):
    """Чистая функция: размер блока и число прочитанных блоков -> история m, l и текущие веса."""
    notes = []
    block_size = whole(block_size, "размер блока", notes, 1)
    if block_size < 1:
        notes.append(f"размер блока — не меньше 1 ключа, а пришло {block_size}; показываю блок 1")
        block_size = 1
    scores = demo_scores(check_seed(seed, notes))
    n_blocks = -(-N_KEYS // block_size)                      # округление вверх
    step = whole(step, "шаг", notes, 1)
    if not 1 <= step <= n_blocks:
        shown = min(max(step, 1), n_blocks)
        notes.append(f"при блоке {block_size} всего {n_blocks} блок(ов), а выбран шаг {step}; показываю шаг {shown}")
        step = shown

    m, l, acc = np.full((1, 1), -np.inf), np.zeros((1, 1)), np.zeros((1, 1))
    values = np.zeros((N_KEYS, 1))                           # значения здесь не важны: смотрим на m и l
    m_history, l_history, corrections = [], [], []
    for start in range(0, N_KEYS, block_size):
        block = scores[None, start:start + block_size]       # (1, B)
        m_old = m
        m, l, acc = online_softmax_step(m, l, acc, block, values[start:start + block_size])
        corrections.append(np.exp(m_old - m).item())
        m_history.append(m.item())
        l_history.append(l.item())

    m_now, l_now = m_history[step - 1], l_history[step - 1]
    seen = min(step * block_size, N_KEYS)
    weights_so_far = np.zeros(N_KEYS)
    weights_so_far[:seen] = np.exp(scores[:seen] - m_now) / l_now
    return OnlineSoftmaxView(scores, block_size, step, n_blocks, np.array(m_history), np.array(l_history),
                             np.array(corrections), weights_so_far, softmax(scores), max_l(scores),
                             message="; ".join(notes))


def max_l(scores):
    """max ℓ по всем префиксам строки: после любого блока любого размера ℓ — сумма по префиксу."""
    prefix_max = np.maximum.accumulate(scores)
    return float(max(np.exp(scores[:n] - prefix_max[n - 1]).sum() for n in range(1, len(scores) + 1)))


class OnlineSoftmaxPainter(Painter):
    """Оценки по блокам, веса по прочитанным ключам, m и ℓ после каждого блока.

    Раскладка одна на все размеры блока: границы блоков — меняющиеся линии, а m и ℓ стоят
    над числом прочитанных ключей (0…N_KEYS), поэтому ползунок «блок B» не перестраивает фигуру.
    """

    def draw(self, fig, view):
        grid = layout.Inches(fig, 10, 6)
        scores_ax, weights_ax = grid.axes(0.8, 3.55, 4.0, 2.0), grid.axes(5.8, 3.55, 4.0, 2.0)
        m_ax, l_ax = grid.axes(0.8, 0.55, 4.0, 2.05), grid.axes(5.8, 0.55, 4.0, 2.05)
        keys = np.arange(N_KEYS)
        self.score_bars = list(scores_ax.bar(keys, view.scores, color=WAITING_COLOR))
        self.borders = scores_ax.add_collection(LineCollection([], colors="grey", linewidths=0.8, linestyles=":"))
        self.m_line = scores_ax.axhline(0, color="#a00", lw=1.5, label="бегущий максимум m")
        scores_ax.legend(loc="upper left", fontsize=8)
        scores_ax.set_xlabel("ключ j")
        scores_ax.set_ylabel("оценка s_j")
        low = min(view.scores.min(), 0) - 0.5
        high = view.scores.max() + 0.35 * (view.scores.max() - low) + 0.5   # сверху место легенде: m под ней не проходит
        scores_ax.set_ylim(low, high)

        self.weight_bars = list(weights_ax.bar(keys, view.weights_so_far, color=vis.BAR_COLOR, label="exp(s_j − m) / ℓ сейчас"))
        weights_ax.plot(keys, view.weights, "o", color="#a00", ms=4, label="softmax всей строки")
        weights_ax.legend(loc="upper left", fontsize=8)
        weights_ax.set_ylim(-0.03, 1.03)                   # точки у 0 и у 1 — целиком, не срезанные рамкой
        weights_ax.set_xlabel("ключ j")
        weights_ax.set_ylabel("вес")

        self.m_points, = m_ax.plot([], [], "o-", color="#a00")
        self.l_points, = l_ax.plot([], [], "o-", color=vis.BAR_COLOR)
        for ax in (m_ax, l_ax):
            ax.set_xlim(0, N_KEYS + 0.5)
            ax.set_xlabel("прочитано ключей (после каждого блока)")
        m_ax.set_ylim(low, high)                             # m — одна из оценок: та же шкала, что слева вверху
        m_ax.set_ylabel("m")
        l_ax.set_ylim(0, view.l_bound * 1.15)
        l_ax.set_ylabel("ℓ = Σ exp(s_j − m)")
        m_ax.set_title("бегущий максимум m")
        self.titles = [scores_ax.set_title(" "), weights_ax.set_title(" "), l_ax.set_title(" \n ")]
        return [*self.score_bars, self.borders, self.m_line, *self.weight_bars, self.m_points, self.l_points, *self.titles]

    def refresh(self, view):
        start, seen = (view.step - 1) * view.block_size, view.seen
        for j, bar in enumerate(self.score_bars):
            bar.set_color(vis.BAR_COLOR if j < start else CURRENT_COLOR if j < seen else WAITING_COLOR)
        m_now, l_now = view.m_history[view.step - 1], view.l_history[view.step - 1]
        self.m_line.set_ydata([m_now, m_now])
        for bar, weight in zip(self.weight_bars, view.weights_so_far):
            bar.set_height(weight)
        low, high = self.score_bars[0].axes.get_ylim()
        self.borders.set_segments([[(b - 0.5, low), (b - 0.5, high)] for b in range(view.block_size, N_KEYS, view.block_size)])
        read = np.minimum(np.arange(1, view.step + 1) * view.block_size, N_KEYS)      # ключей после каждого блока
        self.m_points.set_data(read, view.m_history[:view.step])
        self.l_points.set_data(read, view.l_history[:view.step])
        correction = view.corrections[view.step - 1]
        self.titles[0].set_text(f"блок {view.step} из {view.n_blocks} (жёлтый): m = {m_now:.2f}")
        self.titles[1].set_text(f"веса по {seen} прочитанным ключам из {N_KEYS}")
        if view.step == 1:
            fix = "первый блок: поправлять нечего"
        elif correction == 1:
            fix = "m не вырос: ℓ × 1"
        else:
            fix = f"m вырос: ℓ × exp(m_old − m_new) = ℓ × {correction:.3f}"
        self.titles[2].set_text(f"бегущая сумма ℓ = {l_now:.3f}\n{fix}")


class OnlineSoftmaxExplorer(Explorer):
    """Шагов столько, сколько блоков: ползунок «прочитано» не уходит за последний блок."""

    def sync(self, change=None):
        step = self.controls["step"]
        step.max = -(-N_KEYS // self.controls["block_size"].value)
        step.value = min(step.value, step.max)


def online_softmax_explorer(block_size=6, step=1):
    """Ползунки «размер блока» и «прочитано блоков»: как m и l поправляются блок за блоком."""
    controls = {
        "block_size": widgets.IntSlider(value=block_size, min=1, max=N_KEYS, description="блок B"),
        "step": widgets.IntSlider(value=step, min=1, max=N_KEYS, description="прочитано"),
    }
    explorer = OnlineSoftmaxExplorer(controls, online_softmax_view, OnlineSoftmaxPainter(), new_figure(10, 6, layout=None))
    explorer.sync()
    return explorer


# ---- локальное внимание ---------------------------------------------------------------

SENTENCE = "The glass ball fell on the steel table, and it shattered"
LINKS = {("it", "ball"): 4.0, ("shattered", "glass"): 4.0}   # связи, вписанные в оценки руками


@dataclass
class LocalWindowView(View):
    tokens: list
    window: int
    query: int
    mask: np.ndarray           # (T, T) bool, True = можно смотреть
    weights: np.ndarray        # (T, T), строки в сумме 1
    allowed: int               # разрешённых клеток
    causal_allowed: int        # столько разрешает причинная маска: T(T + 1)/2
    lost: list                 # вписанные связи, которые окно отрезало: (запрос, ключ, расстояние)


def local_scores(tokens, seed=0):
    """Случайные оценки (T, T) плюс вписанные руками связи LINKS: «it» ищет «ball», «shattered» — «glass»."""
    scores = np.random.default_rng(seed).normal(scale=0.5, size=(len(tokens), len(tokens)))
    for (query, key), boost in LINKS.items():
        scores[tokens.index(query), tokens.index(key)] += boost
    return scores


def local_window_view(window, query=9, seed=0):
    """Чистая функция: размер окна и выбранный запрос -> маска, веса и пропавшие связи."""
    tokens = SENTENCE.split()
    T, notes = len(tokens), []
    window, query = whole(window, "окно", notes, 1), whole(query, "запрос №", notes, T - 1)
    if window < 1:
        notes.append(f"окно — хотя бы 1 токен (сам запрос), а пришло {window}; показываю окно 1")
        window = 1
    query = clamp(query, 0, T - 1, "запрос №", notes)
    mask = local_mask(T, window)
    weights = softmax(np.where(mask, local_scores(tokens, check_seed(seed, notes)), -np.inf))
    lost = [(q, k, tokens.index(q) - tokens.index(k)) for (q, k) in LINKS
            if tokens.index(q) - tokens.index(k) >= window]
    return LocalWindowView(tokens, window, query, mask, weights, allowed_cells(T, window), T * (T + 1) // 2,
                           lost, message="; ".join(notes))


class LocalWindowPainter(MaskedRowPainter):
    def matrix_title(self, view):
        return f"окно {view.window}: {view.allowed} клеток\n(у причинной маски {view.causal_allowed})"

    def row_title(self, view):
        lost = ", ".join(f"{q}→{k} ({d})" for q, k, d in view.lost) or "нет"
        return f"куда смотрит «{view.tokens[view.query]}»\nсвязи, отрезанные окном:\n{lost}"


def local_window_explorer(window=4, query=9):
    """Ползунки «окно» и «запрос»: серые клетки — за окном; какие вписанные связи окно отрезало."""
    T = len(SENTENCE.split())
    controls = {
        "window": widgets.IntSlider(value=window, min=1, max=T, description="окно"),
        "query": widgets.IntSlider(value=query, min=0, max=T - 1, description="запрос №"),
    }
    return Explorer(controls, local_window_view, LocalWindowPainter(), new_figure(10, 4.6, layout=None))

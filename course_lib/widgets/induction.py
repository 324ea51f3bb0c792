"""Индукционная голова (урок 09): ползунок по снимкам обучения и флажки, выключающие головы.

`induction_view(step, history, tokens)` — какие веса всех голов и какой loss показать на шаге;
`ablation_view(model, probe, heads_off)` — что предсказывает модель с выключенными головами.
"""

import functools
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.autograd.tensor import no_grad
from course_lib.props.induction import BOS, VOCAB, ablate, copy_positions, token_losses
from course_lib.props.induction_training import evaluate, smooth
from course_lib.props.run_memory import weights_fingerprint
from course_lib.props.training import History
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View
from course_lib.widgets.training import snapshot_view

FIRST_COLOR, SECOND_COLOR = "#e8384f", vis.BAR_COLOR


def head_names(layers, heads):
    return [f"слой {layer}, голова {head}" for layer in range(layers) for head in range(heads)]


@dataclass
class InductionView(View):
    tokens: list
    weights: np.ndarray        # (layers, h, T, T) — снимок после `step` шагов
    step: int
    first: np.ndarray          # (steps,) — сглаженный loss первой копии по шагам
    second: np.ndarray         # (steps,) — второй копии


def induction_view(step, history, tokens):
    """Чистая функция: шаг -> последний снимок не позже него и кривые loss до него."""
    snapshots = np.asarray(history.snapshots)                          # (S, layers, h, T, T)
    S, layers, h, T = snapshots.shape[:4]
    flat = History(np.asarray(history.second), history.snapshot_steps, snapshots.reshape(S, layers * h, T, T))
    base = snapshot_view(step, 1, flat, tokens)                        # выбирает снимок и объясняет странный шаг
    index = int(np.searchsorted(history.snapshot_steps, base.step))
    return InductionView(base.tokens, snapshots[index], base.step, smooth(history.first), smooth(history.second),
                         message=base.message)


class InductionPainter(Painter):
    """Сверху — веса всех голов (слой за слоем), снизу — loss обеих копий до текущего шага."""

    def layout_key(self, view):
        return tuple(view.tokens), view.weights.shape[:2], len(view.first)

    def draw(self, fig, view):
        layers, h = view.weights.shape[:2]
        grid = fig.add_gridspec(2, layers * h, height_ratios=[1.5, 1])
        head_axes = [fig.add_subplot(grid[0, i]) for i in range(layers * h)]
        vis.heads(view.weights.reshape(layers * h, *view.weights.shape[2:]), view.tokens, axes=head_axes, ncols=layers * h)
        for ax, name in zip(head_axes, head_names(layers, h)):
            ax.set_title(name, fontsize=9)
            ax.tick_params(labelsize=layout.SMALLEST)
        loss_ax = fig.add_subplot(grid[1, :])
        steps = np.arange(1, len(view.first) + 1)
        for curve, color in [(view.first, FIRST_COLOR), (view.second, SECOND_COLOR)]:
            loss_ax.plot(steps, curve, color=color, lw=0.8, alpha=0.25)          # вся кривая — бледно
        (self.first_line,) = loss_ax.plot([], [], color=FIRST_COLOR, lw=1.8, label="первая копия")
        (self.second_line,) = loss_ax.plot([], [], color=SECOND_COLOR, lw=1.8, label="вторая копия")
        loss_ax.axhline(np.log(VOCAB), color="grey", ls="--", lw=1, label="ln V: наугад")
        self.cursor = loss_ax.axvline(0, color="black", lw=1)
        loss_ax.set(xlim=(0, len(steps)), xlabel="шаг обучения", ylabel="потери, наты")
        loss_ax.legend(loc="center left", bbox_to_anchor=(1.005, 0.5), fontsize=8)   # справа от осей: ни на одной кривой
        self.images = [ax.images[0] for ax in head_axes]
        self.title = loss_ax.set_title(" ")
        return [*self.images, self.first_line, self.second_line, self.cursor, self.title]

    def refresh(self, view):
        for image, weights in zip(self.images, view.weights.reshape(-1, *view.weights.shape[2:])):
            image.set_data(weights)
        steps = np.arange(1, view.step + 1)
        self.first_line.set_data(steps, view.first[:view.step])
        self.second_line.set_data(steps, view.second[:view.step])
        self.cursor.set_xdata([view.step, view.step])
        if view.step:
            self.title.set_text(f"после {view.step} шагов: потери первой копии {view.first[view.step - 1]:.2f}, "
                                f"второй {view.second[view.step - 1]:.2f}")
        else:
            self.title.set_text("до обучения")


def induction_explorer(history, tokens):
    """Ползунок «шаг» по снимкам из train_induction(..., probe=...): все головы и loss копий."""
    steps = np.asarray(history.snapshot_steps)
    view = functools.partial(induction_view, history=history, tokens=tokens)
    view(0)                                                          # сразу проверяет историю и подписи
    every = int(steps[1] - steps[0]) if len(steps) > 1 else 1
    slider = widgets.IntSlider(value=int(steps[-1]), min=0, max=int(steps[-1]), step=every, description="шаг")
    return Explorer({"step": slider}, view, InductionPainter(), new_figure(11, 5.6))


@dataclass
class AblationView(View):
    tokens: list               # (T,) подписи пробной последовательности
    correct: np.ndarray        # (T − 1,) вероятность верного следующего токена в каждой позиции
    predicted: list            # (T − 1,) подпись самого вероятного следующего токена
    second: float              # loss второй копии на проверочных последовательностях
    heads_off: tuple           # выключенные (слой, голова)


@functools.lru_cache(maxsize=64)
def _ablated(model, fingerprint, heads_off):
    """Копия модели без голов heads_off и её loss второй копии — на каждое сочетание флажков один раз.

    Ключ — не только сама модель, но и отпечаток её весов: дообученная модель — это новая запись в кэше.
    """
    ablated = ablate(model, heads_off)
    return ablated, evaluate(ablated, per_length=16).second


def ablation_view(model, probe, heads_off=(), tokens=None):
    """Чистая функция: какие головы выключены -> предсказания на пробе и loss второй копии."""
    probe = np.asarray(probe)
    tokens = list(tokens) if tokens is not None else ["BOS" if t == BOS else str(t) for t in probe]
    heads_off = tuple(sorted(set(map(tuple, heads_off))))
    ablated, second = _ablated(model, weights_fingerprint(model), heads_off)
    with no_grad():
        logits = ablated(probe[None]).data                              # (1, T, V)
    correct = np.exp(-token_losses(logits, probe[None])[0])            # (T − 1,)
    predicted = ["BOS" if t == BOS else str(t) for t in logits[0, :-1].argmax(-1)]
    return AblationView(tokens, correct, predicted, float(second), heads_off)


class AblationPainter(Painter):
    """Столбики: вероятность верного следующего токена в каждой позиции; вторая копия — синяя."""

    def layout_key(self, view):
        return tuple(view.tokens)

    def draw(self, fig, view):
        ax = fig.add_subplot()
        T = len(view.tokens)
        _, second = copy_positions(T)
        colors = [SECOND_COLOR if t in second else "#bbbbbb" for t in range(T - 1)]
        self.bars = list(ax.bar(range(T - 1), view.correct, color=colors))
        ax.set_xticks(range(T - 1), labels=view.tokens[:-1])
        ax.set(ylim=(0, 1), xlabel="позиция: какой токен модель видит", ylabel="p(верного следующего)")
        self.title = ax.set_title(" \n ")
        return [*self.bars, self.title]

    def refresh(self, view):
        for bar, p in zip(self.bars, view.correct):
            bar.set_height(p)
        off = ", ".join(f"{layer}.{head}" for layer, head in view.heads_off) or "ничего"
        self.title.set_text(f"выключено (слой.голова): {off}\nпотери второй копии на новых последовательностях: "
                            f"{view.second:.2f} нат (ln V = {np.log(VOCAB):.2f})")

    def caption(self, view):
        cells = [f"<b>{p}</b>" if p == true else f"<span style='color:#a00'>{p}</span>"
                 for p, true in zip(view.predicted, view.tokens[1:])]
        return "модель предсказывает следующий токен (красным — ошибки): " + " ".join(cells)


def ablation_explorer(model, probe, tokens=None):
    """Флажки «выключить голову» для каждой головы обученной модели; probe — (T,) пробная последовательность."""
    layers, h = len(model.blocks), model.blocks[0].attention.num_heads
    controls = {f"off_{layer}_{head}": widgets.Checkbox(value=False, description=f"выключить {name}")
                for (layer, head), name in zip(np.ndindex(layers, h), head_names(layers, h))}

    def view(**flags):
        heads_off = [tuple(int(n) for n in key.split("_")[1:]) for key, off in flags.items() if off]
        return ablation_view(model, probe, heads_off, tokens)

    return Explorer(controls, view, AblationPainter(), new_figure(9, 3.4))

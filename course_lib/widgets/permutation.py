"""Перестановка токенов: строки и столбцы весов переезжают вместе — пока нет позиций (урок 04)."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib import transforms

from course_lib import vis
from course_lib.nn.positional import sinusoidal_encoding
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, check_seed, clamp, whole
from course_lib.widgets.common import attention_weights, embed_words, random_model, sentence_tokens

D_K, HEADS = 8, 1


@dataclass
class PermutationView(View):
    tokens: list
    order: np.ndarray           # (T,) перестановка: на место i встаёт токен order[i]
    weights: np.ndarray         # (T, T) веса исходного предложения
    permuted: np.ndarray        # (T, T) веса переставленного предложения
    moved_together: bool        # permuted == weights[order][:, order]


def permutation_view(sentence, shuffle, positional, seed=0):
    """Чистая функция: предложение, номер перемешивания (0 — как есть), позиционные кодировки вкл/выкл."""
    tokens, message = sentence_tokens(sentence)
    notes = [message] if message else []
    shuffle = clamp(whole(shuffle, "номер перемешивания", notes, 0), 0, None,
                    "номер перемешивания", notes)      # NumPy не берёт отрицательные зёрна
    seed = check_seed(seed, notes)
    order = np.random.default_rng(shuffle).permutation(len(tokens)) if shuffle else np.arange(len(tokens))
    if shuffle and (order == np.arange(len(tokens))).all():
        order = np.roll(order, 1)                     # «перемешать» всегда что-то меняет
    model = random_model(HEADS, D_K, seed)
    X = embed_words(tokens, model.d_model, seed)
    position = sinusoidal_encoding(len(tokens), model.d_model) if positional else 0.0
    weights = attention_weights(model, X + position, causal=False, scaled=True)[0][0]
    permuted = attention_weights(model, X[order] + position, causal=False, scaled=True)[0][0]
    moved = bool(np.allclose(permuted, weights[order][:, order]))
    return PermutationView(tokens, order, weights, permuted, moved, message=" ".join(notes))


def colour_top(view):
    """Верх цветовой шкалы: наибольший вес обеих карт, вверх до 0.1. Случайные веса редко выше 0.5,
    и на шкале 0…1 они были бы ровной мутью — шкала 0…верх показывает их разброс."""
    return min(1.0, float(np.ceil(max(view.weights.max(), view.permuted.max()) * 10)) / 10)


class PermutationPainter(Painter):
    """Веса до и после перестановки. Раскладка — само предложение: порядок токенов справа меняется
    без перестройки фигуры (подписи справа — меняющиеся тексты поверх прозрачных подписей делений)."""

    def layout_key(self, view):
        return tuple(view.tokens), colour_top(view)

    def draw(self, fig, view):
        T, top = len(view.tokens), colour_top(view)
        (first, second), cax = layout.heatmap_row(fig, view.tokens, panels=2, top=0.75)
        vis.heatmap(view.weights, view.tokens, view.tokens, title="исходный порядок", ax=first, colorbar=False, vmax=top)
        vis.heatmap(view.permuted, view.tokens, view.tokens, title="после перестановки", ax=second, cax=cax, vmax=top)
        second.tick_params(labelcolor="none")              # место под подписи — как у настоящих, текст — ниже
        below = transforms.offset_copy(second.get_xaxis_transform(), fig=fig, y=-7, units="points")
        beside = transforms.offset_copy(second.get_yaxis_transform(), fig=fig, x=-7, units="points")
        self.key_labels = [second.text(i, 0, "", transform=below, rotation=90, ha="center", va="top") for i in range(T)]
        self.query_labels = [second.text(0, i, "", transform=beside, ha="right", va="center") for i in range(T)]
        self.images = [first.images[0], second.images[0]]
        self.verdict = fig.text(0.5, 1 - 0.05 / fig.get_size_inches()[1], " ", ha="center", va="top", fontsize=12)
        return self.images + self.key_labels + self.query_labels + [self.verdict]

    def refresh(self, view):
        self.images[0].set_data(view.weights)
        self.images[1].set_data(view.permuted)
        for i, label in enumerate(self.key_labels + self.query_labels):
            label.set_text(view.tokens[view.order[i % len(view.order)]])
        self.verdict.set_text("строки и столбцы переехали вместе: веса те же" if view.moved_together
                              else "веса изменились не только перестановкой: позиции что-то значат")


def permutation_explorer(sentence="кот сел на тёплый коврик", positional=False):
    """Номер перемешивания (0 — исходный порядок) и позиционные кодировки вкл/выкл."""
    controls = {
        "sentence": widgets.Text(value=sentence, description="текст", continuous_update=False),
        "shuffle": widgets.IntSlider(value=1, min=0, max=20, description="перемешать", continuous_update=False),
        "positional": widgets.Checkbox(value=positional, description="позиционные кодировки"),
    }
    return Explorer(controls, permutation_view, PermutationPainter(), new_figure(9, 4.4, layout=None))

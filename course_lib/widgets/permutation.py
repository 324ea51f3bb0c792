"""Перестановка токенов: строки и столбцы весов переезжают вместе — пока нет позиций (урок 04)."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.nn.positional import sinusoidal_encoding
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View
from course_lib.widgets.common import MAX_T, attention_weights, embed_words, random_model, tokens_from

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
    tokens, message = tokens_from(sentence, max(1, min(len(str(sentence).split()), MAX_T)))
    order = np.random.default_rng(shuffle).permutation(len(tokens)) if shuffle else np.arange(len(tokens))
    if shuffle and (order == np.arange(len(tokens))).all():
        order = np.roll(order, 1)                     # «перемешать» всегда что-то меняет
    model = random_model(HEADS, D_K, seed)
    X = embed_words(tokens, model.d_model, seed)
    position = sinusoidal_encoding(len(tokens), model.d_model) if positional else 0.0
    weights = attention_weights(model, X + position, causal=False, scaled=True)[0][0]
    permuted = attention_weights(model, X[order] + position, causal=False, scaled=True)[0][0]
    moved = bool(np.allclose(permuted, weights[order][:, order]))
    return PermutationView(tokens, order, weights, permuted, moved, message=message)


class PermutationPainter(Painter):
    def layout_key(self, view):
        return tuple(view.tokens), tuple(view.order)

    def draw(self, fig, view):
        left, right = fig.subplots(1, 2)
        shuffled = [view.tokens[i] for i in view.order]
        vis.heatmap(view.weights, view.tokens, view.tokens, title="исходный порядок", ax=left, colorbar=False)
        vis.heatmap(view.permuted, shuffled, shuffled, title="после перестановки", ax=right)
        self.images = [left.images[0], right.images[0]]
        self.verdict = fig.suptitle(" ")
        return self.images + [self.verdict]

    def refresh(self, view):
        self.images[0].set_data(view.weights)
        self.images[1].set_data(view.permuted)
        self.verdict.set_text("строки и столбцы переехали вместе: веса те же" if view.moved_together
                              else "веса изменились не только перестановкой: позиции что-то значат")


def permutation_explorer(sentence="кот сел на тёплый коврик", positional=False):
    """Номер перемешивания (0 — исходный порядок) и позиционные кодировки вкл/выкл."""
    controls = {
        "sentence": widgets.Text(value=sentence, description="текст", continuous_update=False),
        "shuffle": widgets.IntSlider(value=1, min=0, max=20, description="перемешать", continuous_update=False),
        "positional": widgets.Checkbox(value=positional, description="позиционные кодировки"),
    }
    return Explorer(controls, permutation_view, PermutationPainter(), new_figure(9, 4.4))

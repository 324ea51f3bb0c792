"""Причинная маска: какие клетки спрятаны и куда смотрит выбранный токен (урок 05)."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import View
from course_lib.widgets.common import longest_T
from course_lib.widgets.explorer import attention_view
from course_lib.widgets.masked_row import MaskedRowPainter

SENTENCE = "Your journey starts with one step and then another one follows"


@dataclass
class CausalView(View):
    tokens: list
    weights: np.ndarray        # (T, T)
    mask: np.ndarray           # (T, T) bool, True = можно смотреть
    query: int
    hidden: int                # сколько клеток спрятано маской


def causal_view(T, causal, query, sentence=SENTENCE, seed=0):
    """Чистая функция: T, маска вкл/выкл, выбранный запрос -> веса одной головы и спрятанные клетки."""
    full = attention_view(sentence, T=T, d_k=8, heads=1, causal=causal, seed=seed, query=query)
    hidden = int((~full.mask).sum())
    return CausalView(full.tokens, full.weights[0], full.mask, full.query, hidden, message=full.message)


class CausalPainter(MaskedRowPainter):
    def matrix_title(self, view):
        return f"серые клетки спрятаны: {view.hidden} из {view.mask.size}"


class CausalExplorer(Explorer):
    """Запросов столько, сколько токенов: ползунок «запрос №» не уходит за T − 1."""

    def sync(self, change):
        if change["owner"] is self.controls["T"]:
            self.controls["query"].max = change["new"] - 1


def causal_explorer(T=6, causal=True):
    """Ползунок T, маска вкл/выкл, выбор запроса; спрятанные маской клетки — серые."""
    longest = longest_T(SENTENCE)
    controls = {
        "T": widgets.IntSlider(value=T, min=1, max=longest, description="T", continuous_update=False),
        "causal": widgets.Checkbox(value=causal, description="причинная маска"),
        "query": widgets.IntSlider(value=T - 1, min=0, max=T - 1, description="запрос №"),
    }
    explorer = CausalExplorer(controls, causal_view, CausalPainter(), new_figure(9, 4.2, layout=None))
    # раскладка — T (первые T слов), их всего longest: строим все сразу (≈ 0.6 с при запуске
    # ячейки), и сдвиг T — только новые данные на готовом фоне
    explorer.prepare(causal_view(t, causal, t - 1) for t in range(1, longest + 1))
    return explorer

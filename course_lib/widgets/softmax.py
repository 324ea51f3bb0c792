"""Softmax с температурой: как одно число делает распределение острым или ровным (уроки 00 и 02)."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.functional import softmax
from course_lib.widgets._live import Explorer, new_figure

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
class TemperatureView:
    tokens: list
    weights: np.ndarray        # (T, T), строки в сумме 1
    temperature: float
    message: str = ""


def temperature_view(temperature, scores=DEMO_SCORES, tokens=DEMO_TOKENS):
    """Чистая функция: температура -> веса softmax(scores / temperature)."""
    if not temperature > 0:
        return TemperatureView(list(tokens), softmax(np.asarray(scores, dtype=float)), 1.0,
                               f"температура должна быть > 0, а пришло {temperature}; показываю τ = 1")
    return TemperatureView(list(tokens), softmax(np.asarray(scores, dtype=float) / temperature), temperature)


def draw_temperature(fig, view):
    """Рисует веса; при повторном вызове меняет только данные и заголовок."""
    title = f"softmax(оценки / τ), τ = {view.temperature:.2f}"
    if not fig.axes:
        vis.heatmap(view.weights, view.tokens, view.tokens, title=title, ax=fig.add_subplot())
        return
    ax = fig.axes[0]
    ax.images[0].set_data(view.weights)
    ax.set_title(title)


def temperature_heatmap(scores=DEMO_SCORES, tokens=DEMO_TOKENS, temperature=1.0):
    """Ползунок температуры над тепловой картой весов (урок 00)."""
    slider = widgets.FloatLogSlider(value=temperature, base=10, min=-1, max=1, step=0.05,
                                    description="τ", continuous_update=True)
    return Explorer({"temperature": slider},
                    lambda temperature: temperature_view(temperature, scores, tokens),
                    draw_temperature, new_figure(5.2, 4.2))

"""Мягкий поиск: запрос сравнивается со всеми ключами, а ответ — смесь всех значений (урок 02).

Каталог из пяти книг: ключ книги — точка на плоскости тем (длина 1), значение — цвет её
обложки (R, G, B). Двигаете запрос и температуру τ — и видите, как меняются веса и
смешанный цвет. При маленькой τ смесь превращается в цвет одной книги: мягкий поиск
становится жёстким, как у словаря Python.
"""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib.functional import entropy, softmax
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, real

# Каталог урока 02: ключи — единичные векторы (угол = тема книги), значения — цвета обложек.
CATALOGUE_LABELS = ["машинное обучение", "оптимизация", "статистика", "кулинария", "история"]
CATALOGUE_KEYS = np.array([
    [0.00, 1.00],
    [0.56, 0.83],
    [-0.83, 0.56],
    [-0.34, -0.94],
    [0.77, -0.64],
])
CATALOGUE_VALUES = np.array([      # цвета tab10: синий, оранжевый, зелёный, красный, фиолетовый
    [0.12, 0.47, 0.71],
    [1.00, 0.50, 0.05],
    [0.17, 0.63, 0.17],
    [0.84, 0.15, 0.16],
    [0.58, 0.40, 0.74],
])
QUERY_RANGE = 4.0                  # ползунки запроса: от −4 до 4 по каждой оси


@dataclass
class SoftSearchView(View):
    labels: list
    keys: np.ndarray           # (n, 2) ключи книг
    values: np.ndarray         # (n, 3) значения книг — цвета RGB от 0 до 1
    query: np.ndarray          # (2,) запрос
    temperature: float
    scores: np.ndarray         # (n,) q·k для каждой книги
    weights: np.ndarray        # (n,) softmax(scores / τ), в сумме 1
    output: np.ndarray         # (3,) Σ wᵢ vᵢ — смешанный цвет
    best: int                  # номер книги с наибольшей оценкой: её вернул бы «жёсткий» поиск
    entropy: float             # в битах: 0 — весь вес у одной книги, log2(n) — поровну


def soft_search_view(qx, qy, temperature, keys=CATALOGUE_KEYS, values=CATALOGUE_VALUES, labels=CATALOGUE_LABELS):
    """Чистая функция: запрос (qx, qy) и температура τ -> оценки, веса и смесь значений.

    Плохие значения ползунков не бросают исключение: вместо них берётся разумное значение,
    а в `message` — пояснение.
    """
    keys, values = np.asarray(keys, dtype=float), np.asarray(values, dtype=float)
    notes = []
    query = np.array([real(qx, "запрос x", notes, 0.0), real(qy, "запрос y", notes, 0.0)])
    if not np.isfinite(query).all():
        notes.append(f"запрос должен быть из обычных чисел, а пришло ({qx}, {qy}); показываю (0, 0)")
        query = np.zeros(2)
    temperature = real(temperature, "температура", notes, 1.0)
    if not (np.isfinite(temperature) and temperature > 0):
        notes.append(f"температура должна быть больше 0, а пришло {temperature}; показываю τ = 1")
        temperature = 1.0
    if not query.any():
        notes.append("нулевой запрос одинаково похож на все ключи: все оценки 0, веса поровну")
    scores = keys @ query                                   # (n, 2) @ (2,) -> (n,)
    weights = softmax(scores / temperature)                 # (n,), в сумме 1
    output = weights @ values                               # (n,) @ (n, 3) -> (3,)
    return SoftSearchView(list(labels), keys, values, query, float(temperature), scores, weights,
                          output, int(np.argmax(scores)), float(entropy(weights)), message="; ".join(notes))


class SoftSearchPainter(Painter):
    """Три панели: ключи и запрос на плоскости, веса столбиками, смешанный и «жёсткий» цвет."""

    def layout_key(self, view):
        return tuple(view.labels), view.keys.tobytes(), view.values.tobytes()

    def draw(self, fig, view):
        plane, bars_ax, mix_ax = fig.subplots(1, 3, width_ratios=[1.4, 1.1, 0.75])
        n = len(view.labels)
        circle = np.linspace(0, 2 * np.pi, 200)
        plane.plot(np.cos(circle), np.sin(circle), color="lightgrey", lw=0.8)
        plane.axhline(0, color="grey", lw=0.5)
        plane.axvline(0, color="grey", lw=0.5)
        self.points = plane.scatter(view.keys[:, 0], view.keys[:, 1], c=view.values, s=60, zorder=3,
                                    edgecolors="black", linewidths=0.5)
        for (x, y), label in zip(view.keys, view.labels):
            outward = np.array([x, y]) / max(np.hypot(x, y), 1e-9) * 9      # подпись — наружу от центра
            plane.annotate(label, (x, y), xytext=outward, textcoords="offset points", fontsize=8,
                           ha="left" if x > 0.2 else "right" if x < -0.2 else "center",
                           va="bottom" if y > 0.2 else "top" if y < -0.2 else "center")
        (self.arrow,) = plane.plot([0, view.query[0]], [0, view.query[1]], color="#e8384f", lw=1.5)
        (self.star,) = plane.plot([view.query[0]], [view.query[1]], marker="*", ms=14, color="#e8384f")
        plane.set_xlim(-QUERY_RANGE - 0.3, QUERY_RANGE + 0.3)
        plane.set_ylim(-QUERY_RANGE - 0.3, QUERY_RANGE + 0.3)
        plane.set_aspect("equal")
        plane.set_xlabel("тема, ось 1")
        plane.set_ylabel("тема, ось 2")
        plane.set_title("ключи книг и запрос ★")

        self.bars = list(bars_ax.bar(range(n), view.weights, color=view.values, edgecolor="black", linewidth=0.5))
        bars_ax.set_xticks(range(n), labels=view.labels, rotation=35, ha="right", fontsize=8)
        bars_ax.set_ylim(0, 1)
        bars_ax.set_ylabel("вес книги в смеси")
        self.bars_title = bars_ax.set_title(" \n ")

        from matplotlib.patches import Rectangle

        mix_ax.set_xlim(0, 2)
        mix_ax.set_ylim(0, 1.35)
        mix_ax.axis("off")
        self.soft = mix_ax.add_patch(Rectangle((0.05, 0.25), 0.9, 0.8, edgecolor="black"))
        self.hard = mix_ax.add_patch(Rectangle((1.05, 0.25), 0.9, 0.8, edgecolor="black"))
        mix_ax.text(0.5, 1.12, "мягкий поиск:\nсмесь Σ wᵢ vᵢ", ha="center", fontsize=9)
        mix_ax.text(1.5, 1.12, "жёсткий поиск:\nлучшая книга", ha="center", fontsize=9)
        self.soft_text = mix_ax.text(0.5, 0.1, " ", ha="center", fontsize=8)
        self.hard_text = mix_ax.text(1.5, 0.1, " ", ha="center", fontsize=8)
        return [self.points, self.arrow, self.star, *self.bars, self.bars_title,
                self.soft, self.hard, self.soft_text, self.hard_text]

    def refresh(self, view):
        self.points.set_sizes(30 + 300 * view.weights)      # крупнее — больше вес
        self.arrow.set_data([0, view.query[0]], [0, view.query[1]])
        self.star.set_data([view.query[0]], [view.query[1]])
        for bar, weight in zip(self.bars, view.weights):
            bar.set_height(weight)
        self.bars_title.set_text(f"веса = softmax(q·k / τ), τ = {view.temperature:.2f}\n"
                                 f"энтропия {view.entropy:.2f} бит, сумма = {view.weights.sum():.3f}")
        hard = view.values[view.best]
        self.soft.set_facecolor(np.clip(view.output, 0, 1))
        self.hard.set_facecolor(np.clip(hard, 0, 1))
        self.soft_text.set_text("(" + ", ".join(f"{c:.2f}" for c in view.output) + ")")
        self.hard_text.set_text(view.labels[view.best])


def soft_search_explorer(keys=CATALOGUE_KEYS, values=CATALOGUE_VALUES, labels=CATALOGUE_LABELS,
                         query=(0.0, 4.0), temperature=1.0):
    """Ползунки запроса (q₁, q₂) и температуры τ над каталогом книг (урок 02).

    keys: (n, 2) — ключи на плоскости; values: (n, 3) — цвета RGB от 0 до 1 (их смесь видно);
    labels: n подписей.
    """
    keys, values = np.asarray(keys, dtype=float), np.asarray(values, dtype=float)
    if keys.ndim != 2 or keys.shape[1] != 2:
        raise ValueError(f"soft_search_explorer: ключи рисуются на плоскости — нужна форма (n, 2), а пришла {keys.shape}")
    if values.shape != (len(keys), 3) or values.min() < 0 or values.max() > 1:
        raise ValueError(f"soft_search_explorer: значения — цвета RGB от 0 до 1, по одному на ключ: нужна форма "
                         f"({len(keys)}, 3) и числа в [0, 1], а пришла форма {values.shape}")
    if len(labels) != len(keys):
        raise ValueError(f"soft_search_explorer: подписей {len(labels)}, а ключей {len(keys)} — нужно поровну")
    controls = {
        "qx": widgets.FloatSlider(value=query[0], min=-QUERY_RANGE, max=QUERY_RANGE, step=0.1, description="q₁"),
        "qy": widgets.FloatSlider(value=query[1], min=-QUERY_RANGE, max=QUERY_RANGE, step=0.1, description="q₂"),
        "temperature": widgets.FloatLogSlider(value=temperature, base=10, min=-1, max=1, step=0.05, description="τ"),
    }

    def view(qx, qy, temperature):
        return soft_search_view(qx, qy, temperature, keys, values, labels)

    return Explorer(controls, view, SoftSearchPainter(), new_figure(12, 4.8))

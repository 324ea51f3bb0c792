"""Картинки курса (matplotlib). Каждая функция рисует на данном `ax` или на новом и возвращает фигуру.

Бэкенд не выбираем: это дело Jupyter. Одна цветовая карта на один смысл во всём курсе:
веса внимания — WEIGHTS_CMAP, значения со знаком (оценки, эмбеддинги) — SIGNED_CMAP.
"""

import matplotlib.pyplot as plt
import numpy as np

WEIGHTS_CMAP = "viridis"   # веса внимания, вероятности: от 0 до 1
SIGNED_CMAP = "RdBu_r"     # величины со знаком: синий < 0 < красный


def _as_array(x):
    return np.asarray(getattr(x, "data", x))


def _axes(ax, figsize):
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
        return fig, ax
    return ax.figure, ax


def heatmap(weights, xlabels=None, ylabels=None, title=None, ax=None, cmap=WEIGHTS_CMAP, vmin=0.0, vmax=None):
    """Тепловая карта матрицы (T_q, T_k): строки — запросы (ось y), столбцы — ключи (ось x).

    Для весов внимания шкала от 0 до 1 (vmax=1 по умолчанию, если все значения в [0, 1]).
    """
    weights = _as_array(weights)
    if weights.ndim != 2:
        raise ValueError(f"heatmap рисует матрицу (T_q, T_k), а пришла форма {weights.shape}; для голов используйте vis.heads")
    for labels, n, axis in ((xlabels, weights.shape[1], "xlabels (ключи)"), (ylabels, weights.shape[0], "ylabels (запросы)")):
        if labels is not None and len(labels) != n:
            raise ValueError(f"{axis}: подписей {len(labels)}, а у матрицы по этой оси {n}")
    if vmax is None:
        vmax = 1.0 if vmin == 0.0 and weights.size and 0 <= weights.min() and weights.max() <= 1 else None
    T_q, T_k = weights.shape
    fig, ax = _axes(ax, (1.2 + 0.45 * T_k, 0.9 + 0.4 * T_q) if T_k <= 16 else (8, 7))
    image = ax.imshow(weights, cmap=cmap, vmin=vmin, vmax=vmax)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    ax.set_xlabel("ключи (на кого смотрим)")
    ax.set_ylabel("запросы (кто смотрит)")
    if xlabels is not None:
        ax.set_xticks(range(T_k), labels=list(xlabels), rotation=45, ha="right")
    if ylabels is not None:
        ax.set_yticks(range(T_q), labels=list(ylabels))
    if title:
        ax.set_title(title)
    return fig

"""Картинки курса (matplotlib). Каждая функция рисует на данном `ax` или на новом и возвращает фигуру.

Бэкенд не выбираем: это дело Jupyter. Одна цветовая карта на один смысл во всём курсе:
веса внимания — WEIGHTS_CMAP (от 0 до 1), величины со знаком — SIGNED_CMAP,
клетки, куда смотреть запрещено (маска), — серые (HIDDEN_COLOR).
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Colormap

WEIGHTS_CMAP = "viridis"      # веса внимания и вероятности, от 0 до 1
SIGNED_CMAP = "RdBu_r"        # оценки, эмбеддинги, позиционные кодировки: синий < 0 < красный
HIDDEN_COLOR = "#d9d9d9"      # замаскированные клетки: «сюда смотреть нельзя»
BAR_COLOR = "#3b528b"         # столбики весов (тон из viridis)


def _as_array(x):
    return np.asarray(getattr(x, "data", x))


def _axes(ax, figsize):
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
        return fig, ax
    return ax.figure, ax


def colormap(name=WEIGHTS_CMAP):
    """Цветовая карта курса: спрятанные маской клетки (nan, masked) — серые."""
    cmap = plt.get_cmap(name) if not isinstance(name, Colormap) else name
    return cmap.with_extremes(bad=HIDDEN_COLOR)


def _check_labels(labels, n, what):
    if labels is not None and len(labels) != n:
        raise ValueError(f"{what}: подписей {len(labels)}, а у матрицы по этой оси {n} — нужно поровну")


def _token_ticks(ax, xlabels, ylabels, shape):
    T_q, T_k = shape
    if xlabels is not None:
        ax.set_xticks(range(T_k), labels=list(xlabels), rotation=90)
    if ylabels is not None:
        ax.set_yticks(range(T_q), labels=list(ylabels))


def heatmap(weights, xlabels=None, ylabels=None, title=None, ax=None, mask=None,
            cmap=WEIGHTS_CMAP, vmin=0.0, vmax=1.0, colorbar=True, cax=None):
    """Тепловая карта матрицы (T_q, T_k): строки — запросы (ось y), столбцы — ключи (ось x).

    mask: булева (T_q, T_k), True = «можно смотреть»; остальные клетки рисуются серыми.
    Для величин со знаком передайте cmap=SIGNED_CMAP и vmin/vmax (или None — по данным).
    cax — готовые оси для цветового столбика (иначе он отнимает место у ax).
    """
    weights = _as_array(weights)
    if weights.ndim != 2:
        raise ValueError(f"heatmap рисует матрицу (T_q, T_k), а пришла форма {weights.shape}; для голов — vis.heads")
    _check_labels(xlabels, weights.shape[1], "xlabels (ключи)")
    _check_labels(ylabels, weights.shape[0], "ylabels (запросы)")
    T_q, T_k = weights.shape
    own_figure = ax is None
    fig, ax = _axes(ax, (1.6 + 0.42 * T_k, 1.2 + 0.38 * T_q) if T_k <= 16 else (8, 7))
    shown = weights if mask is None else np.ma.masked_where(~np.asarray(mask, dtype=bool), weights)
    image = ax.imshow(shown, cmap=colormap(cmap), vmin=vmin, vmax=vmax)
    if colorbar:
        label = "вес" if cmap == WEIGHTS_CMAP else None
        if cax is not None:
            fig.colorbar(image, cax=cax, label=label)
        else:
            cax = ax.inset_axes([1.04, 0.0, 0.05, 1.0])   # столбик у самой карты: клетки квадратные, а место оси шире
            fig.colorbar(image, cax=cax, label=label)
    ax.set_xlabel("ключ: на кого смотрим")
    ax.set_ylabel("запрос: кто смотрит")
    _token_ticks(ax, xlabels, ylabels, weights.shape)
    if title:
        ax.set_title(title)
        if own_figure:
            _fit_title(fig, ax)
    return fig


def _fit_title(fig, ax):
    """Расширяет свою фигуру, пока заголовок над картой не поместится в неё (сама карта — по центру)."""
    ax.set_anchor("C")                                      # иначе карта прижата к шкале и уезжает вместе с ней
    for _ in range(4):
        fig.canvas.draw()
        box = ax.title.get_window_extent()
        over = max(0.0, -box.x0, box.x1 - fig.bbox.width)
        if over <= 1:
            return
        width, height = fig.get_size_inches()
        fig.set_size_inches(width + 2 * (over + 4) / fig.dpi, height)


def head_grid(h, ncols=4):
    """Сетка панелей для h голов: (строк, столбцов), не больше ncols в ряд — одна на весь курс."""
    cols = min(h, ncols)
    return -(-h // cols), cols


def heads(weights, tokens, title=None, axes=None, mask=None, ncols=4, cax=None, vmax=1.0):
    """Веса всех голов (h, T, T) — по панели на голову, одна шкала 0…vmax и один цветовой столбик.

    Подписи ключей — под каждой панелью, подписи запросов — только у левых панелей.
    cax — готовые оси для цветового столбика (иначе он отнимает место у панелей).
    vmax < 1 растягивает шкалу, когда веса почти ровные (случайные веса: все около 1/T).
    """
    weights = _as_array(weights)
    if weights.ndim == 4 and weights.shape[0] == 1:
        weights = weights[0]                                  # (1, h, T, T) -> (h, T, T)
    if weights.ndim != 3:
        raise ValueError(f"heads ждёт веса формы (h, T, T) или (1, h, T, T), а пришла форма {weights.shape}")
    h, T_q, T_k = weights.shape
    _check_labels(tokens, T_k, "tokens")
    rows, cols = head_grid(h, ncols)
    if axes is None:
        fig, grid = plt.subplots(rows, cols, figsize=(0.5 + 2.6 * cols, 0.6 + 2.6 * rows),
                                 layout="constrained", squeeze=False)
        axes = list(grid.flat)
        fig.supxlabel("ключ")                                 # одна подпись под всеми панелями; у чужих осей — своя
    else:
        axes = list(np.ravel(axes))
        fig = axes[0].figure
    if len(axes) < h:
        raise ValueError(f"heads: осей {len(axes)}, а голов {h} — нужно не меньше")
    for i, ax in enumerate(axes[:h]):
        heatmap(weights[i], tokens, tokens if i % cols == 0 else None, title=f"голова {i + 1}",
                ax=ax, mask=mask, colorbar=False, vmax=vmax)
        ax.set_xlabel("")
        ax.set_ylabel("запрос" if i % cols == 0 else "")
        if i % cols:
            ax.set_yticks([])
    for ax in axes[h:]:
        ax.set_visible(False)
    extend = "max" if vmax < 1 else "neither"             # стрелка: выше vmax — тот же жёлтый
    if cax is not None:
        fig.colorbar(axes[0].images[0], cax=cax, label="вес", extend=extend)
    else:
        fig.colorbar(axes[0].images[0], ax=axes[:h], shrink=0.8, label="вес", extend=extend)
    if title:
        fig.suptitle(title)
    return fig


def row(weights, tokens, i, title=None, ax=None):
    """Распределение одного запроса i по ключам — столбиками: строка i матрицы весов (T_q, T_k)."""
    weights = _as_array(weights)
    if weights.ndim != 2:
        raise ValueError(f"row ждёт матрицу весов (T_q, T_k), а пришла форма {weights.shape}")
    if not 0 <= i < weights.shape[0]:
        raise ValueError(f"row: номер запроса i должен быть от 0 до {weights.shape[0] - 1}, а пришло {i}")
    _check_labels(tokens, weights.shape[1], "tokens")
    fig, ax = _axes(ax, (1.5 + 0.45 * weights.shape[1], 2.8))
    ax.bar(range(weights.shape[1]), weights[i], color=BAR_COLOR)
    ax.set_xticks(range(weights.shape[1]), labels=list(tokens), rotation=90)
    ax.set_ylim(0, 1)
    ax.set_ylabel("вес")
    square = weights.shape[0] == weights.shape[1]        # самовнимание: запросы — те же токены
    ax.set_title(title or (f"куда смотрит «{tokens[i]}»" if square else f"запрос {i}"))
    return fig


def vectors_2d(points, labels, title=None, ax=None, arrows=True, colors=None):
    """Точки (n, 2) с подписями — например, эмбеддинги после проекции на плоскость (урок 01)."""
    points = _as_array(points)
    if points.ndim != 2 or points.shape[1] != 2:
        raise ValueError(f"vectors_2d ждёт точки формы (n, 2), а пришла форма {points.shape}; сначала спроецируйте на 2 оси")
    if len(labels) != len(points):
        raise ValueError(f"vectors_2d: подписей {len(labels)}, а точек {len(points)}")
    fig, ax = _axes(ax, (6, 5))
    colors = colors if colors is not None else [BAR_COLOR] * len(points)
    if arrows:
        ax.quiver(np.zeros(len(points)), np.zeros(len(points)), points[:, 0], points[:, 1], color=colors,
                  angles="xy", scale_units="xy", scale=1, width=0.004, alpha=0.6)
    ax.scatter(points[:, 0], points[:, 1], c=colors, s=25, zorder=3)
    for (x, y), label in zip(points, labels):
        ax.annotate(label, (x, y), xytext=(4, 4), textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    span = np.abs(points).max() * 1.25 if points.size else 1
    ax.set_xlim(-span, span)
    ax.set_ylim(-span, span)
    ax.set_aspect("equal")
    ax.set_xlabel("ось 1")
    ax.set_ylabel("ось 2")
    if title:
        ax.set_title(title)
    return fig

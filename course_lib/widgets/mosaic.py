"""Все головы на одной оси: по картинке (T, T) на голову, в сетке vis.head_grid (уроки 03–07).

Раньше каждая голова была своей осью matplotlib, и при смене числа голов или T создание
осей и делений занимало больше половины кадра (benchmarks/widgets.py). Здесь ось одна,
панели — картинки imshow со своими `extent`, а рамки, заголовки и подписи токенов —
простые прямоугольники и тексты. Снаружи это выглядит как сетка осей.
"""

import numpy as np
from matplotlib import transforms
from matplotlib.patches import Rectangle

from course_lib import vis
from course_lib.widgets import layout


class HeadPanels:
    """Сетка панелей h голов (T, T) на одной оси; `images[i]` — картинка головы i, `corner(i)` — её угол."""

    def __init__(self, grid, weights, tokens, left, top, mask=None, vmax=1.0, titles=None, gap=0.3):
        h, T = len(weights), len(tokens)
        self.rows, self.cols = vis.head_grid(h)
        self.size = layout.tick_size(T)
        panel = layout.panel_size(T)
        labels = layout.text_width(tokens, self.size)
        title = layout.lines_height(1, 10)
        cell = panel / T                                         # дюймов на клетку
        self.step_x, self.step_y = T + gap / cell, T + title / cell  # шаг сетки в клетках
        width = self.cols * panel + (self.cols - 1) * gap
        height = self.rows * panel + (self.rows - 1) * title
        self.bottom = top - title - height                      # низ нижнего ряда (дюймы)
        self.ax = ax = grid.axes(left, self.bottom, width, height)
        ax.set_xlim(-0.5, self.cols * self.step_x - (self.step_x - T) - 0.5)
        ax.set_ylim(self.rows * self.step_y - (self.step_y - T) - 0.5, -0.5)
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        fig = grid.fig
        below = transforms.offset_copy(ax.transData, fig=fig, y=-3, units="points")
        beside = transforms.offset_copy(ax.transData, fig=fig, x=-3, units="points")
        above = transforms.offset_copy(ax.transData, fig=fig, y=3, units="points")
        cmap = vis.colormap()
        self.images = []
        for i in range(h):
            x0, y0 = self.corner(i)
            shown = weights[i] if mask is None else np.ma.masked_where(~mask, weights[i])
            self.images.append(ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=vmax, extent=(x0, x0 + T, y0 + T, y0),
                                         interpolation="nearest"))
            ax.add_artist(Rectangle((x0, y0), T, T, fill=False, edgecolor="black", linewidth=0.8))  # пределы заданы выше
            ax.text(x0 + T / 2, y0, titles[i] if titles else f"голова {i + 1}", transform=above,
                    ha="center", va="bottom", fontsize=10)
            if i + self.cols >= h:                               # ключи подписаны у нижнего ряда панелей
                for j, token in enumerate(tokens):
                    ax.text(x0 + 0.5 + j, y0 + T, token, transform=below, rotation=90, ha="center", va="top",
                            fontsize=self.size)
            if i % self.cols == 0:                               # запросы — у левого столбца
                for j, token in enumerate(tokens):
                    ax.text(x0, y0 + 0.5 + j, token, transform=beside, ha="right", va="center", fontsize=self.size)
        ax.set_xlabel("ключ")
        ax.set_ylabel("запрос")
        ax.xaxis.set_label_coords(0.5, -(labels + 0.08) / height)
        ax.yaxis.set_label_coords(-(labels + 0.08) / width, 0.5)
        self.panel, self.labels = panel, labels

    def corner(self, i):
        """Левый верхний угол панели головы i в координатах оси (клетка (0, 0) панели — в corner + 0.5)."""
        r, c = divmod(i, self.cols)
        return c * self.step_x - 0.5, r * self.step_y - 0.5

    def colorbar(self, cax, vmax):
        extend = "max" if vmax < 1 else "neither"              # стрелка: выше vmax — тот же жёлтый
        return self.ax.figure.colorbar(self.images[0], cax=cax, label="вес", extend=extend)

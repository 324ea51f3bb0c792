"""Ручная раскладка фигур виджетов: оси ставятся в дюймах, без движка раскладки matplotlib.

Движок (constrained layout) пересчитывает раскладку при каждой полной перерисовке, и его
результат зависит от текста подписей — при смене T или числа голов он удваивал время кадра
(benchmarks/widgets.py). Здесь размеры считаются один раз из того, что известно заранее:
длины подписей, числа строк заголовка, числа панелей.
"""

from matplotlib import transforms

from course_lib import vis

CHAR = 0.6 / 72       # дюймов на символ на каждый пункт шрифта (DejaVu Sans, с запасом)
LINE = 1.45 / 72      # высота строки текста на пункт шрифта


def text_width(labels, size):
    """Сколько дюймов занимает самая длинная подпись размером size pt."""
    return CHAR * size * max((len(str(t)) for t in labels), default=1)


def lines_height(lines, size=10):
    """Высота заголовка в lines строк размером size pt, с отступом до оси."""
    return LINE * size * lines + 0.08


SMALLEST = 7.5       # pt в кадре (dpi 90): на экране в 96 пикселей на дюйм это 7 pt


def tick_size(T):
    """Размер подписей токенов: крупно при коротком предложении (10 pt в кадре — 9.4 pt на экране), не мельче
    7 pt на экране при длинном."""
    return 10 if T <= 12 else 9 if T <= 20 else SMALLEST


def panel_size(T, smallest=2.3):
    """Сторона квадратной панели (T, T) в дюймах: на каждую подпись токена — место для её шрифта."""
    return max(smallest, (tick_size(T) + 2.5) / 72 * T)


class Inches:
    """Фигура размером width × height дюймов, оси в ней — прямоугольники в дюймах от левого нижнего угла."""

    def __init__(self, fig, width, height):
        fig.set_size_inches(width, height)
        fig.set_layout_engine("none")
        self.fig, self.width, self.height = fig, width, height

    def axes(self, x, y, w, h):
        return self.fig.add_axes([x / self.width, y / self.height, w / self.width, h / self.height])


def heatmap_margins(labels, size=10):
    """(слева, снизу) в дюймах: подпись оси и подписи токенов тепловой карты (внизу они повёрнуты)."""
    width = text_width(labels, size)
    return 0.45 + width, 0.5 + width


def heatmap_row(fig, tokens, panels=1, top=0.45):
    """Ряд из `panels` квадратных тепловых карт (T, T) с подписями токенов и шкала цвета справа.

    Возвращает (список осей карт, ось шкалы). top — дюймов над картами под заголовки.
    """
    left, bottom = heatmap_margins(tokens)
    side = max(2.6, 0.4 * len(tokens))
    grid = Inches(fig, panels * (left + side + 0.2) + 0.9, bottom + side + top)
    axes = [grid.axes(k * (left + side + 0.2) + left, bottom, side, side) for k in range(panels)]
    return axes, grid.axes(panels * (left + side + 0.2), bottom, 0.15, side)


def slanted_height(labels, size=10):
    """Сколько дюймов под осью занимают подписи, повёрнутые на 35° (rotation=35, ha="right")."""
    return 0.6 * text_width(labels, size) + 0.35


def token_labels(ax, tokens, size, keys=True, queries=True):
    """Подписи токенов у панели (T, T) простыми текстами вместо делений осей.

    Деление matplotlib — шесть артистов (черточки, подписи, сетка), и при смене T или числа
    голов их создание и раскладка занимали больше половины кадра; текст — один артист.
    Подписи ключей — под панелью (повёрнуты), запросов — слева; подписи осей ставятся за ними.
    """
    fig = ax.figure
    width = text_width(tokens, size)
    side = ax.get_position().height * fig.get_figheight()          # сторона панели в дюймах
    if keys:
        ax.set_xticks([])
        below = transforms.offset_copy(ax.get_xaxis_transform(), fig=fig, y=-3, units="points")
        for i, token in enumerate(tokens):
            ax.text(i, 0, token, transform=below, rotation=90, ha="center", va="top", fontsize=size)
        ax.xaxis.set_label_coords(0.5, -(width + 0.08) / side)
    if queries:
        ax.set_yticks([])
        beside = transforms.offset_copy(ax.get_yaxis_transform(), fig=fig, x=-3, units="points")
        for i, token in enumerate(tokens):
            ax.text(0, i, token, transform=beside, ha="right", va="center", fontsize=size)
        ax.yaxis.set_label_coords(-(width + 0.08) / (ax.get_position().width * fig.get_figwidth()), 0.5)


def token_bars(ax, weights, tokens, size, title):
    """Столбики строки весов (T,) с подписями ключей-текстами — vis.row без делений оси x.

    vis.row ставит деление на каждый токен, и при смене T их создание стоило больше, чем сами
    столбики; подписи здесь — тексты token_labels. Возвращает список столбиков.
    """
    bars = ax.bar(range(len(tokens)), weights, color=vis.BAR_COLOR)
    ax.set_ylim(0, 1)
    ax.set_ylabel("вес")
    ax.set_title(title)
    token_labels(ax, tokens, size, queries=False)
    return list(bars)

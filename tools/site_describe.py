"""Текстовые описания рисунков по их данным (для экранного диктора и медленной связи): tools/build_site.py.

Описание строится из артистов фигуры matplotlib — картинок (imshow), линий, столбиков, точек,
подписей: так одна функция описывает и рисунки уроков, и кадры виджетов (после `refresh`
у артистов уже данные этого кадра). Для карты весов — куда смотрит каждый запрос
(два-три ключа с наибольшими весами), для линии — начало, конец и крайние точки,
для столбиков — их высоты.
"""

import re

import numpy as np
from matplotlib.container import BarContainer
from matplotlib.collections import PathCollection

MAX_ROWS = 12        # строк карты, описанных по одной; остальные — одной фразой
MAX_LINES = 8
MAX_BARS = 16


def _num(x):
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) >= 1e6 or abs(x) < 0.01:
        return f"{x:.2g}"
    if abs(x) >= 1000:
        return f"{x:.0f}"
    return f"{x:.2f}".rstrip("0").rstrip(".") if abs(x) < 100 else f"{x:.0f}"


def _ticks(labels, n):
    texts = [t.get_text().strip() for t in labels]
    return texts if len(texts) == n and all(texts) else None


def _axis_labels(ax, tokens, rows, cols):
    ys = _ticks(ax.get_yticklabels(), rows)
    xs = _ticks(ax.get_xticklabels(), cols)
    if ys is None and tokens is not None and len(tokens) == rows:
        ys = [str(t) for t in tokens]
    if xs is None and tokens is not None and len(tokens) == cols:
        xs = [str(t) for t in tokens]
    return ys or [str(i) for i in range(rows)], xs or [str(j) for j in range(cols)]


def _image(ax, image, number, tokens):
    data = image.get_array()
    if data is None or np.ndim(data) != 2:
        return "картинка"
    data = np.ma.masked_invalid(np.ma.asarray(data, dtype=float))
    rows, cols = data.shape
    ylabels, xlabels = _axis_labels(ax, tokens, rows, cols)
    shown = data.compressed()
    where = f"панель {number}: " if number else ""
    if shown.size == 0:
        return f"{where}карта {rows}×{cols}, все клетки скрыты"
    hidden = f", скрыто клеток: {int(np.ma.count_masked(data))}" if np.ma.count_masked(data) else ""
    head = f"{where}карта {rows}×{cols}, значения от {_num(shown.min())} до {_num(shown.max())}{hidden}"
    if shown.min() >= 0 and shown.max() <= 1.0 + 1e-9:            # веса и вероятности: куда смотрит каждая строка
        top = 3 if cols >= 6 else 2
        lines = []
        for r in range(min(rows, MAX_ROWS)):
            row = data[r]
            if row.count() == 0:
                lines.append(f"«{ylabels[r]}»: всё скрыто")
                continue
            order = [j for j in np.argsort(-row.filled(-np.inf)) if not np.ma.is_masked(row[j])][:top]
            lines.append(f"«{ylabels[r]}» → " + ", ".join(f"«{xlabels[j]}» {_num(row[j])}" for j in order))
        if rows > MAX_ROWS:
            lines.append(f"и ещё строк: {rows - MAX_ROWS}")
        return head + "; по строкам, наибольшие: " + "; ".join(lines)
    hi = np.unravel_index(np.argmax(data.filled(-np.inf)), data.shape)
    lo = np.unravel_index(np.argmin(data.filled(np.inf)), data.shape)
    return (f"{head}; наибольшее {_num(data[hi])} в клетке («{ylabels[hi[0]]}», «{xlabels[hi[1]]}»), "
            f"наименьшее {_num(data[lo])} в клетке («{ylabels[lo[0]]}», «{xlabels[lo[1]]}»)")


def _line(line):
    x = np.asarray(line.get_xdata(), dtype=float)
    y = np.asarray(line.get_ydata(), dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(y) == 0:
        return None
    label = line.get_label()
    name = f"линия «{label}»" if label and not label.startswith("_") else "линия"
    if len(y) == 1:
        return f"{name}: точка ({_num(x[0])}, {_num(y[0])})"
    if np.allclose(y, y[0]) and not np.allclose(x, x[0]):
        return f"{name}: горизонтальная, y = {_num(y[0])}"
    if np.allclose(x, x[0]):
        return f"{name}: вертикальная, x = {_num(x[0])}"
    hi, lo = int(np.argmax(y)), int(np.argmin(y))
    return (f"{name}: {len(y)} точек, x от {_num(x.min())} до {_num(x.max())}; в начале y = {_num(y[0])}, "
            f"в конце y = {_num(y[-1])}; наибольшее {_num(y[hi])} при x = {_num(x[hi])}, "
            f"наименьшее {_num(y[lo])} при x = {_num(x[lo])}")


def _bars(ax, container, tokens):
    horizontal = getattr(container, "orientation", "vertical") == "horizontal"
    values = [p.get_width() if horizontal else p.get_height() for p in container.patches]
    labels = _ticks(ax.get_yticklabels() if horizontal else ax.get_xticklabels(), len(values))
    if labels is None and tokens is not None and len(tokens) == len(values):
        labels = [str(t) for t in tokens]
    if labels is None:                                            # гистограмма: подпись — середина столбика
        labels = [_num(p.get_y() + p.get_height() / 2 if horizontal else p.get_x() + p.get_width() / 2)
                  for p in container.patches]
    pairs = list(zip(labels, values))
    if len(pairs) > MAX_BARS:
        pairs = sorted(pairs, key=lambda p: -p[1])[:MAX_BARS // 2]
        return f"столбики ({len(values)}), самые высокие: " + ", ".join(f"«{a}» {_num(v)}" for a, v in pairs)
    return f"столбики ({len(values)}): " + ", ".join(f"«{a}» {_num(v)}" for a, v in pairs)


def _points(ax, collection):
    offsets = np.asarray(collection.get_offsets())
    if offsets.ndim != 2 or len(offsets) == 0:
        return None
    return (f"точки: {len(offsets)}, x от {_num(offsets[:, 0].min())} до {_num(offsets[:, 0].max())}, "
            f"y от {_num(offsets[:, 1].min())} до {_num(offsets[:, 1].max())}")


def _texts(ax, tokens):
    known = {str(t) for t in tokens} if tokens is not None else set()
    texts = []
    for t in ax.texts:
        text = " ".join(t.get_text().split())
        if text and t.get_visible() and text not in known and text not in texts:
            texts.append(text)
    if not texts:
        return None
    more = f" и ещё {len(texts) - 12}" if len(texts) > 12 else ""
    return "надписи: " + "; ".join(f"«{t}»" for t in texts[:12]) + more


def describe_figure(fig, tokens=None):
    """Список фраз по-русски: что нарисовано, по осям. tokens — подписи строк и столбцов карт без делений."""
    said = []
    title = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) is not None else ""
    if title:
        said.append(f"Рисунок «{title}»")
    axes = [ax for ax in fig.axes if ax.get_visible() and not hasattr(ax, "_colorbar")]
    for i, ax in enumerate(axes):
        what = []
        heading = " ".join(t for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right")) if t)
        name = f"«{' '.join(heading.split())}»" if heading else (f"график {i + 1}" if len(axes) > 1 else "график")
        axis = [f"{a}: {' '.join(label.split())}" for a, label in (("по горизонтали", ax.get_xlabel()),
                                                                      ("по вертикали", ax.get_ylabel())) if label]
        images = ax.get_images()
        for k, image in enumerate(images):
            what.append(_image(ax, image, k + 1 if len(images) > 1 else 0, tokens))
        lines = [d for d in (_line(line) for line in ax.get_lines()) if d]
        what += lines[:MAX_LINES] + ([f"и ещё линий: {len(lines) - MAX_LINES}"] if len(lines) > MAX_LINES else [])
        what += [_bars(ax, c, tokens) for c in ax.containers if isinstance(c, BarContainer) and c.patches]
        what += [d for d in (_points(ax, c) for c in ax.collections if isinstance(c, PathCollection)) if d]
        texts = _texts(ax, tokens)
        if texts:
            what.append(texts)
        if not what and not heading:
            continue
        said.append(f"{name}" + (f" ({'; '.join(axis)})" if axis else "") + (": " + "; ".join(what) if what else ""))
    for ax in fig.axes:
        if hasattr(ax, "_colorbar"):
            label = ax.get_ylabel() or ax.get_xlabel()
            low, high = ax._colorbar.vmin, ax._colorbar.vmax
            said.append(f"цветовая шкала{f' «{label}»' if label else ''}: от {_num(low)} до {_num(high)}")
    return said


def plain(html_text):
    """HTML подписи виджета -> текст (для описания кадра)."""
    text = re.sub(r"<[^>]+>", " ", html_text or "")
    text = text.replace("&nbsp;", " ").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return " ".join(text.split())

"""Проверка картинок уроков: что ученик увидит испорченным, а глаз автора мог пропустить (CHECKS).

- ни одна подпись не вылезает за край фигуры и не мельче 7 pt на экране;
- легенда не лежит на линии, точке или столбике своих осей;
- точки (маркеры) целиком в рамке осей — не срезаны ею наполовину и не лежат поверх неё;
- линейная ось y не уходит далеко за данные (данные — не меньше 40 % её высоты; шкала весов 0…1 — договор курса).

Тесты кладут этот файл в автозапуск ядер, в которых nbval исполняет уроки (`kernel_ipython_dir`;
его зовут conftest.py в корне и tools/lesson_passes.py): `plt.show()` показывает открытые
фигуры как обычно и тут же их проверяет. Если проверка что-то нашла, ячейка падает,
и nbval называет урок и ячейку. Кадры виджетов проверяют tests/test_lesson_figures.py (без оси за
данными: у виджета одна шкала на все положения ползунка бывает нарочно). Ученику эта
проверка не мешает: в `make lab` её нет. (Inline-картинка Jupyter обрезается по содержимому и
вылезшую подпись спрятала бы — а в виджете или в сохранённом файле она обрезана.)
"""

import pathlib
import tempfile


def text_outside(fig, tolerance=1.0):
    """Что из нарисованного на фигуре выходит за её край: список строк-описаний."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    pieces = [(f"оси «{ax.get_title() or ax.get_label() or 'без заголовка'}»", ax.get_tightbbox(renderer))
              for ax in fig.axes if ax.get_visible()]
    pieces += [(f"текст «{t.get_text()[:40]}»", t.get_window_extent(renderer))
               for t in fig.texts if t.get_visible() and t.get_text().strip()]
    pieces += [("легенда фигуры", legend.get_window_extent(renderer)) for legend in fig.legends]
    return [f"{what}: ({box.x0:.0f}, {box.y0:.0f})–({box.x1:.0f}, {box.y1:.0f}) при фигуре {width:.0f}×{height:.0f}"
            for what, box in pieces
            if box is not None and (box.x0 < -tolerance or box.y0 < -tolerance
                                    or box.x1 > width + tolerance or box.y1 > height + tolerance)]


SMALLEST = 7.0       # pt: мельче подпись на экране не читается
SCREEN_DPI = 96      # браузер показывает картинку пиксель в пиксель, 96 пикселей на дюйм


def shown_size(text, dpi):
    """Размер шрифта в pt, каким его видит ученик: фигура с dpi точек на дюйм на экране в 96 пикселей на дюйм."""
    return text.get_fontsize() * dpi / SCREEN_DPI


def small_text(fig, smallest=SMALLEST):
    """Какие видимые подписи (деления, подписи осей, тексты, легенды) на экране мельче smallest pt: список описаний.

    Inline-картинка урока (dpi 100) и кадр виджета (dpi 90) показываются пиксель в пиксель, поэтому
    7 pt в кадре виджета на экране — 6.6 pt: размер считается с поправкой на dpi фигуры.
    """
    from matplotlib.text import Text

    fig.canvas.draw()                          # деления создаются при отрисовке
    found = {}
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text().strip() and shown_size(text, fig.dpi) < smallest - 1e-9:
            found.setdefault(round(shown_size(text, fig.dpi), 1), []).append(text.get_text()[:20])
    return [f"подписи {', '.join(f'«{t}»' for t in texts[:3])}{' и ещё ' + str(len(texts) - 3) if len(texts) > 3 else ''}: "
            f"{size} pt на экране, нужно не мельче {smallest:g} pt" for size, texts in sorted(found.items())]


def _name(artist):
    label = artist.get_label()
    return "без подписи" if label.startswith("_") else label


def _plotted_lines(ax):
    """Линии данных осей (без линий легенды и без невидимых)."""
    return [line for line in ax.lines if line.get_visible() and len(line.get_xdata()) > 0]


def legend_over_data(fig):
    """Какие легенды лежат поверх нарисованного: линии, точки или столбика своих осей — список описаний."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if not ax.get_visible() or legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        covered = [_name(line) for line in _plotted_lines(ax) if _line_crosses(line, box)]
        covered += ["столбик" for patch in ax.patches if patch.get_visible() and _patch_overlaps(patch, box)]
        if covered:
            found.append(f"легенда осей «{ax.get_title() or ax.get_label() or 'без заголовка'}» лежит поверх "
                         f"{', '.join(f'«{c}»' for c in dict.fromkeys(covered))}: передвиньте её (loc=…) или вынесите за оси")
    return found


def _on_screen(line):
    """Точки линии в пикселях фигуры (N, 2), без NaN."""
    import numpy as np

    points = line.get_transform().transform(np.asarray(line.get_xydata(), float))
    return points[np.isfinite(points).all(axis=1)]


def _has_markers(line):
    return line.get_marker() not in (None, "None", "none", "", " ") and line.get_markersize() > 0


def _line_crosses(line, box):
    from matplotlib.path import Path

    points = _on_screen(line)
    if len(points) > 1 and line.get_linestyle() not in ("None", "none", "", " ") \
            and Path(points).intersects_bbox(box, filled=False):
        return True
    return _has_markers(line) and any(box.contains(x, y) for x, y in points)


def _patch_overlaps(patch, box):
    extent = patch.get_window_extent()
    return extent.width > 0 and extent.height > 0 and extent.overlaps(box)


def markers_past_axes(fig, tolerance=0.5):
    """Какие точки (маркеры линий) вылезают за рамку осей или срезаны ею наполовину — список описаний."""
    import numpy as np

    fig.canvas.draw()
    found = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        frame = ax.get_window_extent()
        for line in _plotted_lines(ax):
            if not _has_markers(line):
                continue
            radius = line.get_markersize() / 2 * fig.dpi / 72
            points = _on_screen(line)
            inside = ((points[:, 0] > frame.x0 - radius) & (points[:, 0] < frame.x1 + radius)
                      & (points[:, 1] > frame.y0 - radius) & (points[:, 1] < frame.y1 + radius))
            if line.get_clip_on():
                points = points[inside]            # точки целиком за осями срезаны — их нет на картинке вовсе
            past = ((points[:, 0] - radius < frame.x0 - tolerance) | (points[:, 0] + radius > frame.x1 + tolerance)
                    | (points[:, 1] - radius < frame.y0 - tolerance) | (points[:, 1] + radius > frame.y1 + tolerance))
            if past.any():
                found.append(f"точки «{_name(line)}» на осях «{ax.get_title() or 'без заголовка'}»: "
                             f"{int(past.sum())} из {len(points)} не помещаются в рамку осей — расширьте пределы осей")
    return found


EMPTIEST = 0.6       # доля оси y без данных, больше которой ось «пустая»


def empty_axis(fig, emptiest=EMPTIEST):
    """На каких осях линейная ось y уходит далеко за данные (данные занимают меньше 1 − emptiest её) — список описаний.

    Ось весов и вероятностей 0…1 — договор курса (одна шкала на одно значение), её не проверяем.
    """
    import numpy as np

    fig.canvas.draw()
    found = []
    for ax in fig.axes:
        if not ax.get_visible() or ax.get_yscale() != "linear" or ax.get_aspect() != "auto":
            continue                           # плоскость с равным масштабом: ось y идёт за осью x
        low, high = sorted(ax.get_ylim())
        if np.isclose(low, 0) and np.isclose(high, 1):
            continue
        values = [np.asarray(line.get_ydata(), float) for line in _plotted_lines(ax) if _y_in_data(line, ax)]
        values += [np.asarray(c.get_offsets(), float)[:, 1] for c in ax.collections
                   if c.get_visible() and c.get_offset_transform().contains_branch(ax.transData) and len(c.get_offsets())]
        values += [np.array([p.get_y(), p.get_y() + p.get_height()]) for p in ax.patches
                   if p.get_visible() and hasattr(p, "get_height") and p.get_height() != 0]
        values = np.concatenate(values) if values else np.array([])
        values = values[np.isfinite(values)]
        if len(values) == 0 or high <= low:
            continue
        shown = (min(values.max(), high) - max(values.min(), low)) / (high - low)
        if shown < 1 - emptiest:
            found.append(f"ось y осей «{ax.get_title() or 'без заголовка'}» — от {low:g} до {high:g}, а данные — "
                         f"от {values.min():.3g} до {values.max():.3g}: они занимают {shown:.0%} высоты")
    return found


def _y_in_data(line, ax):
    """y линии — в данных (у axvline он в долях осей: от 0 до 1 высоты, не данные)."""
    return line.get_transform().contains_branch_seperately(ax.transData)[1]


CHECKS = [(text_outside, "подписи картинки выходят за край фигуры"),
          (small_text, "подписи картинки слишком мелкие"),
          (legend_over_data, "легенда закрывает данные"),
          (markers_past_axes, "точки срезаны рамкой осей"),
          (empty_axis, "ось уходит далеко за данные")]


def problems(fig):
    """Все находки всех проверок для одной фигуры: список строк «что не так: где»."""
    return [f"{header}: {found}" for check, header in CHECKS for found in check(fig)]


def install():
    """Подменяет plt.show на «проверить, потом показать» (зовётся в автозапуске ядра)."""
    import matplotlib.pyplot as plt

    show = plt.show

    def checked_show(*args, **kwargs):
        # Сначала показать, потом проверить: лишняя отрисовка до показа сдвигает раскладку фигуры на пиксели,
        # и показанная картинка была бы не той, что в тетрадке (её сверяет tools/committed_figures.py).
        figures = [plt.figure(num) for num in plt.get_fignums()]
        shown = show(*args, **kwargs)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        for fig in figures:
            if not hasattr(fig.canvas, "get_renderer"):      # показанную фигуру inline закрыл: холст для проверки
                FigureCanvasAgg(fig)
        for check, header in CHECKS:
            found = [p for fig in figures for p in check(fig)]
            if found:
                raise AssertionError(f"{header}:\n" + "\n".join(found))
        return shown

    plt.show = checked_show


def kernel_ipython_dir():
    """Временная папка IPython, в автозапуске которой стоит install(): IPYTHONDIR для ядер nbval.

    Автозапуск исполняется в пространстве имён ученика, поэтому строка в нём одна и имён не оставляет.
    """
    folder = pathlib.Path(tempfile.mkdtemp(prefix="course-ipython-"))
    startup = folder / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "check_figures.py").write_text(
        f'__import__("runpy").run_path({str(pathlib.Path(__file__).resolve())!r})["install"]()\n', encoding="utf-8")
    asserts = pathlib.Path(__file__).resolve().parent / "kernel_asserts.py"     # голый assert урока — со значениями
    (startup / "assert_values.py").write_text(
        f'__import__("runpy").run_path({str(asserts)!r})["install"]()\n', encoding="utf-8")
    write_shared_runs_startup(startup)
    return str(folder)


def write_shared_runs_startup(startup):
    """Автозапуск ядра: память прогонов спрашивает общую папку проверки (tools/shared_runs.py), если она назначена."""
    shared = pathlib.Path(__file__).resolve().parent / "shared_runs.py"
    (startup / "shared_runs.py").write_text(
        f'__import__("runpy").run_path({str(shared)!r})["install"]()\n', encoding="utf-8")

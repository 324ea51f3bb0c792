"""Проверка картинок уроков: ни одна подпись не вылезает за край фигуры и не мельче 7 pt на экране.

Тесты кладут этот файл в автозапуск ядер, в которых nbval исполняет уроки (`kernel_ipython_dir`;
его зовут conftest.py в корне и tools/lesson_passes.py): `plt.show()` показывает открытые
фигуры как обычно и тут же их проверяет. Если заголовок, подпись оси, деление или
легенда не помещаются в фигуру или подпись на экране мельче 7 pt, ячейка падает, и nbval называет урок и ячейку. Ученику эта
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
        outside = [p for fig in figures for p in text_outside(fig)]
        if outside:
            raise AssertionError("подписи картинки выходят за край фигуры:\n" + "\n".join(outside))
        small = [p for fig in figures for p in small_text(fig)]
        if small:
            raise AssertionError("подписи картинки слишком мелкие:\n" + "\n".join(small))
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
    return str(folder)

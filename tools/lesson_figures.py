"""Проверка картинок уроков: ни одна подпись не вылезает за край фигуры.

Тесты кладут этот файл в автозапуск ядер, в которых nbval исполняет уроки (`kernel_ipython_dir`;
его зовут conftest.py в корне и tools/lesson_passes.py): `plt.show()` сначала проверяет все
открытые фигуры, а потом показывает их как обычно. Если заголовок, подпись оси, деление или
легенда не помещаются в фигуру, ячейка падает, и nbval называет урок и ячейку. Ученику эта
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


def install():
    """Подменяет plt.show на «проверить, потом показать» (зовётся в автозапуске ядра)."""
    import matplotlib.pyplot as plt

    show = plt.show

    def checked_show(*args, **kwargs):
        problems = [p for num in plt.get_fignums() for p in text_outside(plt.figure(num))]
        if problems:
            raise AssertionError("подписи картинки выходят за край фигуры:\n" + "\n".join(problems))
        return show(*args, **kwargs)

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
    return str(folder)

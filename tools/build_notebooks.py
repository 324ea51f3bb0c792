"""Собирает lessons/NN_slug.ipynb из lessons/NN_slug.py и исполняет его сверху вниз в свежем ядре.

    python tools/build_notebooks.py                 # все уроки
    python tools/build_notebooks.py lessons/03_*.py # выбранные

Исполненная тетрадка коммитится: так её картинки видны на GitHub без запуска.
"""

import pathlib
import sys
import time

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def keep_cell_ids(notebook, old_path):
    """Номера ячеек (id) — из прежней тетрадки по порядку: i-я ячейка берёт id i-й прежней, пока у них один вид
    (код или текст); с первой несовпавшей и до конца остаются новые id от jupytext.

    jupytext даёт каждой ячейке новый случайный id, и без этого каждая пересборка меняла бы в diff строку id
    у всех ячеек. Вставка или удаление ячейки того же вида сдвигает id дальше по тетрадке — они остаются
    разными, только diff у сдвинутых ячеек будет и в строке id.
    """
    if not old_path.exists():
        return
    old_cells = nbformat.read(old_path, as_version=4).cells
    for cell, old in zip(notebook.cells, old_cells):
        if cell.cell_type != old.cell_type or "id" not in old:
            break
        cell.id = old.id


def build(py_path):
    py_path = pathlib.Path(py_path).resolve()
    notebook = jupytext.read(py_path)
    keep_cell_ids(notebook, py_path.with_suffix(".ipynb"))
    started = time.perf_counter()
    NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=900,
        record_timing=False,                # без меток времени в metadata.execution: пересборка без перемен — без diff
        store_widget_state=False,           # статичную картинку виджет кладёт в вывод сам (image/png)
        resources={"metadata": {"path": str(py_path.parent)}},
    ).execute()
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            # Живой виджет после перезапуска ядра не найти («model not found»); в файле остаётся
            # его картинка (image/png) — её видно и на GitHub, и в JupyterLab до «Run All».
            output.get("data", {}).pop(WIDGET_VIEW, None)
    jupytext.write(notebook, py_path.with_suffix(".ipynb"))
    print(f"{py_path.relative_to(ROOT)} -> .ipynb за {time.perf_counter() - started:.1f} с")


if __name__ == "__main__":
    paths = sys.argv[1:] or sorted(str(p) for p in (ROOT / "lessons").glob("[0-9][0-9]_*.py"))
    for path in paths:
        build(path)

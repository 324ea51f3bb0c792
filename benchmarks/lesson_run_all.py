"""«Run All» одного урока в свежем ядре: процессорное время и время по часам каждой кодовой ячейки.

    .venv/bin/python benchmarks/lesson_run_all.py lessons/10_gpt.py [--top 12]

Урок исполняется из исходника `.py` так, как его исполняет ученик (свежее ядро, ячейки сверху вниз,
ничего не записывается). Процессорное время — ядра целиком, всех его потоков (`time.process_time()`
в ядре: пул машинного отделения и BLAS тоже считаются), по часам — сколько ученик ждёт.
Печатает загрузку машины, самые дорогие ячейки (номер кодовой ячейки с нуля, как у nbval, и её
первая строка) и итог. Цель урока 10 (issue 27): Run All ≤ 60 с процессора.
"""

import argparse
import json
import os
import pathlib
import sys
import time

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Ядро помнит время каждой ячейки: до и после неё (события IPython), и отдаёт их последней ячейкой.
RECORD = """\
import time as _bench_time
_bench_cells = []
def _bench_pre(info):
    _bench_cells.append([_bench_time.process_time(), _bench_time.perf_counter()])
def _bench_post(result):
    if _bench_cells:
        _bench_cells[-1] = [_bench_time.process_time() - _bench_cells[-1][0], _bench_time.perf_counter() - _bench_cells[-1][1]]
get_ipython().events.register("pre_run_cell", _bench_pre)
get_ipython().events.register("post_run_cell", _bench_post)
"""
REPORT = "import json as _bench_json; print(_bench_json.dumps(_bench_cells[:-1]))"


def first_line(cell):
    lines = [line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")]
    return (lines[0] if lines else cell.source.splitlines()[0])[:70]


def run_all(path):
    """[(номер кодовой ячейки, первая строка, с процессора, с по часам)] урока path в свежем ядре."""
    notebook = jupytext.read(path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    notebook.cells = [nbformat.v4.new_code_cell(RECORD), *code, nbformat.v4.new_code_cell(REPORT)]
    NotebookClient(notebook, kernel_name="python3", timeout=1800, store_widget_state=False,
                   resources={"metadata": {"path": str(pathlib.Path(path).resolve().parent)}}).execute()
    report = notebook.cells[-1].outputs[-1]["text"]
    times = json.loads(report)                              # у ячейки RECORD записи нет: её pre — до регистрации
    return [(i, first_line(cell), cpu, wall) for i, (cell, (cpu, wall)) in enumerate(zip(code, times))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lesson", help="исходник урока, например lessons/10_gpt.py")
    parser.add_argument("--top", type=int, default=12, help="сколько самых дорогих ячеек печатать")
    args = parser.parse_args()
    print(f"загрузка машины (1 мин): {os.getloadavg()[0]:.1f} на {os.cpu_count()} ядрах; урок {args.lesson}")
    started = time.perf_counter()
    cells = run_all(args.lesson)
    total = time.perf_counter() - started
    print(f"{'ячейка':>6} {'процессор, с':>12} {'часы, с':>8}  первая строка")
    for i, line, cpu, wall in sorted(cells, key=lambda c: -c[2])[:args.top]:
        print(f"{i:>6} {cpu:12.1f} {wall:8.1f}  {line}")
    cpu, wall = sum(c[2] for c in cells), sum(c[3] for c in cells)
    print(f"всего {len(cells)} кодовых ячеек: {cpu:.1f} с процессора, {wall:.1f} с по часам "
          f"(с запуском ядра {total:.1f} с); цель урока 10 — ≤ 60 с процессора")


if __name__ == "__main__":
    sys.exit(main())

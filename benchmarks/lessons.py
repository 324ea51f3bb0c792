"""Сколько стоит урок одному ученику: «Run All» в свежем ядре — время, процессор, пик памяти.

    .venv/bin/python benchmarks/lessons.py                          # все уроки
    .venv/bin/python benchmarks/lessons.py --lessons 02 10          # выбранные
    .venv/bin/python benchmarks/lessons.py --class-limits --json costs.json   # как на сервере класса

Каждый урок исполняется сверху вниз в своём свежем ядре, во временной папке, устроенной как work/
ученика (её делает tools/workspace.py), — ни ползунок, ни текстовое поле никто не трогает. Печатает:
- «время» — от первой ячейки до конца последней, по часам на стене;
- «процессор» — секунды процессора самого процесса ядра (все его потоки: BLAS, пул машинного
  отделения, фоновые раскладки виджетов) и его завершившихся дочерних процессов, из /proc/<pid>/stat,
  сверх того, что ядро потратило на свой запуск. Фоновые потоки виджетов досчитывают и после
  последней ячейки, поэтому замер ждёт, пока ядро не затихнет (не больше минуты);
- «пик памяти» — наибольшая резидентная память процесса ядра за всё время (VmHWM).
--class-limits запускает ядра с пределами ученика на сервере класса (tools/classroom/limits.py).
--json FILE кладёт те же числа в файл для `python -m tools.classroom.guide --costs FILE` (TEACHERS.md)
и для benchmarks/class.py. Только Linux: числа берутся из /proc.
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import workspace  # noqa: E402
from tools.classroom import limits  # noqa: E402
from course_lib.russian import plural  # noqa: E402

FORMAT = 1                       # версия файла --json: её проверяет tools/classroom/guide.py
RUN_CACHE = ("COURSE_LIB_SAVE_RUNS", "COURSE_LIB_LOAD_RUNS")   # готовые прогоны make test: урок учит сам
QUIET_CPU = 0.05                 # с процессора за секунду, ниже которых ядро считается затихшим
QUIET_WAIT = 60                  # с: дольше не ждём


def kernel_cpu(pid):
    """Секунды процессора процесса pid и его завершившихся детей: utime + stime + cutime + cstime из /proc."""
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()        # имя процесса в скобках может содержать пробелы
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def kernel_peak_mb(pid):
    """Наибольшая резидентная память процесса pid за его жизнь (VmHWM), МБ."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"в /proc/{pid}/status нет строки VmHWM — не могу узнать пик памяти ядра")


def _settle(pid):
    """Ждёт, пока ядро не перестанет тратить процессор (фоновые потоки виджетов досчитали)."""
    deadline = time.monotonic() + QUIET_WAIT
    before = kernel_cpu(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = kernel_cpu(pid)
        if now - before < QUIET_CPU:
            return
        before = now


def kernel_env(class_limits):
    """Окружение ядра: как у этого процесса, без готовых прогонов make test; с пределами ученика, если просят."""
    env = {key: value for key, value in os.environ.items() if key not in RUN_CACHE}
    if class_limits:
        env.update(limits.learner_env())
    return env


def run_lesson(path, env, progress=None):
    """Исполняет тетрадку path в свежем ядре (папка ядра — папка тетрадки). -> {wall_s, cpu_s, peak_mb, cells}."""
    path = pathlib.Path(path)
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, kernel_name="python3", timeout=1800, store_widget_state=False,
                            resources={"metadata": {"path": str(path.parent)}})
    code = [(index, cell) for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    with client.setup_kernel(env=env):
        pid = client.km.provisioner.pid
        cpu_at_start = kernel_cpu(pid)
        started = time.perf_counter()
        for done, (index, cell) in enumerate(code, 1):
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                first = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
                raise RuntimeError(f"{path.name}: ячейка {index} упала — {first}") from None
            if progress:
                progress(done, len(code), time.perf_counter() - started)
        wall = time.perf_counter() - started
        _settle(pid)
        usage = {"wall_s": round(wall, 2), "cpu_s": round(kernel_cpu(pid) - cpu_at_start, 2),
                 "peak_mb": round(kernel_peak_mb(pid), 1), "cells": len(code)}
    return usage


def machine(class_limits):
    """Где мерили: ядра, процессор, память, загрузка машины перед замером, пределы ученика."""
    model = ""
    cpuinfo = pathlib.Path("/proc/cpuinfo")
    for line in cpuinfo.read_text().splitlines() if cpuinfo.exists() else []:
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    memory_kb = next((int(line.split()[1]) for line in pathlib.Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal:")), 0)
    return {"date": datetime.date.today().isoformat(), "cores": os.cpu_count(), "cpu": model or platform.machine(),
            "memory_gb": round(memory_kb / 2**20, 1), "load_before": round(os.getloadavg()[0], 2),
            "class_limits": limits.learner_env() if class_limits else None}


def measure(numbers, class_limits=False, progress=False, out=sys.stdout):
    """Мерит уроки с номерами numbers (['02', '10']) во временной work/. -> {номер: числа}."""
    env = kernel_env(class_limits)
    results = {}
    with tempfile.TemporaryDirectory(prefix="lesson-costs-") as tmp:
        work = pathlib.Path(tmp) / "work"
        workspace.prepare(work)
        for number in numbers:
            lesson = work / workspace.find_lesson(number).name
            report = None
            if progress:
                def report(done, total, seconds, number=number):
                    print(f"урок {number}: ячейка {done} из {total}, {seconds:.0f} с", file=sys.stderr, flush=True)
            results[number] = run_lesson(lesson, env, report)
            row = results[number]
            print(f"{number:>4}  {row['wall_s']:8.1f}  {row['cpu_s']:10.1f}  {row['peak_mb']:12.0f}", file=out, flush=True)
    return results


def lesson_numbers(requested):
    """Номера уроков: все из lessons/ или запрошенные («2», «02», «02_soft_search»); неизвестный — по-русски."""
    if not requested:
        return [path.name[:2] for path in workspace.lessons()]
    return [workspace.find_lesson(name).name[:2] for name in requested]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="+", metavar="УРОК", help="номера уроков (по умолчанию все)")
    parser.add_argument("--class-limits", action="store_true", help="ядра с пределами ученика (tools/classroom/limits.py)")
    parser.add_argument("--json", type=pathlib.Path, metavar="FILE", help="записать числа в файл")
    parser.add_argument("--progress", action="store_true", help="печатать в stderr каждую выполненную ячейку")
    parser.add_argument("--quiet", action="store_true", help="без заголовка таблицы (для benchmarks/class.py)")
    args = parser.parse_args(argv)
    if not pathlib.Path("/proc/self/stat").exists():
        print("benchmarks/lessons.py читает время процессора и память ядра из /proc — это есть только в Linux",
              file=sys.stderr)
        return 2
    try:
        numbers = lesson_numbers(args.lessons)
    except ValueError as error:
        print(f"benchmarks/lessons.py: {error}", file=sys.stderr)
        return 2
    where = machine(args.class_limits)
    if not args.quiet:
        limit = ("пределы ученика: " + ", ".join(f"{k}={v}" for k, v in where["class_limits"].items())
                 if args.class_limits else "без пределов ученика")
        print(f"{plural(where['cores'], 'ядро', 'ядра', 'ядер')}, {where['cpu']}, {where['memory_gb']} ГБ; загрузка машины перед замером "
              f"(load average за минуту) {where['load_before']}; {limit}")
        print("урок  время, с  процессор, с  пик памяти, МБ")
    try:
        results = measure(numbers, args.class_limits, args.progress)
    except RuntimeError as error:
        print(f"benchmarks/lessons.py: {error}", file=sys.stderr)
        return 1
    if args.json:
        args.json.write_text(json.dumps({"format": FORMAT, "machine": where, "lessons": results},
                                        ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"записано в {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Два прогона уроков под nbval сверх обычного — их делает `make test` после `pytest`.

- portability: уроки ещё раз, но NumPy идёт другим путём кода: в NPY_DISABLE_CPU_FEATURES —
  все SIMD-расширения, которые NumPy выбирает во время работы на этом процессоре
  (`__cpu_dispatch__`, доступные по `__cpu_features__`), и OPENBLAS_NUM_THREADS=1.
  Так ведут себя процессоры без AVX2/AVX-512. Это другие пути x86, а не Apple Accelerate и не MKL.
- rerun: каждая кодовая ячейка исполняется дважды подряд (c1, c1, c2, c2, …), оба вывода
  сверяются с сохранёнными в тетрадке — ученик перезапускает ячейки постоянно.

Сверяет сам nbval с теми же правилами (lessons/sanitize.cfg, метки nbval-ignore-output и
комментарии # NBVAL_*), что и обычный прогон. Номер ячейки — как у nbval: кодовые с нуля.

    python tools/lesson_passes.py                             # оба прохода, все уроки, 2 процесса
    python tools/lesson_passes.py --passes rerun lessons/07_trained_attention.ipynb
    python tools/lesson_passes.py --passes portability --jobs 1

Код выхода 0 — всё совпало; 1 — какая-то ячейка разошлась или упала (или, в CI, проход не
смог изменить путь кода). Отчёт — и в test-artifacts/lesson-passes/report.txt.
"""

import argparse
import concurrent.futures
import copy
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import nbformat

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))     # tools/ как пакет, и при запуске файлом
from tools.lesson_figures import kernel_ipython_dir  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
ARTIFACTS = ROOT / "test-artifacts" / "lesson-passes"
PASSES = ("plain", "portability", "rerun")   # plain — как `pytest lessons/`, для сравнения
# Плагины pytest, которые урокам не нужны: их загрузка — 1,5 с процессора на каждую тетрадку.
UNUSED_PLUGINS = ("hypothesispytest", "anyio", "platformdirs")


def in_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


# ---------------------------------------------------------------- portability: другой путь кода NumPy

_FEATURES = """
import json
try:
    from numpy._core import _multiarray_umath as m      # numpy 2
except ImportError:
    from numpy.core import _multiarray_umath as m       # numpy 1.x
import numpy
print(json.dumps({"numpy": numpy.__version__, "baseline": list(m.__cpu_baseline__),
                  "dispatch": list(m.__cpu_dispatch__),
                  "on": [name for name, on in m.__cpu_features__.items() if on]}))
"""


def cpu_features(env=None):
    """Что NumPy (того же питона) видит на процессоре: baseline, dispatch и включённые расширения."""
    out = subprocess.run([sys.executable, "-c", _FEATURES], env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"numpy не запустился с таким окружением:\n{out.stderr[-1500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def portability_env():
    """(окружение, отключённые расширения, пояснение). Пустой список — отключать нечего.

    Отключаем только то, что NumPy выбирает во время работы (dispatch) и что у процессора есть:
    базовый набор (baseline) NumPy отключить не даёт, а отсутствующее и так не используется.
    OPENBLAS_CORETYPE и OPENBLAS_L2_SIZE не трогаем: на некоторых машинах их задают, чтобы
    OpenBLAS не считал неверно.
    """
    seen = cpu_features()
    disabled = [f for f in seen["dispatch"] if f in seen["on"] and f not in seen["baseline"]]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if not disabled:
        return env, [], (f"NumPy {seen['numpy']} на этом процессоре не выбирает ничего сверх базового набора "
                         f"{' '.join(seen['baseline']) or '—'} (dispatch: {' '.join(seen['dispatch']) or '—'}; "
                         f"из них у процессора нет ни одного) — отключать нечего, другой путь кода не получить")
    env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    still_on = [f for f in disabled if f in cpu_features(env)["on"]]
    if still_on:
        raise RuntimeError(f"NPY_DISABLE_CPU_FEATURES={env['NPY_DISABLE_CPU_FEATURES']!r}, "
                           f"а NumPy всё равно использует {still_on}")
    return env, disabled, (f"NumPy {seen['numpy']}: отключены {' '.join(disabled)} "
                           f"(остался базовый набор {' '.join(seen['baseline'])}), OPENBLAS_NUM_THREADS=1")


# ---------------------------------------------------------------- rerun: каждая ячейка дважды

def doubled_notebook(notebook, folder):
    """Копия тетрадки, где каждая кодовая ячейка (с её сохранённым выводом и метками) стоит дважды.

    Ячейка №k исходной тетрадки — ячейки 2k и 2k+1 копии. Текстовые ячейки не нужны.
    """
    nb = nbformat.read(notebook, as_version=4)
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        again = copy.deepcopy(cell)
        if "id" in cell:
            again["id"] = f"{cell['id']}-again"[:64]
        cells += [cell, again]
    nb.cells = cells
    path = pathlib.Path(folder) / notebook.name
    nbformat.write(nb, path)
    for page in notebook.parent.glob("*.md"):      # как в work/ ученика: урок 10 читает файл рядом с тетрадкой
        shutil.copy(page, folder)
    return path


# ---------------------------------------------------------------- запуск nbval и отчёт

def run_nbval(notebook, env, report_path, cell_timeout=600):
    """pytest --nbval по одной тетрадке (настройки nbval — из pyproject.toml); -> (код, секунды, отчёт, хвост вывода)."""
    env = dict(env, NBVAL_REPORT=str(report_path))
    started = time.perf_counter()
    # -p tools.nbval_report: `python -m` кладёт текущую папку (корень курса) в sys.path.
    unused = [arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")]
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tools.nbval_report", "-p", "no:cacheprovider", *unused,
                          "-c", str(ROOT / "pyproject.toml"),
                          f"--rootdir={ROOT}", f"--nbval-cell-timeout={cell_timeout}", str(notebook)],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    try:
        report = json.loads(pathlib.Path(report_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = {"cells": [], "errors": []}
    return out.returncode, seconds, report, (out.stdout + out.stderr)[-3000:]


def run_job(kind, notebook, env, work=None):
    """Один проход по одной тетрадке; -> словарь с результатом (для отчёта)."""
    work = pathlib.Path(work or ARTIFACTS / kind)
    work.mkdir(parents=True, exist_ok=True)
    target = doubled_notebook(notebook, work) if kind == "rerun" else notebook
    code, seconds, report, tail = run_nbval(target, env, work / f"{notebook.stem}.json")
    failed = []
    for cell in report["cells"]:
        if cell["outcome"] != "failed":
            continue
        if kind == "rerun":       # ячейка 2k / 2k+1 копии — это ячейка k урока, первый / второй запуск
            cell = dict(cell, run=cell["cell"] % 2 + 1, cell=cell["cell"] // 2)
        failed.append(cell)
    problem = None
    if report["errors"]:
        problem = "nbval не собрал тетрадку:\n" + report["errors"][0]
    elif code not in (0, 1) or (code == 1 and not failed):
        problem = f"pytest завершился с кодом {code}:\n{tail}"
    return {"pass": kind, "lesson": notebook.stem, "seconds": seconds, "cells": len(report["cells"]),
            "failed": failed, "problem": problem}


def _follows_error(cell, earlier):
    """NameError после упавшей ячейки — почти всегда её следствие, а не своя беда."""
    return earlier and any(line.startswith("! исключение NameError") for line in cell.get("diff", []))


def describe(result):
    lines, crashed, followers = [], False, 0
    for cell in result["failed"]:
        if _follows_error(cell, crashed):
            followers += 1
            continue
        crashed |= any(line.startswith("! исключение") for line in cell.get("diff", []))
        where = f"ячейка {cell['cell']}"
        if "run" in cell:
            where += ", " + ("первый запуск" if cell["run"] == 1 else "второй запуск подряд")
        lines.append(f"  {result['lesson']}  {where}: {cell['first_line']}")
        lines += [f"      {line}" for line in cell.get("diff", [])]
    if followers:
        lines.append(f"  {result['lesson']}  и ещё {followers} ячеек упали с NameError вслед за упавшей выше")
    if result["problem"]:
        lines += ["  " + line for line in result["problem"].splitlines()]
    return lines


def order_longest_first(jobs):
    """Сначала долгие уроки (по прошлому запуску): два процесса заканчивают почти одновременно.

    Без прошлого запуска (свежий клон) — поздние уроки раньше ранних (они дольше), rerun раньше portability:
    прогоны уроков 09 и 10 из rerun ждут сайт и браузерный тест (--save-runs).
    """
    try:
        last = json.loads((ARTIFACTS / "seconds.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        last = {}

    def seconds(job):
        kind, notebook = job
        guess = 1e6 + 10 * int(notebook.stem[:2]) + (kind == "rerun") if notebook.stem[:2].isdigit() else 1e6
        return last.get(f"{kind} {notebook.stem}", guess)

    return sorted(jobs, key=lambda job: -seconds(job))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path, help="тетрадки (по умолчанию все уроки)")
    parser.add_argument("--passes", nargs="+", choices=PASSES, default=["portability", "rerun"])
    parser.add_argument("--jobs", type=int, default=2, help="сколько тетрадок исполнять одновременно")
    parser.add_argument("--save-runs", type=pathlib.Path, metavar="ПАПКА",
                        help="проход rerun кладёт сюда прогоны train_induction и train_gpt (COURSE_LIB_SAVE_RUNS): "
                             "сайт и браузерный тест в make test берут их оттуда и не учат модели уроков 09 и 10 ещё раз")
    args = parser.parse_args(argv)
    notebooks = [p.resolve() for p in args.notebooks] or sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    envs, lines, ok = {}, [], True
    if "portability" in args.passes:
        env, disabled, note = portability_env()
        print(f"portability: {note}")
        lines.append(f"portability: {note}")
        if disabled:
            envs["portability"] = env
        elif in_ci():
            print("portability: в CI этот проход обязателен — ошибка")
            ok = False
        else:
            print("portability: проход пропущен")
    if "plain" in args.passes:
        envs["plain"] = dict(os.environ)
        lines.append("plain: обычный прогон nbval, как `pytest lessons/`")
    if "rerun" in args.passes:
        envs["rerun"] = dict(os.environ)
        if args.save_runs:
            envs["rerun"]["COURSE_LIB_SAVE_RUNS"] = str(args.save_runs.resolve())
        lines.append("rerun: каждая кодовая ячейка дважды подряд, оба вывода сверяются с тетрадкой")

    figures = kernel_ipython_dir()                        # и здесь ядра проверяют, что подписи картинок в фигуре
    envs = {kind: dict(env, IPYTHONDIR=figures) for kind, env in envs.items()}
    for env in envs.values():               # проходы сверяют числа обучения — учат всегда сами, чужих прогонов не берут
        env.pop("COURSE_LIB_LOAD_RUNS", None)
    jobs = order_longest_first([(kind, nb) for kind in envs for nb in notebooks])
    started = time.perf_counter()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_job, kind, nb, envs[kind]) for kind, nb in jobs]
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            results.append(result)
            verdict = ("ок" if not result["failed"] and not result["problem"] else
                       f"разошлось ячеек: {len(result['failed'])}" + (" и сбой" if result["problem"] else ""))
            print(f"{result['pass']:<12} {result['lesson']:<32} {result['seconds']:6.1f} с  {verdict}", flush=True)
    wall = time.perf_counter() - started

    results.sort(key=lambda r: (PASSES.index(r["pass"]), r["lesson"]))
    for kind in envs:
        mine = [r for r in results if r["pass"] == kind]
        bad = [line for r in mine for line in describe(r)]
        lines.append(f"\n{kind}: {sum(r['seconds'] for r in mine):.0f} с по урокам, "
                     f"разошлось ячеек: {sum(len(r['failed']) for r in mine)}")
        lines += bad
        ok &= not bad
    lines.append(f"\nвсего {wall:.0f} с на {args.jobs} процесса(х)")
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    (ARTIFACTS / "report.txt").write_text(text, encoding="utf-8")
    seconds_path = ARTIFACTS / "seconds.json"
    try:
        seconds = json.loads(seconds_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        seconds = {}
    seconds.update({f"{r['pass']} {r['lesson']}": round(r["seconds"], 1) for r in results})
    seconds_path.write_text(json.dumps(seconds, indent=1), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

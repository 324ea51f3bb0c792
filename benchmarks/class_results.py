"""Сколько весит вердикт и сколько идёт `make results` на класс: 30 учеников × 22 упражнения.

Запуск из корня репозитория:

    .venv/bin/python benchmarks/class_results.py [--learners 30]

Печатает размер одной записи (строки work/.verdicts.jsonl) для настоящих вызовов проверок — верный ответ,
неверный, нетронутая заготовка, — а затем время сборщика на синтетическом классе во временной папке: у
каждого ученика work/ из tools/workspace.py (все тетрадки уроков) и по 1–4 записи на каждое упражнение.
"""

import argparse
import contextlib
import io
import json
import os
import pathlib
import random
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from course_lib.exercises import BY_LESSON, _record, check_attend_one, check_softmax  # noqa: E402
from tools import workspace  # noqa: E402
from tools.classroom import results  # noqa: E402


def record_sizes(base):
    """Байты строки записи для настоящих вызовов проверок урока 02."""
    work = base / "sizes" / "work"
    workspace.prepare(work)
    here = os.getcwd()
    os.chdir(work)

    def stub(*args):
        raise NotImplementedError

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check_softmax(lambda s: np.exp(s - s.max(-1, keepdims=True)) / np.exp(s - s.max(-1, keepdims=True)).sum(
                -1, keepdims=True))
            check_softmax(lambda s: np.exp(s))
            check_softmax(stub)
            check_attend_one(lambda q, K, V: V.mean(axis=0))
    finally:
        os.chdir(here)
    lines = (work / _record.RECORD).read_bytes().splitlines(keepends=True)
    return [(json.loads(line)["status"], len(line)) for line in lines], lines


def synthetic_class(base, count, lines, rng):
    """count учеников: work/ со всеми тетрадками и записями по каждому упражнению (статусы вперемешку)."""
    samples = [json.loads(line) for line in lines]
    for number in range(count):
        work = base / f"learner{number:02d}" / "work"
        workspace.prepare(work)
        out = []
        for lesson, names in BY_LESSON.items():
            for name in names:
                for _ in range(rng.randint(1, 4)):
                    entry = dict(rng.choice(samples), lesson=lesson, exercise=name)
                    out.append(json.dumps(entry, ensure_ascii=False) + "\n")
        (work / _record.RECORD).write_text("".join(out), encoding="utf-8")
    return [base / f"learner{number:02d}" for number in range(count)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="class-results-") as temp:
        base = pathlib.Path(temp)
        sizes, lines = record_sizes(base)
        print("Запись одного вызова проверки (байт, UTF-8, с переводом строки):")
        for status, size in sizes:
            print(f"  {status:12s} {size}")
        folders = synthetic_class(base, args.learners, lines, random.Random(0))
        records = sum((f / "work" / _record.RECORD).stat().st_size for f in folders)
        notebooks = sum(p.stat().st_size for f in folders for p in (f / "work").glob("*.ipynb"))
        exercises = sum(map(len, BY_LESSON.values()))
        print(f"Класс: {args.learners} учеников × {exercises} упражнений; записи {records / 2**20:.2f} МБ, "
              f"тетрадки {notebooks / 2**20:.0f} МБ")
        times = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                code = results.main(["--from", *map(str, folders), "--out", str(base / "results")])
            times.append(time.perf_counter() - started)
            assert code == 0
        print(f"make results: медиана {statistics.median(times):.2f} с, лучший {min(times):.2f} с "
              f"(повторов {args.repeats}; сюда входит разбор всех тетрадок учеников)")


if __name__ == "__main__":
    main()

"""Сколько учеников выдержит сервер класса: N ядер учеников проходят урок одновременно, с пределами ученика.

    .venv/bin/python benchmarks/class.py                              # урок 10: один ученик, потом двое сразу
    .venv/bin/python benchmarks/class.py --lesson 02 --learners 1 2   # быстрый прогон (около минуты)
    .venv/bin/python benchmarks/class.py --learners 1 2 4 --idle-mb 130 --cores 8 --memory-gb 32

Каждый «ученик» — отдельный процесс benchmarks/lessons.py --class-limits: свежее ядро со своей папкой work/
и пределами ученика (tools/classroom/limits.py), «Run All» урока без единого движения ползунка. Сначала один
ученик в одиночку, затем N сразу. Печатает для каждого N: замедление по часам против одного ученика,
секунды процессора на ученика, пик памяти ядра, — и пересчёт на сервер (по умолчанию 8 ядер и 32 ГБ):
сколько учеников пройдут урок одновременно за 5 минут и сколько поместятся в память. Все допущения
пересчёта печатаются рядом с числами. Идёт минуты; каждые 10 с печатает, сколько ячеек у кого выполнено.
"""

import argparse
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.classroom import limits  # noqa: E402
from course_lib.russian import plural  # noqa: E402

LESSONS = ROOT / "benchmarks" / "lessons.py"
BUDGET_S = 300                   # урок всем классом — за 5 минут


def learners_word(n):
    return plural(n, "ученик", "ученика", "учеников")


def cores_word(n):
    return plural(n, "ядро", "ядра", "ядер")


def seconds(value):
    """Секунды без ложной точности: 2.3 с, но 95 с."""
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def run_together(lesson, count, tick=10.0, out=sys.stdout):
    """count учеников проходят урок одновременно. -> список чисел каждого ({wall_s, cpu_s, peak_mb, cells})."""
    cells = ["запуск"] * count
    with tempfile.TemporaryDirectory(prefix="class-bench-") as tmp:
        files = [pathlib.Path(tmp) / f"learner-{i}.json" for i in range(count)]
        procs = [subprocess.Popen([sys.executable, str(LESSONS), "--lessons", lesson, "--class-limits", "--quiet",
                                   "--progress", "--json", str(path)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, cwd=ROOT) for path in files]
        errors = [[] for _ in procs]

        def follow(i, proc):
            for line in proc.stderr:
                if line.startswith(f"урок {lesson}: ячейка "):
                    cells[i] = line.split("ячейка ", 1)[1].split(",")[0].replace(" из ", "/")
                else:
                    errors[i].append(line.rstrip())

        readers = [threading.Thread(target=follow, args=(i, p), daemon=True) for i, p in enumerate(procs)]
        for reader in readers:
            reader.start()
        started = time.monotonic()
        next_report = started + tick
        try:
            while any(p.poll() is None for p in procs):
                time.sleep(0.2)
                if time.monotonic() >= next_report:
                    next_report += tick
                    print(f"  {learners_word(count)}: {time.monotonic() - started:.0f} с, выполнено ячеек: "
                          f"{', '.join(cells)}", file=out, flush=True)
        finally:
            for proc in procs:                  # прервали (Ctrl+C) — ядра учеников не остаются жить
                if proc.poll() is None:
                    proc.terminate()
            for proc in procs:
                proc.wait()
        for reader in readers:
            reader.join()
        failed = [f"ученик {i + 1}: " + " / ".join(errors[i][-3:]) for i, p in enumerate(procs) if p.returncode != 0]
        if failed:
            raise RuntimeError("урок не прошёл до конца — " + "; ".join(failed))
        return [json.loads(path.read_text(encoding="utf-8"))["lessons"][lesson] for path in files]


def summarize(runs):
    """Числа одного N: среднее время и процессор на ученика, наибольший пик памяти ядра."""
    return {"wall_s": sum(r["wall_s"] for r in runs) / len(runs), "wall_max_s": max(r["wall_s"] for r in runs),
            "cpu_s": sum(r["cpu_s"] for r in runs) / len(runs), "peak_mb": max(r["peak_mb"] for r in runs)}


def capacity(measured, cores, memory_gb, reserve_gb, idle_mb, here_cores, threads):
    """Пересчёт на сервер. measured — {N: summarize(...)}, среди N есть 1. -> (строки по-русски, итог)."""
    alone = measured[1]
    most = max(measured)
    busiest = measured[most]
    contention = busiest["cpu_s"] / alone["cpu_s"] if alone["cpu_s"] > 0 else 1.0
    cpu_per_learner = alone["cpu_s"] * max(contention, 1.0)
    by_cpu = math.floor(cores * BUDGET_S / cpu_per_learner) if cpu_per_learner > 0 else 0
    per_learner_mb = busiest["peak_mb"] + idle_mb
    by_memory = math.floor((memory_gb - reserve_gb) * 1024 / per_learner_mb)
    lines = [
        f"Сервер: {cores_word(cores)}, {memory_gb:g} ГБ. Урок — всем классом сразу, уложиться нужно в {BUDGET_S // 60} минут.",
        f"Процессор. За {BUDGET_S} с у сервера {cores_word(cores)} × {BUDGET_S} с = {cores * BUDGET_S} с процессора. "
        f"Один ученик в одиночку тратит на урок {seconds(alone['cpu_s'])} с процессора.",
    ]
    crowd = (f"{learners_word(most)} по {plural(threads, 'потоку', 'потока', 'потоков')} "
             f"на {plural(here_cores, 'ядре', 'ядрах', 'ядрах')} этой машины")
    if most * threads >= here_cores and contention > 1:
        lines.append(f"Когда ядер на всех не хватает ({crowd}), каждый тратит в {contention:.2f} раза больше — "
                     f"{seconds(busiest['cpu_s'])} с: ядра делят кэш и память. Эту поправку берём и для сервера.")
    elif most * threads >= here_cores:
        lines.append(f"Когда ядер на всех не хватает ({crowd}), процессора на ученика уходит не больше "
                     f"({seconds(busiest['cpu_s'])} с): поправки на тесноту нет.")
    else:
        lines.append(f"Поправка на тесноту ({contention:.2f}) измерена, когда ядер хватало всем ({crowd}): на полном "
                     f"сервере она может быть больше — запустите больше учеников (--learners 1 2 4).")
    lines.append(f"Значит, за {BUDGET_S} с уложатся {cores * BUDGET_S} / {seconds(cpu_per_learner)} = "
                 f"{learners_word(by_cpu)}.")
    if alone["wall_s"] > BUDGET_S:
        by_cpu = 0
        lines.append(f"Но один ученик и в одиночку идёт {alone['wall_s']:.0f} с — дольше {BUDGET_S} с: "
                     f"за 5 минут урок не пройдёт никто, сколько бы ядер ни было.")
    lines += [
        f"Память. {memory_gb:g} ГБ − {reserve_gb:g} ГБ на систему, хаб и прокси = {memory_gb - reserve_gb:g} ГБ. "
        f"Ученику нужно {busiest['peak_mb']:.0f} МБ (пик ядра на уроке) + {idle_mb:.0f} МБ (его сервер Jupyter без ядра, "
        f"--idle-mb) = {per_learner_mb:.0f} МБ, значит, поместятся {learners_word(by_memory)}.",
    ]
    limit_mb = learner_memory_mb()
    if limit_mb is not None:
        fits = "умещается" if per_learner_mb <= limit_mb else "НЕ умещается — ядро урока остановят"
        lines.append(f"Предел памяти ученика на хабе (tools/classroom/limits.py) — {limit_mb:.0f} МБ на сервер и все его "
                     f"ядра: {per_learner_mb:.0f} МБ в него {fits}. Если бы каждый занял предел целиком, поместилось бы "
                     f"{learners_word(math.floor((memory_gb - reserve_gb) * 1024 / limit_mb))}.")
    idle = getattr(limits, "KERNEL_IDLE_SECONDS", None)
    closer = (f"ядро без дела сервер ученика закрывает через {idle // 60} мин" if idle else "ядра без дела закрывают")
    lines += [
        f"Итого: {learners_word(min(by_cpu, by_memory))} (меньшее из {by_cpu} по процессору и {by_memory} по памяти).",
        f"Допущения: у каждого ученика открыто одно ядро ({closer}; иначе память каждого открытого урока остаётся "
        "занятой); все нажимают «Run All» одновременно и ползунков не двигают; ядра сервера такие же быстрые, как "
        "здесь; процессор хаба и простаивающих серверов не считаем.",
    ]
    return lines, min(by_cpu, by_memory)


def learner_memory_mb():
    """Предел памяти ученика из tools/classroom/limits.py, МБ, — если хаб его задаёт; иначе None."""
    return limits.memory_bytes() / 2**20 if hasattr(limits, "memory_bytes") else None



def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="10", help="урок (по умолчанию 10; 02 — быстрый прогон)")
    parser.add_argument("--learners", type=int, nargs="+", default=[1, 2], metavar="N",
                        help="сколько учеников сразу (по умолчанию 1 2; один в одиночку меряется всегда)")
    parser.add_argument("--cores", type=int, default=8, help="ядер у сервера (по умолчанию 8)")
    parser.add_argument("--memory-gb", type=float, default=32, help="память сервера, ГБ (по умолчанию 32)")
    parser.add_argument("--reserve-gb", type=float, default=2,
                        help="память на систему, хаб и прокси, ГБ (по умолчанию 2)")
    parser.add_argument("--idle-mb", type=float, default=130,
                        help="память сервера Jupyter одного ученика без ядра, МБ (по умолчанию 130: jupyter-lab на "
                             "машине курса; подставьте число с вашего хаба)")
    args = parser.parse_args(argv)
    bad = [n for n in args.learners if n < 1 or n > 64]
    if bad or args.cores < 1 or args.memory_gb <= args.reserve_gb or args.idle_mb < 0 or args.reserve_gb < 0:
        parser.error("учеников — от 1 до 64, ядер — хотя бы одно, память сервера больше запаса на систему, "
                     f"а пришло: --learners {args.learners}, --cores {args.cores}, --memory-gb {args.memory_gb}, "
                     f"--reserve-gb {args.reserve_gb}, --idle-mb {args.idle_mb}")
    here = os.cpu_count() or 1
    env = limits.learner_env()
    print(f"Урок {args.lesson}; эта машина: {cores_word(here)}, загрузка (load average за минуту) {os.getloadavg()[0]:.1f}; "
          "пределы ученика: " + ", ".join(f"{k}={v}" for k, v in env.items()), flush=True)
    measured = {}
    for count in sorted({1, *args.learners}):
        print("1 ученик в одиночку…" if count == 1 else f"{learners_word(count)} сразу…", flush=True)
        try:
            measured[count] = summarize(run_together(args.lesson, count))
        except RuntimeError as error:
            print(f"benchmarks/class.py: {error}", file=sys.stderr)
            return 1
    alone = measured[1]
    print("\nучеников  время, с (среднее / худшее)  замедление  процессор на ученика, с  пик памяти ядра, МБ")
    for count, row in measured.items():
        print(f"{count:8}  {seconds(row['wall_s']):>12} / {seconds(row['wall_max_s']):<12}  "
              f"{row['wall_s'] / alone['wall_s']:10.2f}  {seconds(row['cpu_s']):>23}  {row['peak_mb']:18.0f}")
    print()
    lines, _ = capacity(measured, args.cores, args.memory_gb, args.reserve_gb, args.idle_mb, here, limits.THREADS)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

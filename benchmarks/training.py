"""Сколько секунд учатся модели урока 07 на этой машине (планка: ≤ 10 с на задачу на 2 ядрах).

    .venv/bin/python benchmarks/training.py [--repeats 3]

Конфигурации — ровно как в уроке (и в tests/test_training.py): задача 1 «банк» — 256 предложений,
60 шагов; задача 2 «две связи» — 128 последовательностей, 100 шагов; плюс проверка упражнения
«цикл обучения» (40 шагов). Для каждой печатается медиана и лучший из повторов, мс на шаг
и результат обучения (чтобы было видно, что мерили не впустую). Строкой выше — средняя загрузка
машины: на занятых ядрах всё медленнее, и это честно видно в цифрах.
`train` сам идёт под `nt.fast()` (так учатся уроки); рядом напечатан тот же замер по книге
(`train(..., fast=False)`), чтобы было видно, сколько даёт машинное отделение. Планки — для быстрого пути.
"""

import argparse
import contextlib
import io
import os
import statistics
import time

import numpy as np

import course_lib as nt
from course_lib.props.evaluation import bank_report, relations_report
from course_lib.exercises.training import check_training_loop
from course_lib.props.models import TinyAttention
from course_lib.props.tasks import BANK_VOCAB, CLASS_NAMES, bank_sentences, two_relations
from course_lib.props.training import bank_loss, relations_loss, train

BAR_SECONDS = 10.0


def bank_task(fast=True):
    data, test = bank_sentences(256, T=6, seed=0), bank_sentences(1000, T=6, seed=1)
    nt.manual_seed(0)
    model = TinyAttention(len(BANK_VOCAB), len(CLASS_NAMES), d_model=16, num_heads=1)
    probe = BANK_VOCAB.ids("вчера я видел банк у реки".split())
    started = time.perf_counter()
    train(model, lambda m: bank_loss(m, data), steps=60, lr=0.01, probe=probe, snapshot_every=2, fast=fast)
    seconds = time.perf_counter() - started
    report = bank_report(model, test)
    return seconds, 60, f"точность {report.accuracy:.1%}, вес «банк» -> решающее слово {report.cue_weight:.3f}"


def relations_task(fast=True):
    data, test = two_relations(128, T=8, K=5, seed=0), two_relations(500, T=8, K=5, seed=1)
    nt.manual_seed(0)
    model = TinyAttention(5, 10, d_model=16, num_heads=2, max_len=8)
    started = time.perf_counter()
    train(model, lambda m: relations_loss(m, data), steps=100, lr=0.01, probe=data.ids[0], snapshot_every=4, fast=fast)
    seconds = time.perf_counter() - started
    r = relations_report(model, test)
    p, f = r.head_roles()
    return seconds, 100, (f"точность {r.accuracy:.1%}; голова {p + 1}: на предыдущую {r.previous[p]:.2f}, "
                          f"голова {f + 1}: на первую {r.first[f]:.2f}; различие {r.difference:.2f}")


def exercise_check():
    def train_loop(model, optimizer, loss_fn, steps):
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    printed = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(printed):
        result = check_training_loop(train_loop)
    return time.perf_counter() - started, 40, printed.getvalue().strip() if result.passed else "НЕ ПРОШЛА"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    threads = {v: os.environ[v] for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS") if v in os.environ}
    print(f"ядер: {os.cpu_count()}, средняя загрузка (1, 5, 15 мин): {load}, потоки BLAS: {threads or 'по умолчанию'}")
    for name, task in [("задача 1 «банк»", bank_task), ("задача 2 «две связи»", relations_task),
                       ("задача 1 «банк» по книге", lambda: bank_task(fast=False)),
                       ("задача 2 «две связи» по книге", lambda: relations_task(fast=False)),
                       ("проверка упражнения «цикл обучения»", exercise_check)]:
        runs = [task() for _ in range(args.repeats)]
        seconds = [r[0] for r in runs]
        median, steps = statistics.median(seconds), runs[0][1]
        verdict = "✅" if median <= BAR_SECONDS else "❌"
        print(f"{verdict} {name}: {steps} шагов за {median:.2f} с (медиана из {len(runs)}, лучший {min(seconds):.2f} с), "
              f"{1000 * median / steps:.0f} мс/шаг; планка ≤ {BAR_SECONDS:.0f} с")
        print(f"   {runs[-1][2]}")
    print("урок 09, индукционная голова (процессорное время: на 2 ядрах его не обманешь вторым потоком):")
    induction_runs()
    blas_threads()


LESSON_09_BAR = 30.0           # всё, что обучает урок 09, — не больше 30 с процессорного времени


def induction_runs():
    """Урок 09: процессорное время каждого обучения урока, мс на шаг и шаг фазового перехода."""
    from course_lib.props.induction import TinyLM, attention_only
    from course_lib.props.induction_training import evaluate, phase_change_step, train_induction

    runs = [("2 слоя внимания (главная модель)", lambda: attention_only(2), 1000, 1e-2, (6, 12)),
            ("1 слой (контроль)", lambda: attention_only(1), 1000, 1e-2, (6, 12)),
            ("1 слой, длина блока всегда 8 (ловушка)", lambda: attention_only(1), 500, 1e-2, (8, 8)),
            ("2 полных блока TransformerBlock", lambda: TinyLM([nt.nn.TransformerBlock(32, 2) for _ in range(2)], 32),
             600, 3e-3, (6, 12))]
    total = 0.0
    for name, build, steps, lr, lengths in runs:
        for fast in (True, False):
            nt.manual_seed(0)
            model = build()
            started = time.process_time()
            history = train_induction(model, steps=steps, seed=0, lr=lr, lengths=lengths, fast=fast)
            seconds = time.process_time() - started
            total += seconds if fast else 0.0            # планка — для того, как учится урок: под nt.fast()
            print(f"   {name}{'' if fast else ', по книге'}: {steps} шагов за {seconds:.1f} с процессора, "
                  f"{1000 * seconds / steps:.1f} мс/шаг; фазовый переход на шаге {phase_change_step(history.second)}; "
                  f"loss второй копии {evaluate(model, lengths=lengths).second:.2f}")
    verdict = "✅" if total <= LESSON_09_BAR else "❌"
    print(f"{verdict} урок 09: всё обучение за {total:.1f} с процессорного времени; планка ≤ {LESSON_09_BAR:.0f} с")


def blas_threads(steps=200):
    """Урок 09: те же шаги модели 32 × 32 с одним и с двумя потоками BLAS — процессорное время и время по часам."""
    from threadpoolctl import threadpool_limits

    from course_lib.props.induction import attention_only, random_batch
    from course_lib.props.induction_training import next_token_loss

    for threads in (1, 2):
        nt.manual_seed(0)
        model, rng = attention_only(2), np.random.default_rng(0)

        def loss_fn(model):
            ids = random_batch(32, rng)
            return next_token_loss(model(ids), ids)

        with threadpool_limits(limits=threads, user_api="blas"):
            cpu, wall = time.process_time(), time.perf_counter()
            train(model, loss_fn, steps, lr=1e-2)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(f"   потоков BLAS {threads}: {steps} шагов — {cpu:.1f} с процессора, {wall:.1f} с по часам")


if __name__ == "__main__":
    main()

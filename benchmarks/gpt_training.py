"""Сколько стоит шаг обучения GPT урока 10 и сколько секунд процессора уходит до loss 2.1 на проверке.

    .venv/bin/python benchmarks/gpt_training.py [--steps 60] [--until 2.1] [--lengths 1000 1200] [--layers 2 4]

Модель — как в уроке: V = 175 символов прозы уроков, T = 64, d_model = 64, 4 головы, 2 блока,
батч 16, Adam lr 8e-3 (как в train_gpt после разгона), один поток BLAS. Печатает мс процессора на шаг в float64 и в float32,
под nt.fast() (так учит урок) и по книге;
с --until учит (зерно 0, проверка каждые 100 шагов), пока loss на проверке не опустится до
этого числа, и печатает секунды процессора (планка урока: loss ≤ 2.1 за ≤ 60 с на 2 ядрах).
С --lengths учит train_gpt урока (разгон, косинус до lr_final, зерно 0) на каждое из чисел шагов и печатает
потери на проверке в конце и секунды процессора: сколько шагов — и секунд — стоит цель issue 27, loss ≤ 1.9
(у косинуса lr свой на каждую длину: 1000 шагов — не первые 1000 из 1200); --layers — с каким числом блоков
(урок 10 берёт 2: урок ссылается на эту таблицу, сравнивая 2 и 4 блока).
Строкой выше — загрузка машины: на занятых ядрах всё медленнее.
"""

import argparse
import inspect
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

import course_lib as nt
from course_lib.optim import Adam
from course_lib.props.gpt_training import random_windows, split_ids, train_gpt
from course_lib.props.text_file import lessons_text
from course_lib.props.tokenizer import CharTokenizer
from course_lib.russian import number


LAYERS = inspect.signature(train_gpt).parameters["num_layers"].default   # блоков, как в уроке 10


def ms_per_step(dtype, steps, fast):
    text = lessons_text()
    tokenizer = CharTokenizer.from_text(text)
    train_ids, _ = split_ids(tokenizer.encode(text), 64, 0.1)
    nt.manual_seed(0)
    model = nt.GPT(tokenizer.vocab_size, 64, 64, 4, LAYERS).to(dtype)
    optimizer = Adam(model.parameters(), lr=8e-3, betas=(0.9, 0.99))
    rng = np.random.default_rng(0)
    with nt.fast(fast), threadpool_limits(limits=1, user_api="blas"):
        started = time.process_time()
        for _ in range(steps):
            windows = random_windows(train_ids, 16, 64, rng)
            loss = nt.cross_entropy(model(windows[:, :-1]), windows[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return 1000 * (time.process_time() - started) / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--until", type=float, default=None)
    parser.add_argument("--lengths", type=int, nargs="*", default=(), help="числа шагов train_gpt для таблицы")
    parser.add_argument("--layers", type=int, nargs="*", default=(LAYERS,), help="числа блоков для таблицы --lengths")
    args = parser.parse_args()
    print(f"загрузка машины (1 мин): {os.getloadavg()[0]:.1f}; параметров: {number(nt.GPT(175, 64, 64, 4, LAYERS).num_params())}")
    for dtype in (np.float64, np.float32):
        for fast, path in ((True, "nt.fast()"), (False, "по книге")):
            print(f"{np.dtype(dtype).name}, {path:9}: {ms_per_step(dtype, args.steps, fast):.0f} мс процессора на шаг")
    if args.until is not None:
        cpu = {}                                           # шаг -> секунды процессора от начала
        started = time.process_time()
        run = train_gpt(lessons_text(), 1500, seed=0, eval_every=100,
                        progress=lambda step, steps, loss: cpu.__setitem__(step, time.process_time() - started))
        reached = [step for step, loss in zip(run.val_steps, run.val_losses) if loss <= args.until]
        if reached:
            print(f"loss на проверке ≤ {args.until} после {reached[0]} шагов: {cpu[reached[0]]:.0f} с процессора")
        else:
            print(f"за 1500 шагов loss на проверке не опустился до {args.until}: {run.val_losses[-1]:.3f}")
    if args.lengths:
        print(" блоков | шагов | потери на проверке в конце | с процессора | мс на шаг")
        for layers in args.layers:
            for steps in args.lengths:
                started = time.process_time()
                run = train_gpt(lessons_text(), steps, seed=0, num_layers=layers, progress=lambda *_: None)
                cpu = time.process_time() - started
                print(f" {layers:>6} | {steps:>5} | {run.val_losses[-1]:26.3f} | {cpu:12.1f} | {1000 * cpu / steps:9.1f}")


if __name__ == "__main__":
    main()

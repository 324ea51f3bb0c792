"""Обучение в уроке 07: цикл из пяти строк на шаг, «снимки» внимания по дороге и loss обеих задач."""

from dataclasses import dataclass

import numpy as np

from course_lib._checks import check_callable, check_int
from course_lib.engine_room import fast as fast_switch
from course_lib.functional import cross_entropy
from course_lib.optim import Adam


@dataclass
class History:
    """Что запомнило обучение.

    losses: (steps,) — loss на каждом шаге; snapshot_steps: (S,) — после скольких шагов снят снимок
    (0 — до обучения); snapshots: (S, h, T, T) — веса внимания на пробной последовательности.
    """
    losses: np.ndarray
    snapshot_steps: np.ndarray
    snapshots: np.ndarray


def train(model, loss_fn, steps, lr=0.01, probe=None, snapshot_every=10, fast=True):
    """Обучает model шагами Adam: loss_fn(model) -> скалярный Tensor loss (урок 07).

    probe — номера токенов (T,) пробной последовательности: её веса внимания
    (`model.attention_weights`) снимаются до обучения и каждые snapshot_every шагов.
    fast=True — шаги идут под `nt.fast()`: те же формулы, слитые и на всех ядрах (course_lib/engine_room/,
    урок 08); fast=False — по книге (так benchmarks/training.py меряет оба пути).
    """
    check_int(steps, "steps", "train", meaning=" (сколько шагов сделать)")
    check_callable(loss_fn, "loss_fn", "train", "функция loss_fn(model) -> скалярный Tensor loss")
    check_int(snapshot_every, "snapshot_every", "train", meaning=" (через сколько шагов снимать веса)")
    optimizer = Adam(model.parameters(), lr=lr)
    losses, snapshot_steps, snapshots = [], [], []

    def snapshot(step):
        if probe is not None:
            snapshot_steps.append(step)
            snapshots.append(model.attention_weights(probe).copy())   # (h, T, T)

    snapshot(0)
    with fast_switch(fast):                    # те же формулы быстрым путём: урок 08 показывает, как
        for step in range(1, steps + 1):
            optimizer.zero_grad()              # градиенты прошлого шага не нужны: backward их бы сложил
            loss = loss_fn(model)              # прямой проход: скалярный Tensor
            loss.backward()                    # d loss / d каждого параметра -> .grad
            optimizer.step()                   # параметры чуть-чуть против градиента
            losses.append(loss.item())
            if step % snapshot_every == 0 or step == steps:
                snapshot(step)
    return History(np.array(losses), np.array(snapshot_steps, dtype=np.int64),
                   np.array(snapshots) if snapshots else np.empty((0, 0, 0, 0)))


def bank_loss(model, data):
    """Кросс-энтропия смысла «банка»: модель отвечает вектором в позиции «банка» (задача 1 урока 07)."""
    return cross_entropy(model(data.ids, read_at=data.bank), data.labels)


def relations_logits(model, data):
    """Оценки задачи 2 по двум вопросам: (про первую букву, про предыдущую), каждая (N, T − 1, K).

    Считывание выдаёт 2K чисел на позицию: первые K — «какая буква первая», следующие K —
    «какая стоит передо мной». У позиции 0 нет «предыдущей», её отбрасываем. Раскладку знает
    только эта функция — ею пользуются и loss, и отчёт (evaluation.relations_report).
    """
    K = data.K
    logits = model(data.ids)[:, 1:]                         # (N, T, 2K) -> (N, T − 1, 2K)
    return logits[..., :K], logits[..., K:]                 # (N, T − 1, K) и (N, T − 1, K)


def relations_loss(model, data):
    """Loss задачи 2: сумма кросс-энтропий двух вопросов к каждой позиции t ≥ 1."""
    first, previous = relations_logits(model, data)
    return cross_entropy(first, data.first) + cross_entropy(previous, data.previous)

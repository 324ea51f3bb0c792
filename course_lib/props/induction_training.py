"""Обучение и измерения опыта с индукционной головой (урок 09): loss по копиям, роли голов, выключение голов.

Задача и модель — в `course_lib.props.induction`.
"""

import time
from dataclasses import dataclass

import numpy as np

from course_lib._checks import check_int, check_numbers

from course_lib.autograd.tensor import no_grad
from course_lib.blas import one_blas_thread
from course_lib.functional import cross_entropy
from course_lib.nn.module import Module
from course_lib.props.evaluation import queries_outer
from course_lib.props.induction import LENGTHS, VOCAB, copy_losses, random_batch, repeated_blocks
from course_lib.props.run_memory import RunMemory, fingerprint, weights_fingerprint
from course_lib.props.training import train

EVAL_SEED = 2026                 # проверочные последовательности: их модель не видела ни на одном шаге


@dataclass
class InductionHistory:
    """Что запомнило обучение: по шагам (steps,) — loss на всех позициях (`losses`), на первой копии
    (`first`) и на второй (`second`), каждый — на батче этого шага; снимки весов на пробной
    последовательности — `snapshots` (S, layers, h, T, T) после `snapshot_steps` (S,) шагов;
    `seconds` — сколько процессорного времени заняло обучение (когда модель училась на самом деле)."""
    losses: np.ndarray
    first: np.ndarray
    second: np.ndarray
    snapshot_steps: np.ndarray
    snapshots: np.ndarray
    seconds: float


def next_token_loss(logits, ids):
    """Кросс-энтропия следующего токена во всех позициях: logits (N, T, V), ids (N, T) -> скаляр."""
    return cross_entropy(logits[:, :-1], ids[:, 1:])       # позиция t ставит на токен t + 1


def train_induction(model, steps, seed, lr=1e-2, batch=32, lengths=LENGTHS, probe=None, snapshot_every=10, fast=True):
    """Учит model предсказывать следующий токен на свежих батчах «блок дважды» (урок 09) -> InductionHistory.

    seed задаёт батчи (веса задаёт `manual_seed` до создания модели). lengths = (min, max) —
    пределы длины блока; (8, 8) — одна длина на все батчи. probe — пробная последовательность (T,).
    fast — как у `train`: True — под `nt.fast()`, False — по книге.

    Та же модель (те же начальные веса) с теми же аргументами второй раз не учится: веса после обучения
    и история берутся из памяти (`run_memory.py`) — перезапуск ячейки не платит дважды.
    """
    if not isinstance(model, Module):
        raise TypeError(f"train_induction учит модель (Module, например attention_only(2)), а пришёл {type(model).__name__}")
    check_int(steps, "steps", "train_induction", meaning=" (сколько шагов сделать)")
    key = (repr(model), weights_fingerprint(model), steps,
           *map(repr, (seed, lr, batch, lengths, snapshot_every, fast)),        # repr: ключ из любых аргументов хешируется
           None if probe is None else fingerprint(probe))
    weights, history = _RUNS.recall(key, lambda: _train(model, steps, seed, lr, batch, lengths, probe, snapshot_every, fast))
    for p, trained in zip(model.parameters(), weights):
        p.data, p.grad = trained, None                     # веса после обучения — из памяти или только что выученные
    return history


_RUNS = RunMemory("train_induction", 8)


def forget_runs():
    """Забыть все сохранённые прогоны: следующий train_induction учит заново."""
    _RUNS.forget()


def _train(model, steps, seed, lr, batch, lengths, probe, snapshot_every, fast):
    rng = np.random.default_rng(seed)
    first, second = [], []

    def loss_fn(model):
        ids = random_batch(batch, rng, lengths)            # (N, 1 + 2L): у каждого шага свои
        logits = model(ids)                                # (N, T, V)
        f, s = copy_losses(logits.data, ids)
        first.append(f)
        second.append(s)
        return next_token_loss(logits, ids)

    started = time.process_time()
    # Один поток BLAS: на матрицах 32×32 второй поток не ускоряет, а тратит вдвое больше процессора
    # (на занятой машине — во много раз больше, см. benchmarks/training.py).
    with one_blas_thread():
        history = train(model, loss_fn, steps, lr=lr, probe=probe, snapshot_every=snapshot_every, fast=fast)
    weights = [p.data.copy() for p in model.parameters()]
    return weights, InductionHistory(history.losses, np.array(first), np.array(second), history.snapshot_steps,
                                     history.snapshots, time.process_time() - started)


def smooth(values, window=25):
    """Скользящее среднее по window шагам (в начале — по тем, что уже есть): (steps,) -> (steps,)."""
    values = check_numbers(values, "values", "smooth").astype(float)
    check_int(window, "window", "smooth", meaning=" (по скольким шагам усреднять)")
    if values.ndim != 1:
        raise ValueError(f"smooth: values — ряд чисел по шагам (steps,), а пришла форма {values.shape}")
    sums = np.cumsum(np.concatenate([[0.0], values]))
    start = np.maximum(np.arange(1, len(values) + 1) - window, 0)
    return (sums[1:] - sums[start]) / (np.arange(1, len(values) + 1) - start)


def phase_change_step(second, window=25):
    """Шаг фазового перехода: где сглаженный loss второй копии впервые ниже ln(VOCAB) / 2 (или None)."""
    below = np.flatnonzero(smooth(second, window) < np.log(VOCAB) / 2)
    return int(below[0]) + 1 if below.size else None


# Диагонали, а не weights[..., t, t - 1]: так написаны решения уроков 07 и 09, а этот файл ученик может открыть
# (tests/test_checkers_hold_no_solutions.py). Числа те же, бит в бит (queries_outer).
def previous_token_scores(weights):
    """Сколько веса каждая голова отдаёт предыдущему токену: (..., T, T) -> (...).

    Средний weights[t, t − 1] по запросам t = 1…T−1.
    """
    weights = _check_weights(weights, "previous_token_scores")
    below = np.diagonal(weights, offset=-1, axis1=-2, axis2=-1)          # (..., T − 1): weights[t, t − 1]
    return queries_outer(below).mean(axis=-1)


def prefix_matching_scores(weights):
    """Сколько веса голова отдаёт «токену после прошлого раза»: (..., T, T), T = 1 + 2L -> (...).

    Запрос q во второй копии (q = L+1…2L) держит тот же токен, что позиция q − L в первой;
    «после прошлого раза» — позиция q − L + 1. Средний weights[q, q − L + 1] по этим q.
    """
    weights = _check_weights(weights, "prefix_matching_scores")
    L, _ = divmod(weights.shape[-1] - 1, 2)
    # диагональ weights[i + L − 1, i] идёт по строкам L − 1…2L; нужны строки L+1…2L — без первых двух
    after = np.diagonal(weights, offset=1 - L, axis1=-2, axis2=-1)[..., 2:]  # (..., L)
    return queries_outer(after).mean(axis=-1)


@dataclass
class InductionReport:
    """Проверка на последовательностях, которых модель не видела: loss на копиях (наты) и роли голов.

    previous, prefix: (layers, h) — previous_token_scores и prefix_matching_scores каждой головы.
    """
    first: float
    second: float
    previous: np.ndarray
    prefix: np.ndarray

    def previous_head(self):
        """(слой, голова) с наибольшим весом на предыдущий токен в слое 0."""
        return 0, int(np.argmax(self.previous[0]))

    def induction_head(self):
        """(слой, голова) с наибольшим совпадением префикса в последнем слое."""
        layer = len(self.prefix) - 1
        return layer, int(np.argmax(self.prefix[layer]))


def evaluate(model, per_length=32, lengths=LENGTHS, seed=EVAL_SEED):
    """InductionReport модели на per_length последовательностях каждой длины блока из lengths."""
    rng = np.random.default_rng(seed)
    firsts, seconds, previous, prefix = [], [], [], []
    with no_grad(), one_blas_thread():
        for length in range(lengths[0], lengths[1] + 1):
            ids = repeated_blocks(per_length, length, rng)
            f, s = copy_losses(model(ids).data, ids)
            weights = model.weights()                      # (N, layers, h, T, T)
            firsts.append(f)
            seconds.append(s)
            previous.append(previous_token_scores(weights).mean(axis=0))
            prefix.append(prefix_matching_scores(weights).mean(axis=0))
    return InductionReport(float(np.mean(firsts)), float(np.mean(seconds)),
                           np.mean(previous, axis=0), np.mean(prefix, axis=0))


def _check_weights(weights, where):
    """Веса внимания (..., T, T): хотя бы две оси, квадратные, дробные."""
    weights = check_numbers(getattr(weights, "data", weights), "weights", where)
    if weights.ndim < 2 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"{where}: weights — веса внимания формы (..., T, T), а пришла форма {weights.shape}")
    return weights

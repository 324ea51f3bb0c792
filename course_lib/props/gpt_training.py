"""Обучение маленького GPT на тексте (урок 10): окна из текста, loss на проверочной части, снимки по дороге.

`train_gpt(text, steps, seed)` строит GPT из зерна seed и учит его предсказывать следующий
символ. Текст делится на обучающую часть (начало) и проверочную (последние val_fraction):
батчи — случайные окна обучающей части из генератора с зерном seed, loss на проверке —
всегда на одних и тех же окнах. Повторный вызов с теми же аргументами не учит заново, а отдаёт
копию сохранённого результата (`run_memory.py`).
"""

import time
from dataclasses import dataclass

import numpy as np

from course_lib._checks import check_generator, check_int
from course_lib.autograd.tensor import no_grad
from course_lib.blas import one_blas_thread
from course_lib.engine_room import fast
from course_lib.functional import cross_entropy
from course_lib.nn import GPT
from course_lib.optim import Adam
from course_lib.props.gpt_settings import run_settings
from course_lib.props.progress import TrainingProgress
from course_lib.props.run_memory import RunMemory
from course_lib.props.text_file import min_text_length
from course_lib.props.tokenizer import CharTokenizer, check_token_ids
from course_lib.rng import temporary_seed

SAMPLE_SEED = 2026                        # образцы на всех снимках — из одного зерна: разница только в модели
VAL_WINDOWS = 128                         # окон проверочной части для loss на проверке
CACHE_SIZE = 4                            # сколько прогонов помнить
WARMUP = 50                               # шагов разгона lr (learning_rate)
BETAS = (0.9, 0.99)                       # Adam: с 0.999 квадраты градиентов помнились бы ~1000 шагов — дольше урока


@dataclass
class Snapshot:
    """Модель после step шагов: loss на проверке, образец текста (продолжение prompt) и веса
    внимания на каждой фразе — кортеж массивов (num_layers, h, T_фразы, T_фразы)."""
    step: int
    val_loss: float
    sample: str
    attention: tuple


@dataclass
class GPTRun:
    """Итог train_gpt: модель, токенизатор, loss каждого шага (steps,) на его батче,
    loss на проверке (val_losses) после val_steps шагов, снимки после snapshot_steps шагов и seconds —
    процессорное время настоящего обучения (всех ядер; прогон из памяти отдаёт то же число)."""
    model: GPT
    tokenizer: CharTokenizer
    losses: np.ndarray
    val_steps: np.ndarray
    val_losses: np.ndarray
    snapshots: list
    seconds: float


def split_ids(ids, T, val_fraction):
    """Обучающая часть (начало) и проверочная (последние val_fraction), в каждой ≥ T + 1 символов."""
    ids = check_token_ids(ids, "ids", "split_ids", ndim=1, min_length=min_text_length(T, val_fraction))
    n_val = max(int(len(ids) * val_fraction), T + 1)
    if len(ids) - n_val < T + 1:
        raise ValueError(f"после проверочной части ({n_val} символов) на обучение осталось {len(ids) - n_val}, "
                         f"а окну нужно T + 1 = {T + 1}: уменьшите val_fraction")
    return ids[:-n_val], ids[-n_val:]


def random_windows(ids, N, T, rng):
    """N случайных окон по T + 1 подряд идущих номеров: (N, T + 1). Вход — [:, :-1], ответ — [:, 1:]."""
    _check_windows(ids, T, "random_windows", N, "N", " (сколько окон)")
    check_generator(rng, "random_windows")
    starts = rng.integers(0, len(ids) - T, size=N)                  # (N,)
    return ids[starts[:, None] + np.arange(T + 1)]                  # (N, T + 1)


def fixed_windows(ids, T, count=VAL_WINDOWS):
    """count окон (count, T + 1), равномерно по всему ids: одни и те же при каждой проверке."""
    _check_windows(ids, T, "fixed_windows", count, "count", " (сколько окон)")
    starts = np.linspace(0, len(ids) - T - 1, count).round().astype(np.int64)
    return ids[starts[:, None] + np.arange(T + 1)]


def _check_windows(ids, T, where, count, name, meaning):
    """Окна по T + 1 номеру из ids (T,): номера — целые, их хотя бы T + 1, count окон — целое ≥ 1."""
    check_int(T, "T", where, meaning=" (длина окна)")
    check_int(count, name, where, meaning=meaning)
    check_token_ids(ids, "ids", where, ndim=1, min_length=T + 1)


def learning_rate(step, steps, lr, lr_final):
    """lr шага step из steps (с 1): первые WARMUP шагов (не больше четверти steps) растёт от 0 до lr, дальше косинусом убывает
    до lr_final на последнем шаге; lr_final=None — после разгона всё время lr.

    Разгон: в начале Adam ещё не знает типичной величины градиентов, и полный шаг lr = 0.008 сбивал
    бы модель. Убывание: маленькие шаги в конце дают модели осесть в яме, а не прыгать по её стенкам.
    """
    warm = min(1.0, step / max(1, min(WARMUP, steps // 4)))      # короткому прогону — короткий разгон
    if lr_final is None or steps <= 1:
        return lr * warm
    return warm * (lr_final + 0.5 * (lr - lr_final) * (1 + np.cos(np.pi * (step - 1) / (steps - 1))))


def evaluate(model, windows, chunk=32):
    """Средний loss следующего символа (наты) на окнах (K, T + 1), без графа.

    Быстрым путём и в один поток BLAS, как обучение: на занятой машине лишние потоки BLAS только мешают.
    """
    windows = check_token_ids(windows, "windows", "evaluate", ndim=2, min_length=2)   # номера проверит сама модель
    check_int(chunk, "chunk", "evaluate", meaning=" (сколько окон за один проход)")
    total = 0.0
    with no_grad(), fast(), one_blas_thread():
        for start in range(0, len(windows), chunk):
            part = windows[start:start + chunk]
            total += cross_entropy(model(part[:, :-1]), part[:, 1:]).item() * len(part)
    return total / len(windows)


def train_gpt(text, steps, seed=0, T=64, d_model=64, num_heads=4, num_layers=2, batch=16, lr=8e-3,
              lr_final=3e-4, causal=True, val_fraction=0.1, eval_every=100, snapshot_steps=(), phrases=None, prompt=None,
              sample_len=100, dtype=np.float32, progress=None):
    """Учит GPT(vocab, T, d_model, num_heads, num_layers) steps шагами Adam на окнах text (урок 10) -> GPTRun.

    seed задаёт и начальные веса, и батчи. Loss на проверке — после каждых eval_every шагов и
    на snapshot_steps, где ещё снимаются образец (sample_len символов после prompt) и веса
    внимания на phrases. prompt и phrases по умолчанию (None) — gpt_settings.PROMPT и PHRASES, если их символы
    есть в тексте, иначе начало самого текста (`gpt_settings.py`).
    dtype — тип весов: float32 вдвое быстрее float64, а точности ему хватает.
    progress(step, steps, loss) — перед первым шагом и после каждого; None — полоса tqdm
    (TrainingProgress: в Jupyter — виджет, в терминале — строка текста).
    lr — после WARMUP шагов разгона, дальше lr убывает косинусом до lr_final (`learning_rate`;
    lr_final=None — постоянный). Adam — с betas=BETAS.
    causal=False — модель без причинной маски (урок 10 показывает, чему она тогда учится).
    Все аргументы проверяются до обучения, память и работа оцениваются заранее (`run_settings`).
    """
    settings = run_settings(text, steps, seed=seed, T=T, d_model=d_model, num_heads=num_heads, num_layers=num_layers,
                            batch=batch, lr=lr, lr_final=lr_final, causal=causal, val_fraction=val_fraction,
                            eval_every=eval_every, snapshot_steps=snapshot_steps, phrases=phrases, prompt=prompt,
                            sample_len=sample_len, dtype=dtype, progress=progress, val_windows=VAL_WINDOWS)
    key = tuple(settings.items())                 # прогон помнится по именам и значениям аргументов
    return _RUNS.recall(key, lambda: _train(**settings, progress=progress or TrainingProgress()))


_RUNS = RunMemory("train_gpt", CACHE_SIZE)


def forget_runs():
    """Забыть все сохранённые прогоны: следующий train_gpt учит заново."""
    _RUNS.forget()


def _train(text, steps, seed, T, d_model, num_heads, num_layers, batch, lr, lr_final, causal, val_fraction, eval_every,
           snapshot_steps, phrases, prompt, sample_len, dtype, progress):
    tokenizer = CharTokenizer.from_text(text)
    probes = [tokenizer.encode(p)[None] for p in phrases]         # (1, T_фразы): ошибки — до обучения
    start = tokenizer.encode(prompt)[None]                        # (1, T_промпта)
    train_ids, val_ids = split_ids(tokenizer.encode(text), T, val_fraction)
    val_windows = fixed_windows(val_ids, T)
    with temporary_seed(seed):                                    # веса — из seed, зерно урока не сбиваем
        model = GPT(tokenizer.vocab_size, T, d_model, num_heads, num_layers, causal=causal).to(dtype)
    optimizer = Adam(model.parameters(), lr=lr, betas=BETAS)
    rng = np.random.default_rng(seed)
    val_at = sorted(set(range(0, steps + 1, eval_every)) | {steps} | set(snapshot_steps))
    losses, val_losses, snapshots = [], [], []

    def measure(step):
        val_losses.append(evaluate(model, val_windows))
        if step in snapshot_steps:
            ids = model.generate(start[:, -T:], sample_len, rng=np.random.default_rng(SAMPLE_SEED))
            attention = tuple(model.attention_weights(p[:, -T:])[0] for p in probes)
            snapshots.append(Snapshot(step, val_losses[-1], tokenizer.decode(ids[0]), attention))

    # Те же формулы быстрым путём (nt.fast(), урок 08). BLAS — в один поток: на матрицах 64×64
    # второй поток не ускоряет (benchmarks/training.py), а ядра занимает пул машинного отделения.
    started = time.process_time()
    with fast(), one_blas_thread():
        measure(0)
        progress(0, steps, float("nan"))                          # часы полосы — с первого шага, после замера
        for step in range(1, steps + 1):
            windows = random_windows(train_ids, batch, T, rng)   # (N, T + 1)
            logits = model(windows[:, :-1])                       # (N, T, V)
            loss = cross_entropy(logits, windows[:, 1:])          # позиция t ставит на символ t + 1
            optimizer.zero_grad()
            loss.backward()
            optimizer.lr = learning_rate(step, steps, lr, lr_final)
            optimizer.step()
            losses.append(loss.item())
            progress(step, steps, losses[-1])
            if step in val_at:
                measure(step)
    return GPTRun(model, tokenizer, np.array(losses), np.array(val_at), np.array(val_losses), snapshots,
                  time.process_time() - started)

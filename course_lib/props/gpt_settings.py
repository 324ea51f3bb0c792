"""Аргументы train_gpt (урок 10): проверены до обучения, умолчания подогнаны под текст, цена оценена заранее.

`run_settings(text, steps, …)` -> словарь именованных аргументов обучения: по нему train_gpt и учит,
и помнит прогон (ключ — пары имя–значение, а не восемнадцать полей по порядку).

Умолчания курса — промпт «Внимание» и фраза «кот сел на тёплый коврик» — берутся, только если все их
символы есть в тексте (и фраза влезает в окно T). Иначе — начало самого текста: текст без «ё», строчными
буквами или по-английски учится так же, и ошибка никогда не просит менять текст из-за умолчаний курса.
Свои prompt и phrases проверяются строго: символ, которого нет в тексте, — отказ с именем аргумента.
"""

from collections.abc import Iterable

import numpy as np

from course_lib._checks import (check_bool, check_callable, check_dtype, check_int, check_memory, check_real,
                                check_text, check_work, divisors)
from course_lib.nn.gpt import PASS_OVERHEAD, forward_bytes, num_params
from course_lib.props.text_file import check_text_length
from course_lib.props.tokenizer import shown_chars

PHRASES = ("кот сел на тёплый коврик",)   # на них снимаются веса внимания
PROMPT = "Внимание"                       # с него начинаются образцы текста
WHERE = "train_gpt"


def default_prompt(text):
    """PROMPT, если все его символы есть в text, иначе первые len(PROMPT) символов самого text."""
    return PROMPT if set(PROMPT) <= set(text) else text[:len(PROMPT)]


def default_phrases(text, T):
    """PHRASES, которые записываются символами text и влезают в окно T; если таких нет — (начало text,)."""
    known = set(text)
    fitting = tuple(p for p in PHRASES if set(p) <= known and len(p) <= T)
    return fitting or (text[:min(T, len(PHRASES[0]))],)


def run_settings(text, steps, *, seed, T, d_model, num_heads, num_layers, batch, lr, lr_final, causal, val_fraction,
                 eval_every, snapshot_steps, phrases, prompt, sample_len, dtype, progress, val_windows):
    """Проверенные аргументы train_gpt словарём (имя -> значение); phrases и prompt None — умолчания под текст."""
    if not isinstance(text, str):
        raise TypeError(f"train_gpt ждёт текст строкой (например, load_text(путь)), а пришёл {type(text).__name__}")
    check_int(steps, "steps", WHERE, meaning=" (сколько шагов обучения)")
    check_int(seed, "seed", WHERE, low=0, meaning=" (зерно весов и батчей)")
    check_int(T, "T", WHERE, meaning=" (длина окна: сколько символов модель видит сразу)")
    check_int(d_model, "d_model", WHERE, meaning=" (длина вектора токена)")
    check_int(num_heads, "num_heads", WHERE, meaning=" (голов в каждом блоке)")
    if d_model % num_heads:
        raise ValueError(f"{WHERE}: d_model={d_model} не делится на num_heads={num_heads}: каждой голове нужно "
                         f"d_model // num_heads измерений. Возьмите num_heads из {divisors(d_model)[:8]}")
    check_int(num_layers, "num_layers", WHERE, meaning=" (сколько блоков в стопке)")
    check_int(batch, "batch", WHERE, meaning=" (сколько окон в батче)")
    lr = check_real(lr, "lr", WHERE, positive=True, meaning=" (шаг Adam, в уроке 3e-3)")
    if lr_final is not None:
        lr_final = check_real(lr_final, "lr_final", WHERE, nonnegative=True,
                              meaning=f" (lr к последнему шагу, не больше lr = {lr}; None — lr всё время)")
        if lr_final > lr:
            raise ValueError(f"{WHERE}: lr_final — lr к последнему шагу, он убывает от lr = {lr} и не больше его, "
                             f"а пришло lr_final = {lr_final}. Опечатка в степени (3e3 вместо 3e-3)?")
    causal = check_bool(causal, "causal", WHERE, meaning=" (True — причинная маска; False — без неё, опыт урока 10)")
    check_int(eval_every, "eval_every", WHERE, meaning=" (через сколько шагов мерить loss на проверке)")
    check_int(sample_len, "sample_len", WHERE, low=0, meaning=" (сколько символов в образце)")
    snapshot_steps = _snapshot_steps(snapshot_steps, steps)
    dtype = check_dtype(dtype, WHERE)
    if progress is not None:
        check_callable(progress, "progress", WHERE, "функция progress(step, steps, loss) или None — полоса tqdm",
                       args=(0, steps, float("nan")))
    check_text_length(text, T, val_fraction)
    prompt = default_prompt(text) if prompt is None else _own_text(prompt, "prompt", text,
                                                                 "с него начинаются образцы текста на снимках")
    phrases = default_phrases(text, T) if phrases is None else _own_phrases(phrases, text, T)
    _check_cost(text, steps, T, d_model, num_heads, num_layers, batch, eval_every, len(snapshot_steps),
                len(prompt), sample_len, dtype.itemsize, val_windows)
    return dict(text=text, steps=steps, seed=seed, T=T, d_model=d_model, num_heads=num_heads, num_layers=num_layers,
                batch=batch, lr=lr, lr_final=lr_final, causal=causal, val_fraction=val_fraction, eval_every=eval_every,
                snapshot_steps=snapshot_steps, phrases=phrases, prompt=prompt, sample_len=sample_len, dtype=dtype.name)


def _snapshot_steps(snapshot_steps, steps):
    """Шаги снимков — набор целых от 0 до steps -> отсортированный кортеж без повторов."""
    if isinstance(snapshot_steps, (str, bytes)) or not isinstance(snapshot_steps, Iterable):
        raise TypeError(f"{WHERE}: snapshot_steps — список шагов, после которых снимок, например (0, {steps}) "
                        f"или range(0, {steps + 1}, 100), а пришло {snapshot_steps!r} ({type(snapshot_steps).__name__})"
                        + (f". Один снимок — ({snapshot_steps},)" if isinstance(snapshot_steps, int) else ""))
    for s in snapshot_steps:
        check_int(s, "snapshot_steps", WHERE, low=0, high=steps, meaning=" (после скольких шагов снимок)")
    return tuple(sorted(set(int(s) for s in snapshot_steps)))


def _own_text(value, name, text, meaning):
    """Строка ученика (prompt или фраза): непустая и из символов обучающего текста."""
    check_text(value, name, WHERE, meaning=f" ({meaning})")
    unknown = sorted(set(value) - set(text))
    if unknown:
        raise ValueError(f"{WHERE}: в {name}={value!r} символов {shown_chars(unknown)} нет в обучающем тексте — "
                         f"модель знает только символы текста. Возьмите {name} из символов текста "
                         f"(или не задавайте его: тогда — из начала текста)")
    return value


def _own_phrases(phrases, text, T):
    if isinstance(phrases, str):
        raise TypeError(f"{WHERE}: phrases — список фраз, например ({phrases!r},), а пришла строка {phrases!r}: "
                        "строка разошлась бы на отдельные буквы")
    if not isinstance(phrases, Iterable):
        raise TypeError(f"{WHERE}: phrases — список фраз (строк), а пришло {phrases!r} ({type(phrases).__name__})")
    phrases = tuple(phrases)
    if not phrases:
        raise ValueError(f"{WHERE}: phrases — хотя бы одна фраза (на ней снимаются веса внимания), а пришёл пустой список")
    for phrase in phrases:
        _own_text(phrase, "phrases", text, "на фразах снимаются веса внимания")
        if len(phrase) > T:
            raise ValueError(f"{WHERE}: фраза {phrase!r} — {len(phrase)} символов, а окно модели T = {T}: "
                             f"веса внимания снимаются на одном окне. Возьмите фразу до {T} символов или T побольше")
    return phrases


def _check_cost(text, steps, T, d_model, num_heads, num_layers, batch, eval_every, n_snapshots, n_prompt,
                sample_len, itemsize, val_windows):
    """Память и работа обучения — до того, как строить модель: отказ вместо MemoryError или часов ожидания."""
    advice = "меньше steps, batch, T, d_model или num_layers (урок 10 учит 1200 шагов по 16 окон, T = 64, 2 блока по 64)"
    n_text = len(text)
    check_memory(16 * n_text, f"номера символов текста ({n_text} символов)", WHERE, "текст покороче")
    vocab_size = len(set(text))
    params = num_params(vocab_size, T, d_model, num_layers)
    batch_bytes = forward_bytes(batch, T, d_model, num_heads, num_layers, vocab_size, itemsize)
    check_memory(4 * itemsize * params + batch_bytes + 8 * steps + 8 * (n_prompt + sample_len),
                 f"модель, Adam и батч ({batch}, {T}), потери {steps} шагов и образец {sample_len} символов", WHERE, advice)
    evaluations = steps // eval_every + 1 + n_snapshots
    chunks = -(-val_windows // 32)                            # evaluate идёт кусками по 32 окна
    work = (steps * (6 * params * batch * T + 3 * num_layers * PASS_OVERHEAD)   # вперёд и назад: ~6 умножений на параметр и символ
            + evaluations * (2 * params * val_windows * T + chunks * num_layers * PASS_OVERHEAD)   # loss на проверке
            + n_snapshots * (n_prompt + sample_len) * (2 * params + num_layers * PASS_OVERHEAD))   # образцы на снимках
    check_work(work, f"{steps} шагов обучения по {batch} окон из {T} символов", WHERE, advice)

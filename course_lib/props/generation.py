"""Генерация токен за токеном с KV-кэшем (nn/kv_cache.py): ключи и значения прошлых токенов не пересчитываем (урок 08).

Модель с причинной маской не меняет прошлое: когда в конец дописали токен, старые токены
не видят его, и их ключи K и значения V остаются прежними. Значит, на каждом шаге генерации
их можно не считать заново, а хранить в кэше и дописывать по одной строке — для нового токена.
"""

import numpy as np

from course_lib._checks import check_int, check_numbers
from course_lib.nn import Embedding, KVCache, Linear, Module, MultiHeadAttention
from course_lib.nn.positional import sinusoidal_encoding
from course_lib.autograd.tensor import no_grad

__all__ = ["TinyDecoder", "KVCache", "generate_without_cache", "generate_with_cache"]   # KVCache живёт в nn


class TinyDecoder(Module):
    """Крошечная случайная языковая модель: эмбеддинги + позиции -> слой causal MHA (с residual) -> read-out.

    ids (N, T) целые -> logits (N, T, vocab_size). Её не учат: для урока важно только, что
    генерация с кэшем и без кэша даёт одно и то же, и сколько времени уходит на каждую.
    """

    def __init__(self, vocab_size=50, d_model=32, num_heads=4, max_len=1024):
        self.vocab_size, self.max_len = vocab_size, max_len
        self.embedding = Embedding(vocab_size, d_model)
        self.attention = MultiHeadAttention(d_model, num_heads, causal=True)
        self.readout = Linear(d_model, vocab_size)
        self.positions = sinusoidal_encoding(max_len, d_model)   # (max_len, D) — не параметр, его не учат

    def forward(self, ids):
        """Вся последовательность сразу: ids (N, T) -> logits (N, T, vocab_size)."""
        ids = np.asarray(ids)
        N, T = ids.shape
        self._check_length(T)
        x = self.embedding(ids) + self.positions[:T]       # (N, T, D)
        x = x + self.attention(x)                          # (N, T, D): K и V считаются для всех T токенов
        return self.readout(x)                             # (N, T, D) -> (N, T, vocab_size)

    def step(self, ids, cache):
        """Один новый токен в каждой последовательности: ids (N,) -> logits (N, vocab_size).

        Слой внимания считает q, k, v только для нового токена, дописывает k и v в `cache`
        и смотрит на все ключи кэша (MultiHeadAttention.step). Прошлое заново не считается.
        """
        self._check_length(cache.length + 1)
        x = self.embedding(np.asarray(ids)[:, None]) + self.positions[cache.length]   # (N, 1, D)
        x = x + self.attention.step(x, cache)              # (N, 1, D): k и v нового токена — в кэш
        return self.readout(x)[:, 0]                       # (N, 1, vocab_size) -> (N, vocab_size)

    def new_cache(self, N):
        """Пустой KVCache на N последовательностей и max_len токенов."""
        return self.attention.new_cache(N, self.max_len)

    def _check_length(self, T):
        if T > self.max_len:
            raise ValueError(
                f"TinyDecoder знает позиции только до max_len={self.max_len}, а последовательность "
                f"дошла до {T} токенов. Создайте модель с большим max_len"
            )

    def extra_repr(self):
        return f"vocab_size={self.vocab_size}, max_len={self.max_len}"


def generate_without_cache(model, prompt, steps):
    """Жадная генерация без кэша: на каждом шаге модель заново читает весь префикс.

    prompt: (N, T0) целые. Возвращает (ids (N, T0 + steps), logits (N, steps, vocab_size)) —
    logits, по которым выбран каждый новый токен.
    """
    ids = _check_prompt(model, prompt, steps)
    chosen = []
    with no_grad():
        for _ in range(steps):
            logits = model(ids).data[:, -1]                # (N, T, vocab) -> (N, vocab): нужен только последний
            chosen.append(logits)
            ids = np.concatenate([ids, logits.argmax(axis=-1)[:, None]], axis=1)   # (N, T) -> (N, T + 1)
    return ids, np.stack(chosen, axis=1)


def generate_with_cache(model, prompt, steps):
    """Жадная генерация с KV-кэшем: на каждом шаге модель считает только новый токен.

    Те же вход и выход, что у generate_without_cache, и те же токены — меняется лишь работа.
    """
    ids = _check_prompt(model, prompt, steps)
    cache = model.new_cache(ids.shape[0])
    chosen = []
    with no_grad():
        for t in range(ids.shape[1]):                      # промпт — по токену, чтобы заполнить кэш
            logits = model.step(ids[:, t], cache).data     # (N, vocab)
        for _ in range(steps):
            chosen.append(logits)
            next_ids = logits.argmax(axis=-1)              # (N,)
            ids = np.concatenate([ids, next_ids[:, None]], axis=1)
            if len(chosen) < steps:                        # logits после последнего токена не нужны
                logits = model.step(next_ids, cache).data
    return ids, np.stack(chosen, axis=1)


def _check_prompt(model, prompt, steps):
    if not isinstance(model, Module) or not hasattr(model, "max_len"):
        raise TypeError(f"генерация: model — модель с new_cache и step (например, TinyDecoder), а пришло {type(model).__name__}")
    prompt = check_numbers(prompt, "prompt", "генерация")
    if prompt.ndim != 2 or prompt.shape[1] < 1 or not np.issubdtype(prompt.dtype, np.integer):
        raise ValueError(
            f"prompt: ожидались целые номера токенов формы (N, T0) с T0 ≥ 1, а пришло {prompt.dtype} формы "
            f"{prompt.shape}. Для одной последовательности: np.array([[3, 1, 4]])"
        )
    check_int(steps, "steps", "генерация", meaning=" (сколько токенов сгенерировать)")
    if prompt.shape[1] + steps > model.max_len:
        raise ValueError(
            f"промпт ({prompt.shape[1]}) + steps ({steps}) длиннее max_len={model.max_len} модели"
        )
    return prompt

"""Генерация токен за токеном и KV-кэш: ключи и значения прошлых токенов не пересчитываем (урок 08).

Модель с причинной маской не меняет прошлое: когда в конец дописали токен, старые токены
не видят его, и их ключи K и значения V остаются прежними. Значит, на каждом шаге генерации
их можно не считать заново, а хранить в кэше и дописывать по одной строке — для нового токена.
"""

import numpy as np

from course_lib._checks import check_int

from course_lib.functional import scaled_dot_product_attention
from course_lib.nn import Embedding, Linear, Module, MultiHeadAttention
from course_lib.nn.positional import sinusoidal_encoding
from course_lib.autograd.tensor import no_grad


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

        Считает q, k, v только для нового токена, дописывает k и v в `cache` и смотрит
        на все ключи кэша. Маска не нужна: в кэше лишь прошлое и сам новый токен.
        """
        attn = self.attention
        self._check_length(cache.length + 1)
        x = self.embedding(np.asarray(ids)[:, None]) + self.positions[cache.length]   # (N, 1, D)
        q = attn._split(attn.W_q(x))                       # (N, 1, D) -> (N, h, 1, d_head)
        k = attn._split(attn.W_k(x))                       # (N, 1, D) -> (N, h, 1, d_head)
        v = attn._split(attn.W_v(x))                       # (N, 1, D) -> (N, h, 1, d_head)
        keys, values = cache.append(k.data, v.data)        # (N, h, t + 1, d_head) каждый
        context, _ = scaled_dot_product_attention(q.data, keys, values)   # (N, h, 1, d_head)
        x = x + attn.W_o(attn._merge(context))             # (N, h, 1, d_head) -> (N, 1, D)
        return self.readout(x)[:, 0]                       # (N, 1, vocab_size) -> (N, vocab_size)

    def new_cache(self, N):
        """Пустой кэш на N последовательностей и max_len токенов."""
        attn = self.attention
        return KVCache(N, attn.num_heads, attn.d_head, self.max_len)

    def _check_length(self, T):
        if T > self.max_len:
            raise ValueError(
                f"TinyDecoder знает позиции только до max_len={self.max_len}, а последовательность "
                f"дошла до {T} токенов. Создайте модель с большим max_len"
            )

    def extra_repr(self):
        return f"vocab_size={self.vocab_size}, max_len={self.max_len}"


class KVCache:
    """Ключи и значения уже обработанных токенов: буферы (N, h, max_len, d_head), заняты первые `length`.

    Буфер выделен сразу: дописать токен — записать одну строку. С np.concatenate каждый шаг
    копировал бы весь кэш, и на T шагов ушло бы O(T²) копирований.
    """

    def __init__(self, N, num_heads, d_head, max_len, dtype=np.float64):
        self._keys = np.zeros((N, num_heads, max_len, d_head), dtype=dtype)
        self._values = np.zeros((N, num_heads, max_len, d_head), dtype=dtype)
        self.length = 0

    def append(self, k, v):
        """Дописывает k, v (N, h, n, d_head) в конец и возвращает все ключи и значения (N, h, length, d_head)."""
        n = k.shape[-2]
        if k.shape != v.shape or k.shape[:2] + k.shape[3:] != self._keys.shape[:2] + self._keys.shape[3:]:
            raise ValueError(
                f"KVCache.append: k и v должны быть формы (N, h, n, d_head) = "
                f"{self._keys.shape[:2] + ('n',) + self._keys.shape[3:]}, а пришли k {k.shape}, v {v.shape}"
            )
        if self.length + n > self._keys.shape[2]:
            raise ValueError(f"KVCache переполнен: в нём место на {self._keys.shape[2]} токенов, а их стало бы {self.length + n}")
        self._keys[:, :, self.length:self.length + n] = k
        self._values[:, :, self.length:self.length + n] = v
        self.length += n
        return self.keys, self.values

    @property
    def keys(self):
        return self._keys[:, :, :self.length]              # вид на занятую часть, без копии

    @property
    def values(self):
        return self._values[:, :, :self.length]

    @property
    def nbytes(self):
        """Сколько байт занимают ключи и значения, уже лежащие в кэше."""
        return self.keys.nbytes + self.values.nbytes


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
    prompt = np.asarray(prompt)
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

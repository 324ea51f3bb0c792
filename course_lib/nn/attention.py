"""Многоголовое внимание — урок 06 печатает forward и _split отсюда, урок 08 — step с KV-кэшем."""

import numpy as np

from course_lib._checks import check_bool, check_float, check_int, check_real, divisors
from course_lib.functional import scaled_dot_product_attention
from course_lib.nn.kv_cache import KVCache
from course_lib.nn.layers import Linear
from course_lib.nn.module import Module
from course_lib.autograd.tensor import as_tensor


class MultiHeadAttention(Module):
    """h голов самовнимания по d_head = d_model / h измерений, склеенные и смешанные W_o.

    Вход и выход: (N, T, d_model). После вызова `.attn` — веса (N, h, T, T) для картинок.
    `.scale` — множитель оценок; None — обычный 1/√d_head (1.0 — опыт «без деления» из урока 03).
    Параметров 4·d_model² + 4·d_model — столько же, сколько у одной головы той же ширины.

    Генерация по токену (уроки 08, 09): `cache = mha.new_cache(N, max_len)`, затем на каждом
    шаге `out = mha.step(x_new, cache)` — выход тот же, что у forward на всей последовательности
    в этих позициях, но k и v прошлых токенов берутся из кэша, а не считаются заново.
    """

    def __init__(self, d_model, num_heads, causal=False):
        check_int(d_model, "d_model", "MultiHeadAttention", meaning=" (длина вектора токена)")
        check_int(num_heads, "num_heads", "MultiHeadAttention", meaning=" (число голов)")
        if d_model % num_heads != 0:
            raise ValueError(
                f"d_model={d_model} не делится на num_heads={num_heads}: каждой голове нужно "
                f"d_model // num_heads измерений. Возьмите, например, num_heads из {divisors(d_model)[:8]}"
            )
        causal = check_bool(causal, "causal", "MultiHeadAttention", meaning=" (закрыть ли ключи правее запроса)")
        self.d_model, self.num_heads, self.causal = d_model, num_heads, causal
        self.d_head = d_model // num_heads
        self.W_q = Linear(d_model, d_model)
        self.W_k = Linear(d_model, d_model)
        self.W_v = Linear(d_model, d_model)
        self.W_o = Linear(d_model, d_model)
        self.scale = None
        self.attn = None

    def forward(self, x, mask=None):
        """x: (N, T, d_model); mask: булева, True = «можно смотреть», до (N, h, T, T)."""
        x = self._check_input(x)                     # маску проверит scaled_dot_product_attention
        N, T, D = x.shape
        q = self._split(self.W_q(x))                 # (N, T, D) -> (N, h, T, d_head)
        k = self._split(self.W_k(x))                 # (N, T, D) -> (N, h, T, d_head)
        v = self._split(self.W_v(x))                 # (N, T, D) -> (N, h, T, d_head)
        context, weights = scaled_dot_product_attention(q, k, v, mask, self.scale, causal=self.causal)
        self.attn = weights.data                     # (N, h, T, T) — для картинок
        context = self._merge(context)               # (N, h, T, d_head) -> (N, T, D)
        return self.W_o(context)                     # (N, T, D) -> (N, T, D)

    def step(self, x_new, cache):
        """Новые токены при генерации: x_new (N, n, D) -> (N, n, D); их k и v дописываются в cache.

        Новые токены смотрят на все ключи кэша (прошлое) и друг на друга — при causal=True
        только на себя и более ранние. Градиент в кэш не идёт: step — для генерации в no_grad().
        """
        x_new = self._check_input(x_new)
        if not isinstance(cache, KVCache):
            raise TypeError(f"step: cache — KVCache из mha.new_cache(N, max_len), а пришёл {type(cache).__name__}")
        q = self._split(self.W_q(x_new))             # (N, n, D) -> (N, h, n, d_head)
        k = self._split(self.W_k(x_new))             # (N, n, D) -> (N, h, n, d_head)
        v = self._split(self.W_v(x_new))             # (N, n, D) -> (N, h, n, d_head)
        keys, values = cache.append(k.data, v.data)  # (N, h, t, d_head): прошлое и новые, t = cache.length
        context, _ = scaled_dot_product_attention(q, keys, values, None, self.scale, causal=self.causal)   # (N, h, n, d_head)
        return self.W_o(self._merge(context))        # (N, h, n, d_head) -> (N, n, D)

    def scores(self, x, scale=None):
        """Оценки всех голов до маски и softmax: x (N, T, D) -> (N, h, T, T) = q·kᵀ·scale.

        scale=None — как в слое (`.scale`, по умолчанию 1/√d_head); scale=1.0 — «без деления» (урок 03).
        """
        x = self._check_input(x)
        scale = self.scale if scale is None else scale
        scale = 1 / np.sqrt(self.d_head) if scale is None else check_real(scale, "scale", "MultiHeadAttention.scores", positive=True)
        q = self._split(self.W_q(x))                 # (N, T, D) -> (N, h, T, d_head)
        k = self._split(self.W_k(x))                 # (N, T, D) -> (N, h, T, d_head)
        return (q * scale) @ k.swapaxes(-1, -2)      # (N, h, T, T)

    def new_cache(self, N, max_len, dtype=None):
        """Пустой KVCache этого слоя: N последовательностей по max_len токенов (тип — как у весов)."""
        dtype = self.W_k.weight.dtype if dtype is None else dtype
        return KVCache(N, self.num_heads, self.d_head, max_len, dtype)

    def _split(self, x):
        """Режет последнюю ось на головы: (N, T, D) -> (N, h, T, d_head)."""
        N, T, D = x.shape
        x = x.reshape(N, T, self.num_heads, self.d_head)   # (N, T, h, d_head)
        return x.transpose(0, 2, 1, 3)                     # (N, h, T, d_head)

    def _merge(self, x):
        """Склеивает головы обратно: (N, h, T, d_head) -> (N, T, D)."""
        N, h, T, d_head = x.shape
        x = x.transpose(0, 2, 1, 3)                        # (N, T, h, d_head)
        return x.reshape(N, T, h * d_head)                 # (N, T, D)

    def _check_input(self, x):
        x = as_tensor(x, where="MultiHeadAttention")
        check_float(x.data, "x")
        if x.ndim != 3 or x.shape[-1] != self.d_model:
            hint = " Для одной последовательности добавьте ось батча: x[None]." if x.ndim == 2 else ""
            raise ValueError(
                f"MultiHeadAttention ждёт x формы (N, T, d_model={self.d_model}), а пришла форма {x.shape}.{hint}"
            )
        return x

    def extra_repr(self):
        return f"d_model={self.d_model}, num_heads={self.num_heads}, d_head={self.d_head}, causal={self.causal}"

"""Блок трансформера (pre-norm, как в GPT-2): внимание и feed-forward, каждое — прибавкой к x (урок 09)."""

from course_lib._checks import check_int
from course_lib.nn.attention import MultiHeadAttention
from course_lib.nn.feedforward import FeedForward
from course_lib.nn.module import Module
from course_lib.nn.norm import LayerNorm


class TransformerBlock(Module):
    """x = x + attention(ln1(x)); x = x + ffn(ln2(x)) — так устроен каждый слой GPT.

    x: (N, T, d_model) -> (N, T, d_model). `.attention` — MultiHeadAttention (его веса после вызова —
    `block.attention.attn`, (N, h, T, T)), `.ffn` — FeedForward, `.ln1`, `.ln2` — LayerNorm.
    d_ff по умолчанию 4·d_model; тогда параметров 12·d_model² + 13·d_model.
    Генерация с кэшем: `cache = block.attention.new_cache(N, max_len)`, потом `block.step(x_new, cache)`.
    """

    def __init__(self, d_model, num_heads, d_ff=None, causal=True):
        check_int(d_model, "d_model", "TransformerBlock", meaning=" (длина вектора токена)")   # до 4·d_model
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.ln1 = LayerNorm(d_model)
        self.attention = MultiHeadAttention(d_model, num_heads, causal=causal)
        self.ln2 = LayerNorm(d_model)
        self.ffn = FeedForward(d_model, d_ff)

    def forward(self, x, mask=None):
        """x: (N, T, d_model); mask — как у MultiHeadAttention (True = «можно смотреть»)."""
        x = x + self.attention(self.ln1(x), mask)    # (N, T, D): токены обмениваются сведениями
        x = x + self.ffn(self.ln2(x))                # (N, T, D): каждый токен думает сам
        return x

    def step(self, x_new, cache):
        """То же для новых токенов при генерации: x_new (N, n, d_model), k и v прошлых — из cache (KVCache)."""
        x = x_new + self.attention.step(self.ln1(x_new), cache)   # (N, n, D)
        return x + self.ffn(self.ln2(x))                     # (N, n, D)

"""Feed-forward часть блока трансформера: два Linear и GELU между ними, каждый токен отдельно (урок 09)."""

from course_lib._checks import check_int
from course_lib.functional import gelu
from course_lib.nn.layers import Linear
from course_lib.nn.module import Module


class FeedForward(Module):
    """W_down(GELU(W_up(x))): расширяет вектор токена до d_ff, нелинейность, сжимает обратно.

    x: (..., d_model) -> (..., d_model). Токены друг на друга не смотрят: переставьте токены —
    выход переставится так же. Параметров 2·d_model·d_ff + d_ff + d_model.
    """

    def __init__(self, d_model, d_ff):
        check_int(d_model, "d_model", "FeedForward", meaning=" (длина вектора токена)")
        check_int(d_ff, "d_ff", "FeedForward", meaning=" (ширина скрытого слоя, обычно 4·d_model)")
        self.W_up = Linear(d_model, d_ff)
        self.W_down = Linear(d_ff, d_model)

    def forward(self, x):
        hidden = gelu(self.W_up(x))                  # (..., D) -> (..., d_ff)
        return self.W_down(hidden)                   # (..., d_ff) -> (..., D)

"""course_lib — маленькая библиотека курса «Attention без магии».

Всё, что используют уроки: тензор с автоградом, функции внимания, слои, оптимизаторы.
`with nt.fast():` — те же вызовы быстрым путём (course_lib/engine_room/, урок 08).
Картинки — в `course_lib.vis`, ползунки — в `course_lib.widgets` (их импортируют только уроки).
"""

from course_lib.doctor import doctor
from course_lib.functional import causal_mask, cross_entropy, gelu, scaled_dot_product_attention, softmax
from course_lib.nn import GPT, Embedding, FeedForward, LayerNorm, Linear, Module, MultiHeadAttention, TransformerBlock
from course_lib.rng import manual_seed
from course_lib.engine_room import fast
from course_lib.autograd.tensor import Tensor, concatenate, no_grad, tensor
from course_lib import functional, nn, optim

__all__ = [
    "Tensor", "tensor", "concatenate", "no_grad", "manual_seed",
    "softmax", "causal_mask", "scaled_dot_product_attention", "cross_entropy", "gelu",
    "Module", "Linear", "Embedding", "MultiHeadAttention", "LayerNorm", "FeedForward", "TransformerBlock", "GPT",
    "functional", "nn", "optim", "doctor", "fast",
]

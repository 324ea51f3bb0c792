"""Общие детали виджетов с настоящим вниманием: токены из предложения, случайные векторы слов и слой.

Здесь нет рисования: главный исследователь (explorer.py), виджет голов (heads.py) и перестановка
(permutation.py) берут отсюда одни и те же слова, векторы и веса — и видят одно и то же.
"""

import copy
import functools
import zlib

import numpy as np

from course_lib.autograd.tensor import no_grad
from course_lib.functional import causal_mask
from course_lib.nn import MultiHeadAttention
from course_lib.rng import temporary_seed

MAX_T = 32
DEFAULT_SENTENCE = "кот сел на тёплый коврик"


def tokens_from(sentence, T):
    """Слова предложения -> первые T токенов и (если что-то не так) пояснение для ученика."""
    words = str(sentence).split()
    if not words:
        return DEFAULT_SENTENCE.split()[:T], f"Предложение пустое — введите хотя бы одно слово. Пока показываю «{DEFAULT_SENTENCE}»."
    if len(words) > MAX_T:
        return words[:min(T, MAX_T)], f"В предложении {len(words)} слов, а T бывает не больше {MAX_T}: беру первые {min(T, MAX_T)}."
    if T > len(words):
        return words, f"В предложении {len(words)} слов — поэтому T = {len(words)}, а не {T}."
    return words[:T], ""


def embed_words(tokens, d_model, seed):
    """Случайный, но постоянный вектор для каждого слова: одно слово — один вектор, где бы оно ни стояло."""
    return np.stack([np.random.default_rng([seed, zlib.crc32(t.encode())]).normal(size=d_model) for t in tokens])


@functools.lru_cache(maxsize=16)
def random_model(heads, d_k, seed):
    """MultiHeadAttention со случайными весами из зерна `seed` (зерно уроков не трогает)."""
    with temporary_seed(seed):
        return MultiHeadAttention(d_model=heads * d_k, num_heads=heads)


def attention_weights(model, X, causal, scaled):
    """Веса всех голов (h, T, T) слоя `model` на входе X (T, d_model) и маска (T, T).

    scaled=False — опыт урока 03 «без деления на √d_k»: копия слоя с `scale = 1.0`
    (сам слой и его `.attn` не трогаем — это может быть обученная модель ученика).
    Маску выбирает флажок виджета `causal`, а не слой.
    """
    T = X.shape[0]
    mask = causal_mask(T) if causal else np.ones((T, T), dtype=bool)
    layer = copy.copy(model)                       # те же W_q, W_k, …, свои .scale, .causal и .attn
    layer.causal = False
    if not scaled:
        layer.scale = 1.0
    with no_grad():
        layer(X[None], mask=mask)                  # (1, T, d_model) -> .attn (1, h, T, T)
    return layer.attn[0], mask


def check_vmax(vmax, where):
    """Верх цветовой шкалы весов: число из (0, 1]."""
    if isinstance(vmax, bool) or not isinstance(vmax, (int, float, np.floating, np.integer)) or not 0 < vmax <= 1:
        raise ValueError(f"{where}: vmax — верх цветовой шкалы весов, число от 0 (не включая) до 1, а пришло {vmax!r}. "
                         "Для почти ровных весов подойдёт, например, vmax=0.3")
    return float(vmax)

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
from course_lib.russian import plural
from course_lib.widgets.base import whole

MAX_T = 32
DEFAULT_SENTENCE = "кот сел на тёплый коврик"


def sentence_tokens(sentence, T=None):
    """Предложение -> (первые T слов-токенов, пояснение ученику: "" — показано то, что просили).

    T=None — все слова, но не больше MAX_T. Одна точка, где «предложение → токены, T» (уроки 03–06).
    """
    words, notes = str(sentence).split(), []
    if not words:
        words = DEFAULT_SENTENCE.split()
        notes.append(f"Предложение пустое — введите хотя бы одно слово. Пока показываю «{DEFAULT_SENTENCE}».")
    longest = min(len(words), MAX_T)
    T = longest if T is None else whole(T, "T", notes, longest)
    if T < 1:
        notes.append(f"T — сколько токенов взять, хотя бы 1, а пришло {T}; показываю T = 1.")
    shown = min(max(T, 1), longest)
    count = plural(len(words), "слово", "слова", "слов")
    if len(words) > MAX_T:
        notes.append(f"В предложении {count}, а T бывает не больше {MAX_T}: беру первые {shown}.")
    elif T > longest:
        notes.append(f"В предложении {count} — поэтому T = {longest}, а не {T}.")
    return words[:shown], " ".join(notes)


def longest_T(sentence):
    """Сколько токенов можно взять из предложения (пустое — как DEFAULT_SENTENCE): верх ползунка T."""
    return len(sentence_tokens(sentence)[0])


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

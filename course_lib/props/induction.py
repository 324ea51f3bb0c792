"""Индукционная голова с нуля (урок 09): задача «блок, повторённый дважды» и модель для неё.

Последовательность — BOS, затем блок случайных токенов, затем тот же блок ещё раз. Первую копию
не угадать: токены случайные. Вторую можно угадать целиком (кроме первого её токена — где кончился
блок, модель не знает), если найти, где текущий токен уже был, и взять токен после него.
Это и делает пара голов: в слое 0 — «смотрю на предыдущий токен», в слое 1 — индукционная.
"""

import copy

import numpy as np

from course_lib._checks import check_generator, check_int
from course_lib.functional import cross_entropy
from course_lib.autograd.tensor import no_grad
from course_lib.nn import Embedding, Linear, Module, MultiHeadAttention
from course_lib.props.generation import generate_with_cache

VOCAB = 32                       # случайные токены 0…31
BOS = VOCAB                      # номер 32 — «начало последовательности»; всего токенов VOCAB + 1
LENGTHS = (6, 12)                # длина блока: случайная в этих пределах, своя у каждого батча
MAX_LEN = 1 + 2 * LENGTHS[1]     # BOS + две копии самого длинного блока


def repeated_blocks(N, length, rng, vocab=VOCAB):
    """N последовательностей BOS + блок + тот же блок: целые (N, 1 + 2·length).

    Токены блока — случайные из 0…vocab−1, с повторениями. rng — np.random.Generator.
    """
    check_int(N, "N", "repeated_blocks", meaning=" (сколько последовательностей)")
    check_int(length, "length", "repeated_blocks", meaning=" (длина блока)")
    check_generator(rng, "repeated_blocks")
    block = rng.integers(0, vocab, size=(N, length))                  # (N, L)
    bos = np.full((N, 1), BOS)
    return np.concatenate([bos, block, block], axis=1)                # (N, 1 + 2L)


def random_batch(N, rng, lengths=LENGTHS):
    """Один батч для обучения: длина блока — случайная из lengths = (min, max) включительно."""
    length = int(rng.integers(lengths[0], lengths[1] + 1))
    return repeated_blocks(N, length, rng)


def copy_positions(T):
    """Какие предсказания к какой копии относятся, для последовательности длины T = 1 + 2L.

    Предсказание в позиции t — это ставка на токен t + 1. first — позиции 0…L−1 (ставки на
    токены первой копии), second — позиции L+1…2L−1 (ставки на токены второй копии со второго:
    первый её токен не угадать — модель не знает, где кончился блок).
    """
    L = (T - 1) // 2
    return np.arange(0, L), np.arange(L + 1, 2 * L)


def token_losses(logits, ids):
    """−log p(следующего токена) в каждой позиции: logits (N, T, V), ids (N, T) -> (N, T − 1)."""
    return cross_entropy(np.asarray(logits)[:, :-1], ids[:, 1:], reduction="none")   # позиция t предсказывает ids[t + 1]


def copy_losses(logits, ids):
    """Средний loss (в натах) на первой и на второй копии: пара float."""
    losses = token_losses(logits, ids)
    first, second = copy_positions(ids.shape[1])
    return float(losses[:, first].mean()), float(losses[:, second].mean())


class AttentionOnly(Module):
    """Слой внимания с residual-связью и больше ничего: x + MHA(x) (урок 09).

    Как в `TransformerBlock`, внимание лежит в `.attention` — но без LayerNorm и FFN.
    """

    def __init__(self, d_model, num_heads):
        self.attention = MultiHeadAttention(d_model, num_heads, causal=True)

    def forward(self, x):
        return x + self.attention(x)                  # (N, T, D) -> (N, T, D)

    def step(self, x_new, cache):
        """То же для новых токенов при генерации: k и v прошлых — из cache (KVCache)."""
        return x_new + self.attention.step(x_new, cache)   # (N, n, D) -> (N, n, D)


class TinyLM(Module):
    """Маленькая языковая модель: эмбеддинги токена и позиции -> стопка блоков -> unembedding (урок 09).

    ids (N, T) -> logits (N, T, vocab_size): в каждой позиции — оценки следующего токена.
    blocks — список слоёв (N, T, D) -> (N, T, D), у каждого внимание в `.attention`.
    """

    def __init__(self, blocks, d_model, vocab_size=VOCAB + 1, max_len=MAX_LEN):
        self.vocab_size, self.max_len = vocab_size, max_len
        self.tokens = Embedding(vocab_size, d_model)
        self.positions = Embedding(max_len, d_model)
        self.blocks = list(blocks)
        self.unembed = Linear(d_model, vocab_size)

    def forward(self, ids):
        ids = np.asarray(ids)
        N, T = ids.shape
        x = self.tokens(ids) + self.positions(np.arange(T))      # (N, T, D)
        for block in self.blocks:
            x = block(x)                                         # (N, T, D) -> (N, T, D)
        return self.unembed(x)                                   # (N, T, D) -> (N, T, vocab_size)

    def step(self, ids, caches):
        """Один новый токен в каждой последовательности: ids (N,) -> logits (N, vocab_size).

        caches — по KVCache на слой (`new_cache`); прошлые токены не пересчитываются (урок 08).
        """
        t = caches[0].length                                     # позиция нового токена
        x = self.tokens(np.asarray(ids)[:, None]) + self.positions(np.array([t]))   # (N, 1, D)
        for block, cache in zip(self.blocks, caches):
            x = block.step(x, cache)                             # (N, 1, D): k и v нового токена — в кэш
        return self.unembed(x)[:, 0]                             # (N, 1, vocab_size) -> (N, vocab_size)

    def new_cache(self, N):
        """Пустые кэши всех слоёв: N последовательностей по max_len токенов."""
        return [block.attention.new_cache(N, self.max_len) for block in self.blocks]

    def weights(self):
        """Веса внимания последнего прохода: (N, layers, h, T, T)."""
        return np.stack([block.attention.attn for block in self.blocks], axis=1)

    def attention_weights(self, ids):
        """Веса всех голов на одной последовательности ids (T,), без графа: (layers, h, T, T)."""
        with no_grad():
            self(np.asarray(ids)[None])
        return self.weights()[0]

    def extra_repr(self):
        return f"vocab_size={self.vocab_size}, max_len={self.max_len}, layers={len(self.blocks)}"


def attention_only(num_layers=2, d_model=32, num_heads=2):
    """Модель опыта: num_layers слоёв x + MHA(x), без LayerNorm и FFN."""
    return TinyLM([AttentionOnly(d_model, num_heads) for _ in range(num_layers)], d_model)


def copy_accuracy(model, N, length, seed):
    """Доля верно дописанных токенов: модель видит BOS, блок из length разных токенов и первый токен
    повтора и жадно дописывает остальные length − 1 с KV-кэшем; сравниваем с блоком.

    Токены в блоке разные: если токен встречается в блоке дважды, правило «возьми тот, что шёл
    за ним в прошлый раз» неоднозначно.
    """
    check_int(N, "N", "copy_accuracy", meaning=" (сколько последовательностей)")
    check_int(length, "length", "copy_accuracy", high=VOCAB, meaning=" (длина блока из разных токенов)")
    rng = np.random.default_rng(check_int(seed, "seed", "copy_accuracy", low=0, meaning=" (зерно)"))
    block = np.argsort(rng.random((N, VOCAB)), axis=1)[:, :length]          # (N, L): без повторов
    prompt = np.concatenate([np.full((N, 1), BOS), block, block[:, :1]], axis=1)   # (N, L + 2)
    out, _ = generate_with_cache(model, prompt, steps=length - 1)
    return float((out[:, length + 2:] == block[:, 1:]).mean())


def ablate(model, heads):
    """Копия модели, в которой выключены головы heads — список пар (слой, голова).

    Выключить голову — обнулить её строки в W_o: её context больше ничего не добавляет
    в residual-поток. Сама модель не меняется.
    """
    heads = _check_heads(model, heads)
    ablated = copy.deepcopy(model)
    for layer, head in heads:
        attention = ablated.blocks[layer].attention
        rows = slice(head * attention.d_head, (head + 1) * attention.d_head)
        attention.W_o.weight.data[rows] = 0.0                         # (D, D): строки head·d_head … — вклад головы
    return ablated


def _check_heads(model, heads):
    """heads — список пар (слой, голова) этой модели; иначе ошибка по-русски с тем, что есть."""
    layers, h = len(model.blocks), model.blocks[0].attention.num_heads
    wanted = f"список пар (слой, голова), слой от 0 до {layers - 1}, голова от 0 до {h - 1}, например [(1, 0)]"
    if not isinstance(heads, (list, tuple)) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in heads):
        raise TypeError(f"ablate: heads — {wanted}, а пришло {heads!r}")
    for layer, head in heads:
        check_int(layer, "слой", "ablate", low=0, high=layers - 1, meaning=f" ({wanted})")
        check_int(head, "голова", "ablate", low=0, high=h - 1, meaning=f" ({wanted})")
    return heads

"""Крошечная модель урока 07: эмбеддинг -> один слой MultiHeadAttention -> выходной линейный слой (readout).

Никаких других слоёв: всё, что модель «поймёт» о контексте, ей придётся взять вниманием.
"""

import numpy as np

from course_lib._checks import check_int

from course_lib.nn import Embedding, Linear, Module, MultiHeadAttention
from course_lib.autograd.tensor import no_grad


class TinyAttention(Module):
    """Токены (N, T) -> оценки классов; посередине ровно один MultiHeadAttention (урок 07).

    vocab_size — сколько разных токенов; num_classes — сколько чисел выдаёт выходной слой;
    max_len — если задан, к эмбеддингу токена прибавляется обучаемый эмбеддинг позиции
    (без него внимание не знает, кто где стоит: урок 04).
    init_scale — во сколько раз уменьшить начальные эмбеддинги (у Embedding они N(0, 1)).
    """

    def __init__(self, vocab_size, num_classes, d_model=16, num_heads=1, max_len=None, init_scale=0.3):
        for name, value in (("vocab_size", vocab_size), ("num_classes", num_classes), ("d_model", d_model)):
            check_int(value, name, "TinyAttention")
        self.max_len = max_len
        self.tokens = Embedding(vocab_size, d_model)
        self.positions = Embedding(max_len, d_model) if max_len else None
        self.attention = MultiHeadAttention(d_model, num_heads)
        self.readout = Linear(d_model, num_classes)
        # Маленькие начальные векторы: все слова сперва почти одинаковы, внимание почти
        # равномерное, и градиент достаётся каждому слову. С N(0, 1) какое-нибудь решающее
        # слово может с первых шагов оказаться «в тени» (вес ≈ 0 -> градиент ≈ 0) и там остаться.
        for table in (self.tokens, self.positions):
            if table is not None:
                table.weight.data *= init_scale

    def embed(self, ids):
        """X = эмбеддинг токена (+ эмбеддинг позиции): (N, T) -> (N, T, d_model)."""
        ids = np.asarray(ids)
        if ids.ndim != 2:
            raise ValueError(f"TinyAttention ждёт номера токенов формы (N, T), а пришла форма {ids.shape}. "
                             "Для одного предложения: ids[None]")
        x = self.tokens(ids)                                        # (N, T) -> (N, T, D)
        if self.positions is not None:
            T = ids.shape[1]
            if T > self.max_len:
                raise ValueError(f"позиций выучено {self.max_len}, а пришло T = {T}: укоротите последовательность")
            x = x + self.positions(np.arange(T))                    # (N, T, D) + (T, D)
        return x

    def forward(self, ids, read_at=None):
        """Оценки классов: (N, C) в позициях read_at (N,) или (N, T, C) во всех позициях."""
        context = self.attention(self.embed(ids))                   # (N, T, D) -> (N, T, D)
        if read_at is not None:
            N = context.shape[0]
            context = context[np.arange(N), np.asarray(read_at)]    # (N, T, D) -> (N, D): вектор в позиции read_at
        return self.readout(context)                                # (..., D) -> (..., C)

    def predict(self, ids, read_at=None):
        """Без графа: (оценки как у forward — ndarray, веса внимания (N, h, T, T)) — для отчётов и картинок."""
        with no_grad():
            logits = self(ids, read_at=read_at).data
        return logits, self.attention.attn                          # веса — этого самого вызова

    def attention_weights(self, ids):
        """Веса внимания для одной последовательности ids (T,): (h, T, T), без графа."""
        return self.predict(np.asarray(ids)[None])[1][0]            # (1, h, T, T) -> (h, T, T)


def word_embedder(model, vocabulary):
    """Функция tokens -> X (T, d_model) для `attention_explorer(model=..., embed=...)`.

    Незнакомые слова становятся `<unk>`; вектор — ровно `model.embed`, с теми же правилами.
    """

    def embed(tokens):
        with no_grad():
            return model.embed(vocabulary.ids(tokens)[None]).data[0]   # (1, T, D) -> (T, D)

    return embed

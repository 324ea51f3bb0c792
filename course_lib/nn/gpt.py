"""Маленький GPT (урок 10): эмбеддинги токена и позиции, стопка блоков, LayerNorm и выходной слой.

Та же модель, что nanoGPT, без dropout и без общих весов входа и выхода. Генерация —
`model.generate(ids, max_new_tokens, temperature, top_k, rng)`, как в nanoGPT, с KV-кэшем.
"""

import numpy as np

from course_lib._checks import check_bool, check_int, check_memory, check_numbers, check_work
from course_lib.autograd.tensor import Tensor, no_grad
from course_lib.nn.block import TransformerBlock
from course_lib.nn.kv_cache import KVCache
from course_lib.nn.layers import Embedding, Linear
from course_lib.nn.module import Module
from course_lib.nn.norm import LayerNorm
from course_lib.nn.sampling import check_sampling, sample_next_token
from course_lib.rng import generator
from course_lib.russian import number

# Таблицы Embedding начинаются с N(0, 1), как в PyTorch, а прибавки блоков к остаточному потоку
# поначалу порядка 0.1: со входом разброса 1 они бы в нём тонули. Поэтому GPT начинает свои таблицы
# с разброса 0.1 (GPT-2 — с 0.02). Множитель в forward (x * 0.1) дал бы тот же старт, но Adam двигал бы
# эмбеддинги вдесятеро медленнее: урок 10 (тогда 4 блока) учился так до потерь 1.98 за 1100 шагов, а не за 800.
EMBEDDING_STD = 0.1

# Цена одного прохода одного блока сверх самих умножений — время Python и NumPy на два десятка мелких
# операций (около 0.5 мс), в тех же единицах, что и работа: умножениях-сложениях (≈ 3·10¹⁰ в секунду).
# Для оценок «сколько это займёт» до начала: на маленьких моделях она и есть почти вся цена.
PASS_OVERHEAD = 2 * 10**7


class GPT(Module):
    """Языковая модель GPT: ids (N, T) целые -> logits (N, T, vocab_size) — оценки следующего токена (урок 10).

    num_layers блоков TransformerBlock (pre-norm, причинное внимание), d_model — длина вектора
    токена, num_heads — голов в каждом блоке, max_len — сколько позиций знает модель.
    Параметров: (vocab_size + max_len)·D + num_layers·(12·D² + 13·D) + 2·D + D·vocab_size + vocab_size.
    causal=False снимает причинную маску во всех блоках: так урок 10 показывает, зачем она нужна.
    """

    def __init__(self, vocab_size, max_len, d_model, num_heads, num_layers, causal=True):
        check_int(vocab_size, "vocab_size", "GPT", meaning=" (сколько разных токенов)")
        check_int(max_len, "max_len", "GPT", meaning=" (сколько позиций знает модель)")
        check_int(num_layers, "num_layers", "GPT", meaning=" (сколько блоков в стопке)")
        check_int(d_model, "d_model", "GPT", meaning=" (длина вектора токена)")
        count = num_params(vocab_size, max_len, d_model, num_layers)
        check_memory(8 * count, f"веса GPT ({number(count)} чисел float64)", "GPT",
                     "меньше num_layers, d_model или max_len (у урока 10 — 2 блока по d_model = 64: 126 767 чисел)")
        self.vocab_size, self.max_len, self.num_layers = vocab_size, max_len, num_layers
        causal = check_bool(causal, "causal", "GPT", meaning=" (True — причинная маска, как у GPT; False — без маски)")
        self.d_model, self.num_heads, self.causal = d_model, num_heads, causal
        self.tokens = Embedding(vocab_size, d_model)
        self.positions = Embedding(max_len, d_model)
        self.blocks = [TransformerBlock(d_model, num_heads, causal=causal) for _ in range(num_layers)]
        for table in (self.tokens.weight, self.positions.weight):
            table.data *= EMBEDDING_STD                       # N(0, 1) -> N(0, 0.1²): см. EMBEDDING_STD
        self.ln_final = LayerNorm(d_model)
        self.unembed = Linear(d_model, vocab_size)

    def forward(self, ids):
        """Весь текст сразу (урок 10): ids (N, T) целые, T ≤ max_len -> logits (N, T, vocab_size)."""
        ids = self.check_ids(ids, limit=self.max_len)
        N, T = ids.shape
        x = self.tokens(ids) + self.positions(np.arange(T))   # (N, T) -> (N, T, D): какой токен и где стоит
        for block in self.blocks:
            x = block(x)                                      # (N, T, D) -> (N, T, D): внимание только назад
        x = self.ln_final(x)                                  # (N, T, D)
        return self.unembed(x)                                # (N, T, D) -> (N, T, vocab_size)

    def step(self, ids, caches):
        """Новые токены при генерации: ids (N, n) -> logits (N, n, vocab_size); k и v — в caches.

        Позиции новых токенов идут сразу за теми, что уже лежат в кэше (`new_cache`).
        """
        ids = self.check_ids(ids, limit=None)
        if not isinstance(caches, list) or len(caches) != self.num_layers:
            raise TypeError(f"GPT.step: caches — список из {self.num_layers} KV-кэшей от model.new_cache(N), "
                            f"а пришло {type(caches).__name__}")
        if not all(isinstance(cache, KVCache) for cache in caches):
            raise TypeError(f"GPT.step: caches — KVCache от model.new_cache(N), а в списке "
                            f"{', '.join(sorted({type(c).__name__ for c in caches}))}")
        start = caches[0].length
        n = ids.shape[1]
        x = self.tokens(ids) + self.positions(np.arange(start, start + n))   # (N, n, D)
        for block, cache in zip(self.blocks, caches):
            x = block.step(x, cache)                          # (N, n, D): прошлое — из кэша
        return self.unembed(self.ln_final(x))                 # (N, n, vocab_size)

    def new_cache(self, N):
        """Пустые KV-кэши всех блоков: N последовательностей по max_len токенов."""
        return [block.attention.new_cache(N, self.max_len) for block in self.blocks]

    def generate(self, ids, max_new_tokens, temperature=1.0, top_k=None, rng=None):
        """Дописывает max_new_tokens токенов к каждой строке ids (N, T0) -> (N, T0 + max_new_tokens).

        Каждый новый токен выбирается по логитам последней позиции (`sample_next_token`):
        temperature — делитель логитов, top_k — выбирать из k самых вероятных (top_k=1 — жадно),
        rng — np.random.Generator (None — генератор курса, его задаёт nt.manual_seed).
        Модель видит последние max_len токенов, как nanoGPT. Пока текст не длиннее max_len,
        k и v прошлых токенов берутся из KV-кэша (урок 08); дальше окно сдвигается, позиции
        меняются, и его приходится считать заново. Токены те же, что дал бы forward на всём окне.
        У модели без маски (causal=False) старые токены видят новые, и кэш не годится: окно — заново на каждом шаге.
        """
        ids = self.check_ids(ids, limit=None)
        check_int(max_new_tokens, "max_new_tokens", "generate", low=0, meaning=" (сколько токенов дописать)")
        temperature, top_k = check_sampling(temperature, top_k, rng, self.vocab_size)
        self.check_generation_cost(len(ids), ids.shape[1], max_new_tokens)
        rng = generator() if rng is None else rng
        with no_grad():
            caches = self.new_cache(len(ids)) if self.causal else None
            window = ids[:, -self.max_len:]
            logits = (self.step(window, caches) if caches else self(window)).data[:, -1]   # (N, V): промпт одним проходом
            for i in range(max_new_tokens):
                next_ids = sample_next_token(logits, temperature, top_k, rng)   # (N,)
                ids = np.concatenate([ids, next_ids[:, None]], axis=1)         # (N, T) -> (N, T + 1)
                if i == max_new_tokens - 1:
                    break                                                      # логиты после последнего не нужны
                if caches and caches[0].length < self.max_len:
                    logits = self.step(next_ids[:, None], caches).data[:, -1]  # (N, V): только новый токен
                else:
                    logits = self(ids[:, -self.max_len:]).data[:, -1]          # окно сдвинулось: заново
        return ids

    def attention_weights(self, ids):
        """Веса внимания всех блоков на ids (N, T), без графа: (N, num_layers, h, T, T)."""
        with no_grad():
            self(ids)
        return np.stack([block.attention.attn for block in self.blocks], axis=1)

    def check_generation_cost(self, N, T0, max_new_tokens):
        """Отказ до генерации, если ответ (N, T0 + max_new_tokens) не поместится в память или считать его часы."""
        total = T0 + max_new_tokens
        check_memory(8 * N * total, f"номера токенов ответа ({N}, {total}) int64", "generate",
                     "меньше max_new_tokens (сотни или тысячи символов — уже страница текста)")
        per_token = (2 * self.num_params() + 4 * self.num_layers * self.max_len * self.d_model   # веса и окно внимания
                     + self.num_layers * PASS_OVERHEAD)
        check_work(N * max_new_tokens * per_token + N * total * total // 2,      # + копии растущего ответа
                   f"{number(max_new_tokens)} новых токенов для {N} строк", "generate",
                   "меньше max_new_tokens (сотни или тысячи символов — уже страница текста)")

    def check_ids(self, ids, limit):
        """Номера токенов (N, T) целые от 0 до vocab_size − 1, N ≥ 1, 1 ≤ T ≤ limit (None — без предела)."""
        ids = check_numbers(ids.data if isinstance(ids, Tensor) else ids, "ids", "GPT")
        if not np.issubdtype(ids.dtype, np.integer):
            raise TypeError(
                f"GPT ждёт целые номера токенов, а пришёл dtype {ids.dtype}. "
                "Текст превращает в номера токенизатор: tokenizer.encode(текст)"
            )
        if ids.ndim != 2 or ids.shape[1] == 0:
            hint = " Для одной строки добавьте ось батча: ids[None]." if ids.ndim == 1 else ""
            raise ValueError(f"GPT ждёт номера формы (N, T) с T ≥ 1, а пришла форма {ids.shape}.{hint}")
        if ids.shape[0] == 0:
            raise ValueError(f"GPT ждёт хотя бы одну строку номеров (N ≥ 1), а пришла форма {ids.shape} — пустой батч. "
                             "Срез вышел за конец данных?")
        N, T = ids.shape
        nbytes = forward_bytes(N, min(T, self.max_len), self.d_model, self.num_heads, self.num_layers, self.vocab_size,
                               self.tokens.weight.dtype.itemsize)
        check_memory(nbytes, f"промежуточные массивы прохода GPT по батчу ({N}, {min(T, self.max_len)})", "GPT",
                     "батч поменьше: по частям, например по 32 строки за раз, как evaluate в props/gpt_training.py")
        if ids.min() < 0 or ids.max() >= self.vocab_size:
            raise ValueError(
                f"номера токенов должны быть от 0 до {self.vocab_size - 1} (vocab_size={self.vocab_size}), "
                f"а встретились {ids.min()}…{ids.max()}. Текст закодирован другим словарём?"
            )
        if limit is not None and ids.shape[1] > limit:
            raise ValueError(
                f"GPT знает {self.max_len} позиций (max_len), а пришло T = {ids.shape[1]} токенов. "
                f"Возьмите последние: ids[:, -{self.max_len}:] — или generate, который сдвигает окно сам"
            )
        return ids

    def extra_repr(self):
        return (f"vocab_size={self.vocab_size}, max_len={self.max_len}, d_model={self.d_model}, "
                f"num_heads={self.num_heads}, num_layers={self.num_layers}"
                + ("" if self.causal else ", causal=False"))


def num_params(vocab_size, max_len, d_model, num_layers):
    """Сколько чисел у GPT с такими размерами (d_ff = 4·d_model) — по формуле, без модели: (V + L)·D
    + layers·(12·D² + 13·D) + 2·D + D·V + V. Так память проверяется до того, как её выделять."""
    D = d_model
    return (vocab_size + max_len) * D + num_layers * (12 * D * D + 13 * D) + 2 * D + D * vocab_size + vocab_size


def forward_bytes(N, T, d_model, num_heads, num_layers, vocab_size, itemsize):
    """Оценка сверху: сколько байт держат промежуточные массивы прохода по батчу (N, T) вместе с графом.

    На блок — около 60 массивов (N, T, D) (LayerNorm, q, k, v, feed-forward на 4·D) и 4 массива
    (N, h, T, T) (оценки, маска, веса); сверху — логиты (N, T, V) и их softmax.
    """
    per_block = 60 * N * T * d_model + 4 * N * num_heads * T * T
    return itemsize * (num_layers * per_block + 3 * N * T * vocab_size + 3 * N * T * d_model)

"""Чтение обученного GPT (урок 10): точки отсчёта для потерь, свойства текста, показатели голов и их абляция.

- `unigram_loss`, `bigram_loss` — loss на проверке у моделей-счётчиков: с ними сравнивают loss GPT;
- `known_word_share`, `longest_run` — измеримые свойства образца текста (вместо «на глаз»);
- `head_scores` — три показателя каждой головы на окнах текста: на предыдущий символ, на последний
  пробел, индукционный (на повторённом куске) — и те же показатели у ровного разброса;
- `ablation_costs` — насколько вырастет loss на проверке, если выключить голову (`ablate` урока 09).
"""

import re
from dataclasses import dataclass

import numpy as np

from course_lib._checks import check_int, check_memory, check_real, check_text
from course_lib.blas import one_blas_thread
from course_lib.props.gpt_training import evaluate
from course_lib.props.induction import ablate
from course_lib.props.tokenizer import check_token_ids

WORD = re.compile(r"[а-яё]+")


def unigram_loss(train_ids, val_ids, vocab_size, alpha=1.0):
    """Loss (наты) модели «каждый символ — с его частотой в обучающей части»: счёт + alpha, чтобы не было нулей."""
    train_ids, val_ids, alpha = _counting_inputs(train_ids, val_ids, vocab_size, alpha, "unigram_loss")
    counts = np.bincount(train_ids, minlength=vocab_size) + alpha          # (V,)
    log_p = np.log(counts / counts.sum())                                   # (V,)
    return float(-log_p[val_ids].mean())


def bigram_counts(train_ids, vocab_size, alpha=1.0):
    """Таблица (V, V): строка — символ, столбец — следующий за ним; счёт пар + alpha."""
    check_int(vocab_size, "vocab_size", "bigram_counts", meaning=" (сколько разных символов)")
    check_memory(3 * 8 * vocab_size**2, f"таблицы пар ({vocab_size}, {vocab_size}) float64", "bigram_counts",
                 "словарь поменьше: vocab_size — число разных символов текста (у урока — 175)")
    train_ids = check_token_ids(train_ids, "train_ids", "bigram_counts", ndim=1, vocab_size=vocab_size, min_length=2)
    alpha = check_real(alpha, "alpha", "bigram_counts", positive=True, meaning=" (прибавка к каждому счёту, обычно 1)")
    counts = np.full((vocab_size, vocab_size), alpha)
    # счёт пар через bincount, а не np.add.at, как в решении урока 10: этот файл ученик может открыть
    pairs = np.bincount(train_ids[:-1] * vocab_size + train_ids[1:], minlength=vocab_size**2)   # пара (a, b) — a·V + b
    counts += pairs.reshape(vocab_size, vocab_size)
    return counts


def bigram_loss(train_ids, val_ids, vocab_size, alpha=1.0):
    """Loss (наты) модели «следующий символ — по частоте после текущего» (строки bigram_counts в сумме 1)."""
    counts = bigram_counts(train_ids, vocab_size, alpha)
    val_ids = check_token_ids(val_ids, "val_ids", "bigram_loss", ndim=1, vocab_size=vocab_size, min_length=2)
    log_p = np.log(counts / counts.sum(axis=1, keepdims=True))             # (V, V)
    return float(-log_p[val_ids[:-1], val_ids[1:]].mean())


def known_word_share(sample, text):
    """Доля слов образца (русские буквы, от 3 подряд), которые встречаются в text. Нет слов — 0."""
    check_text(sample, "sample", "known_word_share", empty=True, meaning=" (образец, который написала модель)")
    check_text(text, "text", "known_word_share", empty=True, meaning=" (текст, с чьими словами сравнивать)")
    known = set(WORD.findall(text.lower()))
    words = [w for w in WORD.findall(sample.lower()) if len(w) >= 3]
    return sum(w in known for w in words) / len(words) if words else 0.0


def longest_run(sample):
    """Самый длинный повтор одного символа подряд: «аааа» -> 4."""
    check_text(sample, "sample", "longest_run", empty=True)
    return max((len(m.group()) for m in re.finditer(r"(.)\1*", sample, re.S)), default=0)


@dataclass
class HeadScores:
    """Показатели (layers, h) каждой головы — средний вес внимания:
    previous — на предыдущий символ (t -> t − 1);
    space — на последний пробел перед t, когда он не сосед (внутри слова: «где началось слово»);
    induction — на повторённом куске: от символа второй копии на символ после его места в первой (q -> q − L + 1);
    even — точка отсчёта: те же три показателя у головы, которая делит вес поровну между всеми
    символами, что видит (символу t — 1/(t + 1) на каждый): {'previous': …, 'space': …, 'induction': …}."""
    previous: np.ndarray
    space: np.ndarray
    induction: np.ndarray
    even: dict

    def best(self, name):
        """(слой, голова) с наибольшим показателем name ('previous', 'space', 'induction')."""
        score = getattr(self, name)
        return tuple(int(n) for n in np.unravel_index(np.argmax(score), score.shape))


def head_scores(model, windows, space_id, L=32):
    """HeadScores модели на окнах текста windows (K, T) — номера символов; space_id — номер пробела.

    Индукционная — на первых L символах каждого окна, повторённых дважды (K, 2L).
    """
    windows, L = _head_inputs(model, windows, space_id, L)
    with one_blas_thread():
        weights = model.attention_weights(windows)                    # (K, layers, h, T, T)
    T = windows.shape[1]
    t = np.arange(1, T)
    previous = weights[..., t, t - 1].mean(axis=(0, -1))              # (layers, h)
    rows, keys = [], []
    for k, window in enumerate(windows):
        last = -1
        for i, token in enumerate(window):
            if last >= 0 and i - last >= 2:                           # пробел есть, и он не сосед
                rows.append((k, i))
                keys.append(last)
            if token == space_id:
                last = i
    if not rows:
        raise ValueError(f"head_scores: в окнах нет ни одного пробела (space_id = {space_id}), за которым шли бы ещё "
                         "хотя бы два символа, — оценке «на последний пробел» не на чем считаться. "
                         "Окна из текста со словами, а space_id — номер пробела: tokenizer.encode(' ')[0]")
    rows, keys = np.array(rows), np.array(keys)
    space = weights[rows[:, 0], :, :, rows[:, 1], keys].mean(axis=0)  # (layers, h)
    repeated = np.concatenate([windows[:, :L], windows[:, :L]], axis=1)   # (K, 2L)
    with one_blas_thread():
        weights = model.attention_weights(repeated)
    q = np.arange(L, 2 * L - 1)                                        # второй копии, кроме последнего
    induction = weights[..., q, q - L + 1].mean(axis=(0, -1))          # (layers, h)
    even = {"previous": float(np.mean(1 / (t + 1))), "space": float(np.mean(1 / (rows[:, 1] + 1))),
            "induction": float(np.mean(1 / (q + 1)))}                 # ровный разброс: 1/(t + 1) на каждый символ
    return HeadScores(previous, space, induction, even)


def ablation_costs(model, val_windows, heads):
    """На сколько нат вырастают потери на проверке без каждой головы из heads (список пар (слой, голова)) -> (len(heads),)."""
    base = evaluate(model, val_windows)
    return np.array([evaluate(ablate(model, [head]), val_windows) - base for head in heads])


def _counting_inputs(train_ids, val_ids, vocab_size, alpha, where):
    check_int(vocab_size, "vocab_size", where, meaning=" (сколько разных символов)")
    train_ids = check_token_ids(train_ids, "train_ids", where, ndim=1, vocab_size=vocab_size)
    val_ids = check_token_ids(val_ids, "val_ids", where, ndim=1, vocab_size=vocab_size)
    alpha = check_real(alpha, "alpha", where, positive=True, meaning=" (прибавка к каждому счёту, обычно 1)")
    return train_ids, val_ids, alpha


def _head_inputs(model, windows, space_id, L):
    """Окна (K, T) номеров; space_id — номер из словаря модели; повтор (K, 2L) влезает в max_len модели.

    Модели хватает attention_weights (как у GPT); vocab_size и max_len проверяются, если они у неё есть.
    """
    if not callable(getattr(model, "attention_weights", None)):
        raise TypeError(f"head_scores: model — GPT (с attention_weights), а пришёл {type(model).__name__}")
    vocab_size = getattr(model, "vocab_size", None)
    windows = check_token_ids(windows, "windows", "head_scores", ndim=2, vocab_size=vocab_size, min_length=3)
    check_int(space_id, "space_id", "head_scores", low=0, high=None if vocab_size is None else vocab_size - 1,
              meaning=" (номер пробела в словаре)")
    max_len = getattr(model, "max_len", 2 * windows.shape[1])
    L = check_int(L, "L", "head_scores", low=2, high=max(2, min(windows.shape[1], max_len // 2)),
                  meaning=f" (длина куска для индукции: повтор (K, 2L) должен влезть в max_len = {max_len}, и L ≤ T)")
    return windows, L

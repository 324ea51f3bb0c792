"""Игрушечные задачи урока 07: на них крошечная модель учится вниманию за секунды.

- «банк» в контексте: в предложении есть «банк», одно решающее слово («реки», «кредит»,
  «варенье», …) и слова-отвлекатели в случайном порядке; ответ — смысл «банка».
- два отношения сразу: в последовательности букв каждая позиция должна назвать
  первую букву и букву прямо перед собой — одной голове внимания тут не справиться.

Словарь переводит слова в номера; незнакомое слово становится `<unk>`, а не ошибкой.
"""

import re
from dataclasses import dataclass

import numpy as np

from course_lib._checks import check_int

UNK = "<unk>"
BANK = "банк"
SENSES = ("река", "деньги", "банка")          # класс 0, 1, 2
UNCLEAR = len(SENSES)                          # класс 3: решающего слова нет — смысл не ясен
CLASS_NAMES = (*SENSES, "не ясно")
CUE_WORDS = {                                  # решающее слово -> по нему и понятен смысл
    "река": ("реки", "берег", "рыбак", "лодка", "камыш"),
    "деньги": ("деньги", "кредит", "вклад", "карта", "процент"),
    "банка": ("варенье", "огурцы", "крышка", "мёд", "компот"),
}
FILLER_WORDS = ("я", "мы", "вчера", "утром", "старый", "большой", "новый", "этот", "там", "был",
                "видел", "у", "на", "в", "за", "очень", "тихий", "наш", "снова", "возле", UNK)
LETTERS = "АБВГДЕЖЗИК"                         # алфавит задачи «два отношения»

_WORD = re.compile(r"[0-9a-zа-яё<>]+")


class Vocabulary:
    """Слова <-> номера. Незнакомое слово получает номер `<unk>` (0), а не KeyError."""

    def __init__(self, words):
        words = list(dict.fromkeys([UNK, *words]))          # <unk> первым, без повторов, порядок сохраняется
        self.words = words
        self.index = {w: i for i, w in enumerate(words)}

    def __len__(self):
        return len(self.words)

    def ids(self, tokens):
        """Список слов -> номера (T,); регистр и знаки препинания не важны: «Банк,» -> «банк»."""
        return np.array([self.index.get(normalize(t), 0) for t in tokens], dtype=np.int64)

    def known(self, token):
        """Есть ли слово в словаре (после normalize)."""
        return normalize(token) in self.index


def normalize(token):
    """«Банк,» -> «банк»: нижний регистр, без знаков препинания (ё остаётся ё)."""
    return "".join(_WORD.findall(str(token).lower()))


BANK_VOCAB = Vocabulary([BANK, *(w for cues in CUE_WORDS.values() for w in cues), *FILLER_WORDS])


class _Examples:
    """Набор примеров задачи: его длина — число последовательностей в ids (N, T)."""

    def __len__(self):
        return len(self.ids)


@dataclass
class BankData(_Examples):
    """N предложений по T слов. ids (N, T); bank, cue, labels — (N,): где «банк», где решающее слово
    (−1, если его нет), номер смысла в SENSES (или UNCLEAR)."""
    ids: np.ndarray
    bank: np.ndarray
    cue: np.ndarray
    labels: np.ndarray
    sentences: list


def bank_sentences(n, T=6, seed=0, unclear=0.25):
    """n предложений: «банк» + одно решающее слово + (T − 2) отвлекателей, порядок случайный.

    Доля `unclear` предложений — без решающего слова (класс UNCLEAR «не ясно», cue = −1):
    тогда «не ясно» нельзя угадать «по умолчанию», и каждый смысл модели приходится
    находить по слову. Отвлекатели в предложении не повторяются; `<unk>` тоже бывает
    отвлекателем — так модель учится не смотреть на незнакомые слова.
    """
    _check_count(n, "n")
    if not 0 <= unclear <= 1:
        raise ValueError(f"bank_sentences: unclear — доля предложений без решающего слова, от 0 до 1, а пришло {unclear!r}")
    check_int(T, "T", "bank_sentences", low=3, high=len(FILLER_WORDS) + 2, meaning=" (длина предложения)")
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(SENSES), size=n)                                   # (N,)
    labels[rng.random(n) < unclear] = UNCLEAR
    sentences, bank, cue = [], np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    for i, label in enumerate(labels):
        cue_word = rng.choice(CUE_WORDS[SENSES[label]]) if label != UNCLEAR else rng.choice(FILLER_WORDS)
        words = [BANK, cue_word, *rng.choice([w for w in FILLER_WORDS if w != cue_word], size=T - 2, replace=False)]
        order = rng.permutation(T)                       # order[j] — какое слово встанет на место j
        sentences.append([words[j] for j in order])
        bank[i] = np.argmax(order == 0)
        cue[i] = np.argmax(order == 1) if label != UNCLEAR else -1
    ids = np.stack([BANK_VOCAB.ids(s) for s in sentences])                         # (N, T)
    return BankData(ids, bank, cue, labels, [" ".join(s) for s in sentences])


@dataclass
class RelationsData(_Examples):
    """N последовательностей по T букв из K. ids (N, T); first, previous — (N, T − 1): ответы позиций 1…T−1."""
    ids: np.ndarray
    first: np.ndarray
    previous: np.ndarray
    K: int


def two_relations(n, T=8, K=5, seed=0):
    """Случайные последовательности из K букв; позиция t ≥ 1 должна назвать букву 0 и букву t − 1.

    Ответ на оба вопроса зависит только от позиций, а не от самих букв: без позиционной
    информации модель его не найдёт (буквы повторяются).
    """
    _check_count(n, "n")
    for name, value, low, high in (("T", T, 3, 64), ("K", K, 2, len(LETTERS))):
        check_int(value, name, "two_relations", low=low, high=high)
    ids = np.random.default_rng(seed).integers(0, K, size=(n, T))                   # (N, T)
    first = np.repeat(ids[:, :1], T - 1, axis=1)                                    # (N, T - 1)
    return RelationsData(ids, first, ids[:, :-1].copy(), int(K))


def letters(ids, numbered=False):
    """Номера букв (T,) -> ['Д', 'Г', …]; numbered=True — с номером позиции, для подписей картинок:
    ['0 Д', '1 Г', …] (буквы повторяются, а позиция у каждой своя)."""
    return [f"{t} {LETTERS[i]}" if numbered else LETTERS[i] for t, i in enumerate(np.asarray(ids))]


def _check_count(n, name):
    check_int(n, name, "задача", meaning=" (сколько примеров сделать)")

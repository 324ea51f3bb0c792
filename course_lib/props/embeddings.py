"""Статические эмбеддинги из маленького корпуса: соседи -> PPMI -> SVD -> вектор слова (урок 01).

Идея дистрибутивной семантики: слово определяется соседями. Считаем, как часто слова
встречаются рядом (окно `window`), превращаем счётчики в PPMI («насколько чаще, чем
случайно»), сжимаем таблицу (V, V) до (V, dim) через SVD. Каждая строка — вектор слова,
один на все его смыслы: «банк» у реки и «банк» с деньгами получают одну и ту же строку.
"""

import difflib
import re
from collections import Counter
from importlib import resources

import numpy as np

from course_lib._checks import check_int

# Слово — буквы (русские и латинские) и цифры, дефис внутри слова допустим: «из-за», «co2».
TOKEN_PATTERN = re.compile(r"[0-9a-zа-яё]+(?:-[0-9a-zа-яё]+)*")

# Служебные слова стоят рядом со всеми темами сразу и о смысле соседа ничего не говорят:
# при подсчёте соседей их выбрасывают, иначе «на» и «the» станут ближайшими соседями всего.
STOP_WORDS = frozenset("""
в во на и а но с со у к ко по из за от до о об при для под над без не ни же ли бы что чтобы
как так это его её их он она они я мы вы ты мне меня нам нас себе свой своё своя свои там
тут где когда если то или да все вся всё весь один одна тоже уже ещё очень
the a an of in on and to is are was were be it its with for by at from as that this
has have had his her my into than up out all over after under can should no not
""".split())


def tokenize(text):
    """Строка -> список слов в нижнем регистре; знаки препинания отбрасываются (урок 01)."""
    if not isinstance(text, str):
        raise TypeError(f"tokenize: ожидалась строка, а пришёл {type(text).__name__}")
    return TOKEN_PATTERN.findall(text.lower())


def _corpus_text(name):
    file = resources.files("course_lib.props") / "data" / f"corpus_{name}.txt"
    if not file.is_file():
        known = sorted(p.name[len("corpus_"):-len(".txt")] for p in (resources.files("course_lib.props") / "data").iterdir()
                       if p.name.startswith("corpus_") and p.name.endswith(".txt"))
        raise ValueError(f"корпуса «{name}» нет; есть: {', '.join(known)}. Например, load_corpus('ru')")
    return file.read_text(encoding="utf-8")


def load_sections(name="ru"):
    """Корпус по темам: {тема: [предложение как список слов, ...]} в порядке файла (урок 01).

    В файле строка «# тема» начинает раздел, остальные непустые строки — предложения.
    """
    sections, topic = {}, "без темы"
    for line in _corpus_text(name).splitlines():
        line = line.strip()
        if line.startswith("#"):
            topic = line.lstrip("# ").strip()
        elif line:
            sections.setdefault(topic, []).append(tokenize(line))
    return sections


def load_corpus(name="ru"):
    """Корпус курса, который лежит внутри course_lib (работает без сети): список предложений-списков слов.

    name: "ru" — русский корпус урока 01, "mole_en" — английские фразы про «mole».
    """
    return [sentence for sentences in load_sections(name).values() for sentence in sentences]


def word_topics(sections, share=0.8, min_count=2, stop_words=STOP_WORDS):
    """{слово: тема} для слов, которые встречаются не меньше min_count раз и не меньше share — в одной теме.

    sections — результат load_sections(). Слова, которые живут в нескольких темах («банк»), сюда не попадают.
    """
    counts = {}
    for topic, sentences in sections.items():
        for word in (w for sentence in sentences for w in sentence if w not in stop_words):
            counts.setdefault(word, Counter())[topic] += 1
    topics = {}
    for word, by_topic in counts.items():
        topic, n = by_topic.most_common(1)[0]
        total = sum(by_topic.values())
        if total >= min_count and n >= share * total:
            topics[word] = topic
    return topics


def build_vocab(sentences, min_count=1):
    """Словарь: слова, встретившиеся не меньше min_count раз, от частых к редким (при равенстве — по алфавиту)."""
    counts = Counter(word for sentence in sentences for word in sentence)
    kept = [word for word, count in counts.items() if count >= min_count]
    if not kept:
        raise ValueError(f"build_vocab: ни одно слово не встретилось {min_count} раз(а) — уменьшите min_count")
    return sorted(kept, key=lambda word: (-counts[word], word))   # порядок не зависит от хэшей строк


def cooccurrence(sentences, vocab, window=2):
    """Счётчики соседства (V, V): counts[i, j] — сколько раз слово j стояло в пределах window от слова i.

    Слова вне словаря пропускаются, но место в предложении занимают. Матрица симметрична.
    """
    check_int(window, "window", "cooccurrence", meaning=" (окно: сколько соседей слева и справа)")
    index = {word: i for i, word in enumerate(vocab)}
    counts = np.zeros((len(vocab), len(vocab)))                  # (V, V)
    for sentence in sentences:
        ids = np.array([index.get(word, -1) for word in sentence], dtype=int)   # (len,)
        for distance in range(1, window + 1):
            left, right = ids[:-distance], ids[distance:]        # пары слов на расстоянии distance
            both = (left >= 0) & (right >= 0)
            np.add.at(counts, (left[both], right[both]), 1)
            np.add.at(counts, (right[both], left[both]), 1)      # сосед справа — это и сосед слева
    return counts


def ppmi(counts, alpha=0.75):
    """Positive PMI (V, C): max(0, log P(w, c) / (P(w) P(c))); где пар не было — 0.

    alpha < 1 сглаживает частоты контекстов: редкие соседи не получают огромный PMI от одной встречи.
    """
    counts = np.asarray(counts, dtype=float)
    if counts.ndim != 2 or (counts < 0).any():
        raise ValueError(f"ppmi: нужна матрица неотрицательных счётчиков (V, C), а пришла форма {counts.shape}")
    total = counts.sum()
    if total == 0:
        return np.zeros_like(counts)
    p_word = counts.sum(axis=1, keepdims=True) / total           # (V, 1)
    context = counts.sum(axis=0, keepdims=True) ** alpha         # (1, C)
    p_context = context / context.sum()
    with np.errstate(divide="ignore", invalid="ignore"):         # log 0 там, где пар не было, — заменим нулём
        pmi = np.log(counts / total / (p_word * p_context))
    return np.where(counts > 0, np.maximum(pmi, 0.0), 0.0)


def svd_embeddings(matrix, dim):
    """Сжатие (V, C) -> (V, dim): первые dim столбцов U·S из SVD, лучшее приближение ранга dim.

    Знак каждого столбца фиксирован (наибольший по модулю элемент положителен): SVD определяет
    столбцы с точностью до знака, а векторы курса должны быть одинаковы на любой машине.
    """
    matrix = np.asarray(matrix, dtype=float)
    if matrix.ndim != 2:
        raise ValueError(f"svd_embeddings: нужна матрица (V, C), а пришла форма {matrix.shape}")
    check_int(dim, "dim", "svd_embeddings", high=min(matrix.shape), meaning=" (не больше меньшей стороны матрицы)")
    U, S, _ = np.linalg.svd(matrix, full_matrices=False)         # U (V, r), S (r,)
    vectors = U[:, :dim] * S[:dim]                               # (V, dim)
    biggest = np.abs(vectors).argmax(axis=0)                     # (dim,)
    signs = np.sign(vectors[biggest, np.arange(dim)])
    return vectors * np.where(signs == 0, 1.0, signs)


class StaticEmbeddings:
    """Словарь + таблица векторов (V, dim): слово -> строка таблицы, одна на все контексты (урок 01).

    vocab: список V слов; vectors: (V, dim). Сходство — косинус: 1 — одно направление, 0 — не связаны.
    """

    def __init__(self, vocab, vectors):
        vectors = np.asarray(vectors, dtype=float)
        if vectors.ndim != 2 or vectors.shape[0] != len(vocab):
            raise ValueError(f"StaticEmbeddings: нужна таблица (V, dim) и V слов, "
                             f"а пришли {vectors.shape} и {len(vocab)} слов")
        if len(set(vocab)) != len(vocab):
            raise ValueError("StaticEmbeddings: в словаре есть повторы — у каждого слова должна быть одна строка")
        self.vocab = list(vocab)
        self.vectors = vectors
        self.index = {word: i for i, word in enumerate(self.vocab)}
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)   # (V, 1)
        self._unit = vectors / np.where(norms > 0, norms, 1.0)   # нулевой вектор остаётся нулём: косинус 0

    @property
    def dim(self):
        return self.vectors.shape[1]

    def __len__(self):
        return len(self.vocab)

    def __contains__(self, word):
        return word in self.index

    def __repr__(self):
        return f"StaticEmbeddings(V={len(self)}, dim={self.dim})"

    def id(self, word):
        """Номер слова в словаре (строка таблицы); для незнакомого слова — понятная ошибка."""
        if not isinstance(word, str):
            raise TypeError(f"ожидалось слово-строка, а пришёл {type(word).__name__}: {word!r}")
        if word not in self.index:
            close = difflib.get_close_matches(word.lower(), self.vocab, n=3, cutoff=0.6)
            hint = f"Похожие слова из словаря: {', '.join(close)}." if close else "Похожих слов в словаре нет."
            raise ValueError(f"слова «{word}» нет в словаре ({len(self)} слов, только встречавшиеся в корпусе). {hint}")
        return self.index[word]

    def vector(self, word):
        """Вектор слова (dim,) — копия строки таблицы: один и тот же в любом предложении."""
        return self.vectors[self.id(word)].copy()

    def _unit_of(self, query):
        """Единичный вектор слова или данного вектора (dim,)."""
        if isinstance(query, str):
            return self._unit[self.id(query)]
        vector = np.asarray(query, dtype=float)
        if vector.shape != (self.dim,):
            raise ValueError(f"ожидалось слово или вектор формы ({self.dim},), а пришла форма {vector.shape}")
        norm = np.linalg.norm(vector)
        return vector / norm if norm > 0 else vector

    def similarities(self, query):
        """Косинусы (V,) слова или вектора (dim,) со всеми словами словаря."""
        return self._unit @ self._unit_of(query)                 # (V, dim) @ (dim,) -> (V,)

    def cosine(self, a, b):
        """Косинус между двумя словами (или векторами (dim,)): от -1 до 1."""
        return float(self._unit_of(a) @ self._unit_of(b))

    def nearest(self, query, k=5, exclude=()):
        """k ближайших слов по косинусу: [(слово, косинус), ...] от близкого к далёкому.

        query — слово (оно само в ответ не попадает) или вектор (dim,). exclude — какие слова ещё пропустить.
        """
        check_int(k, "k", "nearest", meaning=" (сколько соседей показать)")
        cosines = self.similarities(query)                       # (V,)
        skip = set(exclude) | ({query} if isinstance(query, str) else set())
        # Сначала больший косинус, округлённый до 6 знаков (дальше — шум округления, разный на разных
        # процессорах), при равенстве — частое слово раньше: порядок одинаков на любой машине.
        order = np.lexsort((np.arange(len(cosines)), -np.round(cosines, 6)))
        return [(self.vocab[i], float(cosines[i])) for i in order if self.vocab[i] not in skip][:k]


def train_static_embeddings(sentences, dim=16, window=3, min_count=2, alpha=0.75, stop_words=STOP_WORDS):
    """Предложения -> StaticEmbeddings за секунды: без служебных слов, словарь, соседи, PPMI, SVD (урок 01).

    sentences: список списков слов (например, load_corpus("ru")). Результат детерминирован.
    """
    sentences = [[word for word in sentence if word not in stop_words] for sentence in sentences]
    vocab = build_vocab(sentences, min_count)
    counts = cooccurrence(sentences, vocab, window)              # (V, V)
    vectors = svd_embeddings(ppmi(counts, alpha), min(dim, len(vocab)))   # (V, dim)
    return StaticEmbeddings(vocab, vectors)

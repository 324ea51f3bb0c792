"""Урок 01: косинус, one-hot @ таблица, ближайшие соседи — неверные ответы (с куском подсказки) и верные (None)."""

import heapq
import math

import numpy as np

import course_lib as nt
from course_lib.exercises.embeddings import check_cosine, check_nearest, check_one_hot_lookup


def cosine(a, b):
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


def cosine_loop(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def one_hot_lookup(ids, weight):
    return np.eye(weight.shape[0])[ids] @ weight


def one_hot_loop(ids, weight):
    one_hot = np.zeros((len(ids), weight.shape[0]))
    for row, token in enumerate(ids):
        one_hot[row, token] = 1.0
    return one_hot @ weight


def unit_rows(vectors):
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def nearest(word, vocab, vectors, k):
    unit = unit_rows(vectors)
    cosines = unit @ unit[vocab.index(word)]
    return [vocab[i] for i in np.argsort(-cosines) if vocab[i] != word][:k]


def nearest_with_scores(word, vocab, vectors, k):
    unit = unit_rows(vectors)
    cosines = unit @ unit[vocab.index(word)]
    return [(vocab[i], cosines[i]) for i in np.argsort(-cosines) if vocab[i] != word][:k]


def nearest_sorted(word, vocab, vectors, k):
    query = vectors[vocab.index(word)]
    others = [w for w in vocab if w != word]
    return sorted(others, key=lambda w: -cosine(vectors[vocab.index(w)], query))[:k]


def by_score(score, best_first=True):
    """Соседи по другой мере: score(векторы, вектор слова) -> (V,)."""
    def ranked(word, vocab, vectors, k):
        scores = score(vectors, vectors[vocab.index(word)])
        order = np.argsort(-scores if best_first else scores)
        return [vocab[i] for i in order if vocab[i] != word][:k]
    return ranked


def with_itself(word, vocab, vectors, k):
    unit = unit_rows(vectors)
    return [vocab[i] for i in np.argsort(-(unit @ unit[vocab.index(word)]))][:k]


def indices(word, vocab, vectors, k):
    unit = unit_rows(vectors)
    return [i for i in np.argsort(-(unit @ unit[vocab.index(word)])) if vocab[i] != word][:k]


def nearest_pairs_cosine_first(word, vocab, vectors, k):
    """Пары (косинус, слово) — так их удобно сортировать."""
    unit = unit_rows(vectors)
    cosines = unit @ unit[vocab.index(word)]
    return sorted(((float(cosines[i]), w) for i, w in enumerate(vocab) if w != word), reverse=True)[:k]


def nearest_heapq(word, vocab, vectors, k):
    query = vectors[vocab.index(word)]
    return tuple(heapq.nlargest(k, (w for w in vocab if w != word),
                                key=lambda w: cosine(vectors[vocab.index(w)], query)))


def nearest_list_indexed_by_array(word, vocab, vectors, k):
    unit = unit_rows(vectors)
    order = np.argsort(-(unit @ unit[vocab.index(word)]))
    return vocab[order[1:k + 1]]


def nearest_array_of_words(word, vocab, vectors, k):
    unit = unit_rows(vectors)
    order = [i for i in np.argsort(-(unit @ unit[vocab.index(word)])) if vocab[i] != word]
    return np.array(vocab)[order[:k]]


def one_hot_float_V(ids, weight):
    V = weight.size / weight.shape[1]
    return np.zeros((len(ids), V)) @ weight


def nearest_in_vocab_order(word, vocab, vectors, k):
    """k лучших — но в порядке словаря: так выходит у np.argpartition, который не сортирует найденные k."""
    best = set(nearest(word, vocab, vectors, k))
    return [w for w in vocab if w in best]


def nearest_argpartition(word, vocab, vectors, k):
    """Настоящий np.argpartition без сортировки: с AVX-512 NumPy отдаёт первые k по порядку, на других процессорах —
    вразнобой; проверка должна отвергать его на любой машине."""
    unit = unit_rows(vectors)
    cosines = unit @ unit[vocab.index(word)]
    cosines[vocab.index(word)] = -np.inf
    return [vocab[i] for i in np.argpartition(-cosines, k - 1)[:k]]


def nearest_argpartition_sorted(word, vocab, vectors, k):
    unit = unit_rows(vectors)
    cosines = unit @ unit[vocab.index(word)]
    cosines[vocab.index(word)] = -np.inf
    top = np.argpartition(-cosines, k - 1)[:k]
    return [vocab[i] for i in top[np.argsort(-cosines[top])]]


def nearest_ties_other_way(word, vocab, vectors, k):
    """Равные косинусы — в обратном порядке словаря: тоже верно."""
    return nearest(word, vocab[::-1], vectors[::-1], k)


def nearest_removes_word(word, vocab, vectors, k):
    i = vocab.index(word)
    vocab.remove(word)
    others = np.delete(vectors, i, axis=0)
    cosines = unit_rows(others) @ (vectors[i] / np.linalg.norm(vectors[i]))
    return [vocab[j] for j in np.argsort(-cosines)[:k]]


def one_hot_rows_loop(ids, weight):
    return np.stack([weight[i] for i in ids])


def one_hot_in_place(ids, weight):
    weight *= 1.0                                      # ничего не меняет: так можно
    ids[:] = ids                                       # и так
    return np.eye(len(weight))[ids] @ weight


def one_hot_scales_table(ids, weight):
    weight /= np.linalg.norm(weight)                   # таблица вызывающего испорчена
    return np.eye(len(weight))[ids] @ weight * np.linalg.norm(weight) ** 0


euclid = by_score(lambda vs, v: np.linalg.norm(vs - v, axis=1), best_first=False)

CASES = [
    # ---- косинус: неверные
    (check_cosine, lambda a, b: a @ b, "скалярное произведение", "dot"),
    (check_cosine, lambda a, b: a * b / (np.linalg.norm(a) * np.linalg.norm(b)), "одно число", "elementwise"),
    (check_cosine, lambda a, b: a @ b / np.linalg.norm(a), "только одного", "one-norm"),
    (check_cosine, lambda a, b: a @ b / ((a @ a) * (b @ b)), "корень", "squares"),
    (check_cosine, lambda a, b: a @ b / (np.linalg.norm(a) + np.linalg.norm(b)), "сумму длин", "sum-of-norms"),
    (check_cosine, lambda a, b: np.abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)), "модуль", "abs"),
    (check_cosine, lambda a, b: 1 - cosine(a, b), "косинусное расстояние", "cosine-distance"),
    (check_cosine, lambda a, b: np.linalg.norm(a - b), "евклидово расстояние", "euclidean"),
    (check_cosine, lambda a, b: None, "return", "no-return"),
    (check_cosine, lambda a, b: a @ b.reshape(-1, 1, 1), "в умножении матриц", "crash-matmul"),
    (check_cosine, lambda a, b: a @ b / np.linalg.norm(a) * np.linalg.norm(b), "скобки", "no-parentheses"),
    (check_cosine, lambda a, b: a.dot(b) / (a.norm() * b.norm()), "нет атрибута .norm", "norm-method"),
    (check_cosine, lambda a, b: str(cosine(a, b)), "текст", "string"),
    (check_cosine, lambda a, b: np.sum(a * b) / math.sqrt(a @ a) * math.sqrt(b @ b), "скобки", "no-parentheses-math"),
    # ---- косинус: верные
    (check_cosine, cosine, None, "norm"),
    (check_cosine, cosine_loop, None, "loops-math"),
    (check_cosine, lambda a, b: np.dot(a, b) / np.sqrt(np.sum(a ** 2) * np.sum(b ** 2)), None, "sqrt-of-product"),
    (check_cosine, lambda a, b: np.float32(cosine(a, b)), None, "float32"),
    (check_cosine, lambda a, b: np.array([[cosine(a, b)]]), None, "1x1-array"),
    (check_cosine, lambda a, b: [cosine(a, b)], None, "list-of-one"),
    (check_cosine, lambda a, b: float(np.inner(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))), None, "inner-float"),
    (check_cosine, lambda a, b: np.float32(a @ b) / np.float32(np.linalg.norm(a)) / np.float32(np.linalg.norm(b)), None,
     "float32-two-divisions"),
    (check_cosine, lambda a, b: np.einsum("i,i->", a / np.linalg.norm(a), b / np.linalg.norm(b)), None,
     "normalize-first-einsum"),
    (check_cosine, lambda a, b: (nt.tensor(a) @ nt.tensor(b)) / float(np.linalg.norm(a) * np.linalg.norm(b)), None,
     "tensor"),

    # ---- one-hot @ таблица: неверные
    (check_one_hot_lookup, lambda ids, w: np.eye(w.shape[0])[ids], "сама матрица one-hot", "one-hot-only"),
    (check_one_hot_lookup, lambda ids, w: w.T @ np.eye(w.shape[0])[ids].T, "транспонировано", "transposed"),
    (check_one_hot_lookup, lambda ids, w: np.eye(w.shape[0])[ids[::-1]] @ w, "обратном порядке", "reversed"),
    (check_one_hot_lookup, lambda ids, w: np.eye(len(ids))[ids] @ w, "а не строк таблицы", "length-T"),
    (check_one_hot_lookup, lambda ids, w: np.eye(w.shape[1])[ids] @ w, "dim = weight.shape[1]", "length-dim"),
    (check_one_hot_lookup, lambda ids, w: np.eye(w.shape[0])[:len(ids)] @ w, "а не в столбце i", "identity-rows"),
    (check_one_hot_lookup, lambda ids, w: np.eye(w.shape[0])[np.asarray(ids) + 1 if max(ids) < 4 else ids] @ w,
     "weight[ids]", "shifted-ids"),
    (check_one_hot_lookup, lambda ids, w: None, "return", "no-return"),
    (check_one_hot_lookup, one_hot_float_V, "делите через //", "float-V"),
    (check_one_hot_lookup, lambda ids, w: np.eye(len(w))[ids] * w, "поэлементная операция", "elementwise"),
    (check_one_hot_lookup, lambda ids, w: np.zeros(len(ids), len(w)) @ w, "np.zeros((T, T))", "zeros-two-args"),
    (check_one_hot_lookup, lambda ids, w: np.eye(len(w))[ids].T @ w, "one-hot транспонирован", "one-hot-T"),
    # ---- one-hot @ таблица: верные
    (check_one_hot_lookup, one_hot_lookup, None, "eye"),
    (check_one_hot_lookup, one_hot_loop, None, "loop"),
    (check_one_hot_lookup, lambda ids, w: (np.asarray(ids)[:, None] == np.arange(len(w))).astype(np.float32) @ w,
     None, "comparison-float32"),
    (check_one_hot_lookup, lambda ids, w: np.einsum("tv,vd->td", np.eye(len(w))[ids], w), None, "einsum"),
    (check_one_hot_lookup, lambda ids, w: [list(row) for row in np.eye(len(w))[ids] @ w], None, "list-of-lists"),
    (check_one_hot_lookup, lambda ids, w: np.eye(len(w), dtype=int)[ids] @ w, None, "int-one-hot"),
    (check_one_hot_lookup, lambda ids, w: nt.tensor(np.eye(len(w))[ids]) @ nt.tensor(w), None, "tensor"),
    (check_one_hot_lookup, one_hot_in_place, None, "in-place-no-change"),
    (check_one_hot_lookup, lambda ids, w: np.eye(len(w))[ids] @ w[:, :], None, "table-full-slice"),
    # ---- one-hot @ таблица: ответ верный, но без one-hot
    (check_one_hot_lookup, lambda ids, w: w[ids], "строки выбраны из таблицы напрямую", "direct-lookup"),
    (check_one_hot_lookup, lambda ids, w: np.take(w, ids, axis=0), "np.take", "take"),
    (check_one_hot_lookup, one_hot_rows_loop, "weight[i] в цикле", "rows-loop"),
    (check_one_hot_lookup, lambda ids, w: w[list(ids), :], "строки выбраны из таблицы напрямую", "direct-lookup-list"),
    (check_one_hot_lookup, one_hot_scales_table, "изменила свой вход weight на месте", "in-place-table"),

    # ---- ближайшие соседи: неверные
    (check_nearest, by_score(lambda vs, v: vs @ v), "скалярного произведения", "dot"),
    (check_nearest, euclid, "евклидову расстоянию", "euclidean"),
    (check_nearest, with_itself, "само слово", "with-itself"),
    (check_nearest, by_score(lambda vs, v: unit_rows(vs) @ (v / np.linalg.norm(v)), best_first=False),
     "самые далёкие", "farthest"),
    (check_nearest, lambda word, vocab, vectors, k: nearest(word, vocab, vectors, k + 1), "нужно ровно k = 3", "k+1"),
    (check_nearest, indices, "нужны слова", "indices"),
    (check_nearest, lambda word, vocab, vectors, k: nearest(word, vocab, vectors, 3), "нужно ровно k = 1", "k-ignored"),
    (check_nearest, lambda word, vocab, vectors, k: nearest(word, vocab, vectors, k)[::-1], "порядок не тот", "reversed"),
    (check_nearest, lambda word, vocab, vectors, k: None, "return", "no-return"),
    (check_nearest, lambda word, vocab, vectors, k: sorted(nearest(word, vocab, vectors, k)), "порядок не тот",
     "alphabetical"),
    (check_nearest, lambda word, vocab, vectors, k: [w for w in vocab[::-1] if w != word][:k], "ожидались", "vocab-tail"),
    (check_nearest, nearest_list_indexed_by_array, "[vocab[i] for i in order]", "list-indexed-by-array"),
    (check_nearest, lambda word, vocab, vectors, k: vectors[word], "слово — сначала найдите его номер", "word-as-index"),
    (check_nearest, lambda word, vocab, vectors, k: {w: 1.0 for w in nearest(word, vocab, vectors, k)},
     "верните список слов", "dict"),
    (check_nearest, nearest_in_vocab_order, "np.argpartition", "unsorted-top-k"),
    (check_nearest, nearest_argpartition, "np.argpartition", "real-argpartition"),
    (check_nearest, nearest_removes_word, "изменила свой вход vocab на месте", "in-place-vocab"),
    # ---- ближайшие соседи: верные
    (check_nearest, nearest, None, "argsort"),
    (check_nearest, nearest_with_scores, None, "pairs"),
    (check_nearest, nearest_sorted, None, "sorted-key"),
    (check_nearest, by_score(lambda vs, v: vs @ v / np.linalg.norm(vs, axis=1)), None, "query-not-normalized"),
    (check_nearest, lambda word, vocab, vectors, k: tuple(nearest(word, vocab, vectors, k)), None, "tuple"),
    (check_nearest, nearest_heapq, None, "heapq-tuple"),
    (check_nearest, nearest_array_of_words, None, "array-of-words"),
    (check_nearest, nearest_pairs_cosine_first, None, "pairs-cosine-first"),
    (check_nearest, nearest_argpartition_sorted, None, "argpartition-then-sorted"),
    (check_nearest, nearest_ties_other_way, None, "ties-other-order"),
]

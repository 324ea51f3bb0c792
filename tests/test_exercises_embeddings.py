"""Проверки упражнений урока 01: верное решение — ✅, типичные ошибки — ❌ с нужной подсказкой, заготовка — ⏳."""

import numpy as np
import pytest

from course_lib.exercises.embeddings import check_cosine, check_nearest, check_one_hot_lookup

from checker_asserts import assert_not_solved


def cosine(a, b):
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


def one_hot_lookup(ids, weight):
    one_hot = np.eye(weight.shape[0])[ids]              # (T, V)
    return one_hot @ weight                             # (T, V) @ (V, dim) -> (T, dim)


def nearest(word, vocab, vectors, k):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cosines = unit @ unit[vocab.index(word)]
    return [vocab[i] for i in np.argsort(-cosines) if vocab[i] != word][:k]


def nearest_with_scores(word, vocab, vectors, k):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cosines = unit @ unit[vocab.index(word)]
    return [(vocab[i], cosines[i]) for i in np.argsort(-cosines) if vocab[i] != word][:k]


def _dot_ranking(word, vocab, vectors, k):
    scores = vectors @ vectors[vocab.index(word)]
    return [vocab[i] for i in np.argsort(-scores) if vocab[i] != word][:k]


def _with_itself(word, vocab, vectors, k):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return [vocab[i] for i in np.argsort(-(unit @ unit[vocab.index(word)]))][:k]


def _farthest(word, vocab, vectors, k):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return [vocab[i] for i in np.argsort(unit @ unit[vocab.index(word)]) if vocab[i] != word][:k]


CHECKS = [
    (check_cosine, cosine, [
        (lambda a, b: a @ b, "скалярное произведение"),
        (lambda a, b: a * b / (np.linalg.norm(a) * np.linalg.norm(b)), "одно число"),
        (lambda a, b: a @ b / np.linalg.norm(a), "только одного"),
        (lambda a, b: a @ b / ((a @ a) * (b @ b)), "корень"),
        (lambda a, b: np.abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)), "противоположных"),
        (lambda a, b: None, "return"),
    ]),
    (check_one_hot_lookup, one_hot_lookup, [
        (lambda ids, w: np.eye(w.shape[0])[ids], "сама матрица one-hot"),
        (lambda ids, w: w.T @ np.eye(w.shape[0])[ids].T, "транспонировано"),
        (lambda ids, w: np.eye(w.shape[0])[ids[::-1]] @ w, "обратном порядке"),
        (lambda ids, w: np.eye(w.shape[0])[np.asarray(ids) + 1 if max(ids) < 4 else ids] @ w, "weight[ids]"),
        (lambda ids, w: np.eye(w.shape[1])[ids] @ w, "ZeroDivisionError|IndexError|ValueError|упала"),
    ]),
    (check_nearest, nearest, [
        (_dot_ranking, "скалярного произведения"),
        (_with_itself, "само слово"),
        (_farthest, "самые далёкие"),
        (lambda word, vocab, vectors, k: nearest(word, vocab, vectors, k + 1), "ожидалось 3 слова"),
    ]),
]


@pytest.mark.parametrize("check, right", [(c, r) for c, r, _ in CHECKS], ids=lambda x: getattr(x, "__name__", ""))
def test_stub_is_not_solved_and_right_answer_passes(check, right, capsys):
    assert_not_solved(check, capsys)
    assert check(right).passed
    assert capsys.readouterr().out.startswith("✅")


def test_nearest_accepts_word_cosine_pairs(capsys):
    assert check_nearest(nearest_with_scores).passed


@pytest.mark.parametrize("check, wrong, hint", [(c, w, h) for c, _, mistakes in CHECKS for w, h in mistakes])
def test_typical_mistakes_get_specific_hints(check, wrong, hint, capsys):
    result = check(wrong)
    assert not result.passed and result.solved
    assert any(part in result.message for part in hint.split("|")), result.message
    assert capsys.readouterr().out.startswith("❌")

"""Статические эмбеддинги (урок 01): корпус, соседство, PPMI, SVD, косинус и соседи, понятные ошибки."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.props.embeddings import (STOP_WORDS, StaticEmbeddings, build_vocab, cooccurrence, load_corpus,
                                   load_sections, ppmi, svd_embeddings, tokenize, train_static_embeddings,
                                   word_topics)
from strategies import matrices

counts_matrices = matrices(None, min_side=2, max_side=7, elements=st.integers(0, 6).map(float))


@pytest.fixture(scope="module")
def emb():
    return train_static_embeddings(load_corpus("ru"))


# ---- корпус и токены -------------------------------------------------------------------


def test_tokenize_lowercases_and_drops_punctuation():
    assert tokenize("Кот сел на тёплый коврик!") == ["кот", "сел", "на", "тёплый", "коврик"]
    assert tokenize("One mole of CO2, из-за дождя.") == ["one", "mole", "of", "co2", "из-за", "дождя"]
    with pytest.raises(TypeError, match="строка"):
        tokenize(["кот"])


def test_russian_corpus_has_hundreds_of_sentences_in_four_topics():
    sections = load_sections("ru")
    assert list(sections) == ["финансы", "река", "кухня", "животные"]
    corpus = load_corpus("ru")
    assert 400 <= len(corpus) <= 700
    assert sum(len(s) for s in sections.values()) == len(corpus)
    assert all(sentence and all(word == word.lower() for word in sentence) for sentence in corpus)


def test_bank_lives_in_two_topics_and_mole_in_three():
    ru = load_sections("ru")
    assert sum(s.count("банк") for s in ru["финансы"]) >= 20
    assert sum(s.count("банк") for s in ru["река"]) >= 20
    en = load_sections("mole_en")
    assert all(sum(s.count("mole") for s in sentences) >= 25 for sentences in en.values())


def test_unknown_corpus_names_the_known_ones():
    with pytest.raises(ValueError, match="ru.*mole_en|mole_en.*ru"):
        load_corpus("klingon")


def test_word_topics_skips_words_shared_by_topics():
    topics = word_topics(load_sections("ru"))
    assert topics["кредит"] == "финансы" and topics["лодка"] == "река"
    assert topics["варенье"] == "кухня" and topics["собака"] == "животные"
    assert "банк" not in topics                     # живёт и в финансах, и у реки
    assert not set(topics) & STOP_WORDS


# ---- словарь и счётчики соседства ---------------------------------------------------------


def test_vocab_is_sorted_by_frequency_then_alphabet():
    sentences = [["б", "а", "в"], ["а", "б"], ["г"]]
    assert build_vocab(sentences) == ["а", "б", "в", "г"]
    assert build_vocab(sentences, min_count=2) == ["а", "б"]
    with pytest.raises(ValueError, match="min_count"):
        build_vocab(sentences, min_count=9)


def test_cooccurrence_counts_the_window_and_skips_unknown_words():
    counts = cooccurrence([["кот", "сел", "на", "коврик"]], ["кот", "сел", "коврик"], window=2)
    assert counts.tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]      # «на» держит место, но не считается
    counts = cooccurrence([["кот", "сел", "на", "коврик"]], ["кот", "сел", "коврик"], window=3)
    assert counts[0, 2] == counts[2, 0] == 1                        # кот…коврик — на расстоянии 3
    with pytest.raises(ValueError, match="окно"):
        cooccurrence([["кот"]], ["кот"], window=0)


def test_cooccurrence_is_symmetric_on_the_corpus():
    corpus = load_corpus("ru")[:60]
    counts = cooccurrence(corpus, build_vocab(corpus), window=3)
    assert np.array_equal(counts, counts.T)


# ---- PPMI -------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(counts_matrices)
def test_ppmi_is_non_negative_and_zero_where_pairs_never_met(counts):
    result = ppmi(counts)
    assert result.shape == counts.shape
    assert np.all(result >= 0) and np.all(np.isfinite(result))
    assert np.all(result[counts == 0] == 0)


def test_ppmi_matches_the_formula_without_smoothing():
    counts = np.array([[4.0, 1.0], [1.0, 2.0]])
    total = counts.sum()
    expected_00 = np.log(4 / total / ((5 / total) * (5 / total)))
    assert np.isclose(ppmi(counts, alpha=1.0)[0, 0], expected_00)
    assert ppmi(counts, alpha=1.0)[0, 1] == 0                       # встречались реже, чем случайно: PMI < 0 -> 0
    with pytest.raises(ValueError, match="неотрицательных"):
        ppmi(-counts)


# ---- SVD --------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(matrices(3, min_side=2, max_side=6))
def test_full_svd_keeps_all_dot_products(matrix):
    vectors = svd_embeddings(matrix, min(matrix.shape))           # U·S: скалярные произведения строк как у M
    assert np.allclose(vectors @ vectors.T, matrix @ matrix.T, atol=1e-8)


def test_truncated_svd_is_the_best_low_rank_error():
    matrix = np.random.default_rng(0).normal(size=(8, 8))
    singular = np.linalg.svd(matrix, compute_uv=False)
    for dim in (1, 3, 6):
        vectors = svd_embeddings(matrix, dim)
        lost = np.linalg.norm(matrix @ matrix.T - vectors @ vectors.T)
        assert lost < np.linalg.norm(matrix @ matrix.T) and vectors.shape == (8, dim)
        assert np.isclose(np.linalg.norm(vectors, axis=0), singular[:dim]).all()   # длина столбца k — σ_k


def test_svd_signs_are_fixed_so_flipping_the_input_gives_the_same_vectors():
    matrix = np.random.default_rng(1).normal(size=(6, 5))
    vectors = svd_embeddings(matrix, 3)
    assert np.allclose(np.abs(vectors).max(axis=0), vectors[np.abs(vectors).argmax(axis=0), range(3)])
    with pytest.raises(ValueError, match="dim"):
        svd_embeddings(matrix, 9)


# ---- StaticEmbeddings --------------------------------------------------------------------


def test_cosine_with_itself_is_one_and_symmetric(emb):
    assert np.isclose(emb.cosine("банк", "банк"), 1.0)
    assert np.isclose(emb.cosine("банк", "деньги"), emb.cosine("деньги", "банк"))
    assert np.isclose(emb.cosine(emb.vector("кот"), "кот"), 1.0)     # вектор вместо слова тоже годится


def test_nearest_excludes_the_word_and_is_sorted(emb):
    neighbours = emb.nearest("деньги", k=8)
    words, cosines = [w for w, _ in neighbours], [c for _, c in neighbours]
    assert len(neighbours) == 8 and "деньги" not in words
    assert cosines == sorted(cosines, reverse=True)
    assert np.isclose(cosines[0], emb.cosine("деньги", words[0]))
    assert "кредит" not in [w for w, _ in emb.nearest("деньги", k=8, exclude=["кредит"])]


def test_similar_words_come_together(emb):
    topics = word_topics(load_sections("ru"))
    for word, topic in [("деньги", "финансы"), ("река", "река"), ("варенье", "кухня"), ("кот", "животные")]:
        same = sum(topics.get(w) == topic for w, _ in emb.nearest(word, k=5))
        assert same >= 2, (word, emb.nearest(word, k=5))


def test_bank_sits_between_finance_and_river(emb):
    assert emb.cosine("банк", "деньги") > 0.3 and emb.cosine("банк", "река") > 0.2
    assert emb.cosine("банк", "кот") < emb.cosine("банк", "река")


def test_build_is_deterministic(emb):
    again = train_static_embeddings(load_corpus("ru"))
    assert again.vocab == emb.vocab and np.array_equal(again.vectors, emb.vectors)


def test_vector_is_a_copy_and_has_the_table_shape(emb):
    vector = emb.vector("банк")
    assert vector.shape == (emb.dim,) and emb.vectors.shape == (len(emb.vocab), emb.dim)
    vector[:] = 0
    assert not np.allclose(emb.vector("банк"), 0)


def test_unknown_word_error_suggests_close_words(emb):
    with pytest.raises(ValueError, match="«банкк» нет в словаре.*банк"):
        emb.vector("банкк")
    with pytest.raises(ValueError, match="Похожих слов в словаре нет"):
        emb.cosine("квазар", "банк")
    with pytest.raises(TypeError, match="строка"):
        emb.vector(3)
    with pytest.raises(ValueError, match=r"формы \(16,\)"):
        emb.nearest(np.ones(3))
    with pytest.raises(ValueError, match="k"):
        emb.nearest("банк", k=0)


def test_static_embeddings_rejects_mismatched_table():
    with pytest.raises(ValueError, match="V слов"):
        StaticEmbeddings(["а", "б"], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="повторы"):
        StaticEmbeddings(["а", "а"], np.zeros((2, 2)))
    zero = StaticEmbeddings(["а", "б"], np.array([[0.0, 0.0], [1.0, 0.0]]))
    assert zero.cosine("а", "б") == 0.0                            # нулевой вектор: косинус 0, а не nan

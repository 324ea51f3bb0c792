"""Урок 07: обученное внимание — планки из задачи с фиксированными зёрнами, данные, модель, цикл.

Задача 1 («банк»): точность на новых предложениях ≥ 95 %, средний вес «банк» -> решающее слово
≥ 0.8 после обучения и ≈ 1/T до. Задача 2 (две связи): метрика — для каждой головы средний вес
запросов t = 2…T−1 на позицию t − 1 («предыдущая») и на позицию 0 («первая»); голова-«предыдущая»
≥ 0.8 на t − 1 и ≤ 0.1 на 0, голова-«первая» наоборот, и полуразность строк двух голов ≥ 0.8
(до обучения < 0.1). Время обучения печатает benchmarks/training.py, здесь — только результат.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import course_lib as nt
from course_lib.props.evaluation import bank_report, head_difference, relation_scores, relations_report
from course_lib.functional import cross_entropy
from course_lib.props.models import TinyAttention, word_embedder
from course_lib.props.tasks import (BANK, BANK_VOCAB, CLASS_NAMES, CUE_WORDS, FILLER_WORDS, SENSES, UNCLEAR, UNK,
                              Vocabulary, bank_sentences, letters, two_relations)
from course_lib.props.training import bank_loss, relations_loss, train
from gradcheck import numeric_grad
from strategies import FAST, seeds


# ---------------------------------------------------------------- конфигурации урока

def train_bank(seed=0, steps=60):
    """Задача 1 ровно как в уроке: 256 предложений, d_model = 16, одна голова, 60 шагов Adam."""
    data = bank_sentences(256, T=6, seed=seed)
    nt.manual_seed(seed)
    model = TinyAttention(len(BANK_VOCAB), len(CLASS_NAMES), d_model=16, num_heads=1)
    probe = BANK_VOCAB.ids("вчера я видел банк у реки".split())
    history = train(model, lambda m: bank_loss(m, data), steps=steps, lr=0.01, probe=probe, snapshot_every=2)
    return model, history


def train_relations(seed=0, steps=100):
    """Задача 2 как в уроке: 128 последовательностей по 8 букв из 5, две головы, позиции, 100 шагов."""
    data = two_relations(128, T=8, K=5, seed=seed)
    nt.manual_seed(seed)
    model = TinyAttention(5, 10, d_model=16, num_heads=2, max_len=8)
    history = train(model, lambda m: relations_loss(m, data), steps=steps, lr=0.01, probe=data.ids[0], snapshot_every=4)
    return model, history


@pytest.fixture(scope="module")
def bank_test_set():
    return bank_sentences(1000, T=6, seed=1)


@pytest.fixture(scope="module")
def relations_test_set():
    return two_relations(500, T=8, K=5, seed=1)


# ---------------------------------------------------------------- планки задачи 1

def test_untrained_bank_model_looks_uniformly_and_guesses(bank_test_set):
    nt.manual_seed(0)
    model = TinyAttention(len(BANK_VOCAB), len(CLASS_NAMES), d_model=16, num_heads=1)
    report = bank_report(model, bank_test_set)
    assert abs(report.cue_weight - 1 / 6) < 0.03, report
    assert report.accuracy < 0.4, report


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bank_bars_hold_after_training(seed, bank_test_set):
    model, history = train_bank(seed)
    report = bank_report(model, bank_test_set)
    assert report.accuracy >= 0.95, report
    assert report.cue_weight >= 0.8, report
    assert history.losses[-1] < 0.05 * history.losses[0]


def test_every_cue_word_outscores_every_other_word_for_the_bank_query():
    """Урок утверждает: оценки q_банк · k всех 15 решающих слов выше, чем у всех остальных."""
    model, _ = train_bank(0)
    E = model.tokens.weight.data
    scores = model.attention.W_k(E).data @ model.attention.W_q(E[BANK_VOCAB.index[BANK]]).data
    cues = np.array([any(w in c for c in CUE_WORDS.values()) for w in BANK_VOCAB.words])
    assert scores[cues].min() > scores[~cues].max()


# ---------------------------------------------------------------- планки задачи 2

def test_untrained_heads_look_alike(relations_test_set):
    nt.manual_seed(0)
    report = relations_report(TinyAttention(5, 10, d_model=16, num_heads=2, max_len=8), relations_test_set)
    assert report.difference < 0.1, report
    assert np.all(np.abs(report.previous - 1 / 8) < 0.03) and np.all(np.abs(report.first - 1 / 8) < 0.03), report


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_heads_divide_the_work(seed, relations_test_set):
    model, _ = train_relations(seed)
    report = relations_report(model, relations_test_set)
    previous_head, first_head = report.head_roles()
    assert previous_head != first_head, report
    assert report.previous[previous_head] >= 0.8 and report.first[previous_head] <= 0.1, report
    assert report.first[first_head] >= 0.8 and report.previous[first_head] <= 0.1, report
    assert report.difference >= 0.8, report
    assert report.accuracy >= 0.95, report


# ---------------------------------------------------------------- воспроизводимость и градиент

def test_training_is_deterministic_with_manual_seed():
    model_a, history_a = train_bank(0, steps=15)
    model_b, history_b = train_bank(0, steps=15)
    assert np.array_equal(history_a.losses, history_b.losses)
    assert np.array_equal(history_a.snapshots, history_b.snapshots)
    for (name, a), (_, b) in zip(model_a.named_parameters(), model_b.named_parameters()):
        assert np.array_equal(a.data, b.data), name
    _, history_c = train_bank(1, steps=15)
    assert not np.array_equal(history_a.losses, history_c.losses)


@pytest.mark.parametrize("task", ["bank", "relations"])
def test_training_step_gradient_matches_finite_differences(task):
    """Градиент loss по каждому параметру крошечной модели — как у центральных разностей (float64)."""
    rng = np.random.default_rng(0)
    nt.manual_seed(3)
    model = TinyAttention(vocab_size=6, num_classes=4, d_model=4, num_heads=2, max_len=5)
    ids = rng.integers(0, 6, size=(3, 5))
    if task == "bank":
        read_at, labels = np.array([0, 2, 4]), np.array([0, 3, 1])

        def loss_fn(m):
            return cross_entropy(m(ids, read_at=read_at), labels)
    else:
        data = two_relations(3, T=5, K=2, seed=0)

        def loss_fn(m):
            return relations_loss(m, data)

    named = list(model.named_parameters())
    model.zero_grad()
    loss_fn(model).backward()
    analytic = [p.grad.copy() for _, p in named]

    def loss_at(*arrays):
        for (_, p), a in zip(named, arrays):
            p.data = a
        with nt.no_grad():
            return loss_fn(model).item()

    numeric = numeric_grad(loss_at, [p.data.copy() for _, p in named])
    for (name, _), got, expected in zip(named, analytic, numeric):
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-8), (
            f"{name}: наибольшее расхождение {np.abs(got - expected).max():.2e}")


# ---------------------------------------------------------------- train()

def test_train_records_losses_and_snapshots():
    model, history = train_bank(0, steps=7)
    assert history.losses.shape == (7,)
    assert history.snapshot_steps.tolist() == [0, 2, 4, 6, 7]        # до обучения, каждые 2 и последний
    assert history.snapshots.shape == (5, 1, 6, 6)
    assert np.allclose(history.snapshots.sum(axis=-1), 1)
    assert np.allclose(history.snapshots[-1], model.attention_weights(BANK_VOCAB.ids("вчера я видел банк у реки".split())))


@pytest.mark.parametrize("kwargs, match", [
    ({"steps": 0}, "steps"), ({"steps": 2.5}, "steps"), ({"steps": 3, "snapshot_every": 0}, "snapshot_every"),
])
def test_train_rejects_bad_arguments(kwargs, match):
    nt.manual_seed(0)
    model = TinyAttention(4, 2)
    with pytest.raises((TypeError, ValueError), match=match):
        train(model, lambda m: m(np.zeros((1, 3), dtype=int), read_at=[0]).sum(), **kwargs)


# ---------------------------------------------------------------- данные

def test_bank_sentences_are_well_formed():
    data = bank_sentences(300, T=6, seed=4)
    assert data.ids.shape == (300, 6) and len(data.sentences) == 300
    unclear = data.labels == UNCLEAR
    assert 0.15 < unclear.mean() < 0.35                                # доля «не ясно» ≈ 0.25
    for sentence, ids, bank, cue, label in zip(data.sentences, data.ids, data.bank, data.cue, data.labels):
        words = sentence.split()
        assert words.count(BANK) == 1 and words[bank] == BANK and ids[bank] == BANK_VOCAB.index[BANK]
        cues = [w for w in words if any(w in c for c in CUE_WORDS.values())]
        if label == UNCLEAR:
            assert cue == -1 and cues == []
        else:
            assert cues == [words[cue]] and words[cue] in CUE_WORDS[SENSES[label]]
        fillers = [w for w in words if w in FILLER_WORDS]
        assert len(fillers) == len(set(fillers)) == 6 - 1 - (label != UNCLEAR)
    assert set(data.bank.tolist()) == set(range(6))                   # «банк» бывает на любом месте


def test_bank_sentences_are_reproducible_and_validate_input():
    a, b = bank_sentences(20, seed=3), bank_sentences(20, seed=3)
    assert a.sentences == b.sentences and np.array_equal(a.ids, b.ids)
    assert bank_sentences(20, seed=4).sentences != a.sentences
    for kwargs, match in [({"n": 0}, "n"), ({"n": 5, "T": 2}, "T"), ({"n": 5, "unclear": 1.5}, "unclear")]:
        with pytest.raises(ValueError, match=match):
            bank_sentences(**kwargs)


def test_two_relations_answers_are_first_and_previous():
    data = two_relations(10, T=6, K=3, seed=0)
    assert data.ids.shape == (10, 6) and data.ids.max() < 3
    for t in range(1, 6):
        assert np.array_equal(data.first[:, t - 1], data.ids[:, 0])
        assert np.array_equal(data.previous[:, t - 1], data.ids[:, t - 1])
    assert letters([0, 1, 0]) == ["А", "Б", "А"] and letters([2], numbered=True) == ["0 В"]
    with pytest.raises(ValueError, match="K"):
        two_relations(3, K=1)


def test_vocabulary_maps_unknown_words_to_unk():
    vocab = Vocabulary(["банк", "реки", "банк"])
    assert vocab.words == [UNK, "банк", "реки"] and len(vocab) == 3
    assert vocab.ids(["Банк,", "РЕКИ!", "абырвалг", ""]).tolist() == [1, 2, 0, 0]
    assert vocab.known("Банк") and not vocab.known("банке")


# ---------------------------------------------------------------- модель и встраивание в исследователь

def test_model_shapes_and_errors():
    nt.manual_seed(0)
    model = TinyAttention(7, 3, d_model=8, num_heads=2, max_len=5)
    ids = np.zeros((2, 5), dtype=int)
    assert model(ids).shape == (2, 5, 3)
    assert model(ids, read_at=[1, 4]).shape == (2, 3)
    assert model.attention_weights(ids[0]).shape == (2, 5, 5)
    with pytest.raises(ValueError, match=r"\(N, T\)"):
        model(ids[0])
    with pytest.raises(ValueError, match="позиций"):
        model(np.zeros((1, 6), dtype=int))
    with pytest.raises(ValueError, match="vocab_size"):
        TinyAttention(0, 3)


def test_word_embedder_is_model_embed_with_unknown_words():
    nt.manual_seed(0)
    model = TinyAttention(len(BANK_VOCAB), 4, d_model=8, max_len=4)
    embed = word_embedder(model, BANK_VOCAB)
    X = embed(["банк", "абырвалг", "реки"])
    assert X.shape == (3, 8)
    unk = model.tokens.weight.data[0] + model.positions.weight.data[1]
    assert np.allclose(X[1], unk)                                      # незнакомое слово -> <unk>
    with pytest.raises(ValueError, match="позиций выучено 4"):          # те же правила, что у model.embed
        embed("банк у реки и ещё много слов".split())


def test_trained_model_plugs_into_the_main_explorer():
    from course_lib.widgets.explorer import attention_view

    model, _ = train_bank(0)
    view = attention_view("вчера я видел банк у реки", T=6, query=3, model=model.attention,
                          embed=word_embedder(model, BANK_VOCAB))
    assert view.weights.shape == (1, 6, 6)
    assert view.weights[0, 3, 5] > 0.9                                # «банк» смотрит на «реки»


# ---------------------------------------------------------------- метрики голов

def test_relation_scores_on_hand_made_heads():
    T = 5
    previous_head = np.eye(T, k=-1)
    previous_head[0, 0] = 1                                           # первой строке смотреть «назад» некуда
    first_head = np.zeros((T, T))
    first_head[:, 0] = 1
    weights = np.stack([previous_head, first_head])                  # (2, T, T)
    previous, first = relation_scores(weights)
    assert np.allclose(previous, [1, 0]) and np.allclose(first, [0, 1])
    assert head_difference(weights) == pytest.approx(1.0)
    assert head_difference(np.stack([first_head, first_head])) == 0
    with pytest.raises(ValueError, match="T ≥ 3"):
        relation_scores(np.ones((2, 2, 2)))


@FAST
@given(seeds, st.integers(3, 7))
def test_head_difference_is_a_symmetric_distance_between_0_and_1(seed, T):
    scores = np.random.default_rng(seed).normal(scale=3, size=(2, T, T))
    weights = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    d = head_difference(weights)
    assert 0 <= d <= 1
    assert d == pytest.approx(head_difference(weights[::-1]))
    previous, first = relation_scores(weights)
    assert np.all((0 <= previous) & (previous <= 1)) and np.all((0 <= first) & (first <= 1))

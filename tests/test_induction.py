"""Индукционная голова (урок 09): задача, измерения голов, абляция, генерация — и планки issue 13 на зёрнах 0, 1, 2.

Планки: V = 32 (+ BOS); на каждом зерне loss второй копии < 1.0 нат; в слое 1 есть голова с
prefix-matching ≥ 0.6; в слое 0 — с previous-token ≥ 0.5; её выключение возвращает loss второй
копии к ≥ 0.8·ln V; однослойная модель с теми же шагами, батчем и lr остаётся ≥ 1.3 нат.
"""

import numpy as np
import pytest

import course_lib as nt
from course_lib.props.generation import generate_with_cache, generate_without_cache
from course_lib.props.induction import (BOS, VOCAB, ablate, attention_only, copy_accuracy, copy_losses,
                                        copy_positions, random_batch, repeated_blocks, token_losses)
from course_lib.props import induction_training
from course_lib.props.induction_training import (evaluate, forget_runs, phase_change_step, prefix_matching_scores,
                                                 previous_token_scores, smooth, train_induction)

STEPS = 1000                   # как в уроке: батч 32, Adam, lr 0.01
LN_V = np.log(VOCAB)


# ---------------------------------------------------------------- задача

def test_sequences_are_bos_then_the_same_block_twice():
    ids = repeated_blocks(5, 7, np.random.default_rng(0))
    assert ids.shape == (5, 15)
    assert (ids[:, 0] == BOS).all() and ids[:, 1:].max() < VOCAB
    assert np.array_equal(ids[:, 1:8], ids[:, 8:])
    lengths = {random_batch(4, np.random.default_rng(seed)).shape[1] for seed in range(60)}
    assert lengths == {1 + 2 * L for L in range(6, 13)}              # все длины 6…12, и только они


def test_copy_positions_bet_on_the_copies():
    first, second = copy_positions(1 + 2 * 5)
    assert list(first) == [0, 1, 2, 3, 4]                            # ставки на токены 1…5 — первая копия
    assert list(second) == [6, 7, 8, 9]                              # на токены 7…10: вторая копия со второго


def test_copy_losses_of_a_perfect_copier_and_of_a_uniform_guesser():
    ids = repeated_blocks(3, 6, np.random.default_rng(1))
    uniform = np.zeros((3, 13, VOCAB + 1))
    first, second = copy_losses(uniform, ids)
    assert np.isclose(first, np.log(VOCAB + 1)) and np.isclose(second, np.log(VOCAB + 1))
    cheat = np.full((3, 13, VOCAB + 1), -50.0)
    cheat[np.arange(3)[:, None], np.arange(12), ids[:, 1:]] = 50.0   # в позиции t — ставка на токен t + 1
    assert copy_losses(cheat, ids) == pytest.approx((0.0, 0.0), abs=1e-12)
    assert token_losses(cheat, ids).shape == (3, 12)


def test_head_scores_on_hand_made_patterns():
    L, T = 4, 9
    t = np.arange(T)
    previous = np.zeros((T, T))
    previous[t, np.maximum(t - 1, 0)] = 1.0
    induction = np.zeros((T, T))
    induction[t, 0] = 1.0                                            # первая копия — на BOS
    q = np.arange(L + 1, 2 * L + 1)
    induction[q] = 0.0
    induction[q, q - L + 1] = 1.0                                    # вторая — на «после прошлого раза»
    weights = np.stack([previous, induction])
    assert np.allclose(previous_token_scores(weights), [1.0, 1 / 8])
    assert np.allclose(prefix_matching_scores(weights), [0.0, 1.0])


def test_smooth_and_phase_change():
    assert np.allclose(smooth([1.0, 3.0, 5.0, 7.0], window=2), [1.0, 2.0, 4.0, 6.0])
    curve = np.r_[np.full(100, LN_V), np.full(100, 0.2)]
    assert 100 < phase_change_step(curve) <= 125                     # окно 25 догоняет обрыв
    assert phase_change_step(np.full(50, LN_V)) is None


# ---------------------------------------------------------------- модель

def test_ablate_zeroes_only_that_heads_rows_of_a_copy():
    nt.manual_seed(0)
    model = attention_only(2)
    before = [p.data.copy() for p in model.parameters()]
    ablated = ablate(model, [(0, 1)])
    assert all(np.array_equal(b, p.data) for b, p in zip(before, model.parameters()))   # исходная не тронута
    W_o = ablated.blocks[0].attention.W_o.weight.data                                       # (D, D), d_head = 16
    assert (W_o[16:] == 0).all() and np.array_equal(W_o[:16], model.blocks[0].attention.W_o.weight.data[:16])
    assert np.array_equal(ablated.blocks[1].attention.W_o.weight.data, model.blocks[1].attention.W_o.weight.data)


def test_generation_with_cache_equals_generation_without_it():
    nt.manual_seed(1)
    model = attention_only(2)
    prompt = repeated_blocks(3, 6, np.random.default_rng(2))[:, :8]
    ids_cached, logits_cached = generate_with_cache(model, prompt, steps=10)
    ids_full, logits_full = generate_without_cache(model, prompt, steps=10)
    assert np.array_equal(ids_cached, ids_full)
    assert np.abs(logits_cached - logits_full).max() < 1e-10


def test_full_blocks_generate_with_cache_too():
    nt.manual_seed(2)
    from course_lib.props.induction import TinyLM
    model = TinyLM([nt.nn.TransformerBlock(16, 2) for _ in range(2)], d_model=16)
    prompt = repeated_blocks(2, 5, np.random.default_rng(3))[:, :7]
    assert np.array_equal(generate_with_cache(model, prompt, 6)[0], generate_without_cache(model, prompt, 6)[0])


def test_bad_block_length_is_explained():
    with pytest.raises(ValueError, match="длина блока"):
        repeated_blocks(2, 0, np.random.default_rng(0))


def test_training_is_reproducible_from_seed():
    runs = []
    for _ in range(2):
        forget_runs()                                      # второй раз — настоящее обучение, а не память
        nt.manual_seed(3)
        model = attention_only(1)
        runs.append(train_induction(model, steps=5, seed=3).losses)
    assert np.array_equal(runs[0], runs[1])


def test_a_repeated_training_comes_from_memory_with_the_same_weights_and_history():
    forget_runs()
    nt.manual_seed(5)
    trained = attention_only(1)
    first = train_induction(trained, steps=6, seed=1)
    assert first.seconds > 0
    nt.manual_seed(5)
    again = attention_only(1)                              # те же начальные веса, те же аргументы
    second = train_induction(again, steps=6, seed=1)
    assert len(induction_training._RUNS) == 1, "повторный вызов учил заново"
    for (name, a), (_, b) in zip(trained.named_parameters(), again.named_parameters()):
        np.testing.assert_array_equal(a.data, b.data, err_msg=name)
    np.testing.assert_array_equal(first.losses, second.losses)
    assert second.seconds == first.seconds                 # время настоящего обучения, а не доли миллисекунды
    second.losses[:] = 0                                   # ученик портит свою копию истории…
    again.parameters()[0].data += 1                        # …и веса своей модели
    nt.manual_seed(5)
    third = attention_only(1)
    np.testing.assert_array_equal(train_induction(third, steps=6, seed=1).losses, first.losses)   # память цела
    train_induction(again, steps=6, seed=1)                # другие начальные веса — другой прогон
    nt.manual_seed(5)
    train_induction(attention_only(1), steps=6, seed=2)    # другое зерно батчей — другой прогон
    assert len(induction_training._RUNS) == 3


def test_training_something_that_is_not_a_model_is_explained():
    with pytest.raises(TypeError, match="train_induction учит модель"):
        train_induction("attention_only(2)", steps=5, seed=0)


# ---------------------------------------------------------------- планки на трёх зёрнах

# Зерно 0 — то, что учит урок 09; зёрна 1 и 2 (по 12 с) — метка slow: их гоняет CI (make test MARKS=), не make test.
@pytest.fixture(scope="module", params=[0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)],
                ids=lambda s: f"seed{s}")
def trained(request):
    seed = request.param
    nt.manual_seed(seed)
    model = attention_only(2)
    history = train_induction(model, steps=STEPS, seed=seed)
    nt.manual_seed(seed)
    one_layer = attention_only(1)
    train_induction(one_layer, steps=STEPS, seed=seed)
    return model, history, evaluate(model), evaluate(one_layer)


def test_two_layers_learn_to_copy_and_the_first_copy_stays_near_ln_v(trained):
    model, history, report, _ = trained
    assert report.second < 1.0
    assert abs(report.first - LN_V) < 0.4
    assert phase_change_step(history.second) < STEPS // 2


def test_heads_get_their_roles(trained):
    _, _, report, _ = trained
    assert report.previous[report.previous_head()] >= 0.5
    assert report.prefix[report.induction_head()] >= 0.6
    assert report.induction_head()[0] == 1


def test_ablating_the_previous_token_head_breaks_copying_and_the_other_does_not(trained):
    model, _, report, _ = trained
    layer, head = report.previous_head()
    assert evaluate(ablate(model, [(layer, head)])).second >= 0.8 * LN_V
    assert evaluate(ablate(model, [(layer, 1 - head)])).second < 1.0


def test_one_layer_control_cannot_copy(trained):
    *_, one_layer_report = trained
    assert one_layer_report.second >= 1.3


def test_trained_model_copies_unseen_sequences(trained):
    model = trained[0]
    assert copy_accuracy(model, N=100, length=9, seed=6) >= 0.85       # зерно урока (0) — почти 1.0


def test_fixed_length_is_a_positional_shortcut():
    nt.manual_seed(0)
    model = attention_only(1)
    train_induction(model, steps=500, seed=0, lengths=(8, 8))
    assert evaluate(model, lengths=(8, 8)).second < 0.1
    assert min(evaluate(model, lengths=(L, L)).second for L in (6, 7, 9, 12)) > LN_V

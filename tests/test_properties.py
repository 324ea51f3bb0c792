"""Свойства функций внимания на случайных входах (hypothesis).

softmax даёт распределение и не боится больших чисел; самовнимание эквивариантно
к перестановкам; причинная маска не пускает будущее в прошлое; MultiHeadAttention —
это h отдельных голов на срезах весов, склеенные и умноженные на W_o.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import course_lib as nt
from strategies import FAST, float_arrays, matrices, qkv, seeds

pytestmark = pytest.mark.usefixtures("path")   # каждый тест — по книге и под nt.fast() (conftest.py)


@st.composite
def attention_setups(draw, max_T=6):
    """(mha, x): случайная MultiHeadAttention и вход (N, T, d_model) для неё."""
    num_heads = draw(st.integers(1, 3))
    d_head = draw(st.integers(1, 4))
    N, T = draw(st.integers(1, 2)), draw(st.integers(1, max_T))
    causal = draw(st.booleans())
    nt.manual_seed(draw(seeds))
    mha = nt.MultiHeadAttention(num_heads * d_head, num_heads, causal=causal)
    x = draw(float_arrays((N, T, num_heads * d_head), 3))
    return mha, x


# ---- softmax --------------------------------------------------------------------------

@FAST
@given(x=matrices(50), axis=st.sampled_from([0, 1, -1]))
def test_softmax_gives_probabilities(x, axis):
    weights = nt.softmax(x, axis=axis)
    assert weights.shape == x.shape
    assert (weights >= 0).all() and (weights <= 1).all(), "веса softmax должны лежать в [0, 1]"
    sums = weights.sum(axis=axis)
    assert np.allclose(sums, 1.0, atol=1e-12), f"строки softmax должны давать в сумме 1, а дают {sums}"


@FAST
@given(data=st.data(), x=matrices(50))
def test_softmax_ignores_a_constant_added_to_a_row(data, x):
    shift = data.draw(float_arrays((x.shape[0], 1), 100), label="shift")
    assert np.allclose(nt.softmax(x + shift), nt.softmax(x), atol=1e-10), (
        "softmax(x + c) должен совпадать с softmax(x), если c одно на всю строку"
    )


@FAST
@given(x=matrices(1e6).map(lambda m: np.where(np.abs(m) > 5e5, np.sign(m) * 1e6, m)))
def test_softmax_is_finite_and_quiet_for_huge_scores(x):
    with warnings.catch_warnings(), np.errstate(over="raise", divide="raise", invalid="raise"):
        warnings.simplefilter("error")                  # любое предупреждение — провал
        leaf = nt.tensor(x, requires_grad=True)
        weights = nt.softmax(leaf)
        (weights * np.linspace(-1, 1, x.size).reshape(x.shape)).sum().backward()
    assert np.isfinite(weights.data).all(), f"softmax дал не-числа для оценок до ±1e6: {weights.data}"
    assert np.allclose(weights.data.sum(axis=-1), 1.0), "даже для огромных оценок строки дают в сумме 1"
    top = x.argmax(axis=-1)
    assert np.allclose(weights.data[np.arange(len(x)), top], weights.data.max(axis=-1)), "больше всего веса — у наибольшей оценки"
    assert np.isfinite(leaf.grad).all(), "градиент softmax для огромных оценок тоже должен быть конечным"


# ---- самовнимание и порядок токенов ---------------------------------------------------------

@FAST
@given(setup=attention_setups(), data=st.data())
def test_attention_without_mask_is_permutation_equivariant(setup, data):
    mha, x = setup
    mha.causal = False
    T = x.shape[1]
    perm = np.array(data.draw(st.permutations(range(T)), label="perm"))
    out = mha(x).data
    attn = mha.attn
    out_perm = mha(x[:, perm]).data
    assert np.allclose(out_perm, out[:, perm], atol=1e-10), (
        f"переставили токены {perm.tolist()} — выход должен переставиться так же и больше не измениться"
    )
    assert np.allclose(mha.attn, attn[:, :, perm][:, :, :, perm], atol=1e-12), "веса внимания тоже должны переставиться"


@FAST
@given(setup=attention_setups(), data=st.data())
def test_causal_attention_does_not_look_into_the_future(setup, data):
    mha, x = setup
    mha.causal = True
    N, T, D = x.shape
    i = data.draw(st.integers(0, T - 1), label="i")
    changed = x.copy()
    changed[:, i + 1:] = data.draw(float_arrays((N, T - i - 1, D), 3), label="future")
    padding = None
    if data.draw(st.booleans(), label="с маской паддинга"):               # causal=True должно сочетаться с маской
        lengths = np.array(data.draw(st.lists(st.integers(1, T), min_size=N, max_size=N), label="lengths"))
        padding = (np.arange(T) < lengths[:, None])[:, None, None, :]      # (N, 1, 1, T)
    before, after = mha(x, padding).data, mha(changed, padding).data
    assert np.allclose(before[:, : i + 1], after[:, : i + 1], atol=1e-12), (
        f"поменяли токены после позиции {i}, а выходы на позициях 0…{i} изменились: будущее протекло в прошлое"
    )
    assert not np.triu(mha.attn, k=1).any(), "при causal=True веса над диагональю (на будущие токены) должны быть нулями"


def test_without_causal_mask_the_future_does_change_the_past():
    nt.manual_seed(0)
    x = np.random.default_rng(0).normal(size=(1, 5, 8))
    changed = x.copy()
    changed[:, 3:] += 1.0
    for causal in (False, True):
        mha = nt.MultiHeadAttention(8, 2, causal=causal)
        before, after = mha(x).data[:, :3], mha(changed).data[:, :3]
        if causal:
            assert np.allclose(before, after), "с causal=True выходы 0…2 не должны зависеть от токенов 3, 4"
        else:
            assert not np.allclose(before, after), (
                "без маски выходы 0…2 должны зависеть от токенов 3, 4 — иначе проверка причинности выше ничего не доказывает"
            )


# ---- MultiHeadAttention = головы на срезах весов -----------------------------------------

def _reference_multi_head(mha, x):
    """То же вычисление на чистом NumPy: каждая голова со своими столбцами W_q, W_k, W_v."""
    d, T = mha.d_head, x.shape[1]
    heads, all_weights = [], []
    for h in range(mha.num_heads):
        cols = slice(h * d, (h + 1) * d)
        Q = x @ mha.W_q.weight.data[:, cols] + mha.W_q.bias.data[cols]     # (N, T, d_head)
        K = x @ mha.W_k.weight.data[:, cols] + mha.W_k.bias.data[cols]
        V = x @ mha.W_v.weight.data[:, cols] + mha.W_v.bias.data[cols]
        scores = Q @ K.swapaxes(-1, -2) / np.sqrt(d)                        # (N, T, T)
        if mha.causal:
            scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        heads.append(weights @ V)
        all_weights.append(weights)
    context = np.concatenate(heads, axis=-1)                                # (N, T, d_model)
    return context @ mha.W_o.weight.data + mha.W_o.bias.data, np.stack(all_weights, axis=1)


@FAST
@given(setup=attention_setups())
def test_multi_head_equals_separate_heads_on_weight_slices(setup):
    mha, x = setup
    expected_out, expected_weights = _reference_multi_head(mha, x)
    out = mha(x).data
    assert np.allclose(out, expected_out, atol=1e-10), (
        f"MultiHeadAttention(d_model={mha.d_model}, h={mha.num_heads}, causal={mha.causal}) разошлась с "
        f"головами на срезах весов: max ошибка {np.abs(out - expected_out).max():.2e}"
    )
    assert np.allclose(mha.attn, expected_weights, atol=1e-12), "веса голов в .attn не совпали с весами отдельных голов"


@FAST
@given(num_heads=st.integers(1, 8), d_head=st.integers(1, 8))
def test_number_of_parameters(num_heads, d_head):
    d = num_heads * d_head
    mha = nt.MultiHeadAttention(d, num_heads)
    assert mha.num_params() == 4 * d * d + 4 * d, f"d_model={d}: ждали 4·d² + 4·d = {4 * d * d + 4 * d}, а насчитали {mha.num_params()}"
    assert mha.num_params() == nt.MultiHeadAttention(d, 1).num_params(), "число голов не должно менять число параметров"


# ---- полностью закрытые строки маски ----------------------------------------------------------

@FAST
@given(data=st.data(), inputs=qkv(lead=st.just((2,)), max_T=5, max_d=4, bound=3))
def test_fully_masked_rows_give_zero_weights_and_zero_context(data, inputs):
    q, k, v = inputs
    mask = data.draw(arrays(bool, q.shape[:-1] + k.shape[-2:-1]), label="mask")     # (2, T_q, T_k)
    blocked = ~mask.any(axis=-1)                                     # (2, T_q): запросу некуда смотреть
    leaves = [nt.tensor(t, requires_grad=True) for t in (q, k, v)]
    context, weights = nt.scaled_dot_product_attention(*leaves, mask)
    (context.sum() + weights.sum()).backward()

    assert (weights.data[blocked] == 0).all(), "у запроса, которому всё закрыто, веса должны быть нулями"
    assert (context.data[blocked] == 0).all(), "у запроса, которому всё закрыто, context должен быть нулём"
    assert (weights.data[~mask] == 0).all(), "закрытые маской ключи должны получать вес 0"
    assert np.allclose(weights.data[~blocked].sum(axis=-1), 1.0), "открытые строки весов должны давать в сумме 1"
    for name, leaf in zip("qkv", leaves):
        assert np.isfinite(leaf.grad).all(), f"градиент по {name} при закрытых строках должен быть конечным (без nan)"


def test_fully_padded_sequence_in_multi_head_attention():
    nt.manual_seed(0)
    mha = nt.MultiHeadAttention(8, 2)
    x = np.random.default_rng(1).normal(size=(2, 3, 8))
    padding = np.array([[True, True, False], [False, False, False]])[:, None, None, :]   # (N, 1, 1, T)
    out = mha(x, padding).data
    assert (mha.attn[1] == 0).all(), "вторая последовательность вся из паддинга: её веса должны быть нулями"
    assert np.allclose(out[1], mha.W_o.bias.data), "нулевой context после W_o — это ровно bias W_o"
    assert (mha.attn[0, :, :, 2] == 0).all(), "на паддинг (позиция 2) первой последовательности никто не смотрит"


@pytest.mark.parametrize("T_q, T_k", [(5, 5), (2, 5), (1, 4)])
def test_causal_flag_is_the_causal_mask_aligned_to_the_last_keys(T_q, T_k):
    """causal=True — то же, что маска «ключ не правее запроса»; при T_q < T_k запросы — последние T_q позиций."""
    q, k, v = (np.random.default_rng(i).normal(size=(2, T, 3)) for i, T in enumerate((T_q, T_k, T_k)))
    padding = np.array([True] * (T_k - 1) + [False])                   # последний ключ закрыт ещё и паддингом
    past = np.tril(np.ones((T_k, T_k), dtype=bool))[T_k - T_q:]        # строки последних T_q запросов
    for mask in (None, padding):
        expected = past if mask is None else past & mask
        by_flag = nt.scaled_dot_product_attention(q, k, v, mask, causal=True)
        by_mask = nt.scaled_dot_product_attention(q, k, v, expected)
        for flag_result, mask_result in zip(by_flag, by_mask):
            assert np.array_equal(flag_result, mask_result), f"causal=True при T_q={T_q}, T_k={T_k} разошёлся с маской"


@FAST
@given(T=st.integers(1, 64))
def test_causal_mask_is_lower_triangle(T):
    mask = nt.causal_mask(T)
    assert mask.dtype == bool, f"маска должна быть булевой, а она {mask.dtype}"
    assert np.array_equal(mask, np.tril(np.ones((T, T))).astype(bool)), f"causal_mask({T}) — не нижний треугольник с диагональю"

"""Слои блока трансформера (урок 09): GELU, LayerNorm, FeedForward, TransformerBlock.

Три слоя проверок: градиенты против конечных разностей (float64), свойства на случайных
входах (hypothesis), равенство PyTorch по эталону tests/data/torch_layers.npz
(его пишет tests/make_torch_reference.py в отдельном окружении с torch) и русские ошибки.
"""

import pathlib

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import course_lib as nt
from course_lib.functional import gelu
from gradcheck import assert_grads_match, gradcheck_module, set_param
from strategies import FAST, float_arrays, rng, seeds

pytestmark = pytest.mark.usefixtures("path")   # каждый тест — по книге и под nt.fast() (conftest.py)

REFERENCE = np.load(pathlib.Path(__file__).parent / "data" / "torch_layers.npz")


# ---- градиенты ----------------------------------------------------------------------

def test_gelu_gradient():
    x = np.concatenate([np.linspace(-4, 4, 9), rng(1).normal(size=7) * 2]).reshape(4, 4)
    assert_grads_match(gelu, [x], names=["x"])


def test_layer_norm_gradients_with_non_trivial_weight_and_bias():
    nt.manual_seed(0)
    ln = nt.LayerNorm(6)
    ln.weight.data = rng(2).normal(size=6)
    ln.bias.data = rng(3).normal(size=6)
    gradcheck_module(ln, rng(4).normal(size=(2, 3, 6)) * 3 + 1)


def test_feed_forward_gradients():
    nt.manual_seed(1)
    gradcheck_module(nt.FeedForward(4, 16), rng(5).normal(size=(2, 3, 4)))


@pytest.mark.parametrize("causal", [False, True])
def test_transformer_block_gradients(causal):
    nt.manual_seed(2)
    block = nt.TransformerBlock(8, 2, d_ff=12, causal=causal)
    gradcheck_module(block, rng(6).normal(size=(2, 4, 8)), rtol=1e-4, atol=1e-6)


# ---- равенство PyTorch -----------------------------------------------------------------

def test_gelu_equals_torch_tanh_approximation():
    got = gelu(REFERENCE["gelu.x"])
    assert np.abs(got - REFERENCE["gelu.y"]).max() < 1e-12, (
        f"gelu расходится с torch gelu(approximate='tanh') до {np.abs(got - REFERENCE['gelu.y']).max():.1e}"
    )


def test_gelu_formula_at_known_points():
    x = np.array([0.0, 1.0, -1.0])
    expected = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    assert np.allclose(gelu(x), expected, rtol=0, atol=1e-15) and gelu(x)[0] == 0
    assert abs(gelu(np.array([1.0]))[0] - 0.8411919906082768) < 1e-15


def test_layer_norm_equals_torch_forward_and_backward():
    ln = nt.LayerNorm(REFERENCE["ln.x"].shape[-1])
    ln.weight.data, ln.bias.data = REFERENCE["ln.weight"].copy(), REFERENCE["ln.bias"].copy()
    x = nt.tensor(REFERENCE["ln.x"], requires_grad=True)
    y = ln(x)
    y.backward(REFERENCE["ln.upstream"])
    for name, got in (("y", y.data), ("grad_x", x.grad), ("grad_weight", ln.weight.grad), ("grad_bias", ln.bias.grad)):
        gap = np.abs(got - REFERENCE[f"ln.{name}"]).max()
        assert gap < 1e-12, f"LayerNorm: {name} расходится с torch.nn.LayerNorm до {gap:.1e}"


def test_transformer_block_equals_torch_pre_norm_encoder_layer():
    x = REFERENCE["block.x"]
    block = nt.TransformerBlock(x.shape[-1], 2, d_ff=REFERENCE["block.param.ffn.W_up.bias"].size)
    names = [name for name, _ in block.named_parameters()]
    assert sorted(names) == sorted(k[len("block.param."):] for k in REFERENCE.files if k.startswith("block.param."))
    for name in names:
        set_param(block, name, nt.tensor(REFERENCE[f"block.param.{name}"].copy(), requires_grad=True))
    leaf = nt.tensor(x, requires_grad=True)
    y = block(leaf)
    y.backward(REFERENCE["block.upstream"])
    for name, got in (("y", y.data), ("grad_x", leaf.grad), ("grad_W_up", block.ffn.W_up.weight.grad)):
        gap = np.abs(got - REFERENCE[f"block.{name}"]).max()
        assert gap < 1e-12, f"TransformerBlock: {name} расходится с torch (norm_first=True) до {gap:.1e}"


# ---- свойства -------------------------------------------------------------------------

def rows(max_d=12):
    return st.integers(2, max_d).flatmap(
        lambda d: float_arrays(st.tuples(st.integers(1, 3), st.integers(1, 4), st.just(d)), 100))


@FAST
@given(x=rows(), scale=st.floats(0.01, 100), shift=st.floats(-1e3, 1e3))
def test_layer_norm_gives_mean_zero_variance_one_per_row(x, scale, shift):
    x = x * scale + shift
    spread = x.std(axis=-1)
    x = x[spread > 1e-3 * (1 + np.abs(x).max(axis=-1))]              # строки из почти равных чисел: var ≈ eps
    assume(len(x) > 0)
    ln = nt.LayerNorm(x.shape[-1])                                   # weight = 1, bias = 0: видна сама нормировка
    y = ln(x).data
    assert np.abs(y.mean(axis=-1)).max() < 1e-9, "после LayerNorm среднее каждой строки должно быть 0"
    var = y.var(axis=-1)
    expected = x.var(axis=-1) / (x.var(axis=-1) + ln.eps)             # ровно 1 мешает только eps
    assert np.allclose(var, expected, rtol=1e-9), f"после LayerNorm дисперсия строки должна быть ≈ 1, а вышло {var}"


@FAST
@given(x=rows(), seed=seeds)
def test_layer_norm_ignores_scale_and_shift_of_a_token(x, seed):
    x = x[x.var(axis=-1) >= 1]                                       # eps = 1e-5 тогда меняет ответ меньше чем на 1e-4
    assume(len(x) > 0)
    a = rng(seed).uniform(0.5, 5, size=x.shape[:-1] + (1,))
    b = rng(seed + 1).normal(size=x.shape[:-1] + (1,)) * 10
    ln = nt.LayerNorm(x.shape[-1])
    assert np.allclose(ln(x * a + b).data, ln(x).data, atol=1e-4), "LayerNorm(a·x + b) = LayerNorm(x) для a > 0"


@FAST
@given(seed=seeds, T=st.integers(1, 6), data=st.data())
def test_causal_block_leaks_nothing_from_the_future(seed, T, data):
    nt.manual_seed(seed)
    block = nt.TransformerBlock(8, 2, causal=True)
    x = rng(seed).normal(size=(2, T, 8))
    i = data.draw(st.integers(0, T - 1), label="i")
    changed = x.copy()
    changed[:, i + 1:] = rng(seed + 1).normal(size=(2, T - i - 1, 8)) * 5
    before, after = block(x).data, block(changed).data
    assert np.allclose(before[:, : i + 1], after[:, : i + 1], atol=1e-12), (
        f"поменяли токены после позиции {i}, а выходы блока на позициях 0…{i} изменились: будущее протекло"
    )
    if i + 1 < T:
        assert not np.allclose(before[:, i + 1:], after[:, i + 1:]), "а на изменённых позициях выход должен измениться"


@FAST
@given(seed=seeds, T=st.integers(2, 6), data=st.data())
def test_feed_forward_works_on_each_token_alone(seed, T, data):
    nt.manual_seed(seed)
    ffn = nt.FeedForward(4, 8)
    x = rng(seed).normal(size=(1, T, 4))
    perm = np.array(data.draw(st.permutations(range(T)), label="perm"))
    assert np.allclose(ffn(x[:, perm]).data, ffn(x).data[:, perm], atol=1e-12), "переставили токены — выход FFN переставился так же"


@pytest.mark.parametrize("d", [4, 16, 64])
def test_block_parameter_count_is_12_d_squared_plus_13_d(d):
    block = nt.TransformerBlock(d, 4)
    assert block.num_params() == 12 * d * d + 13 * d, f"у блока d={d} ждали 12·d² + 13·d = {12 * d * d + 13 * d}"
    assert block.ffn.W_up.weight.shape == (d, 4 * d) and block.attention.num_heads == 4


def test_block_keeps_attention_weights_and_dtype():
    nt.manual_seed(3)
    block = nt.TransformerBlock(8, 2)
    x = rng(7).normal(size=(3, 5, 8)).astype(np.float32)
    y = block(x)
    assert y.dtype == np.float32 and y.shape == (3, 5, 8)
    assert block.attention.attn.shape == (3, 2, 5, 5) and not np.triu(block.attention.attn, k=1).any()


def test_layer_norm_starts_as_identity_affine():
    ln = nt.LayerNorm(5)
    assert np.array_equal(ln.weight.data, np.ones(5)) and np.array_equal(ln.bias.data, np.zeros(5))
    assert [name for name, _ in ln.named_parameters()] == ["weight", "bias"]


# ---- ошибки по-русски ------------------------------------------------------------------

@pytest.mark.parametrize("make, match", [
    (lambda: nt.LayerNorm(0), "d_model"),
    (lambda: nt.LayerNorm(True), "d_model"),
    (lambda: nt.LayerNorm(8, eps=0), "eps"),
    (lambda: nt.LayerNorm(8, eps="1e-5"), "eps"),
    (lambda: nt.FeedForward(8, 0), "d_ff"),
    (lambda: nt.FeedForward(8.0, 32), "d_model"),
    (lambda: nt.TransformerBlock(10, 4), "не делится"),
    (lambda: nt.TransformerBlock(8, 2, d_ff=2.5), "d_ff"),
    (lambda: nt.MultiHeadAttention(0, 1), "d_model"),
    (lambda: nt.MultiHeadAttention("8", 2), "d_model"),
    (lambda: nt.MultiHeadAttention(8, 2.0), "num_heads"),
])
def test_bad_constructor_arguments_are_explained(make, match):
    with pytest.raises((TypeError, ValueError), match=match):
        make()


def test_bad_inputs_are_explained():
    nt.manual_seed(0)
    with pytest.raises(ValueError, match=r"LayerNorm\(d_model=8\): последняя ось входа должна быть 8"):
        nt.LayerNorm(8)(np.zeros((2, 7)))
    with pytest.raises(TypeError, match="дробные"):
        nt.LayerNorm(3)(np.zeros((2, 3), dtype=int))
    with pytest.raises(TypeError, match="дробные"):
        gelu(np.arange(3))
    with pytest.raises(ValueError, match="Linear"):
        nt.FeedForward(8, 32)(np.zeros((1, 2, 6)))
    with pytest.raises(ValueError, match=r"x\[None\]"):
        nt.TransformerBlock(8, 2)(np.zeros((5, 8)))

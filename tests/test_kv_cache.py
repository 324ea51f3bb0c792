"""KV-кэш слоя внимания (уроки 08, 09): MultiHeadAttention.step и TransformerBlock.step
дают те же выходы, что forward на всей последовательности, а прошлое берут из кэша."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import course_lib as nt
from course_lib.nn import KVCache
from strategies import FAST, seeds

pytestmark = pytest.mark.usefixtures("path")   # каждый тест — по книге и под nt.fast() (conftest.py)


def sequence(seed, N, T, D, dtype=np.float64):
    return np.random.default_rng(seed).normal(size=(N, T, D)).astype(dtype)


def run_in_chunks(layer, x, chunks):
    """Прогоняет x (N, T, D) через layer.step кусками длины chunks; возвращает выходы и кэш."""
    attn = layer.attention if isinstance(layer, nt.TransformerBlock) else layer
    cache = attn.new_cache(x.shape[0], max_len=x.shape[1])
    outs, start = [], 0
    with nt.no_grad():
        for n in chunks:
            outs.append(layer.step(x[:, start:start + n], cache).data)
            start += n
    return np.concatenate(outs, axis=1), cache


@FAST
@given(seed=seeds, T=st.integers(1, 9), heads=st.sampled_from([1, 2, 4]),
       scale=st.sampled_from([None, 1.0]), data=st.data())
def test_step_in_chunks_equals_causal_forward(seed, T, heads, scale, data):
    nt.manual_seed(seed)
    mha = nt.MultiHeadAttention(8, heads, causal=True)
    mha.scale = scale
    x = sequence(seed, 2, T, 8)
    chunks, left = [], T
    while left:                                     # промпт кусками любой длины, потом по токену
        chunks.append(data.draw(st.integers(1, left), label="кусок"))
        left -= chunks[-1]
    with nt.no_grad():
        full = mha(x).data
    stepped, cache = run_in_chunks(mha, x, chunks)
    assert np.abs(stepped - full).max() < 1e-12, f"куски {chunks}: step с кэшем расходится с forward"
    assert cache.length == T and cache.keys.shape == (2, heads, T, 8 // heads)


def test_block_step_token_by_token_equals_forward():
    nt.manual_seed(4)
    block = nt.TransformerBlock(16, 4)
    x = sequence(5, 3, 7, 16)
    with nt.no_grad():
        full = block(x).data
    stepped, _ = run_in_chunks(block, x, [3] + [1] * 4)
    assert np.abs(stepped - full).max() < 1e-12


def test_non_causal_step_sees_everything_in_the_cache():
    nt.manual_seed(6)
    mha = nt.MultiHeadAttention(8, 2, causal=False)
    x = sequence(7, 1, 5, 8)
    with nt.no_grad():
        full = mha(x).data
    stepped, _ = run_in_chunks(mha, x, [5])           # весь кусок сразу: каждый видит всех
    assert np.abs(stepped - full).max() < 1e-12
    last, _ = run_in_chunks(mha, x, [4, 1])           # последний токен видит всё прошлое
    assert np.abs(last[:, 4] - full[:, 4]).max() < 1e-12


def test_cache_keeps_dtype_of_the_layer():
    nt.manual_seed(8)
    mha = nt.MultiHeadAttention(8, 2, causal=True).to(np.float32)
    cache = mha.new_cache(1, max_len=4)
    out = mha.step(sequence(9, 1, 1, 8, np.float32), cache)
    assert out.dtype == np.float32 and cache.keys.dtype == np.float32
    assert cache.nbytes == 2 * 1 * 2 * 1 * 4 * 4


def test_step_errors_are_explained():
    nt.manual_seed(10)
    mha = nt.MultiHeadAttention(8, 2, causal=True)
    with pytest.raises(TypeError, match="KVCache"):
        mha.step(np.zeros((1, 1, 8)), cache={})
    with pytest.raises(ValueError, match="KVCache.append"):
        mha.step(np.zeros((1, 1, 8)), KVCache(1, 4, 2, max_len=3))      # кэш другого слоя: 4 головы
    cache = mha.new_cache(1, max_len=2)
    mha.step(np.zeros((1, 2, 8)), cache)
    with pytest.raises(ValueError, match="переполнен"):
        mha.step(np.zeros((1, 1, 8)), cache)
    with pytest.raises(ValueError, match=r"x\[None\]"):
        mha.step(np.zeros((1, 8)), mha.new_cache(1, 2))


@pytest.mark.parametrize("scale", [None, 1.0, 0.5])
def test_scores_are_what_forward_turns_into_weights(scale):
    nt.manual_seed(11)
    mha = nt.MultiHeadAttention(8, 2, causal=True)
    mha.scale = scale
    x = sequence(12, 2, 5, 8)
    mha(x)
    scores = mha.scores(x).data                                   # (N, h, T, T)
    assert scores.shape == (2, 2, 5, 5)
    assert np.allclose(nt.softmax(np.where(nt.causal_mask(5), scores, -np.inf)), mha.attn, atol=1e-12)
    unscaled = mha.scores(x, scale=1.0).data
    assert np.allclose(unscaled * (scale if scale is not None else 0.5), scores, atol=1e-12)   # d_head = 4: 1/√4


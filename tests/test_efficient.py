"""Урок 08: блочное внимание равно обычному, локальная маска, генерация с KV-кэшем равна пересчёту.

Скорость и память в цифрах — в benchmarks/efficient.py; здесь только то, что верно всегда.
"""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import course_lib as nt
from course_lib.efficient import block_attention, online_softmax_step
from course_lib.props.generation import KVCache, TinyDecoder, generate_with_cache, generate_without_cache
from course_lib.functional import allowed_cells, local_mask
from strategies import FAST, floats, qkv, seeds


@st.composite
def attention_inputs(draw):
    """q, k, v со случайными осями батча и голов, длинами, размерностями, маской и размером блока."""
    q, k, v = draw(qkv(lead=st.lists(st.integers(1, 3), max_size=2).map(tuple)))
    lead, (T_q, T_k) = q.shape[:-2], (q.shape[-2], k.shape[-2])
    mask_shape = draw(st.sampled_from([None, (T_q, T_k), (1, T_k), lead + (T_q, T_k)]))
    mask = None if mask_shape is None else draw(arrays(bool, mask_shape))   # бывают и целиком закрытые строки
    causal = draw(st.booleans())
    block_size = draw(st.integers(1, 16))
    return q, k, v, mask, causal, block_size


def standard(q, k, v, mask, causal):
    """Обычное внимание из course_lib с той же маской: причинная — j ≤ i, как np.tril."""
    if causal:
        tril = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
        mask = tril if mask is None else mask & tril
    return nt.scaled_dot_product_attention(q, k, v, mask)[0]


# ---- блочное внимание ------------------------------------------------------------------

@FAST
@given(inputs=attention_inputs())
def test_block_attention_equals_standard_attention(inputs):
    q, k, v, mask, causal, block_size = inputs
    out = block_attention(q, k, v, mask=mask, causal=causal, block_size=block_size)
    expected = standard(q, k, v, mask, causal)
    assert out.shape == expected.shape
    gap = np.abs(out - expected).max()
    assert gap < 1e-12, f"блочное внимание (блок {block_size}) разошлось с обычным на {gap:.2e}"


@FAST
@given(inputs=attention_inputs())
def test_fully_masked_rows_give_zero_context_without_warnings(inputs):
    q, k, v, _, causal, block_size = inputs
    mask = np.ones((q.shape[-2], k.shape[-2]), dtype=bool)
    mask[0] = False                                           # первому запросу нельзя никуда
    with np.errstate(divide="raise", over="raise", invalid="raise"):   # переполнение вниз (underflow) — не беда
        out = block_attention(q, k, v, mask=mask, causal=causal, block_size=block_size)
    assert np.all(out[..., 0, :] == 0), "запрос без разрешённых ключей должен получить нулевой context"
    assert np.isfinite(out).all()


@FAST
@given(scores=arrays(np.float64, (3, 10), elements=floats(300)), cuts=st.lists(st.integers(1, 9), max_size=4))
def test_online_softmax_over_any_split_equals_softmax(scores, cuts):
    """Как ни режь ключи на блоки, acc / l — это softmax(scores) @ V; огромные оценки не переполняют exp."""
    values = np.arange(20.0).reshape(10, 2)
    edges = [0, *sorted(set(cuts)), 10]
    m, l, acc = np.full((3, 1), -np.inf), np.zeros((3, 1)), np.zeros((3, 2))
    for start, stop in zip(edges, edges[1:]):
        m, l, acc = online_softmax_step(m, l, acc, scores[:, start:stop], values[start:stop])
    assert np.allclose(m[:, 0], scores.max(axis=1)), "после всех блоков m — максимум всей строки"
    assert np.allclose(acc / l, nt.softmax(scores) @ values, atol=1e-9)


def test_float32_stays_float32_and_large_scores_are_fine():
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(2, 40, 8)).astype(np.float32) for _ in range(3))
    out = block_attention(q * 100, k * 100, v, causal=True, block_size=7)
    assert out.dtype == np.float32
    assert np.allclose(out, standard(q * 100, k * 100, v, None, True), atol=1e-4)


def test_extra_memory_grows_like_T_times_block_not_T_squared():
    """Полная матрица T×T в float64 — 8 МБ при T = 1024; блочное внимание не должно выделять и четверти."""
    T, block_size = 1024, 64
    q, k, v = (np.random.default_rng(i).normal(size=(T, 16)) for i in range(3))
    tracemalloc.start()
    try:
        block_attention(q, k, v, causal=True, block_size=block_size)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < T * T * 8 / 4, f"блочное внимание выделило {peak / 1e6:.1f} МБ — похоже, строит матрицу T×T"


@pytest.mark.parametrize("kwargs, error, match", [
    ({"block_size": 0}, ValueError, "block_size"),
    ({"block_size": 2.5}, TypeError, "block_size"),
    ({"mask": np.ones((4, 4))}, TypeError, "булевой"),
    ({"mask": np.ones((3, 3), dtype=bool)}, ValueError, "маска формы"),
])
def test_bad_arguments_are_explained(kwargs, error, match):
    q = np.zeros((4, 2))
    with pytest.raises(error, match=match):
        block_attention(q, q, q, **kwargs)


def test_inputs_are_checked_like_standard_attention():
    q = np.zeros((4, 2))
    with pytest.raises(ValueError, match="d_k"):
        block_attention(q, np.zeros((4, 3)), q)
    with pytest.raises(TypeError, match="dtype"):
        block_attention(q.astype(int), q, q)
    with pytest.raises(TypeError, match="массивами NumPy"):
        block_attention(nt.tensor(q), q, q)


# ---- локальное внимание ------------------------------------------------------------------

@pytest.mark.parametrize("T", [1, 2, 7, 16])
def test_local_mask_between_identity_and_causal(T):
    assert np.array_equal(local_mask(T, 1), np.eye(T, dtype=bool))
    assert np.array_equal(local_mask(T, T), nt.causal_mask(T))
    assert np.array_equal(local_mask(T, T + 5), nt.causal_mask(T))
    for window in range(1, T + 3):
        assert local_mask(T, window).sum() == allowed_cells(T, window)


def test_local_attention_cannot_see_past_the_window():
    """Поменяли значение токена дальше окна — выход запроса не изменился; внутри окна — изменился."""
    T, window, query = 12, 4, 11
    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(T, 5)) for _ in range(3))
    far, near = v.copy(), v.copy()
    far[query - window] += 10                                 # расстояние = window: уже за окном
    near[query - window + 1] += 10                            # расстояние = window − 1: ещё в окне
    mask = local_mask(T, window)
    out, out_far, out_near = (block_attention(q, k, vv, mask=mask, block_size=3)[query] for vv in (v, far, near))
    assert np.array_equal(out, out_far)
    assert not np.allclose(out, out_near)


def test_local_mask_rejects_bad_window():
    with pytest.raises(ValueError, match="window"):
        local_mask(5, 0)
    with pytest.raises(ValueError, match="T"):
        allowed_cells(0, 3)


# ---- генерация и KV-кэш ------------------------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(seed=seeds, N=st.integers(1, 3), T0=st.integers(1, 5), steps=st.integers(1, 12),
       heads=st.sampled_from([1, 2, 4]))
def test_kv_cache_generation_equals_full_recomputation(seed, N, T0, steps, heads):
    nt.manual_seed(seed)
    model = TinyDecoder(vocab_size=20, d_model=8, num_heads=heads, max_len=32)
    prompt = np.random.default_rng(seed).integers(0, 20, size=(N, T0))
    ids_full, logits_full = generate_without_cache(model, prompt, steps)
    ids_cached, logits_cached = generate_with_cache(model, prompt, steps)
    assert ids_full.shape == (N, T0 + steps) and logits_full.shape == (N, steps, 20)
    assert np.array_equal(ids_full, ids_cached), "с кэшем и без кэша должны выйти те же токены"
    assert np.abs(logits_full - logits_cached).max() < 1e-12
    assert np.array_equal(ids_full[:, :T0], prompt)


def test_step_by_step_logits_equal_forward_at_every_position():
    nt.manual_seed(1)
    model = TinyDecoder(vocab_size=30, d_model=12, num_heads=3, max_len=16)
    ids = np.random.default_rng(1).integers(0, 30, size=(2, 16))
    with nt.no_grad():
        full = model(ids).data                                # (N, T, vocab)
        cache = model.new_cache(2)
        stepped = np.stack([model.step(ids[:, t], cache).data for t in range(16)], axis=1)
    assert np.abs(full - stepped).max() < 1e-12
    assert cache.length == 16 and cache.keys.shape == (2, 3, 16, 4)
    assert cache.nbytes == 2 * 2 * 3 * 16 * 4 * 8


def test_generation_builds_no_graph():
    nt.manual_seed(0)
    model = TinyDecoder(vocab_size=10, d_model=4, num_heads=1, max_len=8)
    with nt.no_grad():
        out = model(np.zeros((1, 3), dtype=int))
    assert not out.requires_grad
    generate_with_cache(model, np.zeros((1, 2), dtype=int), 3)
    assert all(p.grad is None for p in model.parameters())


def test_generation_errors_are_explained():
    nt.manual_seed(0)
    model = TinyDecoder(vocab_size=10, d_model=4, num_heads=2, max_len=8)
    with pytest.raises(ValueError, match="max_len"):
        generate_with_cache(model, np.zeros((1, 5), dtype=int), 4)
    with pytest.raises(ValueError, match="prompt"):
        generate_without_cache(model, np.zeros(3, dtype=int), 2)
    with pytest.raises(ValueError, match="steps"):
        generate_with_cache(model, np.zeros((1, 3), dtype=int), 0)
    with pytest.raises(ValueError, match="max_len"):
        model(np.zeros((1, 9), dtype=int))
    cache = KVCache(1, 2, 2, max_len=2)
    cache.append(np.ones((1, 2, 2, 2)), np.ones((1, 2, 2, 2)))
    with pytest.raises(ValueError, match="переполнен"):
        cache.append(np.ones((1, 2, 1, 2)), np.ones((1, 2, 1, 2)))
    with pytest.raises(ValueError, match="формы"):
        KVCache(1, 2, 2, max_len=4).append(np.ones((1, 2, 1, 3)), np.ones((1, 2, 1, 3)))

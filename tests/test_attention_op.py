"""Слитая операция внимания (autograd/attention.py) против трёх шагов урока 05 и конечных разностей.

Три шага — оценки q·kᵀ·scale, маска (−∞), softmax, умножение на v — собраны здесь из
отдельных операций Tensor; слитая операция должна давать то же и вперёд, и назад,
в том числе когда кусков и полос несколько (CHUNK и ROWS уменьшены), батч растянут, а строки закрыты целиком.
"""

import numpy as np
import pytest

import course_lib as nt
from course_lib.autograd import attention as attention_module
from course_lib.autograd.attention import attention
from gradcheck import assert_grads_match, upstream_weights
from strategies import rng


def three_steps(q, k, v, mask, scale):
    """Урок 05 по шагам, из отдельных операций Tensor."""
    scores = (q * scale) @ k.swapaxes(-1, -2)
    if mask is not None:
        scores = scores.masked_fill(~np.broadcast_to(mask, scores.shape), -np.inf)
    weights = nt.softmax(scores, axis=-1)
    return weights @ v, weights


CASES = {
    "без маски": ((2, 3, 4), (2, 5, 4), (2, 5, 3), None),
    "причинная, головы": ((2, 2, 4, 3), (2, 2, 4, 3), (2, 2, 4, 2), np.tril(np.ones((4, 4), dtype=bool))),
    "паддинг (N, 1, 1, T_k)": ((2, 2, 3, 3), (2, 2, 4, 3), (2, 2, 4, 3),
                               np.array([True, True, False, False, True, True, True, False]).reshape(2, 1, 1, 4)),
    "закрытые строки": ((2, 3, 2), (2, 4, 2), (2, 4, 2),
                        np.array([[[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], [[0] * 4, [0, 1, 0, 0], [1, 0, 1, 0]]], dtype=bool)),
    "k и v одни на батч": ((3, 2, 4), (2, 4), (2, 5), None),
    "одна матрица (T, d)": ((4, 3), (5, 3), (5, 2), np.tril(np.ones((4, 5), dtype=bool), 1)),
}


@pytest.mark.parametrize("chunk, rows", [(2**18, 64), (7, 1), (7, 3)])   # 7 чисел: по одной матрице за кусок
@pytest.mark.parametrize("case", CASES)
def test_fused_equals_three_steps_forward_and_backward(case, chunk, rows, monkeypatch):
    monkeypatch.setattr(attention_module, "CHUNK", chunk)
    monkeypatch.setattr(attention_module, "ROWS", rows)
    *shapes, mask = CASES[case]
    arrays = [rng(i).normal(size=shape) for i, shape in enumerate(shapes)]
    results = []
    for op in (attention, three_steps):
        q, k, v = (nt.tensor(a, requires_grad=True) for a in arrays)
        context, weights = op(q, k, v, mask, 0.7)
        loss = (context * upstream_weights(context.shape)).sum() + (weights * upstream_weights(weights.shape, 7)).sum()
        loss.backward()
        results.append((context.data, weights.data, q.grad, k.grad, v.grad))
    for name, fused, steps in zip(["context", "weights", "dq", "dk", "dv"], *results):
        assert fused.shape == steps.shape, f"{name}: форма {fused.shape}, а по шагам {steps.shape}"
        assert np.abs(fused - steps).max() < 1e-12, f"{case}: {name} слитой операции расходится с тремя шагами"


@pytest.mark.parametrize("case", CASES)
def test_fused_gradients_match_finite_differences(case, monkeypatch):
    monkeypatch.setattr(attention_module, "CHUNK", 7)
    monkeypatch.setattr(attention_module, "ROWS", 2)
    *shapes, mask = CASES[case]
    arrays = [rng(10 + i).normal(size=shape) for i, shape in enumerate(shapes)]
    assert_grads_match(lambda q, k, v: attention(q, k, v, mask, 0.5)[0], arrays, names=["q", "k", "v"])
    assert_grads_match(lambda q, k: attention(q, k, nt.tensor(arrays[2]), mask, 0.5)[1], arrays[:2],
                       names=["q (через веса)", "k (через веса)"])


def test_fully_masked_rows_are_zero_and_gradients_finite():
    q, k, v = (nt.tensor(rng(20 + i).normal(size=(1, 3, 2)), requires_grad=True) for i in range(3))
    mask = np.array([[True, False, False], [False, False, False], [True, True, True]])
    context, weights = attention(q, k, v, mask, 1.0)
    (context.sum() + weights.sum()).backward()
    assert (weights.data[0, 1] == 0).all() and (context.data[0, 1] == 0).all()
    assert np.allclose(weights.data[0, [0, 2]].sum(axis=-1), 1)
    assert all(np.isfinite(t.grad).all() for t in (q, k, v))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_keeps_dtype(dtype):
    q, k, v = (nt.tensor(rng(30 + i).normal(size=(2, 4, 3)).astype(dtype), requires_grad=True) for i in range(3))
    context, weights = attention(q, k, v, np.tril(np.ones((4, 4), dtype=bool)), 1 / np.sqrt(3))
    context.sum().backward()
    assert context.dtype == weights.dtype == dtype
    assert q.grad.dtype == k.grad.dtype == v.grad.dtype == dtype


def test_no_graph_without_requires_grad():
    q, k, v = (nt.tensor(rng(40 + i).normal(size=(3, 2))) for i in range(3))
    context, weights = attention(q, k, v, None, 1.0)
    assert not context.requires_grad and not weights.requires_grad and context._parents == ()


def test_bands_skip_the_keys_the_mask_closes_for_every_row(monkeypatch):
    monkeypatch.setattr(attention_module, "ROWS", 4)
    causal = ~np.tril(np.ones((8, 8), dtype=bool))[None]
    assert attention_module._bands(causal, 8, 8) == [(slice(0, 4), 4), (slice(4, 8), 8)]
    padding = np.ones((2, 6, 5), dtype=bool)          # закрыто всё, кроме ключей 0..2 первой матрицы
    padding[0, :, :3] = False
    assert attention_module._bands(padding, 6, 5) == [(slice(0, 6), 3)]   # у обеих полос c = 3: одна полоса
    padding[0, 4:] = True                             # вторая полоса закрыта целиком
    assert attention_module._bands(padding, 6, 5) == [(slice(0, 4), 3), (slice(4, 6), 0)]
    assert attention_module._bands(None, 6, 5) == [(slice(0, 6), 5)]

"""Конечный вход — верные числа или честный отказ; и отказ заранее, если ответ не поместится в память.

Переполнение оценок внимания даёт одну и ту же ошибку по книге и в машинном отделении (а не nan);
cross_entropy точна при больших разрывах логитов во float32 и float64 и не возвращает −0.0;
LayerNorm на float32 вида 1e4 + 1e-3·шум совпадает с расчётом во float64. Предел памяти подменяется
в тестах (monkeypatch), так что ни один тест не выделяет гигабайты.
"""

import warnings

import numpy as np
import pytest

import course_lib as nt
from course_lib import _checks
from course_lib.functional import causal_mask, local_mask
from course_lib.measure import peak_bytes
from course_lib.nn import KVCache
from strategies import rng


# ---- переполнение оценок: одна ошибка на обоих путях ----------------------------------------------

def _overflowing(dtype=np.float32):
    return rng(5).normal(size=(1, 4, 8)).astype(dtype) * dtype(1e20)


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("call", [
    lambda x: nt.scaled_dot_product_attention(x, x, x),
    lambda x: (nt.manual_seed(0), nt.MultiHeadAttention(8, 2).to(np.float32)(x)),
], ids=["scaled_dot_product_attention", "MultiHeadAttention"])
def test_overflowing_scores_are_refused_not_turned_into_nan(call):
    with warnings.catch_warnings(), pytest.raises(ValueError) as error:
        warnings.simplefilter("ignore", RuntimeWarning)      # «overflow in matmul» от NumPy — не наш ответ
        call(_overflowing())
    message = str(error.value)
    assert "nan или +inf" in message and "переполнили float32" in message and "float64" in message, message


@pytest.mark.usefixtures("path")
def test_overflowing_scores_get_the_same_answer_as_softmax():
    x = _overflowing()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        scores = x @ x.swapaxes(-1, -2) / np.float32(np.sqrt(8))
        with pytest.raises(ValueError) as from_softmax:
            nt.softmax(scores)
        with pytest.raises(ValueError) as from_attention:
            nt.scaled_dot_product_attention(x, x, x)
    assert str(from_softmax.value) == str(from_attention.value)


# ---- cross_entropy: точна далеко от максимума, +0.0 у точного ответа ----------------------------

@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("margin", [10.0, 100.0, 1000.0, 1e4, 1e6])
def test_cross_entropy_is_exact_for_large_margins(dtype, margin):
    """Цель на margin ниже максимума: loss = margin (+ log(1 + …)), без потолка 87.34 / 708.40."""
    logits = np.array([[0.0, -margin, -margin - 1]], dtype=dtype)
    loss = nt.cross_entropy(logits, np.array([1]))
    exact = margin + np.log1p(np.exp(-margin) + np.exp(-margin - 1))   # −log p = margin + log(e^0 + e^−margin + e^(−margin−1))
    assert loss.dtype == dtype and loss == pytest.approx(exact, rel=4 * float(np.finfo(dtype).eps))


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_matches_float64_log_sum_exp_on_wide_logits(dtype):
    logits = (rng(6).normal(size=(64, 20)) * 300).astype(dtype)
    targets = rng(7).integers(0, 20, size=64)
    wide = logits.astype(np.float64)
    exact = np.logaddexp.reduce(wide, axis=-1) - wide[np.arange(64), targets]
    losses = nt.cross_entropy(logits, targets, reduction="none")
    assert np.allclose(losses, exact, rtol=np.finfo(dtype).eps * 8, atol=np.finfo(dtype).eps * 400)


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_perfect_prediction_costs_plus_zero(reduction, dtype):
    loss = nt.cross_entropy(np.array([[0.0, -1e4], [-1e4, 0.0]], dtype=dtype), np.array([0, 1]), reduction=reduction)
    assert np.all(loss == 0) and not np.signbit(loss).any(), f"ожидался +0.0, а пришло {loss!r}"


def test_cross_entropy_gradient_stays_finite_far_from_the_target():
    logits = nt.tensor(np.array([[0.0, -1e4, 5.0]]), requires_grad=True)
    nt.cross_entropy(logits, [1]).backward()
    expected = np.exp(logits.data - np.logaddexp.reduce(logits.data, axis=-1)) - np.eye(3)[1]   # softmax − one-hot
    assert np.allclose(logits.grad, expected, atol=1e-12)


# ---- LayerNorm: среднее и дисперсия без потери точности -------------------------------------------

def _reference_layer_norm(x, eps=1e-5):
    x = x.astype(np.float64)
    centered = x - x.mean(axis=-1, keepdims=True)
    return centered / np.sqrt((centered**2).mean(axis=-1, keepdims=True) + eps)


@pytest.mark.parametrize("offset, spread", [(1e4, 1e-3), (1e3, 1e-2), (0.0, 1.0), (-5e4, 3e-2)])
def test_layer_norm_in_float32_matches_float64(offset, spread):
    x = (offset + spread * rng(8).normal(size=(6, 64))).astype(np.float32)   # вход уже во float32
    out = nt.LayerNorm(64)(x)
    assert out.dtype == np.float32, "тип выхода — как у входа"
    reference = _reference_layer_norm(x)                    # тот же float32-вход, посчитанный во float64
    assert np.max(np.abs(out.data - reference)) < 1e-5 * np.max(np.abs(reference)) + 1e-6


def test_layer_norm_gradient_in_float32_matches_float64():
    x64 = 1e4 + 1e-3 * rng(9).normal(size=(3, 16))
    x32 = x64.astype(np.float32)
    push = rng(10).normal(size=(3, 16))
    grads = []
    for x in (x32, x32.astype(np.float64)):                  # одни и те же числа, два типа
        x = nt.tensor(x, requires_grad=True)
        (nt.LayerNorm(16)(x) * push.astype(x.dtype)).sum().backward()
        grads.append(x.grad)
    assert grads[0].dtype == np.float32
    assert np.allclose(grads[0], grads[1], rtol=1e-4, atol=1e-4 * np.abs(grads[1]).max())


# ---- память: оценить до выделения ------------------------------------------------------------------

@pytest.fixture
def one_gib(monkeypatch):
    monkeypatch.setattr(_checks, "memory_limit", lambda: 2**30)


@pytest.mark.usefixtures("one_gib")
def test_book_attention_at_T_30000_is_refused_before_allocating():
    q = np.zeros((1, 30_000, 4))                            # 0.9 МиБ; оценки были бы 30 000² чисел
    with pytest.raises(MemoryError) as error:
        nt.scaled_dot_product_attention(q, q, q, causal=True)
    message = str(error.value)
    assert isinstance(error.value, ValueError), "плохой вход: это и ValueError"
    assert "13.4 ГиБ" in message and "1.0 ГиБ" in message, message
    assert "nt.fast()" in message and "block_attention" in message and "меньше T" in message, message


@pytest.mark.usefixtures("one_gib")
def test_fast_attention_at_T_30000_is_refused_before_allocating():
    q = np.zeros((1, 30_000, 4), dtype=np.float32)
    with nt.fast(), pytest.raises(MemoryError) as error:
        nt.scaled_dot_product_attention(q, q, q)
    message = str(error.value)
    assert "3.4 ГиБ" in message and "block_attention" in message, message
    assert "nt.fast()" not in message, "уже в nt.fast(): советовать его бессмысленно"


@pytest.mark.usefixtures("one_gib")
@pytest.mark.parametrize("call, figure", [
    (lambda: causal_mask(100_000), "9.3 ГиБ"),
    (lambda: local_mask(100_000, 64), "9.3 ГиБ"),
    (lambda: nt.Embedding(1_000_000, 1_000), "7.5 ГиБ"),
    (lambda: nt.Linear(100_000, 10_000), "7.5 ГиБ"),
    (lambda: KVCache(64, 12, 64, 100_000), "73.2 ГиБ"),
    (lambda: (nt.manual_seed(0), nt.MultiHeadAttention(768, 12).new_cache(64, 100_000)), "73.2 ГиБ"),
], ids=["causal_mask", "local_mask", "Embedding", "Linear", "KVCache", "new_cache"])
def test_big_allocations_are_refused_with_the_figure(call, figure):
    with pytest.raises(MemoryError) as error:
        call()
    message = str(error.value)
    assert figure in message and "Попробуйте" in message, message


def test_the_limit_is_half_of_physical_memory_or_4_gib(monkeypatch):
    assert 2**28 <= _checks.memory_limit()                  # на любой машине курса хотя бы 512 МиБ памяти
    monkeypatch.setattr(_checks.os, "sysconf", lambda name: (_ for _ in ()).throw(ValueError(name)))
    assert _checks.memory_limit() == 4 * 2**30


def test_local_mask_builds_bool_directly():
    T, window = 1000, 16
    mask = local_mask(T, window)
    i, j = np.indices((T, T))
    assert mask.dtype == bool and np.array_equal(mask, (i - j >= 0) & (i - j < window))
    assert peak_bytes(lambda: local_mask(T, window)) < 2.5 * T * T, "не больше двух-трёх булевых T×T, без int64 T×T"

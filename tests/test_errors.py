"""Ошибки публичных функций: правильный тип, понятный русский текст и то, что на самом деле пришло."""

import re

import numpy as np
import pytest

import course_lib as nt
from strategies import rng


@pytest.fixture
def mha():
    nt.manual_seed(0)
    return nt.MultiHeadAttention(d_model=8, num_heads=2)


def qkv(T_q=3, T_k=3, d=4):
    return rng(1).normal(size=(2, T_q, d)), rng(2).normal(size=(2, T_k, d)), rng(3).normal(size=(2, T_k, d))


# ---- MultiHeadAttention ---------------------------------------------------------------

@pytest.mark.usefixtures("path")
def test_d_model_not_divisible_by_num_heads():
    with pytest.raises(ValueError, match="не делится") as error:
        nt.MultiHeadAttention(d_model=10, num_heads=4)
    message = str(error.value)
    assert "d_model=10" in message and "num_heads=4" in message, f"сообщение должно назвать оба числа: {message}"
    assert "[1, 2, 5, 10]" in message, f"сообщение должно подсказать подходящие num_heads: {message}"


@pytest.mark.usefixtures("path")
def test_x_with_wrong_last_dim(mha):
    with pytest.raises(ValueError, match=r"d_model=8") as error:
        mha(rng().normal(size=(2, 5, 6)))
    assert "(2, 5, 6)" in str(error.value), f"сообщение должно назвать пришедшую форму: {error.value}"


@pytest.mark.usefixtures("path")
def test_x_without_batch_axis_suggests_x_none(mha):
    with pytest.raises(ValueError, match=re.escape("x[None]")) as error:
        mha(rng().normal(size=(5, 8)))
    assert "(5, 8)" in str(error.value), f"сообщение должно назвать пришедшую форму: {error.value}"


@pytest.mark.usefixtures("path")
def test_mask_that_does_not_broadcast_in_multi_head_attention(mha):
    x = rng().normal(size=(2, 5, 8))
    with pytest.raises(ValueError, match="не растягивается") as error:
        mha(x, np.ones((4, 4), dtype=bool))
    message = str(error.value)
    assert "(4, 4)" in message and "(2, 2, 5, 5)" in message, f"нужны форма маски и форма оценок: {message}"


@pytest.mark.usefixtures("path")
def test_non_bool_mask_in_multi_head_attention(mha):
    with pytest.raises(TypeError, match="булевой") as error:
        mha(rng().normal(size=(2, 5, 8)), np.tril(np.ones((5, 5))))
    assert "float64" in str(error.value), f"сообщение должно назвать пришедший dtype: {error.value}"


@pytest.mark.usefixtures("path")
def test_integer_input_to_multi_head_attention(mha):
    with pytest.raises(TypeError, match="дробные числа") as error:
        mha(np.ones((2, 5, 8), dtype=np.int64))
    assert "int64" in str(error.value)


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_to_multi_head_attention(mha, bad):
    x = rng().normal(size=(2, 5, 8))
    x[1, 2, 3] = bad
    with pytest.raises(ValueError, match="конечные числа") as error:
        mha(x)
    assert str(bad) in str(error.value), f"сообщение должно показать, что встретилось ({bad}): {error.value}"


# ---- scaled_dot_product_attention ------------------------------------------------------

@pytest.mark.usefixtures("path")
def test_mask_that_does_not_broadcast_in_attention():
    q, k, v = qkv(T_q=3, T_k=5)
    with pytest.raises(ValueError, match="не растягивается") as error:
        nt.scaled_dot_product_attention(q, k, v, np.ones((5, 3), dtype=bool))
    message = str(error.value)
    assert "(5, 3)" in message and "(2, 3, 5)" in message, f"нужны форма маски и форма оценок: {message}"


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("mask", [np.ones((3, 3)), np.ones((3, 3), dtype=np.int64)])
def test_non_bool_mask_in_attention(mask):
    with pytest.raises(TypeError, match="булевой") as error:
        nt.scaled_dot_product_attention(*qkv(), mask)
    assert str(mask.dtype) in str(error.value), f"сообщение должно назвать dtype маски: {error.value}"


@pytest.mark.usefixtures("path")
def test_non_bool_mask_in_masked_fill():
    with pytest.raises(TypeError, match="булевой") as error:
        nt.tensor(np.zeros(3)).masked_fill(np.array([1, 0, 1]), 0.0)
    assert "int64" in str(error.value)


@pytest.mark.usefixtures("path")
def test_integer_input_to_attention():
    q, k, v = qkv()
    with pytest.raises(TypeError, match="дробные числа") as error:
        nt.scaled_dot_product_attention(q, k.astype(np.int32), v)
    assert "k:" in str(error.value) and "int32" in str(error.value), f"сообщение должно назвать вход и dtype: {error.value}"


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_to_attention(bad):
    q, k, v = qkv()
    v[0, 1, 2] = bad
    with pytest.raises(ValueError, match="конечные числа") as error:
        nt.scaled_dot_product_attention(q, k, v)
    assert "v:" in str(error.value) and str(bad) in str(error.value), f"сообщение должно назвать вход и значение: {error.value}"


@pytest.mark.usefixtures("path")
def test_queries_and_keys_of_different_width():
    q, k, v = qkv()
    with pytest.raises(ValueError, match="d_k") as error:
        nt.scaled_dot_product_attention(q, k[..., :3], v)
    assert "4" in str(error.value) and "3" in str(error.value)


# ---- softmax -----------------------------------------------------------------------------

@pytest.mark.usefixtures("path")
def test_integer_input_to_softmax():
    with pytest.raises(TypeError, match="дробные числа") as error:
        nt.softmax(np.array([[1, 2, 3]]))
    assert "int64" in str(error.value)


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_plus_inf_in_softmax(bad):
    with pytest.raises(ValueError, match="nan или \\+inf"):
        nt.softmax(np.array([[1.0, bad, 0.0], [0.0, 0.0, 0.0]]))


# ---- backward ------------------------------------------------------------------------------

def test_backward_on_non_scalar_without_gradient():
    x = nt.tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError, match="только для скаляра") as error:
        (x * 2).backward()
    assert "(2, 3)" in str(error.value), f"сообщение должно назвать форму тензора: {error.value}"


def test_backward_with_gradient_of_wrong_shape():
    x = nt.tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError, match="форму тензора") as error:
        (x * 2).backward(np.ones((3, 2)))
    assert "(2, 3)" in str(error.value) and "(3, 2)" in str(error.value)


@pytest.mark.parametrize("make", [
    lambda: nt.tensor(np.ones(3)).sum(),                                     # никто не просил градиент
    lambda: _inside_no_grad(),                                               # граф выключен
])
def test_backward_on_tensor_without_graph(make):
    with pytest.raises(ValueError, match="нет графа"):
        make().backward()


def _inside_no_grad():
    x = nt.tensor(np.ones(3), requires_grad=True)
    with nt.no_grad():
        return (x * 2).sum()


def test_requires_grad_on_integers():
    with pytest.raises(TypeError, match="дробных") as error:
        nt.tensor([1, 2, 3], requires_grad=True)
    assert "int64" in str(error.value)


# ---- cross_entropy --------------------------------------------------------------------------

@pytest.mark.usefixtures("path")
def test_cross_entropy_wrong_target_shape():
    with pytest.raises(ValueError, match="не подходит") as error:
        nt.cross_entropy(rng().normal(size=(4, 5)), np.zeros((4, 1), dtype=int))
    message = str(error.value)
    assert "(4, 1)" in message and "(4, 5)" in message and "(4,)" in message, f"нужны обе формы и ожидаемая: {message}"


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("targets, shown", [([0, 5, 1, 2], "0…5"), ([0, -1, 1, 2], "-1…2")])
def test_cross_entropy_target_out_of_range(targets, shown):
    with pytest.raises(ValueError, match="от 0 до 4") as error:
        nt.cross_entropy(rng().normal(size=(4, 5)), np.array(targets))
    assert shown in str(error.value), f"сообщение должно показать пришедший диапазон {shown}: {error.value}"


@pytest.mark.usefixtures("path")
def test_cross_entropy_float_targets():
    with pytest.raises(TypeError, match="целые номера классов") as error:
        nt.cross_entropy(rng().normal(size=(4, 5)), np.array([0.0, 1.0, 2.0, 3.0]))
    assert "float64" in str(error.value)


# ---- слои ---------------------------------------------------------------------------------

@pytest.mark.usefixtures("path")
def test_embedding_ids_out_of_range():
    nt.manual_seed(0)
    emb = nt.Embedding(10, 4)
    with pytest.raises(ValueError, match="от 0 до 9") as error:
        emb(np.array([3, 12, 0]))
    assert "0…12" in str(error.value), f"сообщение должно показать пришедшие номера: {error.value}"


@pytest.mark.usefixtures("path")
def test_embedding_float_ids():
    nt.manual_seed(0)
    with pytest.raises(TypeError, match="целые номера") as error:
        nt.Embedding(10, 4)(np.array([1.0, 2.0]))
    assert "float64" in str(error.value)


@pytest.mark.usefixtures("path")
def test_linear_wrong_last_dim():
    nt.manual_seed(0)
    with pytest.raises(ValueError, match="последняя ось входа должна быть 4") as error:
        nt.Linear(4, 3)(rng().normal(size=(2, 5)))
    assert "(2, 5)" in str(error.value)


@pytest.mark.usefixtures("path")
def test_linear_integer_input():
    nt.manual_seed(0)
    with pytest.raises(TypeError, match="дробные числа") as error:
        nt.Linear(3, 2)(np.array([[1, 2, 3]]))     # раньше веса молча округлялись до целых
    assert "int64" in str(error.value)


# ---- мелочи ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [-1, 1.5, True])
def test_manual_seed_rejects_bad_seeds(seed):
    with pytest.raises((TypeError, ValueError), match="целое число ≥ 0") as error:
        nt.manual_seed(seed)
    assert repr(seed) in str(error.value)


@pytest.mark.parametrize("T", [0, -3, 2.0])
def test_causal_mask_rejects_bad_lengths(T):
    with pytest.raises((TypeError, ValueError), match="целое число ≥ 1") as error:
        nt.causal_mask(T)
    assert f"пришло {T!r}" in str(error.value)


def test_power_must_be_a_number():
    with pytest.raises(TypeError, match="степень должна быть числом") as error:
        nt.tensor(np.ones(2)) ** nt.tensor(np.ones(2))
    assert "Tensor" in str(error.value)


def test_optimizer_needs_parameters_and_positive_lr():
    with pytest.raises(ValueError, match="пустой список параметров"):
        nt.optim.Adam([], lr=0.1)
    with pytest.raises(ValueError, match="lr") as error:
        nt.optim.SGD([nt.tensor(np.ones(2), requires_grad=True)], lr=0.0)
    assert "пришло 0.0" in str(error.value)


# ---- первые ошибки новичка: каждая по-русски, про эту операцию и эти формы ------------------

from course_lib.autograd.tensor import Tensor  # noqa: E402

FIRST_MISTAKES = [
    ("MultiHeadAttention(0, 1)", lambda: nt.MultiHeadAttention(0, 1), ValueError, "d_model — целое число ≥ 1"),
    ("MultiHeadAttention('8', 2)", lambda: nt.MultiHeadAttention("8", 2), TypeError, "пришло '8' (str)"),
    ("MultiHeadAttention(8, 2.0)", lambda: nt.MultiHeadAttention(8, 2.0), TypeError, "num_heads"),
    ("softmax(axis=5)", lambda: nt.softmax(np.ones((2, 3)), axis=5), ValueError, "номер оси массива формы (2, 3)"),
    ("softmax на T = 0", lambda: nt.softmax(np.ones((2, 0))), ValueError, "нет ни одной оценки"),
    ("внимание на T = 0", lambda: nt.MultiHeadAttention(8, 2)(np.ones((1, 0, 8))), ValueError, "T = 0"),
    ("X @ W не той формы", lambda: Tensor(np.ones((2, 3))) @ Tensor(np.ones((2, 3))), ValueError, "B.T"),
    ("батчи @ не согласованы", lambda: Tensor(np.ones((2, 2, 3))) @ Tensor(np.ones((3, 3, 3))), ValueError, "батчевые"),
    ("a + b не растягиваются", lambda: Tensor(np.ones((2, 3))) + Tensor(np.ones((4, 3))), ValueError, "на оси −2 встретились 2 и 4"),
    ("a * b не растягиваются", lambda: Tensor(np.ones((2, 3))) * np.ones(4), ValueError, "a * b: формы (2, 3) и (4,)"),
    ("a / b не растягиваются", lambda: Tensor(np.ones((2, 3))) / np.ones((3, 2)), ValueError, "a / b"),
    ("reshape меняет число чисел", lambda: Tensor(np.ones((2, 3))).reshape(4, 2), ValueError, "6 чисел"),
    ("reshape не числами", lambda: Tensor(np.ones((2, 3))).reshape("a"), TypeError, "целые числа"),
    ("transpose с лишней осью", lambda: Tensor(np.ones((2, 3))).transpose(0, 2), ValueError, "transpose"),
    ("transpose с повтором", lambda: Tensor(np.ones((2, 3))).transpose(0, 0), ValueError, "каждая по разу"),
    ("swapaxes вне осей", lambda: Tensor(np.ones((2, 3))).swapaxes(0, 3), ValueError, "swapaxes"),
    ("sum вне осей", lambda: Tensor(np.ones((2, 3))).sum(axis=4), ValueError, "sum: axis"),
    ("индекс вне оси", lambda: Tensor(np.ones((2, 3)))[5], IndexError, "не помещается в тензор формы (2, 3)"),
    ("concatenate разных форм", lambda: nt.concatenate([Tensor(np.ones((2, 3))), Tensor(np.ones((2, 4)))]), ValueError, "кроме неё"),
    ("Linear(0, 3)", lambda: nt.Linear(0, 3), ValueError, "d_in"),
    ("Embedding(2.5, 3)", lambda: nt.Embedding(2.5, 3), TypeError, "num_embeddings"),
    ("tensor из строки", lambda: nt.tensor("abc"), TypeError, "из чисел, а пришло 'abc'"),
    ("causal_mask(True)", lambda: nt.causal_mask(True), TypeError, "пришло True (bool)"),
]


@pytest.mark.parametrize("call, error, fragment", [m[1:] for m in FIRST_MISTAKES], ids=[m[0] for m in FIRST_MISTAKES])
def test_first_mistakes_get_a_russian_answer(call, error, fragment):
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    assert fragment in message, message
    for english in ("operands could not", "gufunc", "cannot reshape", "out of bounds for array", "zero-size array"):
        assert not message.startswith(english) and english not in message.split("NumPy:")[0], message

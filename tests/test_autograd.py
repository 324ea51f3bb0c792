"""Градиенты каждой операции Tensor и каждого слоя против конечных разностей (float64)."""

import gc
import inspect

import numpy as np
import pytest

import course_lib as nt
from course_lib.autograd.switch import UnusedSwitchWarning
from course_lib.autograd.tensor import Tensor
from gradcheck import assert_grads_match, set_param
from strategies import rng


def away_from_zero(shape, seed=0, gap=0.1):
    """Случайные числа, не ближе gap к нулю (для relu и делителей)."""
    x = rng(seed).normal(size=shape)
    return x + gap * np.sign(x) + gap * (x == 0)


def positive(shape, seed=0):
    return rng(seed).uniform(0.5, 2.0, size=shape)


# ---- арифметика с broadcasting ------------------------------------------------------

BROADCAST_PAIRS = [
    ((2, 3), (2, 3)),
    ((3, 4), (4,)),        # вектор растягивается по строкам
    ((4,), (3, 4)),        # ... и в обратную сторону
    ((2, 1, 4), (3, 1)),   # растягиваются оба
    ((3, 1), (2, 1, 4)),
    ((3, 1), (1, 4)),
    ((), (3, 4)),          # 0-мерный тензор
    ((3, 4), ()),
]

BINARY_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
}


@pytest.mark.parametrize("op", BINARY_OPS)
@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_PAIRS)
def test_binary_ops_with_broadcasting(op, shape_a, shape_b):
    a = rng(1).normal(size=shape_a)
    b = positive(shape_b, seed=2) if op == "/" else rng(2).normal(size=shape_b)
    grads = assert_grads_match(BINARY_OPS[op], [a, b], names=[f"a{shape_a}", f"b{shape_b}"])
    assert grads[0].shape == shape_a and grads[1].shape == shape_b


SCALAR_OPS = {
    "x + 2.5": lambda x: x + 2.5,
    "2.5 + x": lambda x: 2.5 + x,
    "x - 2.5": lambda x: x - 2.5,
    "2.5 - x": lambda x: 2.5 - x,
    "x * -1.5": lambda x: x * -1.5,
    "-1.5 * x": lambda x: -1.5 * x,
    "x / 2.5": lambda x: x / 2.5,
    "2.5 / x": lambda x: 2.5 / x,
    "-x": lambda x: -x,
    "x ** 2": lambda x: x**2,
    "x ** 3": lambda x: x**3,
    "x ** 0.5": lambda x: x**0.5,
    "x ** -1": lambda x: x**-1,
    "x ** 1.5": lambda x: x**1.5,
}


@pytest.mark.parametrize("name", SCALAR_OPS)
def test_ops_with_python_numbers_and_powers(name):
    assert_grads_match(SCALAR_OPS[name], [positive((3, 4), seed=3)], names=[name])


# ---- матричное умножение ----------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),             # 2D
    ((2, 3, 4), (2, 4, 5)),       # батч 3D
    ((2, 3, 4, 5), (2, 3, 5, 2)), # батч 4D (N, h, T, d)
    ((2, 3, 4), (4, 5)),          # (N, T, D) @ (D, E) — как в Linear
    ((2, 3, 4, 5), (5, 2)),
    ((3, 4), (2, 4, 5)),          # растягивается левый
    ((2, 1, 3, 4), (3, 4, 5)),    # растягиваются батчевые оси обоих
    ((3, 4), (4,)),               # матрица @ вектор
    ((2, 3, 4), (4,)),
    ((4,), (4, 5)),               # вектор @ матрица
    ((4,), (2, 4, 5)),
    ((4,), (4,)),                 # скалярное произведение
]


@pytest.mark.parametrize("shape_a, shape_b", MATMUL_SHAPES)
def test_matmul(shape_a, shape_b):
    a, b = rng(4).normal(size=shape_a), rng(5).normal(size=shape_b)
    grads = assert_grads_match(lambda x, y: x @ y, [a, b], names=[f"a{shape_a}", f"b{shape_b}"])
    assert grads[0].shape == shape_a and grads[1].shape == shape_b


# ---- поэлементные функции -----------------------------------------------------------

@pytest.mark.parametrize("name, fn, make", [
    ("exp", lambda x: x.exp(), lambda: rng(6).normal(size=(3, 4))),
    ("log", lambda x: x.log(), lambda: positive((3, 4), seed=6)),
    ("tanh", lambda x: x.tanh(), lambda: rng(6).normal(size=(3, 4)) * 2),
    ("relu", lambda x: x.relu(), lambda: away_from_zero((3, 4), seed=6)),
])
def test_elementwise(name, fn, make):
    assert_grads_match(fn, [make()], names=[name])


def test_relu_really_zeroes_negative_inputs_and_their_gradient():
    x = nt.tensor(np.array([-2.0, -0.5, 0.5, 3.0]), requires_grad=True)
    y = x.relu()
    y.sum().backward()
    assert np.array_equal(y.data, [0, 0, 0.5, 3.0]), f"relu([-2, -0.5, 0.5, 3]) дал {y.data}"
    assert np.array_equal(x.grad, [0, 0, 1, 1]), f"градиент relu должен быть 0 для x<0 и 1 для x>0, а он {x.grad}"


# ---- свёртки по осям ------------------------------------------------------------------

AXES = [None, 0, 1, -1, (0, 2), (-1, -2)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("reduction", ["sum", "mean", "max"])
def test_reductions(reduction, axis, keepdims):
    x = rng(7).normal(size=(2, 3, 4))          # непрерывное распределение: равных максимумов нет
    fn = lambda t: getattr(t, reduction)(axis=axis, keepdims=keepdims)
    out = fn(nt.tensor(x))
    expected = getattr(np, reduction)(x, axis=axis, keepdims=keepdims)
    assert out.shape == expected.shape, f"{reduction}(axis={axis}, keepdims={keepdims}): форма {out.shape}, ждали {expected.shape}"
    assert np.allclose(out.data, expected), f"{reduction}(axis={axis}) считает не то же, что NumPy"
    assert_grads_match(fn, [x], names=[f"{reduction}(axis={axis}, keepdims={keepdims})"])


def test_max_splits_gradient_between_ties():
    x = nt.tensor(np.array([[1.0, 3.0, 3.0], [5.0, 2.0, 0.0]]), requires_grad=True)
    x.max(axis=1).sum().backward()
    expected = [[0, 0.5, 0.5], [1, 0, 0]]
    assert np.allclose(x.grad, expected), f"при двух равных максимумах градиент делится пополам: ждали {expected}, получили {x.grad}"


# ---- форма ------------------------------------------------------------------------------

SHAPE_OPS = {
    "reshape(6, 4)": lambda x: x.reshape(6, 4),
    "reshape((4, -1))": lambda x: x.reshape((4, -1)),
    "reshape(24)": lambda x: x.reshape(24),
    "transpose()": lambda x: x.transpose(),
    "transpose(1, 0, 2)": lambda x: x.transpose(1, 0, 2),
    "transpose((2, 0, 1))": lambda x: x.transpose((2, 0, 1)),
    "transpose(0, -1, 1)": lambda x: x.transpose(0, -1, 1),   # отрицательные оси, как в NumPy
    "transpose(-1, 0, -2)": lambda x: x.transpose(-1, 0, -2),
    "swapaxes(0, 2)": lambda x: x.swapaxes(0, 2),
    "swapaxes(-1, -2)": lambda x: x.swapaxes(-1, -2),
    "[1]": lambda x: x[1],
    "[:, 1:3]": lambda x: x[:, 1:3],
    "[::-1, :, ::2]": lambda x: x[::-1, :, ::2],
    "[..., 0]": lambda x: x[..., 0],
    "[[0, 1, 0, 0]]": lambda x: x[[0, 1, 0, 0]],                      # повторы, как в Embedding
    "[ids (2, 3)]": lambda x: x[np.array([[0, 1, 1], [1, 1, 0]])],
    "[1:, [0, 0, 2]]": lambda x: x[1:, [0, 0, 2]],
    "[x > 0]": lambda x: x[np.array(rng(8).normal(size=(2, 3, 4)) > 0)],
}


@pytest.mark.parametrize("name", SHAPE_OPS)
def test_shape_ops_and_indexing(name):
    x = rng(8).normal(size=(2, 3, 4))
    fn = SHAPE_OPS[name]
    expected = fn(x)                            # то же выражение над массивом NumPy
    out = fn(nt.tensor(x))
    assert np.array_equal(out.data, expected), f"x{name} даёт не то же, что NumPy"
    assert_grads_match(fn, [x], names=[f"x{name}"])


def test_T_swaps_the_last_two_axes():
    matrix = rng(9).normal(size=(3, 2))
    assert np.array_equal(nt.tensor(matrix).T.data, matrix.T)
    assert_grads_match(lambda x: x.T @ x, [matrix], names=["x.T @ x"])
    # для батча .T меняет местами только две последние оси (как K.T в scores = Q @ K.T), а не все, как в NumPy
    batch = rng(9).normal(size=(2, 3, 4))
    assert np.array_equal(nt.tensor(batch).T.data, batch.swapaxes(-1, -2))
    assert_grads_match(lambda x: x.T, [batch], names=["x.T для (2, 3, 4)"])


def test_repeated_index_accumulates_gradient():
    table = nt.tensor(np.zeros((3, 2)), requires_grad=True)
    table[np.array([2, 0, 2, 2])].sum().backward()
    assert np.array_equal(table.grad[:, 0], [1, 0, 3]), (
        f"строка 2 выбрана трижды — её градиент должен быть 3, а получилось {table.grad[:, 0]}"
    )


@pytest.mark.parametrize("axis, shapes", [
    (0, [(2, 3), (1, 3), (3, 3)]),
    (-1, [(2, 3, 1), (2, 3, 2), (2, 3, 4)]),
    (1, [(2, 1, 4), (2, 2, 4)]),
])
def test_concatenate(axis, shapes):
    arrays = [rng(10 + i).normal(size=s) for i, s in enumerate(shapes)]
    fn = lambda *ts: nt.concatenate(ts, axis=axis)
    assert np.array_equal(fn(*map(nt.tensor, arrays)).data, np.concatenate(arrays, axis=axis))
    assert_grads_match(fn, arrays, names=[str(s) for s in shapes])


@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (3, 1)])
def test_masked_fill(mask_shape):
    mask = rng(11).random(size=mask_shape) < 0.4
    x = rng(12).normal(size=(3, 4))
    out = nt.tensor(x).masked_fill(mask, -7.0)
    assert np.array_equal(out.data, np.where(mask, -7.0, x)), "masked_fill поставил значение не туда"
    grads = assert_grads_match(lambda t: t.masked_fill(mask, -7.0), [x], names=["x"])
    assert (grads[0][np.broadcast_to(mask, x.shape)] == 0).all(), "в заполненные клетки градиент течь не должен"


def test_astype_round_trip():
    x = rng(13).normal(size=(3, 4))
    fn = lambda t: t.astype(np.float32).astype(np.float64) * 3.0
    assert fn(nt.tensor(x)).dtype == np.float64
    # float32 посередине округляет значения, поэтому шаг разностей побольше
    grads = assert_grads_match(fn, [x], rtol=1e-3, atol=1e-4, eps=1e-3, names=["x"])
    assert grads[0].dtype == np.float64, f"градиент листа float64 должен быть float64, а он {grads[0].dtype}"

    leaf32 = nt.tensor(x.astype(np.float32), requires_grad=True)
    (leaf32.astype(np.float64) * 2.0).sum().backward()
    assert leaf32.grad.dtype == np.float32, f"градиент листа float32 пришёл как {leaf32.grad.dtype}"
    assert np.allclose(leaf32.grad, 2.0)


# ---- функции внимания -----------------------------------------------------------------

@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(axis):
    x = rng(14).normal(size=(2, 3, 4)) * 2
    assert_grads_match(lambda t: nt.softmax(t, axis=axis), [x], names=[f"softmax(axis={axis})"])


@pytest.mark.usefixtures("path")
def test_softmax_with_minus_inf_entries():
    x = rng(15).normal(size=(3, 4))
    mask = np.array([[True, False, True, True], [False] * 4, [True] * 4])   # средняя строка — вся -inf
    grads = assert_grads_match(lambda t: nt.softmax(t.masked_fill(~mask, -np.inf)), [x], names=["x"])
    assert (grads[0][~mask] == 0).all(), "в клетки с -inf градиент течь не должен"


@pytest.mark.parametrize("axis", [-1, 0])
def test_log_softmax(axis):
    x = rng(21).normal(size=(3, 4)) * 3
    grads = assert_grads_match(lambda t: t.log_softmax(axis=axis), [x], names=[f"log_softmax(axis={axis})"])
    assert np.allclose(np.exp(nt.tensor(x).log_softmax(axis=axis).data), nt.softmax(x, axis=axis))
    assert np.isfinite(grads[0]).all()
    huge = nt.tensor(np.array([[0.0, 1000.0]])).log_softmax()
    assert np.isfinite(huge.data).all(), "log p класса, чей softmax округлился до 0, всё равно конечен (≈ −1000)"


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 5)])
def test_cross_entropy(shape):
    logits = rng(16).normal(size=shape) * 2
    targets = rng(17).integers(0, shape[-1], size=shape[:-1])
    assert_grads_match(lambda t: nt.cross_entropy(t, targets), [logits], names=["logits"])


@pytest.mark.usefixtures("path")
def test_cross_entropy_per_position_gradients_and_values():
    logits = rng(19).normal(size=(2, 3, 4)) * 2
    targets = rng(20).integers(0, 4, size=(2, 3))
    assert_grads_match(lambda t: nt.cross_entropy(t, targets, reduction="none"), [logits], names=["logits"])
    log_probs = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    per_position = nt.cross_entropy(logits, targets, reduction="none")
    assert per_position.shape == (2, 3)
    assert np.allclose(per_position, -np.take_along_axis(log_probs, targets[..., None], -1)[..., 0])
    assert np.isclose(per_position.mean(), nt.cross_entropy(logits, targets))
    with pytest.raises(ValueError, match='"mean" .* "none"'):
        nt.cross_entropy(logits, targets, reduction="sum")


@pytest.mark.usefixtures("path")
def test_cross_entropy_value_matches_formula():
    logits = rng(18).normal(size=(4, 3))
    targets = np.array([0, 2, 1, 2])
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    expected = -log_probs[np.arange(4), targets].mean()
    assert np.isclose(nt.cross_entropy(nt.tensor(logits), targets).item(), expected)


SDPA_MASKS = {
    "без маски": None,
    "маска (T_q, T_k) с пустой строкой": np.array([
        [True, False, True, True, False],
        [False, False, False, False, False],   # запросу некуда смотреть
        [True, True, True, True, True],
    ]),
    "маска паддинга (N, 1, T_k)": np.array([[[True, True, True, False, False]], [[True] * 5]]),
}


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("mask_name", SDPA_MASKS)
def test_scaled_dot_product_attention(mask_name):
    mask = SDPA_MASKS[mask_name]
    q, k, v = rng(19).normal(size=(2, 3, 4)), rng(20).normal(size=(2, 5, 4)), rng(21).normal(size=(2, 5, 6))
    context_fn = lambda q, k, v: nt.scaled_dot_product_attention(q, k, v, mask)[0]
    assert_grads_match(context_fn, [q, k, v], names=["q", "k", "v"])
    weights_fn = lambda q, k: nt.scaled_dot_product_attention(q, k, nt.tensor(v), mask)[1]
    assert_grads_match(weights_fn, [q, k], names=["q (через веса)", "k (через веса)"])


@pytest.mark.usefixtures("path")
def test_scaled_dot_product_attention_with_heads():
    q, k, v = (rng(22 + i).normal(size=(2, 3, 4, 5)) for i in range(3))
    fn = lambda q, k, v: nt.scaled_dot_product_attention(q, k, v, nt.causal_mask(4))[0]
    assert_grads_match(fn, [q, k, v], names=["q", "k", "v"])


# ---- слои -------------------------------------------------------------------------------

@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("bias", [True, False])
def test_linear(bias):
    nt.manual_seed(0)
    layer = nt.Linear(4, 3, bias=bias)
    names = [name for name, _ in layer.named_parameters()]
    assert names == (["weight", "bias"] if bias else ["weight"])
    arrays = [rng(25).normal(size=(2, 5, 4))] + [p.data for p in layer.parameters()]

    def fn(x, *params):
        for name, p in zip(names, params):
            set_param(layer, name, p)
        return layer(x)

    assert_grads_match(fn, arrays, names=["x"] + names)


def test_embedding_weight_gradient():
    nt.manual_seed(0)
    emb = nt.Embedding(6, 3)
    ids = np.array([[0, 4, 4, 1], [4, 0, 5, 5]])   # повторы: градиенты строк складываются

    def fn(weight):
        emb.weight = weight
        return emb(ids)

    grads = assert_grads_match(fn, [emb.weight.data], names=["Embedding.weight"])
    assert np.all(grads[0][[2, 3]] == 0), "строки 2 и 3 ни разу не выбраны — их градиент должен быть нулём"


MHA_PARAM_NAMES = [
    f"{layer}.{kind}" for layer in ("W_q", "W_k", "W_v", "W_o") for kind in ("weight", "bias")
]


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("padding", [False, True])
def test_multi_head_attention_all_gradients(causal, padding):
    nt.manual_seed(1)
    N, T, D, h = 2, 4, 8, 2
    mha = nt.MultiHeadAttention(D, h, causal=causal)
    named = list(mha.named_parameters())
    names = [name for name, _ in named]
    assert names == MHA_PARAM_NAMES, f"у MultiHeadAttention ждали параметры {MHA_PARAM_NAMES}, а нашлись {names}"
    lengths = np.array([4, 2])
    mask = (np.arange(T) < lengths[:, None])[:, None, None, :] if padding else None   # (N, 1, 1, T)
    x = rng(26).normal(size=(N, T, D))

    def fn(x, *params):
        for name, p in zip(names, params):
            set_param(mha, name, p)
        return mha(x, mask)

    assert_grads_match(fn, [x] + [p.data for _, p in named], names=["x"] + names)


# ---- значение использовано дважды, накопление, no_grad -------------------------------

def test_value_used_twice_in_a_product():
    x = nt.tensor(rng(27).normal(size=(3,)), requires_grad=True)
    (x * x).sum().backward()
    assert np.allclose(x.grad, 2 * x.data), f"d(x·x)/dx = 2x = {2 * x.data}, а автоград дал {x.grad}"


def test_value_used_twice_in_a_sum():
    x = nt.tensor(rng(28).normal(size=(3,)), requires_grad=True)
    (x + x).sum().backward()
    assert np.allclose(x.grad, 2.0), f"d(x+x)/dx = 2, а автоград дал {x.grad}"


def test_intermediate_used_in_two_branches():
    x_data, W_data = rng(29).normal(size=(4, 3)), rng(30).normal(size=(3, 2))
    x, W = nt.tensor(x_data, requires_grad=True), nt.tensor(W_data, requires_grad=True)
    y = x @ W
    loss = y.tanh().sum() + (y * y).sum()       # y идёт в две ветки
    loss.backward()
    y_data = x_data @ W_data
    dy = 1 - np.tanh(y_data) ** 2 + 2 * y_data
    assert np.allclose(W.grad, x_data.T @ dy), "dL/dW должен собрать вклад обеих веток: xᵀ(1 − tanh²y + 2y)"
    assert np.allclose(x.grad, dy @ W_data.T), "dL/dx должен собрать вклад обеих веток: (1 − tanh²y + 2y)Wᵀ"


def test_second_backward_accumulates_and_zero_grad_resets():
    nt.manual_seed(2)
    layer = nt.Linear(3, 2)
    x = nt.tensor(rng(31).normal(size=(5, 3)))
    loss = (layer(x) ** 2).sum()
    loss.backward(retain_graph=True)
    first = layer.weight.grad.copy()
    loss.backward()
    assert np.allclose(layer.weight.grad, 2 * first), "второй backward() должен прибавить градиент к .grad, а не заменить"
    (layer(x) ** 2).sum().backward()                 # новый прямой проход — новый граф: тоже складывается
    assert np.allclose(layer.weight.grad, 3 * first), "backward() нового графа должен прибавить градиент к .grad"
    layer.zero_grad()
    assert all(p.grad is None for p in layer.parameters()), "zero_grad() должен обнулить .grad у всех параметров"
    (layer(x) ** 2).sum().backward()
    assert np.allclose(layer.weight.grad, first), "после zero_grad() градиент должен считаться с нуля"


def test_second_backward_of_the_same_graph_is_refused_and_changes_nothing():
    nt.manual_seed(2)
    layer = nt.Linear(3, 2)
    loss = (layer(nt.tensor(rng(31).normal(size=(5, 3)))) ** 2).sum()
    loss.backward()
    first = layer.weight.grad.copy()
    with pytest.raises(ValueError, match="уже пройден") as error:
        loss.backward()
    assert "retain_graph=True" in str(error.value) and "посчитайте loss заново" in str(error.value)
    assert np.array_equal(layer.weight.grad, first), "отказ не должен трогать .grad"


def _step_in_place(p):
    p.data -= 0.5 * p.data                          # на месте, как в optimizer.step() и в ручном шаге урока 07


@pytest.mark.parametrize("change", [_step_in_place, lambda p: setattr(p, "data", p.data * 2)])
def test_backward_after_the_weights_changed_is_refused(change):
    nt.manual_seed(3)
    layer = nt.Linear(3, 2)
    loss = (layer(nt.tensor(rng(33).normal(size=(5, 3)))) ** 2).sum()
    change(layer.weight)
    with pytest.raises(ValueError, match="изменились после прямого прохода") as error:
        loss.backward()
    assert "(3, 2)" in str(error.value) and "optimizer.step()" in str(error.value)
    assert layer.weight.grad is None and layer.bias.grad is None, "отказ — до того, как .grad тронут"


def test_optimizer_step_before_backward_is_refused():
    nt.manual_seed(3)
    layer = nt.Linear(3, 2)
    opt = nt.optim.SGD(layer.parameters(), lr=0.1)
    loss = (layer(nt.tensor(rng(34).normal(size=(5, 3)))) ** 2).sum()
    loss.backward(retain_graph=True)
    opt.step()                                       # веса сдвинулись: старый граф им больше не соответствует
    with pytest.raises(ValueError, match="изменились после прямого прохода"):
        loss.backward()


def test_no_grad_builds_no_graph_and_restores_itself():
    x = nt.tensor(rng(32).normal(size=(2, 3)), requires_grad=True)
    with nt.no_grad():
        y = nt.softmax(x * 2 + 1) @ x.T
    assert not y.requires_grad and y._parents == (), "внутри no_grad() граф строиться не должен"
    with pytest.raises(RuntimeError):
        with nt.no_grad():
            raise RuntimeError("ошибка внутри no_grad")
    assert (x * 2).requires_grad, "после выхода из no_grad() (даже по исключению) граф снова должен строиться"


def test_one_no_grad_block_can_be_entered_again_inside_itself_and_decorate():
    """Как torch.no_grad(): тот же блок — дважды подряд и вложенно, и над функцией (задача 36, часть 5)."""
    x = nt.tensor([1.0, 2.0], requires_grad=True)
    block = nt.no_grad()
    with block:
        with block:
            assert not (x * 2).requires_grad
        assert not (x * 2).requires_grad, "выход из внутреннего входа того же блока включил граф раньше времени"
    assert (x * 2).requires_grad
    with block:
        assert not (x * 2).requires_grad, "второй вход в тот же блок снова выключает граф"

    @nt.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad and (x * 2).requires_grad


def test_no_grad_called_without_with_warns_in_russian_pointing_at_the_call():
    with pytest.warns(UnusedSwitchWarning, match=r"nt\.no_grad\(\) вызван без with") as caught:
        nt.no_grad(); line = inspect.currentframe().f_lineno            # noqa: E702 — строка вызова и есть ответ
        gc.collect()
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]
    assert "ничего не включает" in repr(block_entered()) and "with nt.no_grad():" in repr(nt.no_grad)


def block_entered():
    """Блок, который вошёл в with: его repr — без предупреждения при сборке мусора."""
    block = nt.no_grad()
    with block:
        pass
    return block


# ---- типы: float32 остаётся float32 ------------------------------------------------------

@pytest.mark.usefixtures("path")
def test_float32_softmax():
    x = nt.tensor(rng(33).normal(size=(2, 5)).astype(np.float32), requires_grad=True)
    out = nt.softmax(x)
    (out * upstream(out.shape)).sum().backward()
    assert out.dtype == np.float32 and x.grad.dtype == np.float32, f"softmax: выход {out.dtype}, градиент {x.grad.dtype}"


@pytest.mark.usefixtures("path")
def test_float32_attention():
    q, k, v = (nt.tensor(rng(34 + i).normal(size=(2, 3, 4)).astype(np.float32), requires_grad=True) for i in range(3))
    context, weights = nt.scaled_dot_product_attention(q, k, v, nt.causal_mask(3))
    assert context.dtype == np.float32 and weights.dtype == np.float32, f"выходы {context.dtype}, {weights.dtype}"
    (context * upstream(context.shape)).sum().backward()
    for name, t in (("q", q), ("k", k), ("v", v)):
        assert t.grad.dtype == np.float32, f"градиент {name} пришёл как {t.grad.dtype}, ждали float32"


@pytest.mark.usefixtures("path")
def test_float32_input_through_float64_multi_head_attention():
    nt.manual_seed(3)
    mha = nt.MultiHeadAttention(8, 2, causal=True)
    x64 = rng(37).normal(size=(2, 5, 8))
    x32 = nt.tensor(x64.astype(np.float32), requires_grad=True)
    out = mha(x32)
    assert out.dtype == np.float32, f"float32 на входе должен дать float32 на выходе, а вышел {out.dtype}"
    assert mha.attn.dtype == np.float32
    (out * upstream(out.shape)).sum().backward()
    assert x32.grad.dtype == np.float32, f"градиент входа float32 пришёл как {x32.grad.dtype}"
    for name, p in mha.named_parameters():
        assert p.grad.dtype == np.float64, f"{name} хранится во float64, а градиент пришёл как {p.grad.dtype}"
    assert np.allclose(out.data, mha(nt.tensor(x64)).data, atol=1e-5), "float32 и float64 посчитали разное"


def upstream(shape):
    return rng(99).normal(size=shape).astype(np.float32)


# ---- граничные случаи, найденные при написании тестов --------------------------------

def test_integer_tensor_with_float_number_is_not_truncated():
    t = nt.tensor([1, 2, 3])
    assert np.allclose((t * 0.5).data, [0.5, 1.0, 1.5]), f"[1, 2, 3] * 0.5 дало {(t * 0.5).data}"
    assert np.allclose((t + 0.5).data, [1.5, 2.5, 3.5]), f"[1, 2, 3] + 0.5 дало {(t + 0.5).data}"
    assert np.allclose((1.5 - t).data, [0.5, -0.5, -1.5]), f"1.5 - [1, 2, 3] дало {(1.5 - t).data}"
    assert (t * 2).dtype.kind == "i", "целое на целое остаётся целым"


def test_float32_tensor_with_python_number_stays_float32():
    t = nt.tensor(np.ones(3, dtype=np.float32))
    for result in (t * 0.5, t + 1, 2.0 - t, 3 / t):
        assert result.dtype == np.float32, f"число не должно поднимать float32 до {result.dtype}"


NUMPY_ON_THE_LEFT = {
    "array @ W": lambda w: np.arange(6.0).reshape(2, 3) @ w,
    "array * W": lambda w: np.arange(12.0).reshape(3, 4) * w,
    "array + W": lambda w: np.ones(4) + w,
    "array - W": lambda w: np.ones(4) - w,
    "array / W": lambda w: np.ones(4) / w,
    "np.float64 * W": lambda w: np.sqrt(np.float64(2.0)) * w,
}


@pytest.mark.parametrize("name", NUMPY_ON_THE_LEFT)
def test_numpy_array_on_the_left_gives_a_tensor(name):
    fn = NUMPY_ON_THE_LEFT[name]
    w = positive((3, 4), seed=38)
    out = fn(nt.tensor(w, requires_grad=True))
    assert isinstance(out, Tensor), f"{name}: ждали Tensor с графом, а получили {type(out).__name__} (dtype {getattr(out, 'dtype', None)})"
    assert_grads_match(fn, [w], names=["W"])


def test_computed_tensor_marked_requires_grad_is_a_leaf():
    w = nt.tensor(np.array([1.0, 2.0, 3.0])) * 0.5   # посчитан без графа ...
    w.requires_grad = True                             # ... и объявлен параметром, как в PyTorch
    (w * w).sum().backward()
    assert w.grad is not None and np.allclose(w.grad, 2 * w.data), f"ждали градиент 2w = {2 * w.data}, а пришёл {w.grad}"


def test_grad_is_a_private_writable_array():
    x = nt.tensor(np.ones(3), requires_grad=True)
    y = nt.tensor(np.ones(3), requires_grad=True)
    upstream_grad = np.array([1.0, 2.0, 3.0])
    (x + y).backward(upstream_grad)
    assert x.grad is not y.grad and x.grad is not upstream_grad, ".grad двух листьев не должен быть одним массивом"
    x.grad *= 0                                        # например, обрезка градиента руками
    assert np.array_equal(y.grad, [1, 2, 3]), "изменение x.grad не должно менять y.grad"
    assert np.array_equal(upstream_grad, [1, 2, 3]), "изменение x.grad не должно менять переданный в backward массив"
    z = nt.tensor(np.ones(3), requires_grad=True)
    z.sum().backward()
    z.grad[0] = 5.0                                    # .grad после sum() не должен быть read-only
    assert z.grad[0] == 5.0

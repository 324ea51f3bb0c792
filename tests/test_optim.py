"""Оптимизаторы и зерно: шаги уменьшают потери, первый шаг Adam ≈ lr·sign(grad), manual_seed повторяет веса."""

import numpy as np
import pytest

import course_lib as nt
from course_lib.optim import SGD, Adam


def quadratic_loss(w, target):
    return ((w - target) ** 2).sum()


@pytest.mark.parametrize("make_optimizer", [
    lambda p: SGD(p, lr=0.1),
    lambda p: SGD(p, lr=0.05, momentum=0.9),
    lambda p: Adam(p, lr=0.1),
], ids=["SGD", "SGD+momentum", "Adam"])
def test_optimizers_minimise_a_quadratic(make_optimizer):
    target = np.array([3.0, -2.0, 0.5])
    w = nt.tensor(np.zeros(3), requires_grad=True)
    optimizer = make_optimizer([w])
    start = quadratic_loss(w, target).item()
    for _ in range(200):
        optimizer.zero_grad()
        loss = quadratic_loss(w, target)
        loss.backward()
        optimizer.step()
    end = quadratic_loss(w, target).item()
    assert end < 1e-4 * start, f"за 200 шагов потери должны упасть с {start:.3f} почти до нуля, а стали {end:.3g}"
    assert np.allclose(w.data, target, atol=1e-2), f"минимум в {target}, а оптимизатор пришёл в {w.data}"


@pytest.mark.parametrize("make_optimizer, steps", [
    (lambda p: SGD(p, lr=0.1, momentum=0.5), 300),
    (lambda p: Adam(p, lr=0.05), 500),
], ids=["SGD", "Adam"])
def test_fit_tiny_linear_regression(make_optimizer, steps):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3))
    w_true, b_true = np.array([[1.5], [-2.0], [0.7]]), np.array([0.3])
    y = X @ w_true + b_true
    nt.manual_seed(0)
    model = nt.Linear(3, 1)
    optimizer = make_optimizer(model.parameters())
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
    assert loss.item() < 1e-4, f"данные точно линейные, а потери остались {loss.item():.3g}"
    assert np.allclose(model.weight.data, w_true, atol=1e-2), f"ждали веса {w_true.ravel()}, получили {model.weight.data.ravel()}"
    assert np.allclose(model.bias.data, b_true, atol=1e-2), f"ждали bias {b_true}, получили {model.bias.data}"


def test_adam_first_step_is_lr_times_sign_of_gradient():
    w = nt.tensor(np.array([1.0, -2.0, 3.0, 0.5]), requires_grad=True)
    scale = np.array([10.0, 0.01, -3.0, 1e-3])            # градиенты очень разного размера и знака
    (w * scale).sum().backward()
    before = w.data.copy()
    Adam([w], lr=0.01).step()
    step = before - w.data
    assert np.allclose(step, 0.01 * np.sign(scale), rtol=1e-4), (
        f"первый шаг Adam после поправки смещения ≈ lr·sign(grad) = {0.01 * np.sign(scale)}, а он {step}"
    )


def test_sgd_step_is_lr_times_gradient():
    w = nt.tensor(np.array([1.0, -2.0]), requires_grad=True)
    (w * np.array([4.0, -1.0])).sum().backward()
    SGD([w], lr=0.5).step()
    assert np.allclose(w.data, [1.0 - 2.0, -2.0 + 0.5]), f"SGD: θ − lr·grad = [-1, -1.5], а получилось {w.data}"


def test_optimizer_skips_parameters_without_gradient_and_zero_grad_clears():
    used = nt.tensor(np.ones(2), requires_grad=True)
    unused = nt.tensor(np.ones(2), requires_grad=True)
    optimizer = Adam([used, unused], lr=0.1)
    (used * 3.0).sum().backward()
    optimizer.step()
    assert np.array_equal(unused.data, [1, 1]), "параметр без градиента шагать не должен"
    assert not np.allclose(used.data, [1, 1]), "параметр с градиентом должен сдвинуться"
    optimizer.zero_grad()
    assert used.grad is None and unused.grad is None, "zero_grad() оптимизатора должен стереть .grad"


def test_manual_seed_makes_layers_identical():
    nt.manual_seed(42)
    a = nt.Linear(4, 3)
    nt.manual_seed(42)
    b = nt.Linear(4, 3)
    assert np.array_equal(a.weight.data, b.weight.data) and np.array_equal(a.bias.data, b.bias.data), (
        "одно и то же зерно должно давать одинаковые начальные веса"
    )
    nt.manual_seed(43)
    c = nt.Linear(4, 3)
    assert not np.allclose(a.weight.data, c.weight.data), "разные зёрна должны давать разные веса"
    d = nt.Linear(4, 3)
    assert not np.allclose(c.weight.data, d.weight.data), "два слоя подряд после одного зерна не должны совпадать"


def test_manual_seed_makes_attention_reproducible():
    x = np.random.default_rng(0).normal(size=(1, 4, 8))
    outputs = []
    for _ in range(2):
        nt.manual_seed(7)
        outputs.append(nt.MultiHeadAttention(8, 2)(x).data)
    assert np.array_equal(*outputs), "с одним зерном MultiHeadAttention должна считать одно и то же"


def test_linear_init_range():
    nt.manual_seed(0)
    layer = nt.Linear(16, 32)
    bound = 1 / np.sqrt(16)
    assert np.abs(layer.weight.data).max() <= bound, "начальные веса Linear — в пределах ±1/√d_in"
    assert np.abs(layer.weight.data).max() > 0.8 * bound, "и заполняют этот промежуток, а не сидят у нуля"

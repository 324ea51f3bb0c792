"""Упражнения урока 07: верный цикл обучения и верные «роли голов» — ✅, типичные ошибки — ❌ с подсказкой, заготовка — ⏳."""

import numpy as np
import pytest

from course_lib.exercises.training import check_relation_scores, check_training_loop

from checker_asserts import assert_hint, assert_not_solved, stub


def loop(order, returns="items"):
    """Цикл обучения, собранный из шагов `order` (строка из z, f, b, s) — для неверных вариантов."""

    def train_loop(model, optimizer, loss_fn, steps):
        losses, loss = [], None
        for _ in range(steps):
            for action in order:
                if action == "z":
                    optimizer.zero_grad()
                elif action == "f":
                    loss = loss_fn(model)
                elif action == "b":
                    loss.backward()
                elif action == "s":
                    optimizer.step()
            losses.append(loss.item() if returns == "items" else loss)
        return losses

    return train_loop


def right_loop(model, optimizer, loss_fn, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def model_zero_grad_loop(model, optimizer, loss_fn, steps):
    """zero_grad у модели, в конце шага — тоже верно."""
    losses = []
    for _ in range(steps):
        loss = loss_fn(model)
        loss.backward()
        optimizer.step()
        model.zero_grad()
        losses.append(loss.item())
    return losses


def forward_once(model, optimizer, loss_fn, steps):
    loss = loss_fn(model)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def right_scores(weights):
    t = np.arange(2, weights.shape[-1])
    return weights[:, t, t - 1].mean(axis=-1), weights[:, t, 0].mean(axis=-1)


# ---------------------------------------------------------------- цикл обучения

def test_training_loop_stub_is_not_solved(capsys):
    assert_not_solved(check_training_loop, capsys)


@pytest.mark.parametrize("candidate", [right_loop, model_zero_grad_loop, loop("zfbs")])
def test_right_training_loops_pass(candidate, capsys):
    result = check_training_loop(candidate)
    assert result.passed, result.message
    out = capsys.readouterr().out
    assert out.startswith("✅") and "«банк» смотрит на решающее слово" in out


@pytest.mark.parametrize("wrong, hint", [
    (loop("fbs"), "копятся"),                                     # забыли zero_grad
    (loop("zfs"), "backward() ни разу"),                          # забыли backward
    (loop("zfb"), "step() ни разу"),                              # забыли step
    (loop("fbzs"), "между backward() и step()"),                  # zero_grad не на месте
    (loop("zfbss"), "один шаг — один step()"),
    (forward_once, "внутри цикла"),
    (loop("zfbs", returns="tensors"), "loss.item()"),
    (lambda model, optimizer, loss_fn, steps: right_loop(model, optimizer, loss_fn, steps)[:-1], "чисел"),
    (lambda model, optimizer, loss_fn, steps: [0.0] * steps if right_loop(model, optimizer, loss_fn, steps) else None,
     "не те числа"),
    (lambda model, optimizer, loss_fn, steps: None, "return"),
    (lambda model, optimizer, loss_fn, steps: 1 / 0, "ZeroDivisionError"),
    (lambda model, optimizer, loss_fn, steps: [], "ни разу не вызвана"),
])
def test_training_loop_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_training_loop, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")


# ---------------------------------------------------------------- роли голов

def test_relation_scores_stub_and_right_answer(capsys):
    assert not check_relation_scores(stub).solved
    assert check_relation_scores(right_scores).passed
    assert capsys.readouterr().out.splitlines()[-1].startswith("✅")


def prefix(start):
    def scores(weights):
        t = np.arange(start, weights.shape[-1])
        return weights[:, t, t - 1].mean(axis=-1), weights[:, t, 0].mean(axis=-1)
    return scores


@pytest.mark.parametrize("wrong, hint", [
    (prefix(1), "с t = 1"),
    (prefix(0), "с t = 0"),
    (lambda w: right_scores(w)[::-1], "перепутаны местами"),
    (lambda w: (right_scores(w)[0].mean(), right_scores(w)[1].mean()), "по числу на каждую голову"),
    (lambda w: (w[:, np.arange(1, 5), np.arange(2, 6)].mean(-1), w[:, 0, np.arange(2, 6)].mean(-1)), "строка и столбец"),
    (lambda w: (w[:, np.arange(2, 5), np.arange(3, 6)].mean(-1), right_scores(w)[1]), "следующая позиция"),
    (lambda w: right_scores(w)[0], "пару"),
    (lambda w: (right_scores(w)[0] * 2, right_scores(w)[1]), "previous неверный"),
])
def test_relation_scores_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_relation_scores, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")

"""Урок 07: цикл обучения и «какая голова что делает» — неверные ответы (с куском подсказки) и верные (None)."""

import numpy as np

from course_lib.exercises.training import check_relation_scores, check_training_loop
from course_lib.optim import Adam


def loop(order, returns="items", before=""):
    """Цикл обучения, собранный из шагов `order` (строка из z, f, b, s; `before` — до цикла) — для неверных вариантов."""

    def train_loop(model, optimizer, loss_fn, steps):
        losses, loss = [], loss_fn(model) if before == "f" else None
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


right_loop = loop("zfbs")                      # zero_grad -> forward -> backward -> step, как в уроке


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


def comprehension_loop(model, optimizer, loss_fn, steps):
    """Шаг — отдельная функция, список — генератором, числа — float(loss.data), ответ — массив."""
    def one_step():
        optimizer.zero_grad()
        loss = loss_fn(model)
        loss.backward()
        optimizer.step()
        return float(loss.data)
    return np.array([one_step() for _ in range(steps)])


def grads_set_to_none_loop(model, optimizer, loss_fn, steps):
    """Градиенты стёрты руками, ответ — кортеж."""
    losses = ()
    step = 0
    while step < steps:
        for p in model.parameters():
            p.grad = None
        loss = loss_fn(model)
        loss.backward()
        optimizer.step()
        losses += (loss.data.item(),)
        step += 1
    return losses


def torch_habits(backward=None, zero_grad=None, record=lambda loss: loss.item()):
    """Цикл с привычкой из PyTorch: аргументы backward(), zero_grad() — или своё число в список."""
    def train_loop(model, optimizer, loss_fn, steps):
        losses = []
        for _ in range(steps):
            optimizer.zero_grad(**(zero_grad or {}))
            loss = loss_fn(model)
            loss.backward(**(backward or {}))
            optimizer.step()
            losses.append(record(loss))
        return losses
    return train_loop


def own_optimizer_loop(model, optimizer, loss_fn, steps):
    """Свой Adam внутри функции вместо переданного optimizer."""
    mine = Adam(model.parameters(), lr=0.01)
    return right_loop(model, mine, loss_fn, steps)


def manual_sgd_loop(model, optimizer, loss_fn, steps):
    """Шаг руками: p.data -= lr * p.grad, переданный optimizer не тронут."""
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model)
        loss.backward()
        for p in model.parameters():
            p.data -= 0.5 * p.grad
        losses.append(loss.item())
    return losses


def one_step_short(model, optimizer, loss_fn, steps):
    return right_loop(model, optimizer, loss_fn, steps - 1)


def right_scores(weights):
    t = np.arange(2, weights.shape[-1])
    return weights[:, t, t - 1].mean(axis=-1), weights[:, t, 0].mean(axis=-1)


def scores_loop(weights):
    h, T, _ = weights.shape
    previous, first = np.zeros(h), np.zeros(h)
    for head in range(h):
        previous[head] = np.mean([weights[head, t, t - 1] for t in range(2, T)])
        first[head] = np.mean([weights[head, t, 0] for t in range(2, T)])
    return previous, first


def prefix(start):
    def scores(weights):
        t = np.arange(start, weights.shape[-1])
        return weights[:, t, t - 1].mean(axis=-1), weights[:, t, 0].mean(axis=-1)
    return scores


CASES = [
    # ---- цикл обучения: неверные
    (check_training_loop, loop("fbs"), "копятся", "no-zero-grad"),
    (check_training_loop, loop("zfs"), "backward() ни разу", "no-backward"),
    (check_training_loop, loop("zfb"), "step() ни разу", "no-step"),
    (check_training_loop, loop("fbzs"), "между backward() и step()", "zero-grad-before-step"),
    (check_training_loop, loop("zfbss"), "один шаг — один step()", "two-steps"),
    (check_training_loop, loop("zfsb"), "раньше loss.backward()", "step-before-backward"),
    (check_training_loop, loop("zbs", before="f"), "внутри цикла", "forward-once"),
    (check_training_loop, one_step_short, "вызвана 39 раз", "steps-1"),
    (check_training_loop, loop("zfbs", returns="tensors"), "loss.item()", "tensors"),
    (check_training_loop, lambda model, optimizer, loss_fn, steps: right_loop(model, optimizer, loss_fn, steps)[:-1],
     "чисел", "list-short"),
    (check_training_loop, lambda model, optimizer, loss_fn, steps:
     [0.0] * steps if right_loop(model, optimizer, loss_fn, steps) else None, "не те числа", "zeros"),
    (check_training_loop, lambda model, optimizer, loss_fn, steps: None, "return", "no-return"),
    (check_training_loop, lambda model, optimizer, loss_fn, steps: 1 / 0, "ZeroDivisionError", "crash"),
    (check_training_loop, lambda model, optimizer, loss_fn, steps: [], "ни разу не вызвана", "nothing"),
    (check_training_loop, torch_habits(zero_grad={"set_to_none": True}), "без аргументов", "set-to-none"),
    (check_training_loop, torch_habits(record=lambda loss: loss.item), "без скобок", "item-without-call"),
    (check_training_loop, torch_habits(record=lambda loss: str(loss.item())), "не только числа", "strings"),
    (check_training_loop, lambda model, optimizer, loss_fn, steps: {i: x for i, x in
                                                                   enumerate(right_loop(model, optimizer, loss_fn, steps))},
     "список чисел", "dict"),
    (check_training_loop, torch_habits(backward={"retain_graph": True}), "retain_graph=True", "retain-graph"),
    (check_training_loop, own_optimizer_loop, "не переданным оптимизатором", "own-optimizer"),
    (check_training_loop, manual_sgd_loop, "шагаете руками", "manual-step"),
    # ---- цикл обучения: верные
    (check_training_loop, torch_habits(backward={"retain_graph": False}), None, "retain-graph-false"),
    (check_training_loop, right_loop, None, "zero-forward-backward-step"),
    (check_training_loop, model_zero_grad_loop, None, "model-zero-grad-at-end"),
    (check_training_loop, comprehension_loop, None, "comprehension-float-array"),
    (check_training_loop, torch_habits(record=float), None, "float-of-loss"),       # float(loss), как в PyTorch
    (check_training_loop, grads_set_to_none_loop, None, "grads-set-to-none-tuple"),
    (check_training_loop, torch_habits(record=lambda loss: loss.data), None, "zero-dim-arrays"),

    # ---- роли голов: неверные
    (check_relation_scores, prefix(1), "с t = 1", "from-t1"),
    (check_relation_scores, prefix(0), "с t = 0", "from-t0"),
    (check_relation_scores, lambda w: right_scores(w)[::-1], "перепутаны местами", "swapped"),
    (check_relation_scores, lambda w: (right_scores(w)[0].mean(), right_scores(w)[1].mean()),
     "по числу на каждую голову", "over-heads"),
    (check_relation_scores, lambda w: (w[:, np.arange(1, 5), np.arange(2, 6)].mean(-1), w[:, 0, np.arange(2, 6)].mean(-1)),
     "строка и столбец", "row-column"),
    (check_relation_scores, lambda w: (w[:, np.arange(2, 5), np.arange(3, 6)].mean(-1), right_scores(w)[1]),
     "следующая позиция", "next"),
    (check_relation_scores, lambda w: (w[:, np.arange(2, 6), np.arange(1, 5)].mean(-1), w[:, np.arange(2, 6), 0].mean(-1)),
     "T и h берите из weights.shape", "T-fixed"),
    (check_relation_scores, lambda w: right_scores(w)[0], "пару", "one-value"),
    (check_relation_scores, lambda w: (right_scores(w)[0] * 2, right_scores(w)[1]), "previous неверный", "doubled"),
    (check_relation_scores, lambda w: (w[:, range(2, w.shape[-1]), range(2, w.shape[-1]) - 1].mean(-1), 0),
     "np.arange", "range-minus-one"),
    (check_relation_scores, lambda w: {"previous": right_scores(w)[0], "first": right_scores(w)[1]}, "верните пару",
     "dict"),
    (check_relation_scores, lambda w: list(right_scores(w)[::-1]), "перепутаны местами", "swapped-list"),
    (check_relation_scores, lambda w: (right_scores(w)[0], w[:, 0, 2:].mean(-1)), "строка и столбец", "first-row-column"),
    # ---- роли голов: верные
    (check_relation_scores, right_scores, None, "fancy-indexing"),
    (check_relation_scores, scores_loop, None, "loops"),
    (check_relation_scores, lambda w: (np.diagonal(w, offset=-1, axis1=1, axis2=2)[:, 1:].mean(-1),
                                       w[:, 2:, 0].mean(-1)), None, "diagonal"),
    (check_relation_scores, lambda w: list(right_scores(w)), None, "pair-as-list"),
    (check_relation_scores, lambda w: np.stack(right_scores(w)), None, "stacked-array"),
    (check_relation_scores, lambda w: tuple(x.astype(np.float32).tolist() for x in scores_loop(w)), None,
     "float32-lists"),
]

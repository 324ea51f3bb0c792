"""Обход графа для backward (tensor.py): порядок узлов, проверка графа перед проходом, свёртка растянутых осей.

Граф проходится один раз, как в PyTorch: после backward() узлы получают `_backward = spent`, и второй
проход того же графа — ошибка (если первый не попросил retain_graph=True). Каждый узел помнит номера
версий чисел своих входов (`_versions`); запись в `.data` входа (optimizer.step(), `p.data -= …`)
увеличивает номер, и backward по старому графу отказывается: его градиент был бы для других чисел.
"""

_SPENT = ("backward(): этот граф уже пройден прошлым backward() — второй проход сложил бы градиенты ещё раз "
          "(в PyTorch тоже ошибка). Ожидался новый прямой проход: посчитайте loss заново. Если и правда нужно "
          "пройти граф дважды, первый вызов — backward(retain_graph=True)")


def spent(g):
    """`_backward` узла пройденного графа: check_graph отказывает раньше, чем до него дойдёт."""
    raise ValueError(_SPENT)


def check_graph(order):
    """Перед backward: граф не пройден раньше и числа на его входах не менялись после прямого прохода."""
    for node in order:
        if node._backward is spent:
            raise ValueError(_SPENT)
        for parent, version in zip(node._parents, getattr(node, "_versions", ())):
            if parent._version != version:
                raise ValueError(
                    f"backward(): числа тензора формы {parent.shape} изменились после прямого прохода "
                    f"(записано {parent._version - version} раз: optimizer.step() или p.data -= …), а градиент "
                    "ожидался для тех чисел, по которым считали loss. Порядок шага: zero_grad() -> loss = … -> "
                    "loss.backward() -> optimizer.step(); после step() — новый прямой проход"
                )


def unbroadcast(grad, shape):
    """Сворачивает градиент до формы входа: суммирует по осям, добавленным broadcasting'ом."""
    if grad.shape == shape:
        return grad
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape)))) if grad.ndim > len(shape) else grad
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def topological_order(root):
    """Узлы графа так, что каждый идёт после всех своих входов (без рекурсии)."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((p, False) for p in node._parents if p.requires_grad and id(p) not in seen)
    return order

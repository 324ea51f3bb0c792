"""Функции внимания без параметров: softmax, маски, scaled dot-product attention, кросс-энтропия.

Каждая принимает и Tensor, и обычный массив NumPy. Если на вход пришли только массивы,
на выходе тоже массивы — удобно в уроках; если хоть один Tensor — Tensor с графом.
"""

import numpy as np

from course_lib._checks import check_float, check_mask
from course_lib.tensor import Tensor, as_tensor


def softmax(x, axis=-1):
    """exp(x) / Σ exp(x) вдоль оси `axis` (урок 02). Форма не меняется.

    Устойчив к большим числам (вычитаем максимум строки), значения -inf дают вес 0,
    а строка целиком из -inf (всё замаскировано) — нулевые веса, без nan и предупреждений.
    """
    plain = not isinstance(x, Tensor)
    x = as_tensor(x)
    check_float(x.data, "softmax(x)", finite=False)         # -inf можно: так маскируют; nan и +inf — нет
    peak = x.data.max(axis=axis, keepdims=True)             # nan и +inf «всплывают» в максимум строки
    if np.isnan(peak).any() or np.isposinf(peak).any():
        raise ValueError("softmax: во входе есть nan или +inf — такие оценки нельзя превратить в веса")
    peak[np.isneginf(peak)] = 0                             # строка из одних -inf: вычитаем 0, не -inf
    weights = x.data - peak
    np.exp(weights, out=weights)                            # exp на месте: без ещё одного массива формы x
    total = weights.sum(axis=axis, keepdims=True)
    total[total == 0] = 1                                   # ... и получаем нули вместо 0/0
    weights /= total
    out = x._child(weights)

    def _backward(g):
        grad = g - (g * weights).sum(axis=axis, keepdims=True)   # g − Σ g·w по строке
        grad *= weights                                          # w ⊙ (g − Σ g·w), на месте
        return (grad,)

    out._backward = _backward
    return out.data if plain else out


def causal_mask(T):
    """Булева маска (T, T): True — «можно смотреть» (нижний треугольник с диагональю), урок 05."""
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"causal_mask: T — длина последовательности, целое число ≥ 1, а пришло {T!r}")
    return np.tril(np.ones((T, T), dtype=bool))


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(Q Kᵀ / √d_k) V — сердце внимания (урок 03).

    q: (..., T_q, d_k), k: (..., T_k, d_k), v: (..., T_k, d_v);
    mask: булева, True = «можно смотреть», растягивается до (..., T_q, T_k).
    Возвращает (context (..., T_q, d_v), weights (..., T_q, T_k)).
    Запрос, которому не разрешено смотреть никуда, получает нулевые веса и нулевой context.
    """
    plain = not any(isinstance(t, Tensor) for t in (q, k, v))
    q, k, v = (as_tensor(t) for t in (q, k, v))
    _check_qkv(q, k, v)
    d_k = q.shape[-1]
    scores = (q / np.sqrt(d_k)) @ k.swapaxes(-1, -2)        # (..., T_q, T_k); делим q: это дешевле, чем scores
    if mask is not None:
        scores = scores.masked_fill(~check_mask(mask, scores.shape), -np.inf)
    weights = softmax(scores, axis=-1)                      # (..., T_q, T_k), строки в сумме 1
    context = weights @ v                                   # (..., T_q, d_v)
    return (context.data, weights.data) if plain else (context, weights)


def cross_entropy(logits, targets):
    """Средняя по позициям −log p(верного класса) (урок 07).

    logits: (..., C) — оценки классов, targets: (...) — целые номера классов из [0, C).
    """
    plain = not isinstance(logits, Tensor)
    logits = as_tensor(logits)
    check_float(logits.data, "logits")
    targets = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
    C = logits.shape[-1]
    if not np.issubdtype(targets.dtype, np.integer):
        raise TypeError(f"targets: ожидались целые номера классов, а пришёл dtype {targets.dtype}")
    if targets.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets формы {targets.shape} не подходит к logits формы {logits.shape}: "
            f"ожидалась форма {logits.shape[:-1]} — по одному номеру класса на каждую строку logits"
        )
    if targets.size and (targets.min() < 0 or targets.max() >= C):
        raise ValueError(f"targets: номера классов должны быть от 0 до {C - 1}, а встретились {targets.min()}…{targets.max()}")

    probs = softmax(logits.data, axis=-1)                                        # (..., C)
    picked = np.take_along_axis(probs, targets[..., None], axis=-1)[..., 0]      # (...)
    tiny = np.finfo(probs.dtype).tiny                                            # log(0) -> большое, но конечное
    out = logits._child(np.asarray(-np.log(np.maximum(picked, tiny)).mean(), dtype=logits.dtype))

    def _backward(g):
        grad = probs.copy()
        np.put_along_axis(grad, targets[..., None], np.take_along_axis(grad, targets[..., None], -1) - 1, -1)
        return (grad * (g / max(targets.size, 1)),)             # d(mean CE)/d logits = (p − one_hot) / n

    out._backward = _backward
    return out.data if plain else out


def _check_qkv(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_float(t.data, name)
        if t.ndim < 2:
            raise ValueError(f"{name}: ожидался массив формы (…, T, d) — хотя бы две оси, а пришла форма {t.shape}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"у запросов и ключей должна быть одна длина d_k, чтобы их перемножить: "
            f"q (…, T_q, {q.shape[-1]}), k (…, T_k, {k.shape[-1]})"
        )
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError:
        raise ValueError(
            f"начальные (батчевые) оси q {q.shape}, k {k.shape}, v {v.shape} не согласуются: "
            "всё, кроме двух последних осей (T, d), должно совпадать или быть равно 1"
        ) from None
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"ключей и значений должно быть поровну (T_k): k {k.shape}, v {v.shape} — "
            "у каждого ключа своё значение"
        )

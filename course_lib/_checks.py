"""Проверки входов: понятная ошибка на русском вместо загадочной ошибки NumPy в глубине."""

import numpy as np


def check_float(x, name, finite=True):
    """Убеждается, что `x` (ndarray) — дробные числа и, если finite, все конечные."""
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(
            f"{name}: ожидались дробные числа (float32 или float64), а пришёл dtype {x.dtype}. "
            f"Приведите тип: np.asarray({name}, dtype=np.float64)"
        )
    if finite and not np.isfinite(x).all():
        bad = x[~np.isfinite(x)]
        raise ValueError(
            f"{name}: ожидались конечные числа, а встретилось {bad[0]} ({bad.size} шт.). "
            "Проверьте, откуда берутся inf/nan — обычно это переполнение exp или деление на 0."
        )


def check_mask(mask, scores_shape):
    """Маска «можно смотреть»: булева и растягивается (broadcast) до формы scores (..., T_q, T_k)."""
    mask = np.asarray(getattr(mask, "data", mask))          # Tensor-маска тоже годится
    if mask.dtype != bool:
        raise TypeError(
            f"маска должна быть булевой (True = можно смотреть), а пришёл dtype {mask.dtype}. "
            "Например: mask = causal_mask(T) или mask = lengths[:, None] > np.arange(T)"
        )
    try:
        fits = np.broadcast_shapes(mask.shape, scores_shape) == tuple(scores_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"маска формы {mask.shape} не растягивается до формы оценок {tuple(scores_shape)} "
            "(…, T_q, T_k). Последние две оси маски — запросы и ключи; для батча используйте форму (N, 1, 1, T_k) "
            "или (N, 1, T_q, T_k)."
        )
    return mask


def check_qkv(q, k, v):
    """Запросы, ключи, значения (Tensor): дробные, хотя бы (…, T, d), с согласованными осями."""
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


def check_int(value, name, where, low=1, high=None, meaning=""):
    """Целое число от low до high включительно (high=None — без верхней границы); иначе ошибка по-русски.

    bool отвергается (True — не «1»), как и 2.0 или "8": где ждут целое, дробное — почти всегда опечатка.
    Возвращает int(value). where — кто спрашивает («causal_mask»), meaning — что значит число.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} — целое число {_bounds(low, high)}{meaning}, "
                        f"а пришло {value!r} ({type(value).__name__})")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{where}: {name} — целое число {_bounds(low, high)}{meaning}, а пришло {value!r}")
    return int(value)


def _bounds(low, high):
    return f"от {low} до {high}" if high is not None else f"≥ {low}"


# ---- формы: понятная ошибка вместо английской ошибки NumPy ------------------------------

def broadcast_error(symbol, a_shape, b_shape):
    """ValueError для `a symbol b`, когда формы не растягиваются друг к другу (broadcasting)."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    for axis in range(1, min(len(a_shape), len(b_shape)) + 1):
        x, y = a_shape[-axis], b_shape[-axis]
        if x != y and 1 not in (x, y):
            break
    return ValueError(
        f"a {symbol} b: формы {a_shape} и {b_shape} не растягиваются друг к другу (broadcasting). "
        f"Оси сравниваются с конца; в каждой паре размеры равны или один из них 1, "
        f"а на оси −{axis} встретились {x} и {y}."
    )


def matmul_error(a_shape, b_shape):
    """ValueError для `A @ B` с несогласованными формами."""
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    inner_a = a_shape[-1] if a_shape else None
    inner_b = (b_shape[-2] if len(b_shape) >= 2 else b_shape[0]) if b_shape else None
    if not a_shape or not b_shape:
        return ValueError(f"A @ B: умножать матрицы можно, если у обоих хотя бы одна ось, а пришли формы {a_shape} и {b_shape}")
    if inner_a != inner_b:
        hint = " Может быть, нужно B.T?" if b_shape[-1:] == (inner_a,) else ""
        return ValueError(
            f"A @ B: последняя ось A ({inner_a}) должна совпадать с предпоследней осью B ({inner_b}), "
            f"а пришли формы {a_shape} и {b_shape}.{hint}"
        )
    return ValueError(
        f"A @ B: ведущие (батчевые) оси {a_shape[:-2]} и {b_shape[:-2]} не растягиваются друг к другу: "
        "в каждой паре размеры равны или один из них 1"
    )


def check_axis(axis, ndim, where, shape=None):
    """Ось от −ndim до ndim − 1; возвращает её неотрицательный номер."""
    check_int(axis, "axis", where, low=-ndim, high=ndim - 1,
              meaning=f" (номер оси массива формы {tuple(shape) if shape is not None else f'с {ndim} осями'})")
    return axis % ndim


def reshape_error(shape, new_shape):
    """Ошибка reshape: TypeError, если форма не из целых чисел, иначе ValueError — меняется число элементов."""
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in new_shape):
        return TypeError(f"reshape: новая форма — целые числа (−1 в форме — «досчитай сам»), а пришло {tuple(new_shape)!r}")
    size = int(np.prod(shape))
    return ValueError(
        f"reshape: в тензоре формы {tuple(shape)} {size} чисел, а форма {tuple(new_shape)} их не вмещает: "
        "числа не должны ни пропадать, ни появляться (−1 в форме — «досчитай сам»)"
    )


def divisors(n):
    """Делители n по возрастанию: столько голов и можно взять при d_model = n (для подсказок и виджетов)."""
    return [h for h in range(1, n + 1) if n % h == 0]

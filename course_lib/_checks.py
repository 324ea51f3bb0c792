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
    bounds = f"от {low} до {high}" if high is not None else f"≥ {low}"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} — целое число {bounds}{meaning}, а пришло {value!r} ({type(value).__name__})")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{where}: {name} — целое число {bounds}{meaning}, а пришло {value!r}")
    return int(value)

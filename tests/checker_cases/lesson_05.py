"""Урок 05: причинные веса и маска паддинга — неверные ответы (с куском подсказки) и верные (None)."""

import numpy as np

import course_lib as nt
from course_lib.exercises._softmax import naive_softmax, stable_softmax
from course_lib.exercises.causal import check_causal_weights, check_padding_mask


def ones(s):
    T = s.shape[-1]
    return np.ones((T, T))


def keep(scores, allowed, fill=-np.inf, softmax=nt.softmax, axis=-1):
    """Оставить оценки там, где allowed(ones) истинно, остальное — fill; потом softmax."""
    return softmax(np.where(allowed(ones(scores)) == 1, scores, fill), axis=axis)


def hide(scores, hidden, fill=-np.inf, softmax=nt.softmax, axis=-1):
    return softmax(np.where(hidden(ones(scores)) == 1, fill, scores), axis=axis)


def causal_weights(scores):
    T = scores.shape[-1]
    return nt.softmax(np.where(nt.causal_mask(T), scores, -np.inf))


def causal_loops(scores):
    """Строка за строкой: запрос i видит ключи 0…i."""
    out = np.zeros(scores.shape)
    T = scores.shape[-1]
    for index in np.ndindex(scores.shape[:-2]):
        for i in range(T):
            row = scores[index][i, :i + 1]
            e = np.exp(row - row.max())
            out[index][i, :i + 1] = e / e.sum()
    return out


def causal_float_mask_index(scores):
    """Маска из нулей и единиц как индекс: NumPy такой не примет."""
    scores = scores.copy()
    scores[..., np.triu(ones(scores), k=1)] = -np.inf
    return nt.softmax(scores)


def causal_triu_indices_float32(scores):
    """Будущее — по номерам клеток np.triu_indices, всё во float32."""
    scores = np.array(scores, dtype=np.float32)
    rows, columns = np.triu_indices(scores.shape[-1], k=1)
    scores[..., rows, columns] = -np.inf
    return stable_softmax(scores)


def causal_finfo_min(scores):
    allowed = np.tril(np.ones(scores.shape[-2:], dtype=bool))
    return stable_softmax(np.where(allowed, scores, np.finfo(scores.dtype).min))


def renormalized_after(scores):
    """Обнулить будущее после softmax и заново нормировать: в точной арифметике то же, но на больших оценках 0/0."""
    w = nt.softmax(scores) * np.tril(ones(scores))
    return w / w.sum(axis=-1, keepdims=True)


def causal_zeros_then_inf(scores):
    """Будущее обнулили умножением на tril, а потом все нули — в -inf: прячутся и настоящие нулевые оценки."""
    masked = scores * np.tril(ones(scores))
    masked[masked == 0] = -np.inf
    return nt.softmax(masked)


def causal_in_place(scores):
    scores[..., np.triu(ones(scores), k=1) == 1] = -np.inf
    return nt.softmax(scores)


def causal_not_divided(scores):
    masked = np.where(nt.causal_mask(scores.shape[-1]), scores, -np.inf)
    return np.exp(masked - masked.max(axis=-1, keepdims=True))


def causal_no_keepdims(scores):
    masked = np.where(nt.causal_mask(scores.shape[-1]), scores, -np.inf)
    e = np.exp(masked - masked.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def causal_additive_mask(scores):
    """Маска-слагаемое: нули в прошлом, -inf в будущем — по положению, так верно."""
    T = scores.shape[-1]
    mask = np.zeros((T, T))
    mask[np.triu_indices(T, k=1)] = -np.inf
    return nt.softmax(scores + mask)


def causal_copy_then_fill(scores):
    scores = scores.copy()
    scores[..., ~nt.causal_mask(scores.shape[-1])] = -np.inf
    return nt.softmax(scores)


def padding_in_place(lengths, T):
    lengths[:] = np.minimum(lengths, T)
    return (np.arange(T) < lengths[:, None])[:, None, None, :]


def padding_mask(lengths, T):
    return (np.arange(T) < np.asarray(lengths)[:, None])[:, None, None, :]


def padding_loop(lengths, T):
    mask = np.zeros((len(lengths), 1, 1, T), dtype=bool)
    for n, L in enumerate(lengths):
        mask[n, 0, 0, :L] = True
    return mask


CASES = [
    # ---- причинные веса: неверные
    (check_causal_weights, lambda s: keep(s, lambda o: np.triu(o, k=1)), "то, что надо спрятать", "triu-as-allowed"),
    (check_causal_weights, lambda s: keep(s, lambda o: np.triu(o, k=1), softmax=stable_softmax), "то, что надо спрятать",
     "triu-as-allowed-own-softmax"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.tril(o)), "то, что надо спрятать", "tril-as-hidden"),
    (check_causal_weights, lambda s: nt.softmax(s), "маски нет", "no-mask"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.triu(o, k=1), fill=0.0), "exp(0) = 1", "fill-zero"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.tril(o, k=-1)), "прошлое", "past-hidden"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.triu(o), softmax=naive_softmax), "диагонали нули",
     "diagonal-hidden-naive"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.triu(o)), "диагонали нули", "diagonal-hidden"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.triu(o, k=1), axis=-2), "столбцы", "axis-2"),
    (check_causal_weights, lambda s: nt.softmax(s) * np.tril(ones(s)), "после softmax", "mask-after"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.triu(o, k=1), softmax=naive_softmax), "exp переполнился",
     "unstable"),
    (check_causal_weights, lambda s: nt.softmax(s + -np.inf * (1 - np.tril(ones(s)))), "−inf · 0 = nan", "inf-times-0"),
    (check_causal_weights, lambda s: causal_weights(s)[..., :-1], "форма", "shape"),
    (check_causal_weights, lambda s: nt.softmax(np.where(nt.causal_mask(len(s)), s, -np.inf)), "scores.shape[-1]",
     "T-from-len"),
    (check_causal_weights, lambda s: nt.softmax(np.where(nt.causal_mask(5), s, -np.inf)), "scores.shape[-1]", "T-fixed"),
    (check_causal_weights, renormalized_after, "нормированы заново", "renormalized-after-softmax"),
    (check_causal_weights, lambda s: None, "return", "no-return"),
    (check_causal_weights, causal_float_mask_index, "булевой", "float-mask-as-index"),
    (check_causal_weights, lambda s: nt.softmax(np.where(np.tril(np.ones(s.shape[-1], s.shape[-1])), s, -np.inf)),
     "np.zeros((T, T))", "ones-two-args"),
    (check_causal_weights, lambda s: nt.softmax(s.masked_fill(np.triu(ones(s), k=1) == 1, -np.inf)), "np.where",
     "masked-fill"),
    (check_causal_weights, lambda s: naive_softmax(np.where(nt.causal_mask(s.shape[-1]), s, -np.inf), axis=-2),
     "столбцы", "axis-2-naive"),
    (check_causal_weights, causal_zeros_then_inf, "оценки, равные нулю, спрятаны", "zeros-then-inf"),
    (check_causal_weights, causal_in_place, "изменила свой вход scores на месте", "in-place"),
    (check_causal_weights, causal_not_divided, "не поделены на сумму", "not-divided"),
    (check_causal_weights, causal_no_keepdims, "без keepdims=True", "no-keepdims"),
    (check_causal_weights, lambda s: np.where(nt.causal_mask(s.shape[-1]), s, -np.inf), "вернулись оценки с -inf",
     "masked-scores"),
    # ---- причинные веса: верные
    (check_causal_weights, causal_weights, None, "causal_mask"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.triu(o, k=1)), None, "triu-as-hidden"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.tril(o) == 0), None, "tril==0"),
    (check_causal_weights, lambda s: nt.softmax(s + np.triu(np.full(s.shape[-2:], -np.inf), k=1)), None, "additive"),
    (check_causal_weights, lambda s: hide(s, lambda o: np.triu(o, k=1), fill=-1e9, softmax=stable_softmax), None,
     "minus-1e9"),
    (check_causal_weights, causal_loops, None, "loops"),
    (check_causal_weights, causal_triu_indices_float32, None, "triu-indices-float32"),
    (check_causal_weights, causal_finfo_min, None, "finfo-min"),
    (check_causal_weights, lambda s: causal_weights(s).tolist(), None, "tolist"),
    (check_causal_weights, lambda s: nt.softmax(nt.tensor(s) + np.triu(np.full(s.shape[-2:], -np.inf), k=1)), None,
     "tensor-additive"),

    (check_causal_weights, causal_additive_mask, None, "additive-mask-by-position"),
    (check_causal_weights, causal_copy_then_fill, None, "copy-then-fill"),
    # ---- маска паддинга: неверные
    (check_padding_mask, lambda lengths, T: np.arange(T) < np.asarray(lengths)[:, None], "(N, T)", "N-T"),
    (check_padding_mask, lambda lengths, T: padding_mask(lengths, T).transpose(0, 1, 3, 2), "запросы", "queries"),
    (check_padding_mask, lambda lengths, T: ~padding_mask(lengths, T), "перевёрнута", "inverted"),
    (check_padding_mask, lambda lengths, T: (np.arange(T) <= np.asarray(lengths)[:, None])[:, None, None, :], "строго",
     "off-by-one"),
    (check_padding_mask, lambda lengths, T: padding_mask(lengths, T).astype(float), "булевой", "float"),
    (check_padding_mask, lambda lengths, T: padding_mask(lengths, max(lengths)), "max(lengths)", "T-is-max"),
    (check_padding_mask, lambda lengths, T: (np.arange(T) < lengths)[None, None, None, :].repeat(len(lengths), 0),
     "lengths[:, None]", "no-column"),
    (check_padding_mask, lambda lengths, T: np.ones((len(lengths), 1, 1, T), dtype=bool), "неверная", "all-true"),
    (check_padding_mask, lambda lengths, T: None, "return", "no-return"),
    (check_padding_mask, lambda lengths, T: (np.arange(T) < lengths)[None, None], "lengths[:, None]", "no-column-crash"),
    (check_padding_mask, lambda lengths, T: np.arange(T) < np.asarray(lengths).reshape(-1, 1, 1, 1.0), "делите через //",
     "float-reshape"),
    (check_padding_mask, lambda lengths, T: padding_mask(lengths, T).tolist, "без скобок", "tolist-without-call"),
    (check_padding_mask, lambda lengths, T: (padding_mask(lengths, T), T), "несколько значений", "pair"),
    # ---- маска паддинга: верные
    (check_padding_mask, padding_in_place, None, "in-place-no-change"),
    (check_padding_mask, padding_mask, None, "arange"),
    (check_padding_mask, padding_loop, None, "loop"),
    (check_padding_mask, lambda lengths, T: np.asarray(lengths).reshape(-1, 1, 1, 1) > np.arange(T), None, "reshape"),
    (check_padding_mask, lambda lengths, T: ~(np.arange(T)[None, :] >= np.asarray(lengths)[:, None])[:, None, None],
     None, "negated"),
    (check_padding_mask, lambda lengths, T: padding_mask(lengths, T).tolist(), None, "nested-list"),
    (check_padding_mask, lambda lengths, T: np.expand_dims(np.arange(T)[None, :] < np.array(lengths)[:, None], (1, 2)),
     None, "expand-dims"),
    (check_padding_mask, lambda lengths, T: np.less.outer(np.arange(T), lengths).T[:, None, None, :], None, "outer"),
]

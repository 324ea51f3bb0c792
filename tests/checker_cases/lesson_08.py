"""Урок 08: шаг online softmax и шаг с KV-кэшем — неверные ответы (с куском подсказки) и верные (None)."""

import numpy as np

import course_lib as nt
from course_lib.efficient import online_softmax_step
from course_lib.exercises.efficient import check_kv_step, check_online_softmax_step


def step(m, l, acc, scores, values):
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    correction = np.exp(m - m_new)
    exp_scores = np.exp(scores - m_new)
    return m_new, l * correction + exp_scores.sum(axis=-1, keepdims=True), acc * correction + exp_scores @ values


def step_two_stage(m, l, acc, scores, values):
    """Сначала свёртка блока от его собственного максимума, потом слияние двух состояний."""
    m_block = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - m_block)
    m_new = np.maximum(m, m_block)
    old, new = np.exp(m - m_new), np.exp(m_block - m_new)
    return m_new, l * old + e.sum(axis=-1, keepdims=True) * new, acc * old + (e @ values) * new


def step_loops(m, l, acc, scores, values):
    """Запрос за запросом, ключ за ключом."""
    m, l, acc = m.copy(), l.copy(), acc.copy()
    for i in range(scores.shape[0]):
        for j in range(scores.shape[1]):
            m_new = max(m[i, 0], scores[i, j])
            correction = np.exp(m[i, 0] - m_new)
            weight = np.exp(scores[i, j] - m_new)
            l[i, 0] = l[i, 0] * correction + weight
            acc[i] = acc[i] * correction + weight * values[j]
            m[i, 0] = m_new
    return m, l, acc


def step_float32_list(m, l, acc, scores, values):
    """Во float32, exp блока — суммой по ключам в обратном порядке, ответ — списком."""
    m, l, acc, scores, values = (np.asarray(a, dtype=np.float32) for a in (m, l, acc, scores, values))
    m_new = np.maximum(m, np.max(scores, axis=1)[:, None])
    exp_scores = np.exp(scores - m_new)
    block = np.zeros_like(l)
    for j in reversed(range(scores.shape[1])):
        block[:, 0] += exp_scores[:, j]
    correction = np.exp(m - m_new)
    return [m_new, l * correction + block, acc * correction + np.einsum("qk,kv->qv", exp_scores, values)]


def l_summed_over_block(m, l, acc, scores, values):
    """Сумма exp по всему блоку, а не по строке каждого запроса."""
    m_new, _, acc_new = step(m, l, acc, scores, values)
    return m_new, l * np.exp(m - m_new) + np.exp(scores - m_new).sum(), acc_new


def step_builtin_max(m, l, acc, scores, values):
    m_new = max(m, scores.max(axis=-1, keepdims=True))
    return step(m_new, l, acc, scores, values)


def step_with(m_rule=None, correction_rule=None, exp_rule=None, acc_rule=None):
    """Шаг с одной ошибкой: подменить правило для m_new, поправки, exp блока или acc."""
    def wrong(m, l, acc, scores, values):
        m_new = m_rule(m, scores) if m_rule else np.maximum(m, scores.max(axis=-1, keepdims=True))
        correction = correction_rule(m, m_new) if correction_rule else np.exp(m - m_new)
        exp_scores = exp_rule(scores, m_new) if exp_rule else np.exp(scores - m_new)
        l_new = l * correction + exp_scores.sum(axis=-1, keepdims=True)
        acc_new = acc_rule(acc, correction, exp_scores, values) if acc_rule else acc * correction + exp_scores @ values
        return m_new, l_new, acc_new
    return wrong


def normalized_each_step(m, l, acc, scores, values):
    m_new, l_new, acc_new = step(m, l, acc, scores, values)
    return m_new, l_new, acc_new / l_new


def attend(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def kv(k_cache, v_cache, q_new, k_new, v_new, axis=-2, prepend=False, attend_first=False, scale=1.0, fn=attend):
    parts = ([k_new, k_cache], [v_new, v_cache]) if prepend else ([k_cache, k_new], [v_cache, v_new])
    keys, values = np.concatenate(parts[0], axis=axis), np.concatenate(parts[1], axis=axis)
    if attend_first:
        context = fn(q_new, k_cache, v_cache) if k_cache.shape[-2] else v_new
    else:
        context = fn(q_new * scale, keys, values)
    return context, keys, values


def kv_library(k_cache, v_cache, q_new, k_new, v_new):
    k_cache, v_cache = np.append(k_cache, k_new, axis=-2), np.append(v_cache, v_new, axis=-2)
    context, _ = nt.scaled_dot_product_attention(q_new, k_cache, v_cache)
    return context, k_cache, v_cache


def kv_einsum32(k_cache, v_cache, q_new, k_new, v_new):
    keys = np.concatenate([k_cache, k_new], axis=-2).astype(np.float32)
    values = np.concatenate([v_cache, v_new], axis=-2).astype(np.float32)
    scores = np.einsum("...qd,...kd->...qk", q_new.astype(np.float32), keys) / np.float32(np.sqrt(q_new.shape[-1]))
    return np.einsum("...qk,...kv->...qv", nt.softmax(scores), values), keys, values


def kv_concatenate_without_list(k_cache, v_cache, q_new, k_new, v_new):
    keys = np.concatenate(k_cache, k_new)
    return attend(q_new, keys, np.concatenate(v_cache, v_new)), keys, v_cache


def kv_float32_list(k_cache, v_cache, q_new, k_new, v_new):
    keys = np.concatenate((k_cache, k_new), axis=k_cache.ndim - 2).astype(np.float32)
    values = np.concatenate((v_cache, v_new), axis=v_cache.ndim - 2).astype(np.float32)
    scores = np.matmul(q_new.astype(np.float32), np.swapaxes(keys, -1, -2)) / np.float32(np.sqrt(keys.shape[-1]))
    return [np.matmul(nt.softmax(scores), values), keys, values]


def kv_queries_axis(k_cache, v_cache, q_new, k_new, v_new):
    def fn(q, k, v):
        scores = q @ np.swapaxes(k, -1, -2)
        return (np.exp(scores) / np.exp(scores).sum(axis=-2, keepdims=True)) @ v
    return kv(k_cache, v_cache, q_new, k_new, v_new, fn=fn)


def online_step_in_place(m, l, acc, scores, values):
    """Верные формулы, но старое состояние переписано на месте: acc *= …, m[:] = …"""
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    correction = np.exp(m - m_new)
    e = np.exp(scores - m_new)
    acc *= correction
    acc += e @ values
    l_new = l * correction + e.sum(axis=-1, keepdims=True)
    m[:] = m_new
    return m, l_new, acc


CASES = [
    # ---- шаг online softmax: неверные
    (check_online_softmax_step, step_with(m_rule=lambda m, s: s.max(axis=-1, keepdims=True)), "из старого m и блока",
     "block-max-only"),
    (check_online_softmax_step, step_with(m_rule=lambda m, s: np.maximum(m, s.max())), "по всем запросам сразу",
     "global-max"),
    (check_online_softmax_step, step_with(m_rule=lambda m, s: np.maximum(m, s.max(axis=-1))), "keepdims=True",
     "max-no-keepdims"),
    (check_online_softmax_step, step_with(correction_rule=lambda m, m_new: 1.0, acc_rule=lambda a, c, e, v: a + e @ v),
     "забыли поправку", "no-correction"),
    (check_online_softmax_step, step_with(correction_rule=lambda m, m_new: np.exp(m_new - m)), "перевёрнута",
     "flipped-correction"),
    (check_online_softmax_step, step_with(exp_rule=lambda s, m_new: np.exp(s)), "от нового максимума", "raw-exp"),
    (check_online_softmax_step, l_summed_over_block, "по всему блоку сразу", "l-sum-over-block"),
    (check_online_softmax_step, lambda m, l, acc, s, v: step(np.max(m, s.max(-1, keepdims=True)), l, acc, s, v),
     "np.maximum(a, b)", "np-max-of-two"),
    (check_online_softmax_step, step_with(acc_rule=lambda a, c, e, v: a + e @ v), "acc тоже", "acc-not-corrected"),
    (check_online_softmax_step, normalized_each_step, "ненормированная сумма", "normalized-each-step"),
    (check_online_softmax_step, lambda m, l, acc, s, v: (m, l), "три значения", "two-values"),
    (check_online_softmax_step, lambda m, l, acc, s, v: (m[:, 0], l, acc), "m: ожидалась форма", "m-shape"),
    (check_online_softmax_step, lambda m, l, acc, s, v: None, "return", "no-return"),
    (check_online_softmax_step, lambda m, l, acc, s, v: step(m, l, acc, s, v.T), "в умножении матриц", "values-T"),
    (check_online_softmax_step, step_builtin_max, "встроенных max", "builtin-max"),
    (check_online_softmax_step, lambda m, l, acc, s, v: [m, l], "три значения", "two-values-list"),
    (check_online_softmax_step, lambda m, l, acc, s, v: {"m": m, "l": l, "acc": acc}, "три значения", "dict"),
    (check_online_softmax_step, lambda m, l, acc, s, v: step(m, l, acc, s, v)[::-1], "в обратном порядке", "reversed"),
    (check_online_softmax_step, step_with(exp_rule=lambda s, m_new: np.exp(s - m_new), m_rule=lambda m, s:
                                          np.maximum(m, s.max(axis=-1, keepdim=True))), "keepdims", "torch-keepdim"),
    # ---- шаг online softmax: верные
    (check_online_softmax_step, step, None, "vectorized"),
    (check_online_softmax_step, step_two_stage, None, "two-stage"),
    (check_online_softmax_step, step_loops, None, "loops"),
    (check_online_softmax_step, online_softmax_step, None, "library"),
    (check_online_softmax_step, lambda *a: list(step(*a)), None, "triple-as-list"),
    (check_online_softmax_step, step_float32_list, None, "float32-other-order-list"),

    # ---- шаг с KV-кэшем: неверные
    (check_kv_step, lambda *a: kv(*a, axis=0), "axis=-2", "axis-0"),
    (check_kv_step, lambda *a: kv(*a, axis=-1)[1:] and (a[2],) + kv(*a, axis=-1)[1:], "axis=-2", "feature-axis"),
    (check_kv_step, lambda *a: kv(*a, prepend=True), "в начало", "prepend"),
    (check_kv_step, lambda k, v, q, kn, vn: (kv(k, v, q, kn, vn)[0], k, v), "новая строка", "old-cache"),
    (check_kv_step, lambda *a: kv(*a, attend_first=True), "не видит сам себя", "attend-before-append"),
    (check_kv_step, lambda *a: kv(*a, scale=np.sqrt(a[2].shape[-1])), "√d_k", "no-sqrt"),
    (check_kv_step, lambda *a: kv(*a, scale=1 / np.sqrt(a[2].shape[-1])), "на d_k, а нужно на √d_k", "by-d_k"),
    (check_kv_step, lambda *a: (a[4],) + kv(*a)[1:], "только на себя", "only-self"),
    (check_kv_step, kv_queries_axis, "по оси запросов", "softmax-over-queries"),
    (check_kv_step, lambda k, v, q, kn, vn: kv(k, v, kn, kn, vn), "новый ключ k_new", "k_new-as-query"),
    (check_kv_step, lambda *a: (a[2], a[0]), "три значения", "two-values"),
    (check_kv_step, lambda *a: None, "return", "no-return"),
    (check_kv_step, kv_concatenate_without_list, "np.concatenate([a, b]", "concatenate-without-list"),
    (check_kv_step, lambda *a: list(kv(*a))[:2], "три значения", "two-values-list"),
    (check_kv_step, lambda *a: kv(*a, fn=lambda q, k, v: attend(q, k, v).T), "context", "context-T"),
    (check_kv_step, lambda *a: [kv(*a)[0], kv(*a)[2], kv(*a)[1]], "кэши перепутаны", "caches-swapped"),
    # ---- шаг с KV-кэшем: верные
    (check_kv_step, kv, None, "concatenate"),
    (check_kv_step, kv_library, None, "append-library"),
    (check_kv_step, kv_einsum32, None, "einsum-float32"),
    (check_kv_step, lambda *a: list(kv(*a)), None, "triple-as-list"),
    (check_kv_step, kv_float32_list, None, "float32-list"),
    (check_kv_step, lambda *a: tuple(x.tolist() for x in kv(*a)), None, "nested-lists"),
    (check_online_softmax_step, online_step_in_place, "изменила свой вход", "in-place"),
]

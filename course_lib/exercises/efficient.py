"""Упражнения урока 08: шаг online softmax и шаг генерации с KV-кэшем."""

import numpy as np

from course_lib.efficient import online_softmax_step
from course_lib.exercises._checker import Wrong, call, checker, expect_close, expect_finite, expect_shape
from course_lib.functional import scaled_dot_product_attention, softmax


def _three(out, names):
    if not isinstance(out, tuple) or len(out) != 3:
        raise Wrong(f"верните три значения: ({', '.join(names)}) — через запятую, `return {', '.join(names)}`")
    return out


# ---- online softmax ---------------------------------------------------------------------

def _state_example():
    """Состояние после первого блока и второй блок: у запроса 0 максимум растёт, у запроса 1 — нет."""
    rng = np.random.default_rng(8)
    first, block = np.array([[0.5, 1.0, -0.3], [2.0, 0.1, 1.5]]), np.array([[3.0, 0.2, 2.5], [0.4, 1.1, -1.0]])
    values_first, values = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    start = (np.full((2, 1), -np.inf), np.zeros((2, 1)), np.zeros((2, 2)))
    state = online_softmax_step(*start, first, values_first)
    return state, block, values


@checker
def check_online_softmax_step(candidate):
    """candidate(m, l, acc, scores, values) -> (m_new, l_new, acc_new): учесть ещё один блок ключей."""
    (m, l, acc), scores, values = _state_example()
    right_m, right_l, right_acc = online_softmax_step(m, l, acc, scores, values)
    m_out, l_out, acc_out = _three(call(candidate, m.copy(), l.copy(), acc.copy(), scores, values), ["m", "l", "acc"])
    expect_shape(m_out, m.shape, "m")
    expect_shape(l_out, l.shape, "l")
    expect_shape(acc_out, acc.shape, "acc")

    if not np.allclose(m_out, right_m):
        if np.allclose(m_out, scores.max(axis=-1, keepdims=True)):
            raise Wrong("m_new — это максимум блока, а нужен максимум из старого m и блока: np.maximum(m, scores.max(...))")
        raise Wrong(f"m_new неверный: ожидался {right_m.ravel()}, а получился {m_out.ravel()}")
    exp_scores = np.exp(scores - right_m)
    if np.allclose(l_out, l + exp_scores.sum(axis=-1, keepdims=True)):
        raise Wrong("забыли поправку: старое l считалось от старого максимума — умножьте его на exp(m_old − m_new)")
    if np.allclose(l_out, l * np.exp(right_m - m) + exp_scores.sum(axis=-1, keepdims=True)):
        raise Wrong("поправка перевёрнута: нужна exp(m_old − m_new), она ≤ 1, а у вас exp(m_new − m_old)")
    if np.allclose(l_out, l * np.exp(m - right_m) + np.exp(scores).sum(axis=-1, keepdims=True)):
        raise Wrong("exp(scores) блока тоже считайте от нового максимума: exp(scores − m_new)")
    expect_close(l_out, right_l, "l_new неверный: l · exp(m_old − m_new) + Σ exp(scores − m_new) по блоку")
    if np.allclose(acc_out, acc + exp_scores @ values):
        raise Wrong("l вы поправили, а acc — нет: acc тоже умножьте на exp(m_old − m_new)")
    expect_close(acc_out, right_acc, "acc_new неверный: acc · exp(m_old − m_new) + exp(scores − m_new) @ values")

    rng = np.random.default_rng(80)
    scores, values = rng.normal(scale=300, size=(4, 10)), rng.normal(size=(10, 3))   # огромные оценки
    state = (np.full((4, 1), -np.inf), np.zeros((4, 1)), np.zeros((4, 3)))
    with np.errstate(all="ignore"):
        for start in range(0, 10, 4):                                   # блоки 4 + 4 + 2
            state = _three(call(candidate, *state, scores[:, start:start + 4], values[start:start + 4]), ["m", "l", "acc"])
        context = state[2] / state[1]
    expect_finite(context, "на оценках порядка ±300 exp переполнился: вычитайте новый максимум, exp(scores − m_new)")
    expect_close(context, softmax(scores) @ values, "после всех блоков acc / l не совпал с softmax(scores) @ values")
    return "три блока по очереди дали ровно softmax(scores) @ values — без матрицы всех весов"


# ---- KV-кэш -------------------------------------------------------------------------------

def _kv_example(t, lead=()):
    rng = np.random.default_rng(t + 7)
    k_cache, v_cache = rng.normal(size=lead + (t, 3)), rng.normal(size=lead + (t, 2))
    q_new, k_new, v_new = rng.normal(size=lead + (1, 3)), rng.normal(size=lead + (1, 3)), rng.normal(size=lead + (1, 2))
    return k_cache, v_cache, q_new, k_new, v_new


@checker
def check_kv_step(candidate):
    """candidate(k_cache, v_cache, q_new, k_new, v_new) -> (context, k_cache, v_cache) после нового токена."""
    for t, lead in ((4, ()), (0, ()), (5, (2, 3))):
        k_cache, v_cache, q_new, k_new, v_new = _kv_example(t, lead)
        where = "с пустым кэшем (первый токен)" if t == 0 else f"с осями {lead} + (T, d)" if lead else f"с кэшем из {t} токенов"
        try:
            out = call(candidate, k_cache, v_cache, q_new, k_new, v_new)
        except Wrong as wrong:
            raise Wrong(f"{where}: {wrong}. Новый токен — новая строка кэша: дописывайте по оси времени, axis=-2") from None
        context, k_out, v_out = _three(out, ["context", "k_cache", "v_cache"])
        keys, values = np.concatenate([k_cache, k_new], axis=-2), np.concatenate([v_cache, v_new], axis=-2)
        if k_out.shape != keys.shape:
            raise Wrong(f"{where}: кэш ключей должен стать формы {keys.shape}, а стал {k_out.shape}. "
                        "Новый токен — новая строка: np.concatenate([k_cache, k_new], axis=-2)")
        expect_shape(v_out, values.shape, f"{where}: кэш значений")
        if t and np.allclose(k_out, np.concatenate([k_new, k_cache], axis=-2)):
            raise Wrong("новый токен дописан в начало кэша, а его место — в конце: [k_cache, k_new]")
        expect_close(k_out, keys, f"{where}: в кэше ключей не то — старые строки на месте, новая k_new в конце")
        expect_close(v_out, values, f"{where}: в кэше значений не то — старые строки на месте, новая v_new в конце")

        right = scaled_dot_product_attention(q_new, keys, values)[0]
        expect_shape(context, right.shape, f"{where}: context")
        if np.allclose(context, right):
            continue
        if t and np.allclose(context, scaled_dot_product_attention(q_new, k_cache, v_cache)[0]):
            raise Wrong("новый токен не видит сам себя: сначала допишите k_new и v_new в кэш, потом считайте внимание")
        if np.allclose(context, scaled_dot_product_attention(q_new * np.sqrt(3), keys, values)[0]):
            raise Wrong("оценки не поделены на √d_k: q_new @ k_cacheᵀ / √d_k")
        raise Wrong(f"{where}: context неверный — softmax(q_new Kᵀ / √d_k) V по всему кэшу, вместе с новым токеном")
    return "кэш растёт на одну строку, и новый токен смотрит на всё прошлое и на себя"

"""Упражнения урока 08: шаг online softmax и шаг генерации с KV-кэшем."""

import numpy as np

from course_lib.efficient import online_softmax_step
from course_lib.exercises._checker import (Crashed, Wrong, attention_scale, call, checker, expect_close, expect_finite,
                                           expect_shape, recognize, tolerance)
from course_lib.functional import scaled_dot_product_attention, softmax

STATE = ("m", "l", "acc")


# ---- online softmax ---------------------------------------------------------------------

def _state_example():
    """Состояние после первого блока и второй блок: у запроса 0 максимум растёт, у запроса 1 — нет."""
    rng = np.random.default_rng(8)
    first, block = np.array([[0.5, 1.0, -0.3], [2.0, 0.1, 1.5]]), np.array([[3.0, 0.2, 2.5], [0.4, 1.1, -1.0]])
    values_first, values = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    start = (np.full((2, 1), -np.inf), np.zeros((2, 1)), np.zeros((2, 2)))
    state = online_softmax_step(*start, first, values_first)
    return state, block, values


def _m_hint(m_out, m, scores, right_m, tol):
    if m_out.shape != m.shape:
        raise Wrong(f"m: ожидалась форма {m.shape} — по числу на запрос, а получилась {m_out.shape}. "
                    "Максимум блока берите по строке с keepdims=True: scores.max(axis=-1, keepdims=True)")
    expect_shape(m_out, m.shape, "m")
    recognize(m_out, right_m, [
        (lambda: scores.max(axis=-1, keepdims=True), "m_new — это максимум блока, а нужен максимум из старого m "
                                                     "и блока: np.maximum(m, scores.max(...))"),
        (lambda: np.maximum(m, scores.max()), "m_new взят по всем запросам сразу, а у каждого запроса свой максимум: "
                                              "scores.max(axis=-1, keepdims=True)"),
    ], "m: ", tol)
    expect_close(m_out, right_m, f"m_new неверный: ожидался {right_m.ravel()}, а получился {m_out.ravel()}", tol)


def _blocks(candidate, scores, values, block_size):
    """Прогнать шаг ученика по блокам ключей от пустого состояния; вернуть acc / l."""
    T_q, d_v = scores.shape[0], values.shape[1]
    state = (np.full((T_q, 1), -np.inf), np.zeros((T_q, 1)), np.zeros((T_q, d_v)))
    for start in range(0, scores.shape[1], block_size):
        block = slice(start, start + block_size)
        state = call(candidate, *state, scores[:, block].copy(), values[block].copy(), parts=STATE)
        expect_shape(state[2], (T_q, d_v), f"acc после блока {start // block_size + 1}")
    return state[2] / state[1]


@checker
def check_online_softmax_step(candidate):
    """candidate(m, l, acc, scores, values) -> (m_new, l_new, acc_new): учесть ещё один блок ключей."""
    (m, l, acc), scores, values = _state_example()
    right_m, right_l, right_acc = online_softmax_step(m, l, acc, scores, values)
    try:
        m_out, l_out, acc_out = call(candidate, m.copy(), l.copy(), acc.copy(), scores.copy(), values.copy(),
                                     parts=STATE)
    except Crashed as crash:
        if crash.kind != "broadcast":
            raise
        raise Wrong(f"{crash}. Формы: m и l — (T_q, 1) = {m.shape}, по числу на запрос; acc — (T_q, d_v) = "
                    f"{acc.shape}; scores — (T_q, B) = {scores.shape}. Максимум и сумму блока берите с "
                    "keepdims=True") from None
    if m_out.shape == acc.shape != m.shape and acc_out.shape == m.shape:
        raise Wrong("значения в обратном порядке: сначала m, потом l, потом acc — `return m_new, l_new, acc_new`")
    tol = _online_tolerance(scores, values)
    _m_hint(m_out, m, scores, right_m, tol)
    expect_shape(l_out, l.shape, "l")
    expect_shape(acc_out, acc.shape, "acc")
    exp_scores = np.exp(scores - right_m)
    block_sum = exp_scores.sum(axis=-1, keepdims=True)
    recognize(l_out, right_l, [
        (lambda: l + block_sum, "забыли поправку: старое l считалось от старого максимума — умножьте его "
                                "на exp(m_old − m_new)"),
        (lambda: l * np.exp(right_m - m) + block_sum, "поправка перевёрнута: нужна exp(m_old − m_new), она ≤ 1, "
                                                      "а у вас exp(m_new − m_old)"),
        (lambda: l * np.exp(m - right_m) + exp_scores.sum(), "сумма exp взята по всему блоку сразу, а у каждого "
                                                             "запроса своя: .sum(axis=-1, keepdims=True)"),
        (lambda: l * np.exp(m - right_m) + np.exp(scores).sum(axis=-1, keepdims=True),
         "exp(scores) блока тоже считайте от нового максимума: exp(scores − m_new)"),
    ], "l: ", tol)
    expect_close(l_out, right_l, "l_new неверный: l · exp(m_old − m_new) + Σ exp(scores − m_new) по блоку", tol)
    recognize(acc_out, right_acc, [
        (lambda: acc + exp_scores @ values, "l вы поправили, а acc — нет: acc тоже умножьте на exp(m_old − m_new)"),
        (lambda: right_acc / right_l, "acc — это ненормированная сумма exp · v: делить на l нужно один раз, "
                                      "в самом конце (context = acc / l), а не на каждом шаге"),
    ], "acc: ", tol)
    expect_close(acc_out, right_acc, "acc_new неверный: acc · exp(m_old − m_new) + exp(scores − m_new) @ values", tol)

    rng = np.random.default_rng(80)
    for scores, values, block_size, where in [
            (rng.normal(scale=300, size=(4, 10)), rng.normal(size=(10, 3)), 4, "на оценках порядка ±300 блоками 4 + 4 + 2"),
            (rng.normal(size=(1, 5)), rng.normal(size=(5, 2)), 1, "для одного запроса блоками по одному ключу")]:
        context = _blocks(candidate, scores, values, block_size)
        expect_finite(context, f"{where}: exp переполнился — вычитайте новый максимум, exp(scores − m_new)")
        expect_close(context, softmax(scores) @ values, f"{where}: после всех блоков acc / l не совпал "
                                                        "с softmax(scores) @ values", _online_tolerance(scores, values))
    return "три блока по очереди дали ровно softmax(scores) @ values — без матрицы всех весов"


def _online_tolerance(scores, values):
    """exp(scores − m) теряет eps · |scores|; l и acc — суммы по всем ключам."""
    return tolerance(scale=(1 + np.abs(scores).max()) * (1 + np.abs(values).sum(axis=0).max()))


# ---- KV-кэш -------------------------------------------------------------------------------

def _kv_example(t, lead=(), dtype=float):
    rng = np.random.default_rng(t + 7)
    k_cache, v_cache = rng.normal(size=lead + (t, 3)), rng.normal(size=lead + (t, 2))
    q_new, k_new, v_new = rng.normal(size=lead + (1, 3)), rng.normal(size=lead + (1, 3)), rng.normal(size=lead + (1, 2))
    return tuple(a.astype(dtype) for a in (k_cache, v_cache, q_new, k_new, v_new))


def _context_mistakes(q_new, keys, values, k_cache, v_cache, t):
    def sdpa(q, k, v):
        return scaled_dot_product_attention(q, k, v)[0]
    blind = [(lambda: sdpa(q_new, k_cache, v_cache),
              "новый токен не видит сам себя: сначала допишите k_new и v_new в кэш, потом считайте внимание")]
    return (blind if t else []) + [
        (lambda: sdpa(keys[..., -1:, :], keys, values), "запрос — это q_new, а у вас новый ключ k_new: оценки = "
                                                        "q_new @ k_cacheᵀ / √d_k"),
        (lambda: sdpa(q_new * np.sqrt(3), keys, values), "оценки не поделены на √d_k: q_new @ k_cacheᵀ / √d_k"),
        (lambda: sdpa(q_new / np.sqrt(3), keys, values), "оценки поделены на d_k, а нужно на √d_k"),
        (lambda: values[..., -1:, :], "новый токен смотрит только на себя: context — смесь значений всего кэша, "
                                      "а не одно v_new"),
        (lambda: values.sum(axis=-2, keepdims=True), "softmax взят по оси запросов (она длины 1), и все веса стали 1: "
                                                     "нормируйте по оси ключей, axis=-1"),
    ]


@checker
def check_kv_step(candidate):
    """candidate(k_cache, v_cache, q_new, k_new, v_new) -> (context, k_cache, v_cache) после нового токена."""
    for t, lead, dtype in ((4, (), float), (0, (), float), (5, (2, 3), float), (6, (), np.float32)):
        k_cache, v_cache, q_new, k_new, v_new = _kv_example(t, lead, dtype)
        where = ("с пустым кэшем (первый токен)" if t == 0 else f"с осями {lead} + (T, d)" if lead
                 else f"с кэшем из {t} токенов" + (" во float32" if dtype == np.float32 else ""))
        try:
            context, k_out, v_out = call(candidate, *(a.copy() for a in (k_cache, v_cache, q_new, k_new, v_new)),
                                         parts=("context", "k_cache", "v_cache"))
        except Crashed as crash:
            if crash.kind not in ("concatenate", "matmul", "broadcast", "axis"):
                raise Wrong(f"{where}: {crash}") from None
            raise Wrong(f"{where}: {crash}. Новый токен — новая строка кэша: дописывайте по оси времени, "
                        "axis=-2") from None
        keys, values = (np.concatenate([k_cache, k_new], axis=-2).astype(float),
                        np.concatenate([v_cache, v_new], axis=-2).astype(float))
        if k_out.shape == values.shape != keys.shape and v_out.shape == keys.shape:
            raise Wrong(f"{where}: кэши перепутаны местами: сначала context, потом ключи, потом значения — "
                        "`return context, k_cache, v_cache`")
        if k_out.shape != keys.shape:
            raise Wrong(f"{where}: кэш ключей должен стать формы {keys.shape}, а стал {k_out.shape}. "
                        "Новый токен — новая строка: np.concatenate([k_cache, k_new], axis=-2)")
        expect_shape(k_out, keys.shape, f"{where}: кэш ключей")
        expect_shape(v_out, values.shape, f"{where}: кэш значений")
        recognize(k_out, keys, [(lambda: np.concatenate([k_new, k_cache], axis=-2),
                                 "новый токен дописан в начало кэша, а его место — в конце: [k_cache, k_new]")])
        expect_close(k_out, keys, f"{where}: в кэше ключей не то — старые строки на месте, новая k_new в конце")
        expect_close(v_out, values, f"{where}: в кэше значений не то — старые строки на месте, новая v_new в конце")

        right = scaled_dot_product_attention(q_new.astype(float), keys, values)[0]
        expect_shape(context, right.shape, f"{where}: context")
        tol = tolerance(scale=attention_scale(q_new, keys, values))
        recognize(context, right, _context_mistakes(q_new.astype(float), keys, values, k_cache.astype(float),
                                                    v_cache.astype(float), t), f"{where}: ", tol)
        expect_close(context, right, f"{where}: context неверный — softmax(q_new Kᵀ / √d_k) V по всему кэшу, "
                                     "вместе с новым токеном", tol)
    return "кэш растёт на одну строку, и новый токен смотрит на всё прошлое и на себя"

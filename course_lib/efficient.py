"""Точное внимание без матрицы T×T: online softmax по блокам ключей — идея FlashAttention (урок 08).

Обычное внимание сначала строит все оценки S = Q Kᵀ / √d_k (T_q × T_k чисел), потом softmax,
потом веса @ V. Здесь ключи и значения идут блоками по `block_size`, и для каждого запроса
хранятся только три «бегущие» величины:

    m   — наибольшая оценка среди уже просмотренных ключей,               (…, T_q, 1)
    l   — сумма exp(s_j − m) по уже просмотренным ключам,                 (…, T_q, 1)
    acc — сумма exp(s_j − m) · v_j по уже просмотренным ключам,           (…, T_q, d_v)

Пришёл новый блок оценок s (…, T_q, B) и значений V_блок (…, B, d_v):

    m_new = max(m, max_j s_j)
    l     = l   · exp(m − m_new) + Σ_j exp(s_j − m_new)
    acc   = acc · exp(m − m_new) + exp(s − m_new) @ V_блок

Множитель exp(m − m_new) ≤ 1 — «поправка»: старые слагаемые считались от старого максимума,
а теперь все должны считаться от нового. После последнего блока context = acc / l — ровно
softmax(S) @ V, только весь S ни разу не лежал в памяти: дополнительная память — T_q × B, а не T_q × T_k.
Работы (умножений) столько же, O(T²): экономится память, а не арифметика.
"""

import numpy as np

from course_lib._checks import check_bool, check_float, check_int, check_mask, check_numbers, check_qkv
from course_lib.autograd.tensor import Tensor, as_tensor


def online_softmax_step(m, l, acc, scores, values):
    """Один шаг online softmax: учесть блок ключей (урок 08).

    m, l: (…, T_q, 1) — бегущие максимум и сумма; acc: (…, T_q, d_v) — бегущая сумма exp·v;
    scores: (…, T_q, B) — оценки запросов по ключам блока (−inf = смотреть нельзя);
    values: (…, B, d_v) — значения блока. Возвращает новые (m, l, acc) тех же форм.
    """
    _check_step_inputs(m=m, l=l, acc=acc, scores=scores, values=values)
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))     # (…, T_q, 1)
    # Пока запрос не видел ни одного разрешённого ключа, m_new = −inf, и exp(−inf − (−inf)) = nan.
    # Вычитаем тогда 0: все exp(−inf) дадут 0, и строка останется пустой (l = 0, acc = 0).
    shift = np.where(np.isneginf(m_new), 0.0, m_new)               # (…, T_q, 1)
    correction = np.exp(m - shift)                                 # (…, T_q, 1), ≤ 1
    exp_scores = np.exp(scores - shift)                            # (…, T_q, B)
    l_new = l * correction + exp_scores.sum(axis=-1, keepdims=True)
    acc_new = acc * correction + exp_scores @ values               # (…, T_q, B) @ (…, B, d_v) -> (…, T_q, d_v)
    return m_new, l_new, acc_new


def block_attention(q, k, v, mask=None, causal=False, block_size=128):
    """softmax(Q Kᵀ / √d_k) V без матрицы T_q × T_k: ключи идут блоками по block_size (урок 08).

    q: (…, T_q, d_k), k: (…, T_k, d_k), v: (…, T_k, d_v) — обычные массивы NumPy;
    mask: булева, True = «можно смотреть», растягивается до (…, T_q, T_k), как в
    scaled_dot_product_attention; causal=True — причинная маска (ключ j виден запросу i, если j ≤ i),
    её блоки строятся на лету, без матрицы T×T. Возвращает context (…, T_q, d_v) — тот же, что
    scaled_dot_product_attention(q, k, v, mask)[0], до ошибок округления. Весов не возвращает:
    их-то мы и не храним. Запрос, которому не разрешено смотреть никуда, получает нулевой context.
    """
    q, k, v = _check_inputs(q, k, v, block_size)
    causal = check_bool(causal, "causal", "block_attention", meaning=" (причинная маска)")
    T_q, d_k = q.shape[-2:]
    T_k, d_v = v.shape[-2:]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])   # оси батча и голов
    if mask is not None:
        mask = np.broadcast_to(check_mask(mask, lead + (T_q, T_k)), lead + (T_q, T_k))   # вид, не копия
    query_pos = np.arange(T_q)[:, None]                            # (T_q, 1) — для причинной маски

    q = q / np.sqrt(d_k).astype(q.dtype)                           # делим q, как scaled_dot_product_attention; float32 остаётся float32
    m = np.full(lead + (T_q, 1), -np.inf, dtype=q.dtype)           # ещё ничего не видели: максимум −inf
    l = np.zeros(lead + (T_q, 1), dtype=q.dtype)
    acc = np.zeros(lead + (T_q, d_v), dtype=q.dtype)
    for start in range(0, T_k, block_size):
        stop = min(start + block_size, T_k)
        scores = q @ k[..., start:stop, :].swapaxes(-1, -2)        # (…, T_q, d_k) @ (…, d_k, B) -> (…, T_q, B)
        if causal:
            allowed = np.arange(start, stop) <= query_pos          # (T_q, B): только этот кусок маски
            scores = np.where(allowed, scores, -np.inf)
        if mask is not None:
            scores = np.where(mask[..., start:stop], scores, -np.inf)
        m, l, acc = online_softmax_step(m, l, acc, scores, v[..., start:stop, :])
    return acc / np.where(l == 0, 1, l)                            # (…, T_q, d_v); пустая строка: 0 / 1 = 0


def _check_step_inputs(**arrays):
    """Входы online_softmax_step — массивы дробных чисел (−inf можно: так закрыты ключи)."""
    for name, x in arrays.items():
        check_float(check_numbers(x, name, "online_softmax_step"), name, finite=False)


def _check_inputs(q, k, v, block_size):
    check_int(block_size, "block_size", "block_attention", meaning=" (сколько ключей в блоке; обычно 64…512)")
    if any(isinstance(t, Tensor) for t in (q, k, v)):
        raise TypeError(
            "block_attention работает с массивами NumPy, без градиентов: передайте q.data, k.data, v.data "
            "(или возьмите scaled_dot_product_attention, если нужен градиент)"
        )
    q, k, v = (as_tensor(t, name=name, where="block_attention") for t, name in zip((q, k, v), "qkv"))
    check_qkv(q, k, v)                                            # те же понятные ошибки, что у обычного внимания
    return q.data, k.data, v.data

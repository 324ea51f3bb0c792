"""Внимание одной операцией: softmax(маска(q·kᵀ·scale)) @ v с прямым и обратным проходом рядом.

Урок 05 считает внимание тремя шагами — оценки, маска, softmax, — и так его и надо читать:
`functional.scaled_dot_product_attention` и есть эти шаги. Здесь те же шаги слиты в одну операцию ради скорости: матрица оценок (…, T_q, T_k) — самый
большой массив во всём слое (N·h·T² чисел), и три отдельных шага прошли бы по ней в памяти
много раз. Операция идёт кусками — по нескольку матриц, около CHUNK чисел (столько держит кэш
одного ядра; длинная матрица идёт куском одна): кусок посчитан, замаскирован, пронормирован и
умножен на v, пока лежит в кэше; куски независимы, и их считают все ядра сразу.
Внутри куска строки запросов идут полосами по ROWS. Если маска закрывает ключи справа сразу для
всех строк полосы (причинная: строкам 0–63 открыты только ключи 0–63), веса там — нули, и их не
считают: для причинной маски это почти половина работы. Соседние полосы с одной границей —
одна полоса (без маски полоса одна на все строки).
`functional.scaled_dot_product_attention` проверяет входы и внутри `with nt.fast():` зовёт эту операцию.
"""

import numpy as np

from course_lib._checks import check_mask, check_memory, check_peak, check_qkv, check_real
from course_lib.engine_room.inputs import check_tensor
from course_lib.engine_room.pool import each_piece

ROWS = 64       # строк запросов в полосе
CHUNK = 2**18   # чисел оценок в одном куске (если матрицы маленькие): 1 МБ во float32, 2 МБ во float64


def fused_attention(q, k, v, mask, scale):
    """(context, weights) — два Tensor: context (..., T_q, d_v) и weights (..., T_q, T_k).

    q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v) — Tensor с согласованными осями батча;
    mask — булев массив, True = «можно смотреть», растягивается до (..., T_q, T_k), или None;
    scale — множитель оценок. Строка, где всё закрыто, даёт нулевые веса и нулевой context.
    """
    for name, t, shape in (("q", q, "(…, T_q, d_k)"), ("k", k, "(…, T_k, d_k)"), ("v", v, "(…, T_k, d_v)")):
        check_tensor(t, name, "fused_attention", shape, "nt.scaled_dot_product_attention(q, k, v, mask)",
                     axes=2)
    batch = check_qkv(q, k, v, numbers=False)                # формы; числа книга уже проверила, nan поймает check_peak
    scale = check_real(scale, "scale", "fused_attention", positive=True, meaning=" (множитель оценок, обычно 1/√d_k)")
    if mask is not None:
        mask = check_mask(mask, batch + (q.shape[-2], k.shape[-2]))
    dtype = np.result_type(q.dtype, k.dtype, v.dtype)
    scale = np.asarray(scale, dtype=dtype)                   # число того же типа: float32 остаётся float32
    Q, K, V = (_flat(t.data, batch).astype(dtype, copy=False) for t in (q, k, v))   # (B, T, d)
    B, T_q, T_k = Q.shape[0], Q.shape[1], K.shape[1]
    check_memory(B * T_q * T_k * dtype.itemsize, f"веса внимания (массив {batch + (T_q, T_k)} {dtype})",
                 "scaled_dot_product_attention (nt.fast)",
                 "block_attention из урока 08 (course_lib.efficient: память T_q × block_size, весов не хранит) или меньше T")
    blocked = None if mask is None else ~_flat(np.broadcast_to(mask, batch + (T_q, T_k)), batch, keep_one=True)
    bands = _bands(blocked, T_q, T_k)                        # [(строки, c)]: строкам открыты только ключи < c
    cells = max(rows.stop - rows.start for rows, _ in bands) * T_k   # чисел в самой широкой полосе одной матрицы
    weights = np.empty((B, T_q, T_k), dtype=dtype)
    context = np.empty((B, T_q, V.shape[2]), dtype=dtype)

    def forward_chunk(s):
        for rows, c in bands:
            w = weights[s, rows, :c]                         # (b, ROWS, c) — кусок в кэше
            weights[s, rows, c:] = 0                         # правее c всё закрыто: веса 0
            with np.errstate(over="ignore"):                 # переполнение заметит check_peak ниже, по-русски
                np.matmul(Q[s, rows] * scale, K[s, :c].swapaxes(1, 2), out=w)   # оценки q·kᵀ·scale
            if blocked is not None:
                closed = blocked[s if len(blocked) > 1 else slice(None), rows, :c]
                np.copyto(w, -np.inf, where=closed)          # закрытое -> −∞ -> вес 0
            peak = w.max(axis=-1, keepdims=True, initial=-np.inf)
            check_peak(peak, "softmax")                      # оценки переполнились — та же ошибка, что по книге
            peak[np.isneginf(peak)] = 0                      # строка из одних −∞: вычитаем 0, не −∞
            w -= peak
            np.exp(w, out=w)
            total = w.sum(axis=-1, keepdims=True)
            total[total == 0] = 1                            # ... и получаем нули вместо 0/0
            w /= total
            np.matmul(w, V[s, :c], out=context[s, rows])     # context = weights @ v

    _each_chunk(forward_chunk, B, cells)
    context_out = q._child(context.reshape(batch + context.shape[1:]), k, v)
    weights_out = q._child(weights.reshape(batch + weights.shape[1:]), k)

    def _context_backward(g):
        g = _flat(g, batch)
        grad_q, grad_k, grad_v = np.empty_like(Q), np.zeros_like(K), np.zeros_like(V)

        def backward_chunk(s):
            for rows, c in bands:
                w, g_rows = weights[s, rows, :c], g[s, rows]
                grad_v[s, :c] += w.swapaxes(1, 2) @ g_rows                 # dL/dv = wᵀ g
                grad_w = g_rows @ V[s, :c].swapaxes(1, 2)                  # dL/dw = g vᵀ
                dot = (g_rows * context[s, rows]).sum(axis=-1, keepdims=True)   # Σ_j (dL/dw_j)·w_j = g·context
                _scores_backward(w, grad_w, dot, Q[s, rows], K[s, :c], grad_q[s, rows], grad_k[s, :c])
            grad_q[s] *= scale
            grad_k[s] *= scale

        _each_chunk(backward_chunk, B, cells)
        return tuple(grad.reshape(batch + grad.shape[1:]) for grad in (grad_q, grad_k, grad_v))

    def _weights_backward(g):
        g = _flat(g, batch)
        grad_q, grad_k = np.empty_like(Q), np.zeros_like(K)

        def backward_chunk(s):
            for rows, c in bands:
                w, grad_w = weights[s, rows, :c], g[s, rows, :c].copy()
                dot = (grad_w * w).sum(axis=-1, keepdims=True)             # Σ_j (dL/dw_j)·w_j
                _scores_backward(w, grad_w, dot, Q[s, rows], K[s, :c], grad_q[s, rows], grad_k[s, :c])
            grad_q[s] *= scale
            grad_k[s] *= scale

        _each_chunk(backward_chunk, B, cells)
        return tuple(grad.reshape(batch + grad.shape[1:]) for grad in (grad_q, grad_k))

    context_out._backward = _context_backward
    weights_out._backward = _weights_backward
    return context_out, weights_out


def _scores_backward(w, grad_w, dot, q, k, grad_q, grad_k):
    """От dL/d(весов) полосы к dL/dq и dL/dk без множителя scale; grad_w портится, в grad_q пишется, к grad_k прибавляется.

    dot — Σ_j (dL/dw_j)·w_j по каждой строке. Когда веса идут только в context = w @ v, это
    то же самое, что g·context (g = dL/d context): сумма по d_v числам вместо T_k — так делает FlashAttention.
    Оценки s = q·kᵀ·scale, поэтому dL/dq = scale · (dL/ds) k и dL/dk = scale · Σ по полосам (dL/ds)ᵀ q;
    scale умножают один раз, когда все полосы сложены.
    """
    grad_w -= dot                                           # softmax: dL/ds = w ⊙ (dL/dw − Σ dL/dw·w)
    grad_w *= w
    np.matmul(grad_w, k, out=grad_q)                        # (dL/ds) k
    grad_k += grad_w.swapaxes(1, 2) @ q                     # (dL/ds)ᵀ q — ключ получает от всех полос


def _bands(blocked, T_q, T_k):
    """[(строки, c)] — полосы строк запросов; маска открывает строкам полосы только ключи < c.

    blocked — (B или 1, T_q, T_k), True = закрыто, или None. Строки идут по ROWS; c — последний
    открытый ключ полосы хоть в одной матрице, плюс один; правее него в полосе одни нули весов.
    Соседние полосы с тем же c сливаются в одну: пропускать там нечего (без маски — одна полоса
    на все строки). Полоса, закрытая целиком, получает c = 0: пустые умножения дают нулевые веса и context.
    """
    bands = []
    for start in range(0, T_q, ROWS):
        stop = min(start + ROWS, T_q)
        if blocked is None:
            c = T_k
        else:
            open_keys = np.flatnonzero(~blocked[:, start:stop].all(axis=(0, 1)))
            c = int(open_keys[-1]) + 1 if len(open_keys) else 0
        if bands and bands[-1][1] == c:
            start = bands.pop()[0].start                 # та же граница, что у предыдущей: одна полоса
        bands.append((slice(start, stop), c))
    return bands


def _each_chunk(fn, B, cells):
    """fn(s) для каждого куска s — среза по оси батча: столько матриц, чтобы полоса в них всех влезла в CHUNK.

    cells — чисел в самой широкой полосе одной матрицы; полоса шире CHUNK — кусок из одной матрицы.

    Куски независимы, поэтому их считают все ядра сразу (pool.py). Один кусок (короткие
    последовательности, как в обучении урока 07) — без потоков.
    """
    step = max(1, CHUNK // max(cells, 1))
    each_piece(fn, [slice(i, i + step) for i in range(0, B, step)])


def _flat(x, batch, keep_one=False):
    """(*batch, a, b) -> (B, a, b): оси батча в одну; копия, только если без неё нельзя.

    keep_one: если x на самом деле один на весь батч (растянут broadcasting'ом), вернуть (1, a, b) без копии.
    """
    if keep_one and all(stride == 0 for stride in x.strides[:-2]):
        return x[(0,) * (x.ndim - 2)][None]
    return np.broadcast_to(x, batch + x.shape[-2:]).reshape((-1,) + x.shape[-2:])

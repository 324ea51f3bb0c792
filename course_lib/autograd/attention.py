"""Внимание одной операцией: softmax(маска(q·kᵀ·scale)) @ v с прямым и обратным проходом рядом.

Урок 05 считает внимание тремя шагами — оценки, маска, softmax, — и так его и надо читать.
Здесь те же шаги слиты в одну операцию ради скорости: матрица оценок (…, T_q, T_k) — самый
большой массив во всём слое (N·h·T² чисел), и три отдельных шага прошли бы по ней в памяти
много раз. Операция идёт кусками по несколько матриц (T_q, T_k) размером с кэш процессора
(~256 КБ): кусок посчитан, замаскирован, пронормирован и умножен на v, пока лежит в кэше;
куски независимы, и их считают все ядра сразу.
`functional.scaled_dot_product_attention` проверяет входы и зовёт эту операцию.
"""

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController

CHUNK = 2**16   # чисел оценок в одном куске: 256 КБ во float32, 512 КБ во float64


def attention(q, k, v, mask, scale):
    """(context, weights) — два Tensor: context (..., T_q, d_v) и weights (..., T_q, T_k).

    q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v) — Tensor с согласованными осями батча;
    mask — булев массив, True = «можно смотреть», растягивается до (..., T_q, T_k), или None;
    scale — множитель оценок. Строка, где всё закрыто, даёт нулевые веса и нулевой context.
    """
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    dtype = np.result_type(q.dtype, k.dtype, v.dtype)
    scale = np.asarray(scale, dtype=dtype)                   # число того же типа: float32 остаётся float32
    Q, K, V = (_flat(t.data, batch).astype(dtype, copy=False) for t in (q, k, v))   # (B, T, d)
    B, T_q, T_k = Q.shape[0], Q.shape[1], K.shape[1]
    blocked = None if mask is None else ~_flat(np.broadcast_to(mask, batch + (T_q, T_k)), batch, keep_one=True)
    weights = np.empty((B, T_q, T_k), dtype=dtype)
    context = np.empty((B, T_q, V.shape[2]), dtype=dtype)

    def forward_chunk(s):
        w = weights[s]                                       # (b, T_q, T_k) — кусок в кэше
        np.matmul(Q[s] * scale, K[s].swapaxes(1, 2), out=w)  # оценки q·kᵀ·scale
        if blocked is not None:
            np.copyto(w, -np.inf, where=blocked[s] if len(blocked) > 1 else blocked)   # закрытое -> −∞ -> вес 0
        peak = w.max(axis=-1, keepdims=True, initial=-np.inf)
        peak[np.isneginf(peak)] = 0                          # строка из одних −∞: вычитаем 0, не −∞
        w -= peak
        np.exp(w, out=w)
        total = w.sum(axis=-1, keepdims=True)
        total[total == 0] = 1                                # ... и получаем нули вместо 0/0
        w /= total
        np.matmul(w, V[s], out=context[s])                   # context = weights @ v

    _each_chunk(forward_chunk, B, T_q * T_k)
    context_out = q._child(context.reshape(batch + context.shape[1:]), k, v)
    weights_out = q._child(weights.reshape(batch + weights.shape[1:]), k)

    def _context_backward(g):
        g = _flat(g, batch)
        grad_q, grad_k, grad_v = np.empty_like(Q), np.empty_like(K), np.empty_like(V)

        def backward_chunk(s):
            np.matmul(weights[s].swapaxes(1, 2), g[s], out=grad_v[s])    # dL/dv = wᵀ g
            grad_w = g[s] @ V[s].swapaxes(1, 2)                          # dL/dw = g vᵀ
            dot = (g[s] * context[s]).sum(axis=-1, keepdims=True)        # Σ_j (dL/dw_j)·w_j = g·context
            _scores_backward(weights[s], grad_w, dot, Q[s], K[s], scale, grad_q[s], grad_k[s])

        _each_chunk(backward_chunk, B, T_q * T_k)
        return tuple(grad.reshape(batch + grad.shape[1:]) for grad in (grad_q, grad_k, grad_v))

    def _weights_backward(g):
        g = _flat(g, batch)
        grad_q, grad_k = np.empty_like(Q), np.empty_like(K)

        def backward_chunk(s):
            dot = (g[s] * weights[s]).sum(axis=-1, keepdims=True)        # Σ_j (dL/dw_j)·w_j
            _scores_backward(weights[s], g[s].copy(), dot, Q[s], K[s], scale, grad_q[s], grad_k[s])

        _each_chunk(backward_chunk, B, T_q * T_k)
        return tuple(grad.reshape(batch + grad.shape[1:]) for grad in (grad_q, grad_k))

    context_out._backward = _context_backward
    weights_out._backward = _weights_backward
    return context_out, weights_out


def _scores_backward(w, grad_w, dot, q, k, scale, grad_q, grad_k):
    """От dL/d(весов) к dL/dq и dL/dk через softmax и оценки; grad_w портится, grad_q и grad_k заполняются.

    dot — Σ_j (dL/dw_j)·w_j по каждой строке. Когда веса идут только в context = w @ v, это
    то же самое, что g·context (g = dL/d context): сумма по d_v числам вместо T_k — так делает FlashAttention.
    """
    grad_w -= dot                                           # softmax: dL/ds = w ⊙ (dL/dw − Σ dL/dw·w)
    grad_w *= w
    np.matmul(grad_w, k, out=grad_q)                        # оценки s = q·kᵀ·scale:
    grad_q *= scale                                         #   dL/dq = scale · (dL/ds) k
    np.matmul(grad_w.swapaxes(1, 2), q, out=grad_k)         #   dL/dk = scale · (dL/ds)ᵀ q
    grad_k *= scale


def _each_chunk(fn, B, cells):
    """fn(s) для каждого куска s — среза по оси батча, в котором столько матриц (T_q, T_k), сколько влезает в CHUNK.

    Куски независимы, поэтому их считают все ядра сразу: по куску на поток, а BLAS внутри
    куска — в один поток (маленькие умножения в два потока только ждали бы друг друга).
    Один кусок (короткие последовательности, как в обучении урока 07) — без потоков.
    """
    step = max(1, CHUNK // max(cells, 1))
    chunks = [slice(i, i + step) for i in range(0, B, step)]
    if len(chunks) <= 1:
        for s in chunks:
            fn(s)
        return
    pool, blas = _workers()
    with blas.limit(limits=1, user_api="blas"):
        list(pool.map(fn, chunks))                         # list: дождаться всех и поднять ошибку, если была


@functools.lru_cache(maxsize=None)
def _workers():
    """Пул потоков по числу ядер и ручка для числа потоков BLAS — создаются один раз, при первом большом вызове."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return ThreadPoolExecutor(max_workers=max(1, min(cores, 8))), ThreadpoolController()


def _flat(x, batch, keep_one=False):
    """(*batch, a, b) -> (B, a, b): оси батча в одну; копия, только если без неё нельзя.

    keep_one: если x на самом деле один на весь батч (растянут broadcasting'ом), вернуть (1, a, b) без копии.
    """
    if keep_one and all(stride == 0 for stride in x.strides[:-2]):
        return x[(0,) * (x.ndim - 2)][None]
    return np.broadcast_to(x, batch + x.shape[-2:]).reshape((-1,) + x.shape[-2:])

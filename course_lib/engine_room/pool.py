"""Один пул потоков на все ядра для больших операций машинного отделения; BLAS внутри каждого куска — в один поток.

Зачем свой пул, когда BLAS и так считает в несколько потоков? Слитое внимание (attention.py)
параллелит не только умножения, но и softmax — это умеет только свой пул. А OpenBLAS, закончив
умножение, ещё около 0.1 с держит свои потоки в активном ожидании: они крутятся на ядрах,
и операция в нашем пуле, начатая сразу после умножения в потоках BLAS, шла вдвое медленнее
(benchmarks/attention.py). Поэтому большие умножения (linear.py) тоже идут через этот пул: строки
левой матрицы делятся на куски по числу ядер, и потоки BLAS не просыпаются вовсе.
"""

import contextlib
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController

SPLIT_WORK = 2**25   # умножений-сложений n·k·m, с которых умножение делится на куски (меньше — как обычно)


def each_piece(fn, pieces):
    """fn(p) для каждого куска p — на всех ядрах сразу, BLAS в каждом куске в один поток.

    Куски должны быть независимы: каждый пишет в свою часть ответа. Куски делятся по ядрам
    поровну; свою долю главный поток считает сам, а не ждёт. Один кусок — без потоков;
    изнутри пула — тоже по очереди (поток пула, ждущий другие потоки пула, мог бы ждать вечно).
    """
    cores = cpu_count()
    if len(pieces) <= 1 or cores == 1 or threading.current_thread().name.startswith(_POOL_NAME):
        _each(fn, pieces)
        return
    pool, blas = _workers()
    shares = [pieces[i::cores] for i in range(cores)]   # ядру i — куски i, i + cores, …
    with blas.limit(limits=1, user_api="blas"):   # маленькие умножения в два потока только ждали бы друг друга
        others = [pool.submit(_each, fn, share) for share in shares[1:]]
        _each(fn, shares[0])
        for future in others:
            future.result()                     # дождаться и поднять ошибку, если была


def matmul(a, b):
    """a @ b для двух матриц (n, k) @ (k, m); большое умножение — кусками строк a на все ядра."""
    (n, k), m = a.shape, b.shape[1]
    cores = cpu_count()
    if n * k * m < SPLIT_WORK or cores == 1 or n < 2 * cores or b.shape[0] != k:   # последнее: пусть ошибку даст NumPy
        return a @ b
    out = np.empty((n, m), dtype=np.result_type(a, b))
    edges = np.linspace(0, n, cores + 1).astype(int)
    each_piece(lambda rows: np.matmul(a[rows], b, out=out[rows]),
               [slice(start, stop) for start, stop in zip(edges[:-1], edges[1:])])
    return out


@contextlib.contextmanager
def one_blas_thread():
    """Внутри блока главного потока BLAS считает в один поток; на выходе из внешнего блока — как было.

    Умножения машинного отделения, которым мало одного ядра, делит по ядрам этот пул (matmul); остальные
    в два потока BLAS только ждут друг друга, а после умножения потоки BLAS ещё крутятся на ядрах
    (на занятой машине генерация урока 10 шла так впятеро дольше). Число потоков BLAS — одно на весь
    процесс, а вернуть его из другого потока OpenBLAS не всегда даёт, поэтому меняет его только главный
    поток (тот, что исполняет ячейки); фоновый поток виджета считает с тем, что есть.
    """
    global _blas_depth, _blas_limiter
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _blas_depth == 0:
        _blas_limiter = _controller().limit(limits=1, user_api="blas")
    _blas_depth += 1
    try:
        yield
    finally:
        _blas_depth -= 1
        if _blas_depth == 0:
            _blas_limiter.restore_original_limits()


_blas_depth, _blas_limiter = 0, None


@functools.lru_cache(maxsize=None)
def _controller():
    return ThreadpoolController()


def cpu_count():
    """Сколько ядер доступно процессу (не больше 8: дальше куски слишком мелкие)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, 8))


def _each(fn, pieces):
    for piece in pieces:
        fn(piece)


_POOL_NAME = "course_lib-pool"


@functools.lru_cache(maxsize=None)
def _workers():
    """Пул на ядро меньше, чем ядер (главный поток считает сам), и ручка для числа потоков BLAS — один раз, при первом вызове."""
    return ThreadPoolExecutor(max_workers=cpu_count() - 1, thread_name_prefix=_POOL_NAME), _controller()

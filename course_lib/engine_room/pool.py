"""Один пул потоков на все ядра для больших операций машинного отделения; BLAS внутри каждого куска — в один поток.

Зачем свой пул, когда BLAS и так считает в несколько потоков? Слитое внимание (attention.py)
параллелит не только умножения, но и softmax — это умеет только свой пул. А OpenBLAS, закончив
умножение, ещё около 0.1 с держит свои потоки в активном ожидании: они крутятся на ядрах,
и операция в нашем пуле, начатая сразу после умножения в потоках BLAS, шла вдвое медленнее
(benchmarks/attention.py). Поэтому большие умножения (linear.py) тоже идут через этот пул: строки
левой матрицы делятся на куски по числу ядер, и потоки BLAS не просыпаются вовсе.
"""

import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from course_lib.blas import one_blas_thread

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
    pool = _workers()
    shares = [pieces[i::cores] for i in range(cores)]   # ядру i — куски i, i + cores, …
    with one_blas_thread():                       # маленькие умножения в два потока только ждали бы друг друга
        others = [pool.submit(_each, fn, share) for share in shares[1:]]
        _each(fn, shares[0])
        for future in others:
            future.result()                     # дождаться и поднять ошибку, если была


def matmul(a, b):
    """a @ b для двух матриц (n, k) @ (k, m); большое умножение — кусками строк a на все ядра."""
    (n, k), m = a.shape, b.shape[1]
    if n * k * m < SPLIT_WORK or b.shape[0] != k:     # малое — как обычно; последнее: пусть ошибку даст NumPy
        return a @ b
    cores = cpu_count()                               # системный вызов: только для больших умножений
    if cores == 1 or n < 2 * cores:
        return a @ b
    out = np.empty((n, m), dtype=np.result_type(a, b))
    edges = np.linspace(0, n, cores + 1).astype(int)
    each_piece(lambda rows: np.matmul(a[rows], b, out=out[rows]),
               [slice(start, stop) for start, stop in zip(edges[:-1], edges[1:])])
    return out


def cpu_count():
    """Сколько ядер доступно процессу (не больше 8: дальше куски слишком мелкие).

    OMP_NUM_THREADS — стандартная переменная «сколько потоков считать»: её ставит сервер класса
    (tools/classroom/limits.py), и пул слушается её так же, как OpenBLAS. Не число или меньше 1 — не в счёт.
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    asked = os.environ.get("OMP_NUM_THREADS", "").strip()
    if asked.isdigit() and int(asked) >= 1:
        cores = min(cores, int(asked))
    return max(1, min(cores, 8))


def _each(fn, pieces):
    for piece in pieces:
        fn(piece)


_POOL_NAME = "course_lib-pool"


@functools.lru_cache(maxsize=None)
def _workers():
    """Пул на ядро меньше, чем ядер (главный поток считает сам) — один раз, при первом вызове."""
    return ThreadPoolExecutor(max_workers=cpu_count() - 1, thread_name_prefix=_POOL_NAME)

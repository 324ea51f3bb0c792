"""Пул потоков машинного отделения (engine_room/pool.py): каждый кусок ровно один раз, BLAS в куске — в один поток,
ошибка куска доходит до вызвавшего, большие умножения по кускам дают то же, что a @ b."""

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import course_lib as nt
from course_lib.engine_room import pool


def blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_every_piece_runs_once_with_one_blas_thread(monkeypatch):
    monkeypatch.setattr(pool, "cpu_count", lambda: 2)
    seen, threads, lock = [], set(), threading.Lock()

    def fn(piece):
        with lock:
            seen.append(piece)
            threads.add(threading.current_thread().name)
            assert blas_threads() in ([], [1])          # внутри куска BLAS не заводит своих потоков

    pool.each_piece(fn, list(range(7)))
    assert sorted(seen) == list(range(7))
    assert threading.main_thread().name in threads and len(threads) == 2   # главный поток считает свою долю


def test_error_in_a_piece_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(pool, "cpu_count", lambda: 2)

    def fn(piece):
        if piece == 3:
            raise ValueError("кусок 3")

    with pytest.raises(ValueError, match="кусок 3"):
        pool.each_piece(fn, list(range(4)))


def test_pieces_inside_a_piece_run_in_turn_instead_of_waiting_forever(monkeypatch):
    monkeypatch.setattr(pool, "cpu_count", lambda: 2)
    done = []
    pool.each_piece(lambda outer: pool.each_piece(lambda inner: done.append((outer, inner)), [0, 1]), [0, 1])
    assert sorted(done) == [(0, 0), (0, 1), (1, 0), (1, 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transposed", [False, True])
def test_split_matmul_equals_numpy(dtype, transposed, monkeypatch):
    monkeypatch.setattr(pool, "SPLIT_WORK", 1)
    monkeypatch.setattr(pool, "cpu_count", lambda: 3)
    rng = np.random.default_rng(0)
    a = rng.normal(size=(40, 7)).astype(dtype)
    b = rng.normal(size=(7, 5)).astype(dtype)
    if transposed:                                     # как в градиенте Linear: Aᵀ G
        a, b = a.T.copy().T, b                         # тот же (40, 7), но столбцами в памяти
    product = pool.matmul(a, b)
    assert product.dtype == dtype
    assert np.allclose(product, a @ b, rtol=1e-5)


def test_linear_gradients_are_the_same_split_or_not(monkeypatch):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 16, 8))
    results = []
    for split_work in (2**60, 1):
        monkeypatch.setattr(pool, "SPLIT_WORK", split_work)
        nt.manual_seed(0)
        layer = nt.Linear(8, 4)
        xt = nt.tensor(x, requires_grad=True)
        with nt.fast():                                # умножения Linear делит по ядрам только быстрый путь
            layer(xt).sum().backward()
        results.append((xt.grad, layer.weight.grad))
    for unsplit, split in zip(*results):
        assert np.allclose(unsplit, split, atol=1e-12)


def test_omp_num_threads_caps_the_pool(monkeypatch):
    """Сервер класса ставит OMP_NUM_THREADS (tools/classroom/limits.py): пул машинного отделения берёт не больше."""
    monkeypatch.setattr(pool.os, "sched_getaffinity", lambda pid: set(range(6)), raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert pool.cpu_count() == 6
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert pool.cpu_count() == 2
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert pool.cpu_count() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "16")       # больше, чем ядер, — не больше ядер
    assert pool.cpu_count() == 6
    for junk in ("", "0", "два", "-3"):                # не число или меньше 1 — как без переменной
        monkeypatch.setenv("OMP_NUM_THREADS", junk)
        assert pool.cpu_count() == 6


def test_fast_blocks_run_blas_in_one_thread_and_give_the_threads_back():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=2, user_api="blas"):            # как на машине с двумя ядрами и больше
        before = blas_threads()
        with nt.fast():
            assert blas_threads() == [1] * len(before)
            with nt.fast(), nt.fast(False):
                assert blas_threads() == [1] * len(before)      # вложенный блок не возвращает потоки раньше времени
            assert blas_threads() == [1] * len(before)
        assert blas_threads() == before
        with pytest.raises(KeyError):
            with nt.fast():
                raise KeyError("ошибка внутри блока")
        assert blas_threads() == before, "после ошибки в блоке потоки BLAS вернулись"
        seen = []
        thread = threading.Thread(target=lambda: seen.append(_blas_inside_fast()))
        thread.start()
        thread.join()
        assert seen == [before] and blas_threads() == before, "фоновый поток числа потоков BLAS не трогает"


def _blas_inside_fast():
    with nt.fast():
        return blas_threads()

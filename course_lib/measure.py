"""Как мерить цену внимания: время процессора, пик памяти, наклон на графике log–log (уроки 03 и 08).

Время — время процессора (`time.process_time`), лучшее из нескольких повторов: пока процессор
занят соседними программами, эти часы стоят, поэтому замер почти не портится на занятой машине.
Время процессора складывается по всем потокам — и по тем, что просто ждут работы, — поэтому
на время замера `seconds` просит BLAS считать в один поток (`threadpoolctl`). Иначе на двух
ядрах внимание для T = 256 «стоило» бы 20 мс вместо 1 мс, и наклон на графике потерял бы смысл.

Память — пик выделений, о которых NumPy сообщает модулю `tracemalloc`, сверх уже занятого
до вызова: входы не считаются, выход и все промежуточные массивы — считаются.
"""

import time
import tracemalloc

import numpy as np

from course_lib._checks import check_callable, check_float, check_int, check_numbers
from course_lib.blas import one_blas_thread


def seconds(fn, repeats=5, warmup=True):
    """Лучшее из `repeats` время процессора (с) на один вызов fn(); сначала один прогрев. BLAS — в один поток."""
    check_callable(fn, "fn", "seconds", "функция без аргументов, например lambda: attention(x)")
    check_int(repeats, "repeats", "seconds", meaning=" (сколько раз повторить замер)")
    best = float("inf")
    with one_blas_thread():
        if warmup:
            fn()
        for _ in range(repeats):
            start = time.process_time()
            fn()
            best = min(best, time.process_time() - start)
    return best


def peak_bytes(fn):
    """Пик памяти (байт), выделенной за время fn() сверх уже занятой."""
    check_callable(fn, "fn", "peak_bytes", "функция без аргументов, например lambda: attention(x)")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def slope(x, y):
    """Наклон прямой на графике log–log: показатель a в y ∝ x^a (число float)."""
    x, y = (check_numbers(values, name, "slope").astype(float) for values, name in ((x, "x"), (y, "y")))
    check_float(x, "slope: x")
    check_float(y, "slope: y")
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"slope: нужны два одномерных массива одной длины ≥ 2, а пришли формы {x.shape} и {y.shape}")
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError("slope: логарифм берётся только от положительных чисел — в x или y есть ноль или минус")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


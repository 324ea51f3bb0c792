"""Правило курса для потоков BLAS — записано один раз: `with one_blas_thread():` — умножения NumPy в один поток.

Где оно действует и зачем:
- машинное отделение (`with nt.fast():`) и его пул (engine_room/pool.py): ядра делит пул сам, кусками, а мелкие
  умножения в два потока BLAS только ждут друг друга; после умножения потоки BLAS ещё крутятся на ядрах
  (на занятой машине генерация урока 10 шла так впятеро дольше);
- обучение и оценка моделей уроков 09 и 10 (props/): на матрицах 64×64 второй поток BLAS не ускоряет;
- замер времени (measure.seconds, уроки 03 и 08): время процессора складывается по всем потокам,
  и ждущие потоки BLAS «удорожали» бы замер.

Число потоков BLAS — одно на весь процесс, а вернуть его из другого потока OpenBLAS не всегда даёт. Поэтому
меняет его только главный поток (тот, что исполняет ячейки), а фоновый поток виджета считает с тем, что есть.
Блоки вкладываются: прежнее число возвращает внешний блок, и при ошибке тоже.
"""

import contextlib
import functools
import threading

from threadpoolctl import ThreadpoolController

_depth, _limiter = 0, None


@contextlib.contextmanager
def one_blas_thread():
    """Контекст: внутри `with one_blas_thread():` BLAS считает в один поток, на выходе из внешнего блока — как было."""
    global _depth, _limiter
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth == 0:
        _limiter = _controller().limit(limits=1, user_api="blas")
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            _limiter.restore_original_limits()


@functools.lru_cache(maxsize=None)
def _controller():
    """Ручка для числа потоков BLAS — одна на процесс (найти библиотеки BLAS стоит миллисекунды)."""
    return ThreadpoolController()

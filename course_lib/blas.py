"""Правило курса для потоков BLAS — записано один раз: `with one_blas_thread():` — умножения NumPy в один поток.

Где оно действует и зачем:
- обучение и оценка моделей уроков 09 и 10 (props/): на матрицах 64×64 второй поток BLAS не ускоряет,
  а только ждёт и занимает ядро (benchmarks/training.py);
- замер времени (measure.seconds, уроки 03 и 08): время процессора складывается по всем потокам,
  и ждущие потоки BLAS «удорожали» бы замер;
- пул машинного отделения (engine_room/pool.py): ядра делит он сам, кусками, и потоки BLAS в каждом куске лишние.
"""

import functools

from threadpoolctl import ThreadpoolController


def one_blas_thread():
    """Контекст: внутри `with one_blas_thread():` BLAS считает в один поток, на выходе — как было."""
    return _controller().limit(limits=1, user_api="blas")


@functools.lru_cache(maxsize=None)
def _controller():
    """Ручка для числа потоков BLAS — одна на процесс (найти библиотеки BLAS стоит миллисекунды)."""
    return ThreadpoolController()

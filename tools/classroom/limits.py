"""Пределы одного ученика на сервере класса. Одно место: их берут хаб (class/jupyterhub_config.py)
и замер benchmarks/class.py, поэтому замер меряет ровно то, что получит ученик."""

THREADS = 2     # потоков BLAS и машинного отделения на одного ученика (1–2): 30 учеников на 8 ядрах не толкаются


def learner_env(threads=THREADS):
    """Переменные окружения ядра ученика: сколько потоков брать BLAS, OpenMP и пулу машинного отделения."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 8:
        raise ValueError(f"потоков на ученика — целое от 1 до 8, а пришло {threads!r}")
    value = str(threads)
    return {"OPENBLAS_NUM_THREADS": value, "OMP_NUM_THREADS": value, "MKL_NUM_THREADS": value}

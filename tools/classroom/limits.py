"""Пределы одного ученика на сервере класса. Одно место: их берут хаб (class/jupyterhub_config.py)
и замер benchmarks/class.py, поэтому замер меряет ровно то, что получит ученик."""

import re

THREADS = 2     # потоков BLAS и машинного отделения на одного ученика (1–2): 30 учеников на 8 ядрах не толкаются

# Память одного ученика — сервер и все его ядра вместе (cgroup памяти, class/jupyterhub_config.py).
# Пик урока 08 — около 705 МБ, сервер с ядром без дела — около 190 МБ: 1.5 ГБ хватает одному уроку
# с запасом, а ядро, которое берёт больше, ядро Linux останавливает, не трогая соседей.
MEMORY = "1536M"

# Ядро без дела (ничего не исполнялось) столько секунд — сервер ученика его закрывает, память возвращается.
# Открытая вкладка не спасает ядро (cull_connected): оставленные открытыми ядра держали ≈ 1.8 ГБ на ученика.
KERNEL_IDLE_SECONDS = 30 * 60
KERNEL_CULL_INTERVAL = 60          # как часто сервер смотрит на свои ядра
# Сервер ученика без дела столько секунд — его останавливает jupyterhub-idle-culler (работа в work/ остаётся).
SERVER_IDLE_SECONDS = 60 * 60
SERVER_CULL_INTERVAL = 5 * 60      # как часто culler обходит серверы

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}


def learner_env(threads=THREADS):
    """Переменные окружения ядра ученика: сколько потоков брать BLAS, OpenMP и пулу машинного отделения."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 8:
        raise ValueError(f"потоков на ученика — целое от 1 до 8, а пришло {threads!r}")
    value = str(threads)
    return {"OPENBLAS_NUM_THREADS": value, "OMP_NUM_THREADS": value, "MKL_NUM_THREADS": value}


def memory_bytes(text=MEMORY):
    """«1536M», «2G», «800000000» -> байты; не меньше 256 МБ (меньше не поднимется даже пустое ядро с курсом)."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)B?\s*", str(text), flags=re.IGNORECASE)
    if not match:
        raise ValueError(f"предел памяти ученика — число с K, M или G (например 1536M или 2G), а пришло {text!r}")
    size = int(match.group(1)) * _UNITS[match.group(2).upper()]
    if size < 256 * 2**20:
        raise ValueError(f"предел памяти ученика {text!r} меньше 256M: сервер с ядром курса без дела уже берёт ≈ 190 МБ")
    return size


def kernel_culling_args(idle=KERNEL_IDLE_SECONDS, interval=KERNEL_CULL_INTERVAL):
    """Ключи jupyter_server ученика: закрывать ядра без дела (и те, что открыты во вкладке)."""
    return [f"--MappingKernelManager.cull_idle_timeout={int(idle)}",
            f"--MappingKernelManager.cull_interval={int(interval)}",
            "--MappingKernelManager.cull_connected=True"]

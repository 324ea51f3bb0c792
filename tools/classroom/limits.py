"""Пределы одного ученика на сервере класса. Одно место: их берут хаб (class/jupyterhub_config.py)
и замер benchmarks/class.py, поэтому замер меряет ровно то, что получит ученик."""

import re

THREADS = 2     # потоков BLAS и машинного отделения на одного ученика (1–2): 30 учеников на 8 ядрах не толкаются

# Память одного ученика — сервер и все его ядра вместе (cgroup памяти, class/jupyterhub_config.py).
# Пик урока 08 — около 705 МБ, сервер с ядром без дела — около 190 МБ: 1.5 ГБ хватает одному уроку
# с запасом, а ядро, которое берёт больше, ядро Linux останавливает, не трогая соседей.
MEMORY = "1536M"

# Процессов и потоков одного ученика вместе (cgroup pids): сервер с ядром без дела — около 40 потоков, урок с
# машинным отделением — до сотни; fork-бомба упирается в этот предел, а соседи и хаб работают дальше.
PIDS = 512

# Место одного ученика: его дом (и ~/work в нём) — свой образ ext4 этого размера (tools/classroom/disk.py).
# Уроки с выводами — около 4 МБ, тетрадки ученика за курс — десятки МБ; 1 ГБ хватает с запасом, а кто пишет
# больше, получает «No space left on device» у себя, и только у себя.
DISK = "1G"

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


def pids_count(value=PIDS):
    """Предел процессов ученика: целое от 64 до 32768 (меньше 64 не поднимется сервер с ядром)."""
    text = str(value).strip()
    if not text.isdigit() or not 64 <= int(text) <= 32768:
        raise ValueError(f"предел процессов ученика PIDS — целое от 64 до 32768 (например 512), а пришло {value!r}")
    return int(text)


def disk_bytes(text=DISK):
    """«1G», «500M» -> байты; не меньше 64 МБ (в меньший образ не поместятся уроки ученика с запасом)."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)B?\s*", str(text), flags=re.IGNORECASE)
    if not match:
        raise ValueError(f"место ученика DISK — число с K, M или G (например 1G или 500M), а пришло {text!r}")
    size = int(match.group(1)) * _UNITS[match.group(2).upper()]
    if size < 64 * 2**20:
        raise ValueError(f"место ученика DISK={text!r} меньше 64M: в нём не поместятся уроки ученика с запасом")
    return size


def kernel_culling_args(idle=KERNEL_IDLE_SECONDS, interval=KERNEL_CULL_INTERVAL):
    """Ключи jupyter_server ученика: закрывать ядра без дела (и те, что открыты во вкладке)."""
    return [f"--MappingKernelManager.cull_idle_timeout={int(idle)}",
            f"--MappingKernelManager.cull_interval={int(interval)}",
            "--MappingKernelManager.cull_connected=True"]

"""Память процесса для быстрого пути: освобождённые большие массивы остаются процессу, а не уходят системе.

Каждая операция NumPy кладёт ответ в новый массив. Массив больше 128 КБ glibc (библиотека C в Linux)
по умолчанию берёт у системы отдельно и отдаёт сразу после освобождения, а свободный конец общей
кучи обрезает. Следующий такой же массив получает от системы новые страницы памяти, и каждую
страницу (4 КБ) система сначала обнуляет. glibc сама поднимает этот порог, когда освобождает большой
массив, взятый отдельно, — так что всё зависит от истории процесса. В обучении урока 10 порог поднимается
сам, и настройка ничего не меняет; в benchmarks/gpt.py — нет: там шаг GPT без неё получает около 9 000
новых страниц и идёт в 1.3 раза дольше (строка «память»), обучение урока 09 — примерно на 10 % дольше.
`keep_freed_memory()` просит glibc брать массивы до 64 МБ из кучи и не обрезать её, пока свободно меньше
256 МБ: освобождённое сразу идёт под следующие массивы, а скорость не зависит от истории процесса.
Числа от этого не меняются — только время.

Это настройка всего процесса до его конца (её нельзя «выключить» на выходе из блока), поэтому её
включает `with nt.fast():` при первом входе. На Linux без glibc, на macOS и Windows — ничего не делает:
там свои распределители памяти.
"""

import ctypes
import sys

ARRAYS_FROM_HEAP = 64 * 2**20    # массивы до этого размера glibc берёт из кучи, а не у системы отдельно
KEEP_FREE = 256 * 2**20          # столько свободной памяти куча держит, не отдавая системе
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3      # номера настроек mallopt из <malloc.h>

_asked = None                    # None — ещё не просили; True / False — согласилась ли glibc


def keep_freed_memory():
    """Один раз на процесс просит glibc (mallopt) держать освобождённую память; -> True, если она согласилась."""
    global _asked
    if _asked is None:
        _asked = False
        mallopt = _glibc_mallopt()
        if mallopt is not None:
            _asked = bool(mallopt(M_MMAP_THRESHOLD, ARRAYS_FROM_HEAP)) and bool(mallopt(M_TRIM_THRESHOLD, KEEP_FREE))
    return _asked


def _glibc_mallopt():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version            # есть только у glibc (у musl mallopt — пустышка)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return None
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt

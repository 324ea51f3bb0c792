"""Python «как на Windows» — подражание, а не Windows: настоящей машины с Windows у проверок курса нет.

Подключается так: PYTHONPATH=tests/windows_like (site импортирует sitecustomize при старте). Тогда модули,
которых на Windows нет (fcntl, pwd, grp, termios, resource), не импортирует код курса (библиотекам в site-packages
можно: они выбирают путь по sys.platform, а он здесь linux), а у os и signal нет того, чего
нет на Windows (fork, killpg, geteuid, O_NOFOLLOW, SIGALRM, SIGKILL, …). Так видно, что код и тесты курса
не берут POSIX-только-модули молча. С COURSE_WINDOWS_LIKE_NT=1 ещё и os.name == "nt" — этого ждёт course.py
(Scripts\\python.exe, отказ классу); pathlib, shutil и subprocess импортированы до подмены и остаются
POSIX-овыми (pathlib видит прежнее os.name): файлы по-прежнему на Linux. Чего подражание не ловит: пути с
обратной косой, блокировки файлов, кодировку консоли, os.getuid (без него не живёт pytest на Linux),
поведение настоящих cmd и PowerShell. И наоборот: Popen.kill() здесь падает (subprocess на Linux берёт
signal.SIGKILL, а на Windows — TerminateProcess), так что ядро, которое Jupyter добивает, тут даёт ошибку.
"""

import builtins
import os
import pathlib
import signal

MODULES = ("fcntl", "pwd", "grp", "termios", "resource")
OS_NAMES = ("fork", "forkpty", "killpg", "getpgid", "setsid", "setpgrp", "geteuid", "getegid", "seteuid",
            "setuid", "setgid", "chown", "O_NOFOLLOW", "O_DIRECTORY", "O_CLOEXEC")
SIGNAL_NAMES = ("SIGALRM", "alarm", "setitimer", "SIGKILL", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
COURSE = str(pathlib.Path(__file__).resolve().parents[2]) + os.sep
_import = builtins.__import__


def _course_code(globals_):
    """Импортирует код курса (course.py, course_lib, tools, tests, ячейка тетрадки), а не библиотека из site-packages
    и не стандартная библиотека: те выбирают путь по sys.platform, а он здесь linux (IPython берёт pexpect и termios)."""
    where = (globals_ or {}).get("__file__")
    return where is None or (str(where).startswith(COURSE) and "site-packages" not in str(where))


def _no_posix_modules(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name.partition(".")[0] in MODULES and _course_code(globals):
        raise ModuleNotFoundError(f"No module named {name!r} (как на Windows: tests/windows_like)", name=name)
    return _import(name, globals, locals, fromlist, level)


builtins.__import__ = _no_posix_modules
for _module, _names in ((os, OS_NAMES), (signal, SIGNAL_NAMES)):
    for _name in _names:
        if hasattr(_module, _name):
            delattr(_module, _name)

if os.environ.get("COURSE_WINDOWS_LIKE_NT") == "1":
    import hashlib  # noqa: F401 — всё, что course.py берёт из стандартной библиотеки, — до подмены os.name
    import importlib.util  # noqa: F401
    import pathlib  # noqa: F401
    import shlex  # noqa: F401
    import shutil  # noqa: F401
    import subprocess  # noqa: F401
    import time  # noqa: F401
    import dataclasses  # noqa: F401
    import types

    # pathlib выбирает PosixPath или WindowsPath по os.name при каждом Path(): ему оставляем его Linux.
    pathlib.os = types.SimpleNamespace(**{**vars(os), "name": os.name})
    os.name = "nt"

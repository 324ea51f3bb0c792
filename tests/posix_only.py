"""Тесты, которым нужно то, что есть только на Linux и macOS: там, где этого нет (Windows), они пропускаются
и говорят почему, а не падают при сборе. На Linux и macOS ничего не меняется.

    from posix_only import needs, skip_module_without
    skip_module_without("pwd", "os.geteuid")               # до `import pwd`: весь файл
    @needs("os.fork")                                       # один тест

Имя — модуль (pwd) или атрибут модуля (os.fork, signal.SIGALRM). Подражание Windows на Linux, на котором
это проверяется, — tests/windows_like (tests/test_course_cli.py).
"""

import os
import pathlib
import sys

import pytest


def missing(*names):
    """Какие из names здесь недоступны -> список имён (пустой — всё есть)."""
    absent = []
    for name in names:
        module, _, attribute = name.partition(".")
        try:
            found = __import__(module, globals())        # не importlib: подражание Windows ловит import (tests/windows_like)
        except ImportError:
            absent.append(name)
            continue
        if attribute and not hasattr(found, attribute):
            absent.append(name)
    return absent


def reason(absent):
    return f"нет {', '.join(absent)} — это есть только на Linux и macOS (на Windows тест не идёт)"


def needs(*names):
    """Метка теста: пропустить, если чего-то из names нет."""
    absent = missing(*names)
    return pytest.mark.skipif(bool(absent), reason=reason(absent))


def skip_module_without(*names):
    """Пропустить весь файл тестов, если чего-то из names нет (звать до импорта этих модулей)."""
    absent = missing(*names)
    if absent:
        caller = pathlib.Path(sys._getframe(1).f_globals.get("__file__", "?")).name   # -rs покажет posix_only.py
        pytest.skip(f"{caller}: {reason(absent)}", allow_module_level=True)


WINDOWS_LIKE = pathlib.Path(__file__).resolve().parent / "windows_like"


def windows_like_env(nt=False, base=None):
    """Окружение процесса «как на Windows» (tests/windows_like/sitecustomize.py): без fcntl, pwd, os.fork, SIGALRM…;
    nt=True — ещё и os.name == "nt" (для course.py). base — исходное окружение (по умолчанию os.environ)."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(WINDOWS_LIKE), env.get("PYTHONPATH")]))
    env["COURSE_WINDOWS_LIKE_NT"] = "1" if nt else "0"
    return env

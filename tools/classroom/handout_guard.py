"""Класс без решений (`make class SOLUTIONS=no`): папки курса с ответами закрыты для записей учеников.

Ученик — своя запись системы, и всё, что в папке курса открыто «другим» (o+r), он может прочитать: уроки
с ячейками-решениями (lessons/), тесты, git, собранный сайт, ответы учителя (class/answers), работу других
учеников (results/). Поэтому на время класса с SOLUTIONS=no у всего верхнего уровня папки курса, кроме
того, без чего ученик не запустит урок, снимаются права «других» (chmod o-rwx):

- открыты остаются course_lib/ (его импортирует ядро ученика; строк решений в нём нет —
  tests/test_checkers_hold_no_solutions.py), tools/ (ответов нет) и окружение Python класса, если оно
  лежит в папке курса (.venv);
- закрыто всё остальное, и то, что появится потом, тоже: закрывается не список «опасных» папок, а всё,
  чего нет в списке нужных.

Прежние права записаны в <state>/closed.json (0600, только root); `make class-stop` возвращает их, и
`make class` возвращает их перед тем, как копировать ученикам уроки (копию делает сам ученик, ему нужен
lessons/), и закрывает снова перед запуском хаба. Возвращаются только права «других»: права владельца и
группы, изменённые учителем за это время, остаются его.
"""

import json
import os
import pathlib
import stat
import sys

from tools.classroom import accounts

ROOT = accounts.ROOT
RECORD = "closed.json"
KEEP = {"course_lib", "tools"}          # без них ученик не запустит урок; ответов в них нет


def kept(root=None, python=None):
    """Имена верхнего уровня, которые остаются открыты: KEEP и папка окружения Python, если она в папке курса."""
    root, python = root or ROOT, python or sys.executable
    names = set(KEEP)
    for prefix in {pathlib.Path(sys.prefix), pathlib.Path(python).absolute().parent.parent}:
        try:
            names.add(prefix.absolute().relative_to(pathlib.Path(root).absolute()).parts[0])
        except (ValueError, IndexError):
            pass
    return names


def outside_git(root=None):
    """Папка git, которая держит историю курса (с решениями) вне папки курса, или None.

    У рабочей копии `git worktree` в корне лежит файл .git со ссылкой на чужую папку: её этот модуль
    не трогает — закрыть её должен учитель."""
    root = root or ROOT
    marker = pathlib.Path(root) / ".git"
    if not marker.is_file():
        return None
    text = marker.read_text(encoding="utf-8", errors="replace").strip()
    if not text.startswith("gitdir:"):
        return None
    gitdir = (pathlib.Path(root) / text.split(":", 1)[1].strip()).resolve()
    common = gitdir
    if (gitdir / "commondir").is_file():
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    try:
        common.relative_to(pathlib.Path(root).resolve())
        return None
    except ValueError:
        return common if common.exists() and stat.S_IMODE(common.stat().st_mode) & 0o007 else None


def close(state, root=None, python=None):
    """Снять права «других» со всего верхнего уровня root, кроме kept(); -> строки отчёта.

    Уже закрытое (и записанное в closed.json) не трогается: прежние права — те, что были до первого закрытия."""
    state, root = pathlib.Path(state), pathlib.Path(root or ROOT)
    record = state / RECORD
    closed = _read(record)
    keep = kept(root, python)
    for entry in sorted(root.iterdir()):
        if entry.name in keep or entry.is_symlink():
            continue
        mode = stat.S_IMODE(entry.lstat().st_mode)
        if mode & 0o007:
            closed.setdefault(entry.name, mode)
            os.chmod(entry, mode & ~0o007)
    _write(record, closed)
    report = [f"SOLUTIONS=no: закрыто для учеников (chmod o-rwx): {', '.join(sorted(closed)) or 'ничего'}; "
              f"открыты: {', '.join(sorted(keep & {p.name for p in root.iterdir()}))}; вернуть: make class-stop"]
    git = outside_git(root)
    if git:
        report.append(f"ВНИМАНИЕ: история курса (git, с решениями) лежит вне папки курса — в {git}, и ученики могут "
                      f"её прочитать. Закройте её сами: chmod o-rwx {git}")
    links = sorted(e.name for e in root.iterdir() if e.is_symlink() and e.name not in keep)
    if links:
        report.append(f"ВНИМАНИЕ: ссылки {', '.join(links)} в папке курса не закрыты (права у ссылки не меняются): "
                      "закройте то, на что они ведут")
    return report


def reopen(state, root=None):
    """Вернуть права «других», записанные в <state>/closed.json, и убрать запись; -> что открыто (имена)."""
    state, root = pathlib.Path(state), pathlib.Path(root or ROOT)
    record = state / RECORD
    closed = _read(record)
    for name, mode in closed.items():
        entry = root / name
        if entry.exists() and not entry.is_symlink():
            os.chmod(entry, stat.S_IMODE(entry.lstat().st_mode) | (mode & 0o007))
    if record.exists():
        record.unlink()
    return sorted(closed)


def _read(record):
    try:
        data = json.loads(pathlib.Path(record).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as error:
        raise ValueError(f"{record} испорчен ({error}): в нём прежние права папок курса. Верните их сами "
                         "(chmod o+rX на lessons, tests и др.) и удалите файл") from None
    if not isinstance(data, dict) or not all(isinstance(v, int) for v in data.values()):
        raise ValueError(f"{record}: ожидался словарь «имя: права», а в нём {type(data).__name__}")
    return data


def _write(record, closed):
    record = pathlib.Path(record)
    fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(closed, out, ensure_ascii=False, indent=1)
    os.chmod(record, 0o600)

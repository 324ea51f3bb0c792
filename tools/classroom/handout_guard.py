"""Класс без решений (`make class SOLUTIONS=no`): папки курса с ответами закрыты для записей учеников.

Ученик — своя запись системы, и всё, что в папке курса открыто «другим» (o+r), он может прочитать: уроки
с ячейками-решениями (lessons/), тесты, git, собранный сайт, ответы учителя (class/answers), работу других
учеников (results/). Поэтому на время класса с SOLUTIONS=no у всего верхнего уровня папки курса, кроме
того, без чего ученик не запустит урок, снимаются права «других» (chmod o-rwx):

- открыты остаются course_lib/ (его импортирует ядро ученика; строк решений в нём нет —
  tests/test_checkers_hold_no_solutions.py), tools/ (ответов нет) и окружение Python класса, если оно
  лежит в папке курса (.venv);
- закрыто всё остальное: закрывается не список «опасных» папок, а всё, чего нет в списке нужных;
  work/ (make lab учителя во время класса), если её ещё нет, делается сразу закрытой; то, что появилось
  позже (make site), закрывает повторный `make class`.

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
# Папки, которые курс делает, когда класс уже идёт, и не пересоздаёт: work/ учителя (make lab, уроки с решениями).
# Если её ещё нет, она делается сразу закрытой (0750), иначе появилась бы открытой посреди класса; make class-stop
# убирает её, если она так и осталась пустой. results/ make results и так делает 0700, а site/ make site
# пересоздаёт заново (открытой) — её закрывает повторный make class (он закрывает всё новое на верхнем уровне).
LATER = ("work",)


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
    closed, made = _read(record)
    keep = kept(root, python)
    for name in LATER:
        if not os.path.lexists(root / name) and name not in keep:
            (root / name).mkdir(mode=0o750)
            os.chmod(root / name, 0o750)
            closed.setdefault(name, 0o755)
            made.append(name)
    for entry in sorted(root.iterdir()):
        if entry.name in keep or entry.is_symlink():
            continue
        mode = stat.S_IMODE(entry.lstat().st_mode)
        if mode & 0o007:
            closed.setdefault(entry.name, mode)
            os.chmod(entry, mode & ~0o007)
    _write(record, closed, made)
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
    closed, made = _read(record)
    for name, mode in closed.items():
        entry = root / name
        if name in made and entry.is_dir() and not entry.is_symlink() and not any(entry.iterdir()):
            entry.rmdir()                                   # сделана закрытой при запуске и так и осталась пустой
        elif entry.exists() and not entry.is_symlink():
            os.chmod(entry, stat.S_IMODE(entry.lstat().st_mode) | (mode & 0o007))
    if record.exists():
        record.unlink()
    return sorted(closed)


def _read(record):
    """-> ({имя: прежние права}, [имена папок, сделанных закрытыми]) из closed.json; нет файла — пусто."""
    try:
        data = json.loads(pathlib.Path(record).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, []
    except ValueError as error:
        raise ValueError(f"{record} испорчен ({error}): в нём прежние права папок курса. Верните их сами "
                         "(chmod o+rX на lessons, tests и др.) и удалите файл") from None
    modes, made = (data.get("modes"), data.get("made")) if isinstance(data, dict) else (None, None)
    if not (isinstance(modes, dict) and all(isinstance(v, int) for v in modes.values()) and isinstance(made, list)):
        raise ValueError(f"{record}: ожидалось {{\"modes\": {{имя: права}}, \"made\": [имена]}}, а в нём "
                         f"{json.dumps(data, ensure_ascii=False)[:200]}. Верните права сами (chmod o+rX) и удалите файл")
    return modes, made


def _write(record, closed, made):
    record = pathlib.Path(record)
    fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"modes": closed, "made": made}, out, ensure_ascii=False, indent=1)
    os.chmod(record, 0o600)

"""Ученики класса — учётные записи операционной системы: список учителя, его проверка и создание записей.

Список `class/learners.txt`: одно имя в строке, пустые строки и строки с `#` не в счёт.
Если в списке хоть одна плохая строка, не делается ничего: ошибка называет каждую плохую строку
с её номером, и ни одна запись не создана наполовину.

Каждый ученик — своя запись (`useradd -m`), домашняя папка 0700: чужие папки закрывает сама система.
Уже существующая запись ученика берётся как есть (никогда не удаляется); его `work/` делает
`tools/workspace.py` от имени самого ученика, и уже скопированный урок не перезаписывается.
"""

import os
import pathlib
import pwd
import re
import shutil
import stat
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
LEARNERS = ROOT / "class" / "learners.txt"
WORKSPACE = ROOT / "tools" / "workspace.py"

# Имя записи, которое примет useradd на любом Linux: строчные латинские буквы, цифры, _ и -, не с цифры и не с -.
NAME = re.compile(r"[a-z_][a-z0-9_-]*")
MAX_NAME = 32          # useradd: не длиннее 32 знаков
RESERVED = {"root", "admin", "hub", "jupyterhub", "nobody"}


class LearnersError(ValueError):
    """Список учеников нельзя взять: текст называет каждую плохую строку."""


def uid_min():
    """С какого номера начинаются обычные (не системные) записи — UID_MIN из /etc/login.defs, обычно 1000."""
    try:
        for line in pathlib.Path("/etc/login.defs").read_text(encoding="utf-8", errors="replace").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "UID_MIN" and parts[1].isdigit():
                return int(parts[1])
    except OSError:
        pass
    return 1000


def name_problem(name):
    """Почему name не годится в имя записи ученика (текст по-русски) или None, если годится."""
    if not name:
        return "пустое имя"
    if len(name) > MAX_NAME:
        return f"длиннее {MAX_NAME} знаков ({len(name)})"
    if name.startswith("-"):
        return "начинается с «-» (useradd примет его за ключ)"
    if not NAME.fullmatch(name):
        if any(ch.isspace() for ch in name):
            return "в имени пробел"
        if not name.isascii():
            return "не латиница (имя записи — только a–z, 0–9, _ и -)"
        if name.lower() != name:
            return "заглавные буквы (имя записи — только строчные)"
        return "можно только строчные a–z, цифры, _ и -, и не с цифры"
    if name in RESERVED:
        return "занятое служебное имя"
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None
    if entry.pw_uid < uid_min():
        return f"это системная запись (uid {entry.pw_uid}), не ученик"
    return None


def parse(text, source="class/learners.txt"):
    """Текст списка -> имена по порядку; любая плохая строка -> LearnersError со всеми плохими строками."""
    names, seen, problems = [], {}, []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        problem = name_problem(line)
        if problem is None and line in seen:
            problem = f"повтор: это имя уже в строке {seen[line]}"
        if problem:
            problems.append(f"  строка {number}: «{line}» — {problem}")
            continue
        seen[line] = number
        names.append(line)
    if problems:
        raise LearnersError(f"{source}: в списке учеников плохие строки, не сделано ничего:\n" + "\n".join(problems)
                            + "\nИсправьте их и запустите снова (одно имя в строке: строчная латиница, цифры, _ и -).")
    if not names:
        raise LearnersError(f"{source}: в списке учеников нет ни одного имени. Впишите по одному имени в строке "
                            "(например anna, boris), пример — class/learners.example.txt")
    return names


def read(path=LEARNERS):
    """Список учеников из файла; нет файла — LearnersError с тем, что сделать."""
    path = pathlib.Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LearnersError(f"нет списка учеников {path}: скопируйте class/learners.example.txt в class/learners.txt "
                            "и впишите имена учеников, по одному в строке") from None
    except UnicodeDecodeError:
        raise LearnersError(f"{path}: файл не в UTF-8 — сохраните его как обычный текст UTF-8") from None
    return parse(text, source=str(path))


def check_teacher(name):
    """Имя учителя годится в запись так же, как имя ученика; иначе LearnersError."""
    problem = name_problem(name)
    if problem:
        raise LearnersError(f"имя учителя TEACHER=«{name}» не годится: {problem}. Например: make class TEACHER=teacher")
    return name


def ensure_account(name):
    """Запись name есть (создаётся, если нет; существующая не трогается), дом 0700. -> (pwd-запись, создана ли)."""
    created = False
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        # без пароля: войти в систему по ssh нельзя, только в хаб; своя группа с тем же именем
        subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", name],
                       check=True, capture_output=True, text=True)
        entry, created = pwd.getpwnam(name), True
    home = pathlib.Path(entry.pw_dir)
    if not home.is_dir():
        raise LearnersError(f"у записи {name} нет домашней папки {home}: создайте её (mkdir, chown {name}) или удалите запись")
    if stat.S_IMODE(home.stat().st_mode) != 0o700:
        os.chmod(home, 0o700)            # другие ученики не читают чужой дом
    return entry, created


def run_as(entry, argv, **kwargs):
    """Команда от имени ученика (runuser), в его доме."""
    runuser = shutil.which("runuser", path="/usr/sbin:/sbin:/usr/bin:/bin") or "runuser"
    return subprocess.run([runuser, "-u", entry.pw_name, "--", *argv], cwd=entry.pw_dir,
                          env={"HOME": entry.pw_dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                               **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})},
                          capture_output=True, text=True, **kwargs)


def prepare_work(entry, python, solutions=True):
    """work/ ученика — tools/workspace.py от его имени (файлы сразу его); -> вывод workspace.py."""
    argv = [str(python), str(WORKSPACE), "--work", str(pathlib.Path(entry.pw_dir) / "work")]
    if not solutions:
        argv.append("--no-solutions")
    done = run_as(entry, argv)
    if done.returncode != 0:
        if not solutions and "--no-solutions" in done.stderr:
            raise LearnersError("SOLUTIONS=no: этот tools/workspace.py ещё не умеет --no-solutions (копии без решений). "
                                "Обновите курс или запустите make class без SOLUTIONS=no")
        raise LearnersError(f"не удалось сделать work/ ученика {entry.pw_name}:\n{done.stderr.strip()}")
    return done.stdout


def unreadable(path):
    """Первая папка на пути к path, которую другие записи не могут пройти (нет o+x), или None."""
    path = pathlib.Path(path).resolve()
    for folder in [*reversed(path.parents), path]:
        mode = folder.stat().st_mode
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return folder
    return None


def check_paths(python):
    """Другие записи могут войти в папку курса и к его Python (по правам папок); иначе LearnersError."""
    # и папка .venv, и настоящий Python, на который она ссылается (pyenv кладёт его в /root/.pyenv)
    for target in (ROOT, pathlib.Path(python).parent, pathlib.Path(python).resolve().parent):
        folder = unreadable(target)
        if folder:
            raise LearnersError(f"ученики не смогут запустить курс: в папку {folder} (путь к {target}) не могут войти "
                                f"другие записи системы. Сделайте: chmod o+x {folder} — или поставьте курс и его "
                                "Python туда, куда могут войти все (/opt, /srv)")


def check_reachable(entry, python):
    """Ученик (запись entry) на деле запускает Python курса и импортирует course_lib; иначе LearnersError."""
    done = run_as(entry, [str(python), "-c", "import course_lib, jupyterhub"])
    if done.returncode != 0:
        raise LearnersError(f"ученик {entry.pw_name} не может запустить {python} с курсом "
                            f"(нужны права на чтение: chmod -R o+rX {ROOT}):\n{done.stderr.strip()[-600:]}")

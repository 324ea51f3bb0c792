"""Команды курса без make и без оболочки — для Windows и везде, где есть Python 3.10+.

    python course.py lab                  # то же, что make lab: ставит курс в .venv, копирует уроки в work/, открывает JupyterLab
    python course.py test                 # то же, что make test: инструменты проверок и все проверки курса
    python course.py test LESSON=03       # переменные — как у make: ИМЯ=значение
    python course.py --help               # все команды; python course.py test --help — переменные одной команды

Makefile зовёт этот файл для каждой своей цели (make lab -> python3 course.py lab ...), так что make и
course.py не расходятся. Здесь только стандартная библиотека: файл запускается раньше, чем есть .venv.
"""

import os
import sys

if sys.version_info < (3, 10):
    sys.exit(f"course.py: нужен Python 3.10 или новее, а запущен {sys.version.split()[0]} ({sys.executable}). "
             "Поставьте Python 3.10+ (python.org, apt, brew) и запустите course.py им.")

import hashlib  # noqa: E402
import importlib.util  # noqa: E402
import pathlib  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent
WINDOWS = os.name == "nt"


class CourseError(Exception):
    """Ожидаемая неудача (нет модуля venv, pip не смог, неверная переменная): сообщение по-русски и код выхода."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------- команды и их переменные

@dataclass(frozen=True)
class Command:
    help: str
    variables: dict = field(default_factory=dict)       # ИМЯ -> значение по умолчанию (None — вычисляется)
    installs: str = ""                                  # "", "lab", "test", "class": что должно стоять в .venv
    not_on_windows: str = ""                            # почему команды нет на Windows (пусто — есть)


VENV_DEFAULT = ".venv"
CLASS_NEEDS_LINUX = ("класс на одном сервере — только для Linux: хаб заводит ученикам учётные записи системы и "
                     "запускается от root. На Windows проведите класс через Binder или ноутбуки учеников (TEACHERS.md).")
COMMON = {"VENV": VENV_DEFAULT, "SKIP_INSTALL": "no"}
COMMANDS = {
    "lab": Command("поставить курс в .venv, скопировать уроки в work/ и открыть их в JupyterLab "
                   "(UI=notebook — в Jupyter Notebook 7; LAB_ARGS=--no-browser — без браузера)",
                   {"UI": "lab", "WORK": "work", "LAB_ARGS": ""}, "lab"),
    "setup": Command("поставить в .venv то, что нужно урокам, без запуска Jupyter (например, для VS Code)", {}, "lab"),
    "setup-test": Command("поставить и инструменты проверок, без самих проверок", {}, "test"),
    "fresh": Command("начать урок заново: fresh LESSON=03 (прежняя копия уходит в work/backup/)",
                     {"LESSON": "", "WORK": "work"}, "lab"),
    "test": Command("все проверки курса одной командой pytest на все ядра "
                    "(LESSON=07 — только урок 07; MARKS= — и долгие; WORKERS=2 — столько процессов)",
                    {"LESSON": "", "MARKS": "not slow", "WORKERS": None, "PYTEST_ARGS": ""}, "test"),
    "notebooks": Command("пересобрать и исполнить тетрадки уроков из их .py (LESSONS=\"02 03\" — только эти)",
                         {"LESSONS": ""}, "test"),
    "site": Command("собрать статический сайт курса в site/", {}, "test"),
    "answers": Command("ответы учителя в class/answers/ (ONLY=\"02 03\" — только эти уроки)", {"ONLY": ""}, "lab"),
    "nbgrader": Command("курс nbgrader из уроков (OUT=папка, ONLY=\"02 03\")", {"OUT": "class/nbgrader", "ONLY": ""}, "lab"),
    "results": Command("вердикты класса в results/ (FROM=\"anna boris\" — из этих папок с ноутбуков)", {"FROM": ""}, "",
                       not_on_windows="сбор вердиктов пока идёт только на Linux и macOS: он читает папки учеников, не "
                       "переходя по ссылкам (O_NOFOLLOW, открытие файла относительно открытой папки), а в Python на "
                       "Windows этого нет. Скопируйте папки учеников на машину с Linux или macOS и запустите там "
                       "make results FROM=\"anna boris\"."),
    "class": Command("класс на одном сервере (JupyterHub, только Linux, от root): см. TEACHERS.md",
                     {"HOST": "127.0.0.1", "PORT": "8000", "TEACHER": "teacher", "SOLUTIONS": "yes",
                      "CERT": "", "KEY": "", "MEMORY": "", "PIDS": "", "DISK": ""}, "class", not_on_windows=CLASS_NEEDS_LINUX),
    "class-stop": Command("остановить класс: серверы и ядра учеников, хаб, прокси (работа учеников остаётся)",
                          {}, "", not_on_windows=CLASS_NEEDS_LINUX),
    "class-status": Command("идёт ли класс и у кого запущены серверы", {}, "", not_on_windows=CLASS_NEEDS_LINUX),
    "clean": Command("удалить .venv, .venv-lowest, test-artifacts и .hypothesis", {}, ""),
}
VARIABLE_HELP = {
    "VENV": "папка окружения (по умолчанию .venv)",
    "SKIP_INSTALL": "yes — ничего не ставить и не обновлять: окружение VENV уже готово (так его запускают тесты курса)",
}


def invoked_as():
    """Как зовут команду в сообщениях: make (если нас запустил Makefile) или python course.py."""
    return "make" if os.environ.get("MAKELEVEL") else "python course.py"


def parse(argv):
    """['test', 'LESSON=03'] -> ('test', {'LESSON': '03', ...все переменные команды со значениями по умолчанию})."""
    if not argv:
        raise CourseError(f"не указана команда. Команды: {', '.join(COMMANDS)}. Подробно: python course.py --help", 2)
    name, *rest = argv
    if name not in COMMANDS:
        raise CourseError(f"неизвестная команда {name!r}: ожидалась одна из {', '.join(COMMANDS)}. "
                          "Подробно: python course.py --help", 2)
    known = {**COMMON, **COMMANDS[name].variables}
    values = dict(known)
    for word in rest:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise CourseError(f"{name}: ожидалось ИМЯ=значение (например LESSON=03), а пришло {word!r}", 2)
        if key not in known:
            raise CourseError(f"{name}: неизвестная переменная {key!r}; у этой команды есть: {', '.join(known)}", 2)
        values[key] = value
    if values["SKIP_INSTALL"] not in ("yes", "no"):
        raise CourseError(f"SKIP_INSTALL: ожидалось yes или no, а пришло {values['SKIP_INSTALL']!r}", 2)
    return name, values


def usage(name=None):
    if name is None:
        width = max(map(len, COMMANDS))
        lines = [__doc__.strip(), "", "Команды:"]
        lines += [f"  {n.ljust(width)}  {c.help}" for n, c in COMMANDS.items()]
        lines += ["", "У всех команд:"] + [f"  {k}={v}  — {VARIABLE_HELP[k]}" for k, v in COMMON.items()]
        return "\n".join(lines)
    command = COMMANDS[name]
    lines = [f"python course.py {name} [ИМЯ=значение ...] — {command.help}", "", "Переменные (по умолчанию):"]
    for key, value in {**command.variables, **COMMON}.items():
        shown = "число ядер + 1" if value is None else repr(value)
        lines.append(f"  {key}={shown}" + (f"  — {VARIABLE_HELP[key]}" if key in VARIABLE_HELP else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------- пути и команды (чистые функции: их проверяют и «как на Windows»)

def venv_python(venv, windows=None):
    """Python окружения: .venv/Scripts/python.exe на Windows, .venv/bin/python на Linux и macOS."""
    venv, windows = pathlib.Path(venv), WINDOWS if windows is None else windows
    return venv / "Scripts" / "python.exe" if windows else venv / "bin" / "python"


def split_args(text, windows=None):
    """Строка LAB_ARGS / PYTEST_ARGS -> список ключей. На Windows обратная косая — часть пути, а не экранирование."""
    if not (WINDOWS if windows is None else windows):
        return shlex.split(text)
    words = shlex.split(text, posix=False)
    return [w[1:-1] if len(w) >= 2 and w[0] == w[-1] and w[0] in "\"'" else w for w in words]


def runs_as_root(windows=None):
    """root на Linux/macOS (контейнер, новая облачная машина): Jupyter без --allow-root там не стартует."""
    return not (WINDOWS if windows is None else windows) and hasattr(os, "geteuid") and os.geteuid() == 0


def default_workers():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return str(cores + 1)          # проходы уроков подолгу ждут ядро Jupyter: лишний процесс занимает ядро


def lesson_numbers(root=ROOT):
    """Номера уроков в lessons/: ['00', '01', …]."""
    return sorted({p.name[:2] for p in (root / "lessons").glob("[0-9][0-9]_*.ipynb")})


def words(text):
    return text.split()


def run_command(name, values, python, windows=None, as_root=False):
    """Команда для действия name (после установки) -> список аргументов; None — действия нет (setup и т. п.)."""
    py = [str(python)]
    if name == "lab":
        return [*py, "-m", "jupyter", values["UI"], *(["--allow-root"] if as_root else []),
                f"--ServerApp.root_dir={values['WORK']}", "--ServerApp.ip=127.0.0.1",
                *split_args(values["LAB_ARGS"], windows)]
    if name == "fresh":
        return [*py, "tools/workspace.py", "--work", values["WORK"], "--fresh", values["LESSON"]]
    if name == "test":
        return [*py, "-m", "pytest", "-n", values["WORKERS"] or default_workers(), "--dist", "loadscope",
                "-m", values["MARKS"], *(["--lesson", values["LESSON"]] if values["LESSON"] else []),
                *split_args(values["PYTEST_ARGS"], windows)]
    if name == "notebooks":
        return [*py, "tools/build_notebooks.py", *words(values["LESSONS"])]
    if name == "site":
        return [*py, "tools/build_site.py"]
    if name == "answers":
        return [*py, "-m", "tools.classroom.answers", "--out", "class/answers",
                *(["--lessons", *words(values["ONLY"])] if words(values["ONLY"]) else [])]
    if name == "nbgrader":
        return [*py, "-m", "tools.classroom.nbgrader_course", "--out", values["OUT"],
                *(["--lessons", *words(values["ONLY"])] if words(values["ONLY"]) else [])]
    if name == "results":
        return [*py, "-m", "tools.classroom.results", *(["--from", *words(values["FROM"])] if words(values["FROM"]) else [])]
    if name == "class":
        return [*py, "-m", "tools.classroom.hub", "start", "--host", values["HOST"], "--port", values["PORT"],
                "--teacher", values["TEACHER"], "--solutions", values["SOLUTIONS"], "--cert", values["CERT"],
                "--key", values["KEY"], *(["--memory", values["MEMORY"]] if values["MEMORY"] else []),
                *(["--pids", values["PIDS"]] if values["PIDS"] else []), *(["--disk", values["DISK"]] if values["DISK"] else [])]
    if name == "class-stop":
        return [*py, "-m", "tools.classroom.hub", "stop"]
    if name == "class-status":
        return [*py, "-m", "tools.classroom.hub", "status"]
    return None


# ---------------------------------------------------------------- окружение и отметки установки

STAMPS = {"lab": ".installed-lab", "test": ".installed-test", "class": ".installed-class"}
# Что ставит каждая отметка поверх предыдущей. Extra `lab` — Jupyter для уроков (JupyterLab, Notebook 7, jupytext;
# в Colab и Kaggle его нет — там свой интерфейс). Проверки ставят и extra `class`: make test поднимает настоящий хаб и nbgrader.
INSTALLS = {"lab": ".[lab]", "test": ".[lab,test,class]", "class": ".[class]"}


def pyproject_digest(root=ROOT):
    return hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()


def stamp_is_current(venv, kind, root=ROOT):
    """Отметка есть и записана для этого pyproject.toml: изменился он — переустанавливаем."""
    stamp = pathlib.Path(venv) / STAMPS[kind]
    try:
        return stamp.read_text(encoding="utf-8").strip() == pyproject_digest(root)
    except OSError:
        return False


def write_stamps(venv, kinds, root=ROOT):
    for kind in kinds:
        (pathlib.Path(venv) / STAMPS[kind]).write_text(pyproject_digest(root) + "\n", encoding="utf-8")


def say(text):
    print(f"{invoked_as()}: {text}", flush=True)


def create_venv(venv):
    if importlib.util.find_spec("venv") is None or importlib.util.find_spec("ensurepip") is None:
        raise CourseError(f"в этом Python ({sys.executable}) нет модуля venv или ensurepip, а без них окружение "
                          "не создать. Debian/Ubuntu: sudo apt install python3-venv; Windows и macOS: Python с python.org "
                          "(в нём venv есть).")
    venv, existed = pathlib.Path(venv), pathlib.Path(venv).exists()
    say(f"создаю окружение {venv} ({sys.executable} -m venv)")
    done = subprocess.run([sys.executable, "-m", "venv", str(venv)], cwd=ROOT)
    if done.returncode == 0 and venv_python(venv).exists():
        return
    if not existed:
        shutil.rmtree(venv, ignore_errors=True)           # полуготовое окружение не должно выглядеть готовым
        raise CourseError(f"не удалось создать окружение {venv} (код {done.returncode}); сообщение Python — выше")
    # Папка была и до нас (чужое окружение, копия с другой системы, ваши файлы): её не удаляем никогда.
    raise CourseError(f"папка {venv} уже есть, но окружения Python в ней нет ({venv_python(venv)} не найден), и "
                      f"{sys.executable} -m venv его не создал (код {done.returncode}). Папку не трогаю — в ней могут "
                      f"быть ваши файлы: удалите или переименуйте её сами либо возьмите другую папку: VENV=.venv-course")


def pip(python, *args):
    command = [str(python), "-m", "pip", *args]
    done = subprocess.run(command, cwd=ROOT)
    if done.returncode != 0:
        raise CourseError(f"pip не смог: {' '.join(command[1:])} (код {done.returncode}). Что именно — в выводе pip выше; "
                          "частые причины — нет сети до PyPI или кончилось место на диске. Исправьте и запустите команду снова: "
                          "поставленное раньше останется.")


def ensure_installed(kind, venv):
    """Ставит в venv то, что нужно команде (kind: lab, test, class), если отметка устарела; -> python окружения."""
    venv = pathlib.Path(venv)
    python = venv_python(venv)
    if not python.exists():
        create_venv(venv)
    if not stamp_is_current(venv, "lab"):
        say(f"ставлю курс в {venv} (первый раз — несколько минут)")
        pip(python, "install", "--upgrade", "pip")
        pip(python, "install", "-e", INSTALLS["lab"])
        write_stamps(venv, ["lab"])
    if kind in ("test", "class") and not stamp_is_current(venv, kind):
        say(f"ставлю в {venv} {'инструменты проверок' if kind == 'test' else 'инструменты класса'}")
        pip(python, "install", "-e", INSTALLS[kind])
        write_stamps(venv, ["test", "class"] if kind == "test" else ["class"])
    return python


# ---------------------------------------------------------------- запуск

def run_foreground(command):
    """Запускает команду и ждёт её. Ctrl+C получают оба процесса: Jupyter сам спрашивает, остановиться ли,
    а мы ждём его ответа, а не падаем с трассировкой. SIGTERM (тест, systemd) передаём дальше."""
    process = subprocess.Popen(command, cwd=ROOT)
    if not WINDOWS:
        import signal

        def forward(signum, _frame):
            process.send_signal(signum)

        signal.signal(signal.SIGTERM, forward)
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


def clean():
    for name in (VENV_DEFAULT, ".venv-lowest", "test-artifacts", ".hypothesis"):
        shutil.rmtree(ROOT / name, ignore_errors=True)
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else 2
    if len(argv) > 1 and argv[1] in ("-h", "--help") and argv[0] in COMMANDS:
        print(usage(argv[0]))
        return 0
    name, values = parse(argv)
    command = COMMANDS[name]
    if command.not_on_windows and WINDOWS:
        raise CourseError(f"{name}: {command.not_on_windows}", 2)
    if name == "clean":
        return clean()
    if name == "fresh" and not values["LESSON"]:
        raise CourseError(f"укажите урок: {invoked_as()} fresh LESSON=03", 2)
    if name == "test" and values["LESSON"] and values["LESSON"] not in lesson_numbers():
        raise CourseError(f"test: урока LESSON={values['LESSON']!r} нет в lessons/; ожидался номер из двух цифр, "
                          f"один из {', '.join(lesson_numbers())}", 2)

    venv = pathlib.Path(values["VENV"])
    if not venv.is_absolute():
        venv = ROOT / venv
    if command.installs and values["SKIP_INSTALL"] == "no":
        python = ensure_installed(command.installs, venv)
    else:
        python = venv_python(venv)
        if not python.exists():
            raise CourseError(f"в {venv} нет окружения ({python} не найден): сначала {invoked_as()} setup", 2)
    if name in ("setup", "setup-test"):
        return 0

    if name == "lab":
        done = subprocess.run([str(python), "tools/workspace.py", "--work", values["WORK"]], cwd=ROOT)
        if done.returncode != 0:
            return done.returncode
        as_root = runs_as_root()
        if as_root:
            say("вы root (так бывает в контейнере и на новой облачной машине) — запускаем Jupyter с --allow-root, "
                "иначе он откажется стартовать")
        return run_foreground(run_command(name, values, python, as_root=as_root))

    started = time.monotonic()
    code = run_foreground(run_command(name, values, python))
    if name == "test":
        print(f"{invoked_as()} test: {round(time.monotonic() - started)} с", flush=True)
        return 0 if code == 0 else 1
    return code


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CourseError as error:
        print(f"{invoked_as()}: {error}", file=sys.stderr)
        sys.exit(error.code)

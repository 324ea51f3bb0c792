"""Класс с SOLUTIONS=no глазами ученика: настоящий хаб (`hub.py start --solutions no`) на 127.0.0.1, настоящая запись
ученика и его сервер. От имени ученика (runuser) обходим всё, что он может прочитать в папке курса и в своём доме
(~/work с его копиями уроков), и ищем строки решений (tests/solution_lines.py): их быть не должно нигде.
Ученик при этом работает: ядро в его work/ импортирует course_lib, и проверка урока 02 принимает верный ответ.
`make class-stop` возвращает папкам курса прежние права.

Класс идёт из копии папки курса во временной папке (уроки, тесты, tools, class — как у учителя, без .venv и git):
закрывает он её папки, а не папки этого репозитория, и тесты, которые в это время идут рядом (make test — несколько
процессов сразу) и читают lessons/ от имени своих учеников, ему не мешают. Окружение Python и course_lib — настоящие
(их ядро ученика и берёт), и обход читает их тоже.

Ученику передаются только хэши строк решений, не сами строки. Записи и процессы теста (имена с уникальной
приставкой) убираются в конце, даже если тест упал. Нужен root; запускать под flock /tmp/hub-tests.lock.
"""

import json
import os
import pathlib
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

from posix_only import skip_module_without

skip_module_without("pwd", "os.geteuid")      # класс — только Linux; до import pwd
import pwd  # noqa: E402

import course_lib  # noqa: E402
import solution_lines  # noqa: E402 — не «from tests …»: IPython 7 кладёт на sys.path свой пакет tests
from tests.hub_client import Hub, kill, remove_accounts  # noqa: E402
from tools import workspace  # noqa: E402
from tools.classroom import accounts, exercise_cells  # noqa: E402
from tools.classroom.processes import class_pid, free_port  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYTHON = sys.executable
WALKER = pathlib.Path(solution_lines.__file__)

if os.geteuid() != 0:
    if os.environ.get("CI"):
        pytest.fail("tests/test_class_learner_side.py: в CI тест класса обязателен, а он запущен не от root", pytrace=False)
    pytest.skip("класс (make class) делает записи системы — этот тест идёт только от root", allow_module_level=True)
_closed = next(filter(None, (accounts.unreadable(p) for p in (ROOT, pathlib.Path(PYTHON).resolve()))), None)
if _closed:
    if os.environ.get("CI"):
        pytest.fail(f"в {_closed} не войти другим записям: ученики не запустят Python курса", pytrace=False)
    pytest.skip(f"в {_closed} не войти другим записям (chmod o+x {_closed}, как делает .ci/run)", allow_module_level=True)


# в копию не идут окружения, git, кэши и то, что делают make test, make site, make results, make lab
NOT_COPIED = {".git", "site", "results", "work", "test-artifacts", "__pycache__", ".pytest_cache", ".hypothesis"}


def copy_course(target):
    """Копия папки курса в target (как её ставит учитель), class/node_modules — ссылкой на настоящий."""
    target.mkdir(mode=0o755)
    for entry in ROOT.iterdir():
        if entry.name in NOT_COPIED or entry.name.startswith(".venv") or entry.name.endswith(".egg-info"):
            continue
        if entry.is_dir():
            shutil.copytree(entry, target / entry.name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "node_modules", "state", "learners.txt"))
        else:
            shutil.copy2(entry, target / entry.name)
    if (ROOT / "class" / "node_modules").is_dir():
        (target / "class" / "node_modules").symlink_to(ROOT / "class" / "node_modules")
    return target


def hub_cli(course, *args, timeout=300):
    return subprocess.run([PYTHON, "-m", "tools.classroom.hub", *args], cwd=course, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(course)})


def top_modes(course):
    return {p.name: stat.S_IMODE(p.lstat().st_mode) for p in course.iterdir()}


@pytest.fixture(scope="module")
def klass():
    prefix = "cls" + "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(5))
    learner, teacher = prefix + "a", prefix + "t"
    folder = pathlib.Path(tempfile.mkdtemp(prefix="learner-side-"))
    folder.chmod(0o755)                                        # хэши строк решений читает ученик
    (folder / "learners.txt").write_text(learner + "\n", encoding="utf-8")
    state = folder / "state"
    course = copy_course(folder / "course")
    info = {"learner": learner, "teacher": teacher, "state": state, "folder": folder, "course": course,
            "modes": top_modes(course)}
    try:
        for attempt in range(3):       # порт свободен при пробе, но до запуска хаба его может занять сосед
            port = free_port()
            done = hub_cli(course, "start", "--learners", str(folder / "learners.txt"), "--state", str(state),
                           "--host", "127.0.0.1", "--port", str(port), "--teacher", teacher, "--memory", "700M",
                           "--solutions", "no")
            if not (done.returncode == 2 and f"порт {port} на 127.0.0.1 уже занят" in done.stderr):
                break
        info["hub"] = Hub(port, state)
        assert done.returncode == 0, f"make class SOLUTIONS=no не запустил класс:\n{done.stdout}\n{done.stderr}"
        info["welcome"] = done.stdout
        info["entry"] = pwd.getpwnam(learner)
        yield info
    finally:
        hub_cli(course, "stop", "--state", str(state), timeout=120)
        for pid_file in ("jupyterhub.pid", "proxy.pid"):            # на случай, если stop не смог:
            kill([pid for pid in [class_pid(state / pid_file, state)] if pid])   # только процесс этого класса
        remove_accounts([teacher, learner], state)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_learner_works_with_the_answers_closed(klass):
    """Ядро ученика в его work/ импортирует course_lib и принимает верный softmax: закрытие не ломает урок."""
    hub, name = klass["hub"], klass["learner"]
    hub.request_server(name)
    hub.wait_ready(name)
    kernel = hub.kernel(name, "02_soft_search.ipynb")
    try:
        out = kernel.run("import numpy as np\n"
                         "from course_lib.exercises.softmax import check_softmax\n"
                         "def mine(s):\n    e = np.exp(s - s.max(axis=-1, keepdims=True))\n"
                         "    return e / e.sum(axis=-1, keepdims=True)\n"
                         "check_softmax(mine)\n"
                         "import os\nprint('ЯДРО', os.getcwd())")
    finally:
        kernel.close()
    assert f"ЯДРО {pwd.getpwnam(name).pw_dir}/work" in out, out
    assert "✅" in out or "верно" in out.lower(), f"проверка не приняла верный softmax:\n{out}"
    assert "SOLUTIONS=no: закрыто" in klass["welcome"] and "lessons" in klass["welcome"]


def test_the_learner_reads_no_solution_anywhere(klass):
    """Обход от имени ученика: папка курса и весь его дом (с ~/work) — ни одной строки решения."""
    secret = solution_lines.secret_lines(workspace.lessons())
    by_hash = {solution_lines.digest(line): f"{lesson}: {line}" for line, lesson in secret.items()}
    hashes = klass["folder"] / "hashes.json"
    hashes.write_text(json.dumps(sorted(by_hash)), encoding="utf-8")
    hashes.chmod(0o644)
    entry, course = klass["entry"], klass["course"]
    home = pathlib.Path(entry.pw_dir)
    library = pathlib.Path(course_lib.__file__).parent                 # тот, что импортирует ядро ученика
    folders = [course, library, pathlib.Path(sys.prefix), home]
    with open(WALKER, encoding="utf-8") as walker:                     # tests/ ученику закрыт: код — через stdin
        done = accounts.run_as(entry, [PYTHON, "-", str(hashes), *map(str, folders)], stdin=walker, timeout=600)
    assert done.returncode == 0, f"обход от имени ученика упал:\n{done.stderr[-2000:]}"
    walked = json.loads(done.stdout)
    found = [f"{path}\n      {by_hash[h]}" for path, got in sorted(walked["hits"].items()) for h in got]
    assert not found, "ученик читает строки решений:\n  " + "\n  ".join(found)
    paths = set(walked["paths"])
    copies = {p for p in paths if p.startswith(f"{home}/work/") and p.endswith(".ipynb")}
    assert {f"{home}/work/{p.name}" for p in workspace.lessons()} <= copies, "обход не видел копий уроков в ~/work"
    assert str(library / "exercises" / "multi_head.py") in paths, "обход не видел course_lib"
    assert str(course / "tools" / "workspace.py") in paths, "обход не видел tools/ курса"
    assert not any(p.startswith(str(course / "lessons") + "/") for p in paths), "уроки с решениями открыты ученику"
    assert walked["files"] > 1000, f"обход прочитал всего {walked['files']} файлов: окружение Python не видно?"


def test_the_learners_copies_keep_every_exercise(klass):
    """В копиях ученика нет ячеек-решений, а ячейки упражнений с проверками — все."""
    work = pathlib.Path(klass["entry"].pw_dir) / "work"
    for lesson in workspace.lessons():
        copy = json.loads((work / lesson.name).read_text(encoding="utf-8"))
        assert not any(workspace.is_solution(c) for c in copy["cells"]), f"{lesson.name}: в копии есть решение"
        original = json.loads(lesson.read_text(encoding="utf-8"))
        calls = [call for c in original["cells"] if c["cell_type"] == "code" and not workspace.is_solution(c)
                 for call in exercise_cells.checker_calls(exercise_cells.source(c))]
        kept = [call for c in copy["cells"] if c["cell_type"] == "code"
                for call in exercise_cells.checker_calls(exercise_cells.source(c))]
        assert kept == calls, f"{lesson.name}: вызовы проверок в копии {kept}, а в уроке {calls}"


def test_class_stop_gives_the_folders_back(klass):
    course = klass["course"]
    done = hub_cli(course, "stop", "--state", str(klass["state"]), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "снова открыто" in done.stdout and "lessons" in done.stdout, done.stdout
    now = top_modes(course)
    changed = {name: (oct(mode), oct(now.get(name, 0))) for name, mode in klass["modes"].items() if now.get(name) != mode}
    assert not changed, f"после make class-stop права папок курса не те, что были до make class (было, стало): {changed}"
    assert not (klass["state"] / "closed.json").exists()
    lesson = course / "lessons" / "02_soft_search.ipynb"
    probe = accounts.run_as(klass["entry"], [PYTHON, "-c", f"open({str(lesson)!r}).read()"])
    assert probe.returncode == 0, f"после make class-stop ученик не читает lessons/:\n{probe.stderr}"

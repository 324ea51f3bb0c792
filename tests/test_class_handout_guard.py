"""SOLUTIONS=no закрывает ответы от записей учеников (tools/classroom/handout_guard.py): проверено настоящей
записью системы (useradd) на копии верхнего уровня папки курса во временной папке.

Запись теста (имя с уникальной приставкой) убирается в конце, даже если тест упал. Нужен root.
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

from tests.hub_client import kill, processes_of  # noqa: E402
from tools.classroom import accounts, handout_guard, hub  # noqa: E402

if os.geteuid() != 0:
    if os.environ.get("CI"):
        pytest.fail("tests/test_class_handout_guard.py: в CI тест обязателен, а он запущен не от root", pytrace=False)
    pytest.skip("тест делает запись системы (useradd) — идёт только от root", allow_module_level=True)

SECRET = "def softmax_solution(scores):\n"
# читает ученик системным Python: Python курса под pyenv лежит в /root (0700), и войти туда ученик может не всегда
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
READ = ("import pathlib, sys\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n"
        "        pathlib.Path(path).read_bytes(); print('читается', path)\n"
        "    except OSError as error:\n"
        "        print('закрыто', path, type(error).__name__)\n")


@pytest.fixture(scope="module")
def learner():
    name = "hg" + "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(6))
    try:
        entry, created = accounts.ensure_account(name)
        assert created, f"запись {name} уже была"
        yield entry
    finally:
        try:
            kill(processes_of(pwd.getpwnam(name).pw_uid))                       # процессы только этой записи
        except KeyError:
            pass
        subprocess.run(["userdel", "--remove", name], capture_output=True)


@pytest.fixture
def tmp_open():
    """Временная папка, в которую могут войти другие записи (tmp_path у pytest — 0700)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="handout-guard-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def course(tmp_open):
    """Верхний уровень курса: уроки с решением, тесты, git, ответы учителя, course_lib, tools, .venv."""
    for parent in tmp_open.parents:
        if not stat.S_IMODE(parent.stat().st_mode) & 0o001:
            pytest.skip(f"в {parent} не войти другим записям — проверять нечего")
    root = tmp_open / "course"
    files = {"lessons/02_soft_search.ipynb": SECRET, "tests/test_x.py": SECRET, ".git/objects/ab": SECRET,
             "class/answers/02.html": SECRET, "results/anna.ipynb": SECRET, "site/02.html": SECRET,
             "README.md": "курс\n", "course_lib/__init__.py": "X = 1\n", "tools/workspace.py": "pass\n",
             ".venv/bin/python": "#!/bin/sh\n"}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (root / "site").chmod(0o751)                  # необычные права возвращаются как были
    state = tmp_open / "state"
    state.mkdir(mode=0o700)
    return root, state, root / ".venv" / "bin" / "python"


def learner_reads(entry, *paths):
    done = accounts.run_as(entry, [SYSTEM_PYTHON, "-c", READ, *map(str, paths)])
    assert done.returncode == 0, done.stderr
    return {line.split()[1]: line.split()[0] for line in done.stdout.splitlines()}


def test_closed_for_the_learner_and_opened_again(learner, course):
    root, state, python = course
    secrets_at = [root / p for p in ("lessons/02_soft_search.ipynb", "tests/test_x.py", ".git/objects/ab",
                                     "class/answers/02.html", "results/anna.ipynb", "site/02.html")]
    needed = [root / p for p in ("course_lib/__init__.py", "tools/workspace.py", ".venv/bin/python")]
    before = {p: stat.S_IMODE(p.stat().st_mode) for p in [root, *root.iterdir()]}
    assert set(learner_reads(learner, *secrets_at, *needed).values()) == {"читается"}, "до закрытия всё должно читаться"

    report = handout_guard.close(state, root, python)
    seen = learner_reads(learner, *secrets_at, *needed)
    assert all(seen[str(p)] == "закрыто" for p in secrets_at), f"ученик читает ответы после закрытия: {seen}"
    assert all(seen[str(p)] == "читается" for p in needed), f"ученику закрыли нужное для урока: {seen}"
    record = state / "closed.json"
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    saved = json.loads(record.read_text(encoding="utf-8"))
    closed = saved["modes"]
    assert saved["made"] == ["work"] and stat.S_IMODE((root / "work").stat().st_mode) == 0o750, \
        "work/ (make lab учителя посреди класса) должна появиться сразу закрытой"
    assert closed["site"] == 0o751 and closed["lessons"] == 0o755 and closed["README.md"] == 0o644
    assert not {"course_lib", "tools", ".venv"} & set(closed), f"записано закрытым нужное: {closed}"
    assert "lessons" in report[0] and "make class-stop" in report[0]

    handout_guard.close(state, root, python)                    # второй раз: прежние права не затираются
    assert json.loads(record.read_text(encoding="utf-8")) == saved
    (root / "lessons").chmod(0o700)                             # учитель поменял права владельца за время класса
    (root / "lessons").chmod(0o750)

    assert handout_guard.reopen(state, root) == sorted(closed)
    after = {p: stat.S_IMODE(p.stat().st_mode) for p in [root, *root.iterdir()]}
    assert after == {**before, root / "lessons": 0o755}, "права после возврата не те, что были"
    assert not record.exists()
    assert not (root / "work").exists(), "пустая work/, сделанная закрытой, после make class-stop не убрана"
    assert set(learner_reads(learner, *secrets_at, *needed).values()) == {"читается"}
    assert handout_guard.reopen(state, root) == [], "второй возврат без записи должен ничего не делать"


def test_a_work_folder_filled_during_the_class_is_kept_and_opened(learner, course):
    root, state, python = course
    handout_guard.close(state, root, python)
    (root / "work" / "01_embeddings.ipynb").write_text(SECRET, encoding="utf-8")   # make lab учителя во время класса
    lesson = root / "work" / "01_embeddings.ipynb"
    assert learner_reads(learner, lesson)[str(lesson)] == "закрыто"
    handout_guard.reopen(state, root)
    assert lesson.exists() and stat.S_IMODE((root / "work").stat().st_mode) == 0o755


def test_a_broken_record_is_named_not_guessed(course):
    root, state, python = course
    (state / "closed.json").write_text('{"lessons": "755"}', encoding="utf-8")
    with pytest.raises(ValueError, match="closed.json.*chmod o\\+rX"):
        handout_guard.reopen(state, root)


def test_class_stop_opens_what_class_closed(learner, course, monkeypatch):
    """make class-stop возвращает права, даже если класс не запустился (нет class.json)."""
    root, state, python = course
    handout_guard.close(state, root, python)
    monkeypatch.setattr(handout_guard, "ROOT", root)
    lines = hub.stop(state)
    assert any("снова открыто" in line and "lessons" in line for line in lines), lines
    assert learner_reads(learner, root / "lessons" / "02_soft_search.ipynb")[str(root / "lessons/02_soft_search.ipynb")] == "читается"


def test_a_worktree_git_outside_the_course_is_named(course, tmp_open):
    root, state, python = course
    common = tmp_open / "main.git"
    (common / "worktrees" / "x").mkdir(parents=True)
    common.chmod(0o755)
    (common / "worktrees" / "x" / "commondir").write_text("../..\n")
    for path in (root / ".git").rglob("*"):
        path.unlink() if path.is_file() else None
    for path in sorted((root / ".git").rglob("*"), reverse=True):
        path.rmdir()
    (root / ".git").rmdir()
    (root / ".git").write_text(f"gitdir: {common / 'worktrees' / 'x'}\n")
    report = handout_guard.close(state, root, python)
    handout_guard.reopen(state, root)
    assert any(str(common) in line and "chmod o-rwx" in line for line in report), report


def test_the_class_python_and_course_lib_stay_open():
    names = handout_guard.kept()
    assert {"course_lib", "tools"} <= names
    venv = pathlib.Path(sys.prefix).absolute()
    if handout_guard.ROOT in venv.parents:
        assert venv.relative_to(handout_guard.ROOT).parts[0] in names
    assert "lessons" not in names and "tests" not in names

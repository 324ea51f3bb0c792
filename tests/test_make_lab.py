"""`make lab` и рабочая копия уроков: то, с чего начинает каждый новичок (README, «Две команды»).

`make lab` и `python course.py lab` (то же без make — для Windows) запускаются по-настоящему (без браузера,
в своей временной папке work/ и со своим портом), тест ждёт, пока сервер ответит на запрос с токеном из его
же вывода, сохраняет тетрадку через Jupyter и останавливает сервер. Установку (`pip install`) этот тест не
повторяет (SKIP_INSTALL=yes): окружение — то, в котором идёт тест.

Что ставят `make lab` и `make test` (и их близнец course.py), проверяется без сети: в подставном окружении
`bin/python` ничего не ставит и не запускает, а записывает, о чём его попросили.
"""

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import nbformat
import pytest

from _jupyter_server import free_port, isolated_env
from posix_only import needs

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import course  # noqa: E402
from tools import workspace  # noqa: E402
from tools.lowest_requirements import requirement_name, requirements  # noqa: E402

LESSONS = workspace.lessons()
TOKEN_URL = re.compile(r"http://127\.0\.0\.1:(\d+)/(?:lab|tree)\?token=([0-9a-f]+)")
START_TIMEOUT = 120


# ---------------------------------------------------------------- рабочая копия (tools/workspace.py)

def test_first_run_copies_every_lesson(tmp_path):
    copied = workspace.prepare(tmp_path / "work")
    assert sorted(p.name for p in copied) == sorted(p.name for p in [*LESSONS, *workspace.documents()])
    assert "glossary.md" in {p.name for p in copied}, "уроки ссылаются на glossary.md — он должен быть рядом"
    for lesson in LESSONS:
        assert (tmp_path / "work" / lesson.name).read_bytes() == lesson.read_bytes()
    assert not list((tmp_path / "work").glob("*.py")), "в рабочей копии только .ipynb"


def test_learners_edits_are_never_overwritten(tmp_path):
    work = tmp_path / "work"
    workspace.prepare(work)
    edited = work / LESSONS[0].name
    edited.write_text('{"мои": "правки"}', encoding="utf-8")
    (work / LESSONS[1].name).unlink()                      # урок, которого в копии нет (например, новый)
    copied = workspace.prepare(work)
    assert copied == [work / LESSONS[1].name], "копируется только недостающее"
    assert edited.read_text(encoding="utf-8") == '{"мои": "правки"}'


def test_fresh_restores_lesson_and_keeps_the_old_copy(tmp_path):
    work = tmp_path / "work"
    workspace.prepare(work)
    lesson = LESSONS[3]
    (work / lesson.name).write_text("моя версия", encoding="utf-8")
    target, backup = workspace.fresh(lesson.name[:2], work)
    assert target.read_bytes() == lesson.read_bytes()
    assert backup.parent == work / "backup" and backup.read_text(encoding="utf-8") == "моя версия"
    assert workspace.fresh(str(int(lesson.name[:2])), work) == (target, None), "нетронутый урок не бэкапится"


@pytest.mark.parametrize("name", ["99", "урок", ""])
def test_fresh_rejects_unknown_lesson(tmp_path, name):
    with pytest.raises(ValueError, match="не найден"):
        workspace.fresh(name, tmp_path / "work")


def test_first_run_counts_lessons_and_pages_apart(tmp_path, capsys):
    assert workspace.main(["--work", str(tmp_path / "work")]) == 0
    lesson_sources = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.py"))       # исходники уроков, не тетрадки
    pages = sorted((ROOT / "lessons").glob("*.md"))
    assert f"скопировано уроков: {len(lesson_sources)}, страниц: {len(pages)}" in capsys.readouterr().out
    assert workspace.main(["--work", str(tmp_path / "work")]) == 0
    assert capsys.readouterr().out == "", "второй запуск ничего не копирует и молчит"


def test_workspace_runs_on_any_python3(tmp_path):
    """Скрипт берёт только стандартную библиотеку: годится и python3 без пакетов курса (conda, система)."""
    done = subprocess.run([sys.executable, "-I", "-S", str(ROOT / "tools" / "workspace.py"), "--work", str(tmp_path / "work")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, f"tools/workspace.py без site-packages упал:\n{done.stderr[-2000:]}"
    assert (tmp_path / "work" / LESSONS[0].name).exists()


def test_lessons_folder_is_not_where_learners_work():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "work/" in ignored, "рабочая копия учеников должна быть в .gitignore"
    assert workspace.WORK == ROOT / "work"


# ---------------------------------------------------------------- что ставят make lab и make test

TEST_TOOLS = {"pytest", "nbval", "hypothesis", "playwright"}
MAKE_ONLY = pytest.mark.skipif(shutil.which("make") is None or os.name == "nt",
                               reason="make и /bin/sh — для Linux и macOS; на Windows — python course.py (tests/test_course_cli.py)")


def recording_venv(folder):
    """Окружение, где python ничего не ставит и не запускает, а дописывает свои аргументы (JSON) в calls.log.
    -m pytest выходит с кодом из FAKE_PYTEST_EXIT (по умолчанию 0)."""
    venv, log = folder / "venv", folder / "calls.log"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                      f"with open({str(log)!r}, 'a', encoding='utf-8') as f:\n"
                      "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n"
                      "sys.exit(int(os.environ.get('FAKE_PYTEST_EXIT', 0)) if sys.argv[1:3] == ['-m', 'pytest'] else 0)\n",
                      encoding="utf-8")
    python.chmod(0o755)
    log.touch()
    return venv, log


def calls(log):
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


# Внешний `make test MARKS=` (так его зовёт CI) кладёт MARKS='' и в окружение pytest, а make внутри теста принял бы
# её за заданную: тест «make test без переменных» получил бы -m ''. Поэтому переменные курса из окружения убираются.
COURSE_VARIABLES = {*course.COMMON, *(v for c in course.COMMANDS.values() for v in c.variables)}


def direct_env(**extra):
    """Окружение для python course.py «из консоли»: без MAKELEVEL и без переменных курса, которые оставил бы
    внешний make test (make передаёт заданные ему переменные в окружение своих команд)."""
    drop = {"MAKELEVEL", "MAKEFLAGS", "MFLAGS", *COURSE_VARIABLES}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, **extra}


def run_course(runner, venv, *args, root=ROOT, check=True, **env):
    """runner 'make' — make ЦЕЛЬ ИМЯ=…; 'course.py' — python course.py ЦЕЛЬ ИМЯ=… (как на Windows, без make)."""
    if runner == "make":
        command = ["make", "--no-print-directory", f"VENV={venv}", *args]
    else:
        command = [sys.executable, str(root / "course.py"), *args, f"VENV={venv}"]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, env=direct_env(**env))
    if check:
        assert done.returncode == 0, f"{' '.join(command)}: код {done.returncode}\n{done.stdout}{done.stderr}"
    return done


def installs(log):
    """Каждый `pip install -e СПЕЦ` из calls.log -> множество extra этой установки ('.' -> set())."""
    found = []
    for words in calls(log):
        if words[:3] == ["-m", "pip", "install"] and "-e" in words:
            extras = words[words.index("-e") + 1].partition("[")[2].rstrip("]")
            found.append({e.strip() for e in extras.split(",") if e.strip()})
    return found


def _packages(extras):
    return {requirement_name(r) for r in requirements(extras=tuple(extras))}


RUNNERS = [pytest.param("make", marks=MAKE_ONLY), "course.py"]
# Подставной python — скрипт с #!: так можно только на Linux и macOS. Путь Windows (Scripts\\python.exe, команды
# без оболочки) проверяют тесты «как на Windows» в tests/test_course_cli.py.
FAKE_PYTHON = pytest.mark.skipif(os.name == "nt", reason="подставной python с #! — только Linux и macOS")


@FAKE_PYTHON
@pytest.mark.parametrize("runner", RUNNERS)
def test_make_lab_installs_no_test_tools_and_make_test_adds_them(tmp_path, runner):
    venv, log = recording_venv(tmp_path)
    run_course(runner, venv, "setup")               # та же установка, что у make lab и make fresh
    assert installs(log) == [{"lab"}], f"{runner} setup ставит не только курс: {calls(log)}"
    learner = _packages({"lab"})
    assert not learner & TEST_TOOLS, f"ученику ставятся инструменты проверок: {sorted(learner & TEST_TOOLS)}"
    for target in (["lab", f"WORK={tmp_path / 'work'}"], ["fresh", "LESSON=03"]):
        run_course(runner, venv, *target)
        assert installs(log) == [{"lab"}], f"{runner} {target[0]} после setup снова ставит пакеты"
    assert calls(log)[-1] == ["tools/workspace.py", "--work", "work", "--fresh", "03"]

    run_course(runner, venv, "setup-test")          # установка make test
    assert installs(log) == [{"lab"}, {"lab", "test", "class"}], "make test доставляет extra test и class поверх курса"
    assert TEST_TOOLS <= _packages({"test"}) - learner
    assert {"jupyterhub", "nbgrader"} <= _packages({"class"}) - learner, "ученику ставятся инструменты класса (JupyterHub, nbgrader)"
    for target in ("test", "lab", "notebooks", "class"):
        run_course(runner, venv, target)
        assert len(installs(log)) == 2, f"{runner} {target} после setup-test снова ставит пакеты: {calls(log)[-3:]}"

    first_test, first_log = recording_venv(tmp_path / "first-make-test")     # новичок начал с make test
    run_course(runner, first_test, "setup-test")
    run_course(runner, first_test, "lab")
    assert installs(first_log) == [{"lab"}, {"lab", "test", "class"}], "make lab после make test снова ставит пакеты"


@FAKE_PYTHON
@pytest.mark.parametrize("runner", RUNNERS)
def test_make_test_passes_its_variables_to_pytest_and_prints_its_seconds(tmp_path, runner):
    venv, log = recording_venv(tmp_path)
    run_course(runner, venv, "setup-test")
    done = run_course(runner, venv, "test", "LESSON=03", "MARKS=", "WORKERS=2", "PYTEST_ARGS=-x -k 'soft and not slow'")
    assert calls(log)[-1] == ["-m", "pytest", "-n", "2", "--dist", "loadscope", "-m", "", "--lesson", "03",
                              "-x", "-k", "soft and not slow"]
    name = "make" if runner == "make" else "python course.py"
    assert re.search(rf"^{name} test: \d+ с$", done.stdout, re.M), done.stdout
    run_course(runner, venv, "test")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert calls(log)[-1] == ["-m", "pytest", "-n", str(cores + 1), "--dist", "loadscope", "-m", "not slow"]

    failed = run_course(runner, venv, "test", check=False, FAKE_PYTEST_EXIT="1")
    assert failed.returncode == (2 if runner == "make" else 1), "упал pytest — падает и make test"
    assert re.search(rf"^{name} test: \d+ с$", failed.stdout, re.M), "время печатается и при падении"


# ---------------------------------------------------------------- сам make lab

def _get(url, token=None, method="GET", body=None):
    headers = {"Authorization": f"token {token}"} if token else {}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None


def _stop(process):
    """make и JupyterLab — одна группа процессов (start_new_session): SIGTERM всей группе, затем SIGKILL."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@needs("os.killpg", "os.geteuid", "signal.SIGKILL")      # группа процессов и root — Linux и macOS
@pytest.mark.parametrize("runner, ui", [
    pytest.param("make", "lab", marks=MAKE_ONLY),
    pytest.param("make", "notebook", marks=MAKE_ONLY),     # Jupyter Notebook 7 (make lab UI=notebook)
    ("course.py", "lab"),                                   # python course.py lab — как на Windows, без make
])
def test_make_lab_starts_answers_with_its_token_and_saves_into_work(tmp_path, runner, ui):
    work, port = tmp_path / "work", free_port()
    # Как в папке курса: над work/ лежит jupytext.toml, который связывает .ipynb и .py уроков.
    (tmp_path / "jupytext.toml").write_bytes((ROOT / "jupytext.toml").read_bytes())
    env = isolated_env(tmp_path / "state")
    if runner == "course.py":
        env = {k: v for k, v in env.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    # SKIP_INSTALL=yes: окружение — то, в котором идёт тест (и в окружении нижних границ ничего не переставится).
    variables = ["lab", f"UI={ui}", f"VENV={sys.prefix}", f"WORK={work}", "SKIP_INSTALL=yes",
                 f"LAB_ARGS=--no-browser --ServerApp.port={port} --ServerApp.port_retries=0"]
    command = (["make", "--no-print-directory", *variables] if runner == "make"
               else [sys.executable, str(ROOT / "course.py"), *variables])
    log_path = tmp_path / "make-lab.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline, found = time.monotonic() + START_TIMEOUT, None
        while found is None:
            output = log_path.read_text(encoding="utf-8", errors="replace")
            found = TOKEN_URL.search(output)
            assert process.poll() is None, f"{runner} lab завершился с кодом {process.returncode}:\n{output[-3000:]}"
            assert time.monotonic() < deadline, f"make lab не напечатал адрес с токеном за {START_TIMEOUT} с:\n{output[-3000:]}"
            time.sleep(0.3)
        assert int(found.group(1)) == port
        base, token = f"http://127.0.0.1:{port}", found.group(2)
        while (status := _get(f"{base}/api/status", token))[0] != 200:
            assert time.monotonic() < deadline, f"сервер не ответил: {status}"
            time.sleep(0.3)
        assert _get(f"{base}/api/contents")[0] == 403, "без токена сервер не должен пускать"

        output = log_path.read_text(encoding="utf-8", errors="replace")
        is_root = os.geteuid() == 0
        assert ("make:" if runner == "make" else "python course.py:") in output or not is_root, output[:2000]
        assert ("--allow-root" in output) == is_root and ("вы root" in output) == is_root, output[:2000]

        status, listing = _get(f"{base}/api/contents", token)
        names = sorted(item["name"] for item in listing["content"])
        assert [p.name for p in LESSONS] == [n for n in names if n.endswith(".ipynb")], (
            f"make lab открыл не рабочую копию уроков: {names}")
        # Ученик сохраняет тетрадку: она пишется в work/, без пары .py и без следа в lessons/.
        name = LESSONS[0].name
        status, model = _get(f"{base}/api/contents/{name}?content=1", token)
        model["content"]["cells"][0]["source"] = "Моя заметка"
        status, _ = _get(f"{base}/api/contents/{name}", token, "PUT",
                         {"type": "notebook", "format": "json", "content": model["content"]})
        assert status == 200, f"сохранение не удалось: {status}"
        saved = json.loads((work / name).read_text(encoding="utf-8"))["cells"][0]["source"]
        assert "".join(saved) == "Моя заметка"
        assert not list(work.glob("*.py")), "сохранение в work/ создало пару .py"
        assert (ROOT / "lessons" / name).read_bytes() != (work / name).read_bytes()
    finally:
        _stop(process)
    assert process.returncode is not None


def test_saving_in_work_makes_no_py_even_from_course_root(tmp_path):
    """Если Jupyter запущен из корня курса (а не `make lab`), пары .py в work/ всё равно нет;
    а рядом с корневым jupytext.toml — есть: значит, jupytext в сервере работает и проверка не пустая."""
    from _jupyter_server import running_jupyterlab

    (tmp_path / "jupytext.toml").write_bytes((ROOT / "jupytext.toml").read_bytes())
    workspace.prepare(tmp_path / "work")
    name = LESSONS[0].name
    with running_jupyterlab(tmp_path, tmp_path.parent / f"{tmp_path.name}-state", start_timeout=START_TIMEOUT) as lab:
        for path in (f"work/{name}", name):
            model = nbformat.read(tmp_path / "work" / name, as_version=4)     # строки, как шлёт браузер
            status, _ = _get(f"{lab.base_url}/api/contents/{path}", lab.token, "PUT",
                             {"type": "notebook", "format": "json", "content": model})
            assert status in (200, 201), f"{path}: сохранение не удалось ({status})"
    assert (tmp_path / pathlib.Path(name).with_suffix(".py")).exists(), "jupytext в сервере не связал пару в корне"
    assert not list((tmp_path / "work").glob("*.py")), "сохранение в work/ создало пару .py"

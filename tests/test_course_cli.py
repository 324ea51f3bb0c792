"""course.py «как на Windows»: команды без make и без оболочки (README, «Где открывать уроки»).

Настоящей машины с Windows у проверок курса нет — здесь подражание (tests/windows_like/sitecustomize.py):
course.py идёт в отдельном процессе, где os.name == "nt", а модулей и функций только для Linux и macOS нет
(fcntl, pwd, grp, termios, resource, os.fork, os.killpg, os.geteuid, signal.SIGALRM, …). Окружение — подставное:
его Scripts/python.exe ничего не ставит и не запускает, а записывает, о чём его попросили (bin/python в нём нет,
так что запись есть, только если course.py взял путь Windows). Так проверяются команды (список аргументов, без
оболочки), отказы по-русски с кодом 2 и то, что на Windows нельзя (класс на сервере, make results). Последние
тесты — что и весь набор тестов курса собирается там, где POSIX-модулей нет, а тесты, которым они нужны,
пропускаются и говорят почему (tests/posix_only.py). Чего подражание не ловит — в tests/windows_like.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from posix_only import windows_like_env

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import course  # noqa: E402

CYRILLIC = re.compile("[а-яё]", re.I)
# Переменные курса, которые внешний make test оставил бы в окружении (make передаёт их своим командам).
COURSE_VARIABLES = {*course.COMMON, *(v for c in course.COMMANDS.values() for v in c.variables)}
LAB_COMMANDS = ("lab", "setup", "fresh", "answers", "nbgrader")


def windows_env(**extra):
    """Как python course.py из консоли Windows: без MAKELEVEL и переменных курса, os.name == "nt"."""
    drop = {"MAKELEVEL", "MAKEFLAGS", "MFLAGS", *COURSE_VARIABLES}
    return windows_like_env(nt=True, base={**{k: v for k, v in os.environ.items() if k not in drop}, **extra})


def windows_venv(folder, stamps=()):
    """Подставное окружение Windows: Scripts/python.exe дописывает свои аргументы (JSON) в calls.log.
    stamps — какие установки уже сделаны ("lab", "test", "class"), с отметками для этого pyproject.toml."""
    venv, log = folder / "venv", folder / "calls.log"
    (venv / "Scripts").mkdir(parents=True)
    python = venv / "Scripts" / "python.exe"
    python.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"with open({str(log)!r}, 'a', encoding='utf-8') as f:\n"
                      "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n", encoding="utf-8")
    python.chmod(0o755)
    log.touch()
    course.write_stamps(venv, stamps)
    return venv, log


def calls(log):
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def run_windows(venv, *args, **env):
    """python course.py АРГУМЕНТЫ VENV=venv «на Windows» -> CompletedProcess."""
    return subprocess.run([sys.executable, str(ROOT / "course.py"), *args, f"VENV={venv}"], cwd=ROOT,
                          capture_output=True, text=True, env=windows_env(**env), timeout=120)


def ok(done):
    assert done.returncode == 0, f"код {done.returncode}\n{done.stdout}{done.stderr}"
    return done


# ---------------------------------------------------------------- подражание само по себе

def test_the_imitation_looks_like_windows_to_course_py():
    probe = ("import os, signal, sys\n"
             "missing = []\n"
             "for name in ('fcntl', 'pwd', 'grp', 'termios', 'resource'):\n"
             "    try:\n"
             "        __import__(name)\n"
             "    except ImportError:\n"
             "        missing.append(name)\n"
             "missing += [n for n in ('fork', 'killpg', 'geteuid', 'O_NOFOLLOW') if not hasattr(os, n)]\n"
             "missing += [n for n in ('SIGALRM', 'SIGKILL') if not hasattr(signal, n)]\n"
             f"sys.path.insert(0, {str(ROOT)!r})\n"
             "import course\n"
             "print(os.name, course.WINDOWS, course.venv_python('.venv').as_posix(), ' '.join(missing))\n")
    done = ok(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=windows_env()))
    assert done.stdout.split(maxsplit=3) == ["nt", "True", ".venv/Scripts/python.exe",
                                             "fcntl pwd grp termios resource fork killpg geteuid O_NOFOLLOW SIGALRM SIGKILL\n"]


# ---------------------------------------------------------------- команды: Scripts\python.exe, список аргументов

def test_venv_python_is_scripts_python_exe_on_windows_and_bin_python_elsewhere():
    assert course.venv_python(pathlib.Path("C:/курс/.venv"), windows=True) == pathlib.Path("C:/курс/.venv/Scripts/python.exe")
    assert course.venv_python(pathlib.Path("/home/anna/.venv"), windows=False) == pathlib.Path("/home/anna/.venv/bin/python")


def test_windows_args_keep_backslashes_and_drop_quotes():
    text = r'--notebook-dir=C:\Users\Анна\work -k "soft and not slow"'
    assert course.split_args(text, windows=True) == [r"--notebook-dir=C:\Users\Анна\work", "-k", "soft and not slow"]
    assert course.split_args(text, windows=False) == ["--notebook-dir=C:UsersАннаwork", "-k", "soft and not slow"], (
        "на Linux и macOS обратная косая — экранирование, как в sh")


@pytest.mark.parametrize("name", [n for n in course.COMMANDS if n not in ("setup", "setup-test", "clean")])
def test_every_command_is_a_list_of_strings_without_a_shell(name):
    """Каждая команда — список аргументов для subprocess без shell=True: первым — python окружения."""
    python = course.venv_python(pathlib.Path(r"C:\курс\.venv"), windows=True)
    _, values = course.parse([name])
    values = {**values, "WORKERS": "3", "LESSON": "03"} if name in ("test", "fresh") else values
    argv = course.run_command(name, values, python, windows=True)
    assert argv and all(isinstance(word, str) for word in argv), argv
    assert argv[0] == str(python) and argv[0].endswith("python.exe"), argv


def test_setup_test_installs_with_scripts_python_and_test_runs_pytest(tmp_path):
    venv, log = windows_venv(tmp_path)
    done = ok(run_windows(venv, "setup-test"))
    assert calls(log) == [["-m", "pip", "install", "--upgrade", "pip"], ["-m", "pip", "install", "-e", ".[lab]"],
                          ["-m", "pip", "install", "-e", ".[lab,test,class]"]], done.stdout
    assert "python course.py: ставлю курс в" in done.stdout, "на Windows make нет — в сообщениях python course.py"
    assert not (venv / "bin").exists()
    assert all(course.stamp_is_current(venv, kind) for kind in ("lab", "test", "class"))

    done = ok(run_windows(venv, "test", "LESSON=03", "WORKERS=2",
                          r'PYTEST_ARGS=-k "soft and not slow" --basetemp=C:\Temp\курс'))
    assert calls(log)[3:] == [["-m", "pytest", "-n", "2", "--dist", "loadscope", "-m", "not slow", "--lesson", "03",
                               "-k", "soft and not slow", r"--basetemp=C:\Temp\курс"]]
    assert re.search(r"^python course.py test: \d+ с$", done.stdout, re.M), done.stdout


def test_lab_on_windows_copies_lessons_and_starts_jupyter_without_allow_root(tmp_path):
    venv, log = windows_venv(tmp_path, stamps=["lab"])
    work = r"C:\Users\Анна\курс\work"
    done = ok(run_windows(venv, "lab", f"WORK={work}", "LAB_ARGS=--no-browser --ServerApp.port=8899"))
    assert calls(log) == [
        ["tools/workspace.py", "--work", work],
        ["-m", "jupyter", "lab", f"--ServerApp.root_dir={work}", "--ServerApp.ip=127.0.0.1", "--no-browser",
         "--ServerApp.port=8899"],
    ], "на Windows нет root: --allow-root не нужен, даже если тест идёт от root"
    assert "вы root" not in done.stdout


def test_fresh_and_notebooks_on_windows(tmp_path):
    venv, log = windows_venv(tmp_path, stamps=["lab", "test", "class"])
    ok(run_windows(venv, "fresh", "LESSON=03"))
    ok(run_windows(venv, "notebooks", "LESSONS=02 03"))
    assert calls(log) == [["tools/workspace.py", "--work", "work", "--fresh", "03"], ["tools/build_notebooks.py", "02", "03"]]


# ---------------------------------------------------------------- отказы: по-русски, код 2, ничего не запущено

REFUSALS = [
    (["tset"], "неизвестная команда 'tset': ожидалась одна из lab, setup"),
    (["test", "LESON=03"], "test: неизвестная переменная 'LESON'; у этой команды есть: VENV, SKIP_INSTALL, LESSON"),
    (["test", "03"], "test: ожидалось ИМЯ=значение (например LESSON=03), а пришло '03'"),
    (["test", "LESSON=99"], "test: урока LESSON='99' нет в lessons/; ожидался номер из двух цифр"),
    (["lab", "SKIP_INSTALL=да"], "SKIP_INSTALL: ожидалось yes или no, а пришло 'да'"),
    (["fresh"], "укажите урок: python course.py fresh LESSON=03"),
    (["class"], "class: класс на одном сервере — только для Linux"),
    (["class-stop"], "class-stop: класс на одном сервере — только для Linux"),
    (["class-status"], "class-status: класс на одном сервере — только для Linux"),
    (["results", "FROM=anna boris"], "results: сбор вердиктов пока идёт только на Linux и macOS"),
]


@pytest.mark.parametrize("args, said", REFUSALS, ids=[" ".join(a) for a, _ in REFUSALS])
def test_refusals_are_russian_exit_2_and_run_nothing(tmp_path, args, said):
    venv, log = windows_venv(tmp_path, stamps=["lab", "test", "class"])     # всё поставлено: запустилось бы сразу
    done = run_windows(venv, *args)
    assert done.returncode == 2, f"{args}: код {done.returncode}\n{done.stdout}{done.stderr}"
    assert done.stderr.startswith(f"python course.py: {said}"), done.stderr
    assert "Traceback" not in done.stderr and CYRILLIC.search(done.stderr)
    assert calls(log) == [], f"{args}: после отказа что-то запустилось: {calls(log)}"


def test_class_commands_say_where_to_go_instead():
    """Отказ классу не тупик: сказано, почему (учётные записи, root) и чем провести класс на Windows."""
    for name in ("class", "class-stop", "class-status"):
        assert "учётные записи" in course.COMMANDS[name].not_on_windows
        assert "Binder или ноутбуки учеников" in course.COMMANDS[name].not_on_windows
    assert "make results FROM=" in course.COMMANDS["results"].not_on_windows
    assert [n for n, c in course.COMMANDS.items() if c.not_on_windows] == ["results", "class", "class-stop", "class-status"]


# ---------------------------------------------------------------- окружение: не удалить чужую папку

def _venv_that_does_not_appear(monkeypatch, code, leave=None):
    """subprocess.run для `python -m venv`: выходит с code, python окружения не появляется (leave — что оставить)."""
    def fake_run(command, **_):
        if leave:
            leave.mkdir(parents=True, exist_ok=True)
            (leave / "pyvenv.cfg").write_text("home = нигде\n", encoding="utf-8")
        return subprocess.CompletedProcess(command, code)
    monkeypatch.setattr(course.subprocess, "run", fake_run)


@pytest.mark.parametrize("code", [0, 1])
def test_create_venv_never_deletes_a_folder_that_was_there(tmp_path, monkeypatch, code):
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)                     # например, окружение с Linux, открытое на Windows
    (venv / "мои заметки.txt").write_text("не удалять\n", encoding="utf-8")
    _venv_that_does_not_appear(monkeypatch, code)
    with pytest.raises(course.CourseError, match="уже есть, но окружения Python в ней нет") as caught:
        course.create_venv(venv)
    assert "Папку не трогаю" in str(caught.value) and "VENV=" in str(caught.value)
    assert (venv / "мои заметки.txt").read_text(encoding="utf-8") == "не удалять\n"


def test_create_venv_removes_its_own_half_made_venv(tmp_path, monkeypatch):
    venv = tmp_path / ".venv"
    _venv_that_does_not_appear(monkeypatch, 1, leave=venv)
    with pytest.raises(course.CourseError, match=r"не удалось создать окружение .* \(код 1\)"):
        course.create_venv(venv)
    assert not venv.exists(), "полуготовое окружение, которое начал сам course.py, должно уйти"


# ---------------------------------------------------------------- ученик на Windows: проверка упражнения в work/

def test_exercise_check_in_work_records_the_verdict_without_o_nofollow(tmp_path):
    """На Windows нет os.O_NOFOLLOW: проверка в work/ всё равно пишет вердикт для учителя и не падает."""
    script = ("import json, os, sys\n"
              f"sys.path.insert(0, {str(ROOT)!r})\n"
              "from tools import workspace\n"
              "from course_lib.exercises import check_softmax\n"
              f"work = {str(tmp_path / 'work')!r}\n"
              "workspace.prepare(__import__('pathlib').Path(work))\n"
              "os.chdir(work)\n"
              "assert not hasattr(os, 'O_NOFOLLOW')\n"
              "check_softmax(lambda scores: scores)\n"
              "print(json.dumps([json.loads(l)['status'] for l in open('.verdicts.jsonl', encoding='utf-8')]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=windows_like_env(), timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == '["wrong"]', done.stdout


# ---------------------------------------------------------------- сами тесты курса там, где POSIX-модулей нет

def _pytest_windows_like(*args):
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=windows_like_env(), timeout=600)


def test_the_test_suite_collects_without_posix_modules():
    done = _pytest_windows_like("--collect-only", "tests")
    tail = done.stdout[-4000:]
    assert done.returncode == 0 and "error" not in tail.splitlines()[-1], f"код {done.returncode}\n{tail}{done.stderr[-2000:]}"
    assert re.search(r"^\d+ tests collected", tail.splitlines()[-1]), tail


# Тест (файл или узел) -> что напечатано в его строке SKIPPED (-rs): чего нет «на Windows» и где пропуск.
GUARDED = {
    "tests/test_class_hub.py": ("test_class_hub.py: нет pwd, os.geteuid",),
    "tests/test_class_accounts.py": ("test_class_accounts.py: нет pwd, os.geteuid",),
    "tests/test_class_results.py": ("test_class_results.py: нет pwd", "os.O_NOFOLLOW"),
    "tests/test_verdict_record.py::test_kernels_writing_at_once_never_mix_lines": ("test_verdict_record.py:", "нет os.fork"),
    "tests/test_make_lab.py::test_saving_in_work_makes_no_py_even_from_course_root": ("_jupyter_server.py:", "нет os.killpg"),
}


def test_tests_that_need_posix_skip_with_the_reason_and_the_rest_run():
    refusals = "tests/test_gpt_refusals.py::test_bad_input_of_lesson_10_gets_a_russian_refusal_in_time"
    done = _pytest_windows_like("-rs", *GUARDED, refusals)
    out = done.stdout
    assert done.returncode == 0, f"код {done.returncode}\n{out[-4000:]}{done.stderr[-2000:]}"
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    for test, said in GUARDED.items():
        assert any(all(part in line for part in said) and "только на Linux и macOS" in line for line in skipped), (
            f"{test}: нет строки «SKIPPED … {' … '.join(said)} …»:\n" + "\n".join(skipped))
    assert len(skipped) == len(GUARDED), "\n".join(skipped)
    passed = re.search(r"(\d+) passed", out.splitlines()[-1])
    assert passed and int(passed.group(1)) > 50, "отказы урока 10 (без SIGALRM — будильник-таймер) идут: " + out[-2000:]

"""Вердикт записывается для учителя: проверка из work/ ученика дописывает строку в work/.verdicts.jsonl.

Записывается ответ ученика — верный, неверный, нетронутая заготовка (not_started, не попытка), значение
вместо функции; решения курса (`*_solution`) и тетрадки не из work/ — никогда. Не вышло записать — урок
идёт дальше, одна заметка на ядро. Последний тест — настоящее ядро: ячейки упражнений урока 02.
"""

import contextlib
import datetime
import io
import json
import os
import pathlib
import shutil
import stat
import tempfile
import traceback

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from course_lib.exercises import _record, check_attend_one, check_softmax
from posix_only import needs
from tools import workspace
from tools.classroom import collect, results

ROOT = pathlib.Path(__file__).resolve().parent.parent


def right_softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def wrong_softmax(scores):
    return np.exp(scores)                       # забыли нормировать


def stub(scores):
    raise NotImplementedError


def softmax_solution(scores):
    return right_softmax(scores)


def records(work):
    path = work / _record.RECORD
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


@pytest.fixture
def work(tmp_path, monkeypatch):
    folder = tmp_path / "anna" / "work"
    workspace.prepare(folder)
    monkeypatch.chdir(folder)
    monkeypatch.setattr(_record, "_noted", False)
    return folder


def test_learner_answers_are_recorded_solutions_are_not(work, capsys):
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    for candidate in (right_softmax, wrong_softmax, stub, softmax_solution, 3):
        check_softmax(candidate)
    printed = capsys.readouterr().out.splitlines()
    got = records(work)
    assert [(r["status"], r["answer"]) for r in got] == [
        ("solved", "right_softmax"), ("wrong", "wrong_softmax"), ("not_started", "stub"), ("wrong", "")]
    assert [r["message"] for r in got] == [printed[0], printed[1], printed[2], printed[4]]
    assert {(r["lesson"], r["exercise"]) for r in got} == {("02", "check_softmax")}
    for r in got:
        assert set(r) == {"lesson", "exercise", "status", "message", "time", "answer"}
        when = datetime.datetime.fromisoformat(r["time"])
        assert when.utcoffset() == datetime.timedelta(0) and before <= when <= before + datetime.timedelta(minutes=5)
    assert stat.S_IMODE((work / _record.RECORD).stat().st_mode) == 0o600


def test_outside_work_nothing_is_recorded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    check_softmax(right_softmax)
    assert not list(tmp_path.rglob(_record.RECORD)) and _record.work_folder() is None


def test_subfolder_of_work_records_at_work(work, monkeypatch):
    (work / "backup").mkdir()
    monkeypatch.chdir(work / "backup")
    check_attend_one(lambda q, K, V: V.mean(axis=0))
    assert [(r["exercise"], r["status"], r["answer"]) for r in records(work)] == [
        ("check_attend_one", "wrong", "<lambda>")]
    assert not (work / "backup" / _record.RECORD).exists()


@needs("os.fork")
def test_kernels_writing_at_once_never_mix_lines(work):
    """Четыре «ядра» ученика пишут одновременно: каждая строка записи — целый JSON, ни одна не пропала."""
    children = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:                                        # pragma: no cover — дочерний процесс
            code = 1
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    for _ in range(100):
                        check_softmax(wrong_softmax)
                code = 0
            finally:
                os._exit(code)
        children.append(pid)
    assert [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children] == [0] * 4
    got = records(work)
    assert len(got) == 400 and {(r["status"], r["answer"]) for r in got} == {("wrong", "wrong_softmax")}


def as_nobody(action):
    """action() в дочернем процессе под nobody -> его вывод (root пишет куда угодно: «только для чтения» не для него)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                        # pragma: no cover — дочерний процесс
        code, out = 1, io.StringIO()
        try:
            os.setgid(65534)
            os.setuid(65534)
            with contextlib.redirect_stdout(out):
                action()
            code = 0
        except BaseException:                           # noqa: BLE001 — родителю нужен текст ошибки
            out.write(traceback.format_exc())
        finally:
            os.write(write, out.getvalue().encode())
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        text = pipe.read().decode()
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0, text
    return text


def spoil(how, work):
    """Сделать запись невозможной: папка только для чтения, запись — ссылка, запись — папка."""
    if how == "read-only":
        work.chmod(0o555)
    elif how == "symlink":
        (work.parent / "elsewhere.txt").write_text("чужой файл\n", encoding="utf-8")
        (work / _record.RECORD).symlink_to(work.parent / "elsewhere.txt")
    else:
        (work / _record.RECORD).mkdir()


# Права папки, ссылка без O_NOFOLLOW и запись под nobody (fork, setuid) — Linux и macOS; на Windows открыть папку
# вместо файла — «нет прав» (EACCES), а не EISDIR.
@needs("os.fork", "os.geteuid", "os.setuid", "os.O_NOFOLLOW")
@pytest.mark.parametrize("how, reason", [("read-only", "нет прав на запись"), ("symlink", "это ссылка, а не файл"),
                                         ("directory", "это папка, а не файл")])
def test_lesson_goes_on_when_the_record_cannot_be_written(how, reason, monkeypatch, capsys):
    base = pathlib.Path(tempfile.mkdtemp(prefix="verdicts-"))
    try:
        base.chmod(0o755)                               # nobody должен дойти до work/, но не писать в неё
        work = base / "anna" / "work"
        workspace.prepare(work)
        monkeypatch.chdir(work)
        monkeypatch.setattr(_record, "_noted", False)
        spoil(how, work)

        def two_checks():
            assert check_softmax(right_softmax).passed and not check_softmax(wrong_softmax).passed

        if how == "read-only" and os.geteuid() == 0:
            out = as_nobody(two_checks)
        else:
            two_checks()
            out = capsys.readouterr().out
        notes = [line for line in out.splitlines() if line.startswith("ℹ️ вердикт не записан")]
        assert len(notes) == 1 and reason in notes[0], out
        assert sum(line.startswith(("✅", "❌")) for line in out.splitlines()) == 2, out
        assert not (work / _record.RECORD).is_file() or how == "symlink"
        assert how != "symlink" or (work.parent / "elsewhere.txt").read_text(encoding="utf-8") == "чужой файл\n"
    finally:
        (base / "anna" / "work").chmod(0o755)
        shutil.rmtree(base)


@needs("os.O_NOFOLLOW", "os.O_DIRECTORY")            # make results (collect.py) — Linux и macOS
def test_kernel_records_exercise_cells_of_lesson_02_not_solution_cells(tmp_path, monkeypatch):
    """Настоящее ядро в work/: ячейки упражнений урока 02 (свою softmax решили, attend_one — нет) и решения курса."""
    work = tmp_path / "anna" / "work"
    workspace.prepare(work)
    notebook = nbformat.read(work / "02_soft_search.ipynb", as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    stub_line = "    raise NotImplementedError  # ваш код здесь"
    answers = {"def my_softmax(": "    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
                                  "    return e / e.sum(axis=-1, keepdims=True)",
               "def attend_one(": "    return nt.softmax(K @ q) @ V"}          # забыли / √d_k
    for cell in code:
        for head, body in answers.items():
            if head in cell.source:
                assert stub_line in cell.source
                cell.source = cell.source.replace(stub_line, body)
    exercise_cells = [cell for cell in code if "_ = check_" in cell.source]
    assert len(exercise_cells) == 4                     # два упражнения и два решения
    # импорты урока — первая ячейка кода после ячейки Colab и Kaggle (tools/hosted/cell.py: вне Colab она молчит)
    imports = next(cell for cell in code if "import course_lib" in cell.source)
    notebook.cells = [imports, *exercise_cells]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    NotebookClient(notebook, kernel_name="python3", timeout=120,
                   resources={"metadata": {"path": str(work)}}).execute()
    printed = ["".join(o.get("text", "") for o in cell.outputs).strip() for cell in exercise_cells]
    assert [text[:1] for text in printed] == ["✅", "✅", "❌", "✅"]       # решения курса тоже печатают ✅
    got = records(work)
    assert [(r["lesson"], r["exercise"], r["status"], r["answer"]) for r in got] == [
        ("02", "check_softmax", "solved", "my_softmax"), ("02", "check_attend_one", "wrong", "attend_one")]
    assert [r["message"] for r in got] == [printed[0], printed[2]]
    table = results.rows(collect.read_work("anna", work))
    assert [(row["exercise"], row["status"], row["attempts"]) for row in table if row["lesson"] == "02"] == [
        ("check_softmax", "solved", 1), ("check_attend_one", "wrong", 1)]

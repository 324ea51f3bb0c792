"""benchmarks/lessons.py мерит само ядро: его процессор (все потоки) и его пик памяти, а не процесс замера."""

import importlib.util
import pathlib

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("lesson_costs", ROOT / "benchmarks" / "lessons.py")
lessons = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lessons)

pytestmark = pytest.mark.skipif(not pathlib.Path("/proc/self/stat").exists(), reason="замер читает /proc (Linux)")

BUSY = """\
import threading, time
def spin(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
workers = [threading.Thread(target=spin, args=(0.6,)) for _ in range(2)]
[w.start() for w in workers]; [w.join() for w in workers]
"""
ALLOCATE = "import numpy as np\nblock = np.ones(300 * 2**20 // 8)\nblock.sum()"


def test_cpu_of_every_kernel_thread_and_peak_memory_are_counted(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# тест"),
                                               nbformat.v4.new_code_cell(BUSY), nbformat.v4.new_code_cell(ALLOCATE)])
    path = tmp_path / "work" / "99_busy.ipynb"
    path.parent.mkdir()
    nbformat.write(notebook, path)
    seen = []
    usage = lessons.run_lesson(path, lessons.kernel_env(class_limits=False), lambda *step: seen.append(step[:2]))
    assert usage["cells"] == 2 and seen == [(1, 2), (2, 2)], (usage, seen)
    # два потока по 0.6 с процессора: ядро потратило ≥ 1.2 с, а процесс замера всё это время только ждал
    assert usage["cpu_s"] >= 1.15, f"процессор ядра {usage['cpu_s']} с, а его потоки потратили 1.2 с"
    assert usage["peak_mb"] >= 300, f"пик памяти ядра {usage['peak_mb']} МБ, а массив в нём — 300 МБ"


def test_a_failing_cell_is_named_in_russian(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                               nbformat.v4.new_code_cell("raise ValueError('сломано')")])
    path = tmp_path / "98_broken.ipynb"
    nbformat.write(notebook, path)
    with pytest.raises(RuntimeError, match=r"98_broken.ipynb: ячейка 1 упала — .*сломано"):
        lessons.run_lesson(path, lessons.kernel_env(class_limits=False))


def test_class_limits_reach_the_kernel_and_run_caches_do_not(monkeypatch):
    monkeypatch.setenv("COURSE_LIB_LOAD_RUNS", "/somewhere")
    env = lessons.kernel_env(class_limits=True)
    assert "COURSE_LIB_LOAD_RUNS" not in env
    assert env["OPENBLAS_NUM_THREADS"] == str(lessons.limits.THREADS)


def test_an_unknown_lesson_is_refused_in_russian(capsys):
    assert lessons.main(["--lessons", "42"]) == 2
    assert "урок «42» не найден" in capsys.readouterr().err

"""Общие прогоны проверки (tools/shared_runs.py): прогон, записанный одним процессом, другой читает тем же —
без pickle, без чужих классов; ключ меняется вместе с кодом и путём NumPy; испорченный файл не прогон."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import course_lib as nt
from course_lib.props.gpt_training import train_gpt
from tools import shared_runs
from tools.lesson_figures import write_shared_runs_startup

TEXT = "кот сел на тёплый коврик. " * 40


@pytest.fixture(scope="module")
def run():
    return train_gpt(TEXT, 6, seed=3, d_model=16, num_heads=2, num_layers=1, T=16, batch=4,
                     snapshot_steps=(0, 6), sample_len=20, progress=lambda *a: None)


def test_a_trained_run_comes_back_equal_and_works(run, tmp_path):
    path = tmp_path / "run.npz"
    shared_runs.save(path, run)
    back = shared_runs.load(path)
    assert type(back.model) is type(run.model) and back.seconds == run.seconds
    for a, b in zip(run.model.parameters(), back.model.parameters(), strict=True):
        assert a.data.dtype == b.data.dtype and np.array_equal(a.data, b.data)
    assert [s.sample for s in back.snapshots] == [s.sample for s in run.snapshots]
    assert np.array_equal(back.losses, run.losses) and back.tokenizer.decode(back.tokenizer.encode("кот")) == "кот"
    ids = run.tokenizer.encode("кот")[None]
    with nt.fast():
        same = [m.generate(ids, 15, rng=np.random.default_rng(0)) for m in (run.model, back.model)]
    assert np.array_equal(*same)


def test_one_object_twice_stays_one_object():
    weights = np.arange(6.0).reshape(2, 3)
    tree, arrays = shared_runs.encode({"a": weights, "b": (weights, [weights])})
    back = shared_runs.decode(json.loads(json.dumps(tree)), arrays)
    assert back["a"] is back["b"][0] is back["b"][1][0]


@pytest.mark.parametrize("node, words", [
    ({"$object": "os:system", "$id": 0, "state": {"$dict": []}}, "не из course_lib"),
    ({"$object": "course_lib.props.gpt_training:train_gpt", "$id": 0, "state": {"$dict": []}}, "не класс"),
    ({"$eval": "1"}, "непонятный узел"),
], ids=["чужой модуль", "функция вместо класса", "чужой узел"])
def test_a_planted_file_builds_nothing_foreign(node, words):
    with pytest.raises(ValueError, match=words):
        shared_runs.decode(node, [])


@pytest.mark.parametrize("value", [lambda: 1, np.array([object()]), open], ids=["функция", "массив объектов", "встроенная"])
def test_what_needs_pickle_is_not_shared(value):
    with pytest.raises(shared_runs.Unshareable):
        shared_runs.encode({"x": value})


def test_second_process_reads_what_the_first_trained_and_a_broken_file_is_retrained(tmp_path, capsys):
    calls = []

    def train():
        calls.append(1)
        return {"loss": np.array([2.5, 2.0]), "steps": 2}

    key = (("text", TEXT), ("steps", 2))
    first = shared_runs.SharedRuns(tmp_path).fetch_or_train("train_gpt", key, train)
    second = shared_runs.SharedRuns(tmp_path)
    again = second.fetch_or_train("train_gpt", key, train)
    assert len(calls) == 1 and second.loaded == ["train_gpt"] and np.array_equal(again["loss"], first["loss"])
    other = shared_runs.SharedRuns(tmp_path).fetch_or_train("train_gpt", (("text", TEXT), ("steps", 3)), train)
    assert len(calls) == 2 and other["steps"] == 2
    for path in tmp_path.glob("train_gpt-*.npz"):
        path.write_bytes(b"not a run")
    shared_runs.SharedRuns(tmp_path).fetch_or_train("train_gpt", key, train)
    assert len(calls) == 3 and "не читается" in capsys.readouterr().err
    shared_runs.SharedRuns(tmp_path).fetch_or_train("train_gpt", (("progress", lambda: 0),), train)
    shared_runs.SharedRuns(tmp_path).fetch_or_train("train_gpt", (("progress", lambda: 0),), train)
    assert len(calls) == 5, "ключ с функцией в другом процессе другой — такой прогон не делим"


def test_key_follows_the_numpy_code_path(monkeypatch):
    key = (("steps", 800),)
    monkeypatch.delenv("NPY_DISABLE_CPU_FEATURES", raising=False)
    plain = shared_runs.key_digest("train_gpt", key)
    monkeypatch.setenv("NPY_DISABLE_CPU_FEATURES", "AVX512F")
    assert shared_runs.key_digest("train_gpt", key) != plain
    assert shared_runs.key_digest("train_induction", key) != shared_runs.key_digest("train_gpt", key)


def test_kernels_startup_line_shares_between_processes(tmp_path):
    """Как ядро проверки: автозапуск ставит память прогонов на общую папку; второй процесс не учит."""
    startup = tmp_path / "startup"
    startup.mkdir()
    write_shared_runs_startup(startup)
    line = (startup / "shared_runs.py").read_text(encoding="utf-8")
    program = (line + "from course_lib.props.gpt_training import train_gpt\n"
               "from course_lib.props.run_memory import RunMemory\n"
               f"train_gpt({TEXT!r}, 4, seed=1, d_model=16, num_heads=2, num_layers=1, T=16, batch=4, "
               "progress=lambda *a: None)\n"
               "shared = RunMemory.recall.shared_runs\nprint(shared.trained, shared.loaded)\n")
    folder = tmp_path / "runs"
    folder.mkdir()
    env = dict(os.environ, **{shared_runs.VARIABLE: str(folder)})
    outputs = [subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True,
                              cwd=shared_runs.ROOT).stdout.split("\n")[-2] for _ in range(2)]
    assert outputs == ["['train_gpt'] []", "[] ['train_gpt']"], outputs


def test_start_empties_the_folder_unless_kept_and_a_set_folder_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.delenv(shared_runs.VARIABLE, raising=False)
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "old.npz").write_bytes(b"x")
    assert shared_runs.start("keep", folder) == folder and (folder / "old.npz").exists()
    monkeypatch.delenv(shared_runs.VARIABLE)
    assert shared_runs.start("fresh", folder) == folder and not any(folder.iterdir())
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    (folder / "new.npz").write_bytes(b"x")
    assert shared_runs.start("fresh", tmp_path / "elsewhere") == folder and (folder / "new.npz").exists()
    monkeypatch.delenv(shared_runs.VARIABLE)
    assert shared_runs.start("off", folder) is None


WAITER = """
import sys, time
import numpy as np
from tools import shared_runs

def train():
    time.sleep(float(sys.argv[2]))                       # учим долго: второй процесс успевает прийти и ждать
    return {"loss": np.array([1.0])}

shared = shared_runs.SharedRuns(sys.argv[1])
shared.fetch_or_train("train_gpt", (("steps", 7),), train)
print(shared.trained, shared.loaded)
"""


def test_two_processes_at_once_train_once_the_second_waits_on_the_lock(tmp_path):
    """Два процесса просят один прогон одновременно: блокировка (filelock) держит второго, пока учит первый,
    и второй читает готовое. Без блокировки оба увидели бы пустую папку и учили бы оба."""
    command = [sys.executable, "-c", WAITER, str(tmp_path)]
    first = subprocess.Popen([*command, "3"], cwd=shared_runs.ROOT, stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".*.lock")):                # первый взял блокировку и учит
        assert first.poll() is None and time.monotonic() < deadline, "первый процесс не дошёл до блокировки"
        time.sleep(0.05)
    second = subprocess.run([*command, "0"], cwd=shared_runs.ROOT, capture_output=True, text=True, timeout=120)
    assert first.wait(timeout=120) == 0 and second.returncode == 0, second.stderr[-2000:]
    outputs = [first.stdout.read().strip(), second.stdout.strip()]
    assert outputs == ["['train_gpt'] []", "[] ['train_gpt']"], f"учил не один процесс: {outputs}"

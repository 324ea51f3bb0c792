"""tools/lesson_passes.py: сам инструмент, которым `make test` гоняет уроки ещё два раза.

Проверяем, что он находит то, ради чего сделан: ячейку со скрытым состоянием (второй запуск
печатает другое), и не находит лишнего: ячейку с меткой nbval-ignore-output и то, что
lessons/sanitize.cfg велит не сравнивать. И что проход переносимости правда отключает
SIMD-расширения NumPy, а OpenBLAS не трогает сверх числа потоков.
"""

import os
import pathlib
import sys

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools import lesson_passes  # noqa: E402


def _notebook(path, cells):
    """Тетрадка «как исполненная»: (код, сохранённый stdout, метки) для каждой ячейки."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for count, (source, stdout, tags) in enumerate(cells, start=1):
        cell = nbformat.v4.new_code_cell(source, execution_count=count)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=stdout)] if stdout else []
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("текст между ячейками"))
    nbformat.write(nb, path)
    return path


CELLS = [
    ("counter = 0\nprint('старт')", "старт\n", None),
    ("counter += 1\nprint('счётчик', counter)", "счётчик 1\n", None),                   # скрытое состояние
    ("print('счётчик', counter)", "счётчик 1\n", ["nbval-ignore-output"]),              # не сравнивается
    ("print('где-то в', hex(id(counter)) + '0000')", "где-то в 0x1234567\n", None),     # sanitize: адрес
]


def test_doubled_notebook_repeats_every_code_cell_with_its_outputs_and_tags(tmp_path):
    source = _notebook(tmp_path / "lesson.ipynb", CELLS)
    (tmp_path / "out").mkdir()
    doubled = nbformat.read(lesson_passes.doubled_notebook(source, tmp_path / "out"), as_version=4)
    original = [c for c in nbformat.read(source, as_version=4).cells if c.cell_type == "code"]
    assert [c.source for c in doubled.cells] == [c.source for c in original for _ in range(2)]
    assert [c.outputs for c in doubled.cells] == [c.outputs for c in original for _ in range(2)]
    assert doubled.cells[5].metadata["tags"] == ["nbval-ignore-output"]
    ids = [c.get("id") for c in doubled.cells]
    assert len(set(ids)) == len(ids), "у ячеек копии должны быть разные id"
    nbformat.validate(doubled)


def test_doubled_notebook_has_the_pages_beside_it_as_in_work(tmp_path):
    source = _notebook(tmp_path / "lesson.ipynb", CELLS)
    (tmp_path / "glossary.md").write_text("| термин |", encoding="utf-8")
    (tmp_path / "out").mkdir()
    lesson_passes.doubled_notebook(source, tmp_path / "out")
    assert (tmp_path / "out" / "glossary.md").read_text(encoding="utf-8") == "| термин |"


def test_rerun_pass_flags_hidden_state_and_only_it(tmp_path):
    notebook = _notebook(tmp_path / "lesson.ipynb", CELLS)
    result = lesson_passes.run_job("rerun", notebook, dict(os.environ), work=tmp_path / "rerun")
    assert result["problem"] is None, result["problem"]
    assert result["cells"] == 2 * len(CELLS)
    assert [(c["cell"], c["run"]) for c in result["failed"]] == [(1, 2)], result["failed"]
    assert result["failed"][0]["diff"] == ["- [stdout] счётчик 1", "+ [stdout] счётчик 2"]
    report = "\n".join(lesson_passes.describe(result))
    assert "lesson  ячейка 1, второй запуск подряд: counter += 1" in report


def test_plain_pass_of_the_same_notebook_is_clean(tmp_path):
    notebook = _notebook(tmp_path / "lesson.ipynb", CELLS)
    result = lesson_passes.run_job("plain", notebook, dict(os.environ), work=tmp_path / "plain")
    assert result["problem"] is None and result["failed"] == [] and result["cells"] == len(CELLS)


def test_execution_error_is_reported_with_its_exception(tmp_path):
    notebook = _notebook(tmp_path / "lesson.ipynb", [("print('ok')", "ok\n", None), ("1 / 0", None, None),
                                                    ("print(undefined_name)", "x\n", None)])
    result = lesson_passes.run_job("plain", notebook, dict(os.environ), work=tmp_path / "plain")
    assert [c["cell"] for c in result["failed"]] == [1, 2]
    assert result["failed"][0]["diff"] == ["! исключение ZeroDivisionError: division by zero"]
    report = lesson_passes.describe(result)
    assert report[-1].endswith("и ещё 1 ячеек упали с NameError вслед за упавшей выше"), report


def test_portability_env_disables_what_numpy_dispatches_and_nothing_of_openblas():
    seen = lesson_passes.cpu_features()
    env, disabled, note = lesson_passes.portability_env()
    expected = [f for f in seen["dispatch"] if f in seen["on"] and f not in seen["baseline"]]
    assert disabled == expected
    assert env["OPENBLAS_NUM_THREADS"] == "1"
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        assert env.get(name) == os.environ.get(name), f"{name} трогать нельзя"
    if not disabled:
        assert "отключать нечего" in note
        if lesson_passes.in_ci():
            pytest.fail(f"в CI проход переносимости обязан что-то отключить: {note}")
        return
    assert env["NPY_DISABLE_CPU_FEATURES"].split() == disabled
    assert not set(disabled) & set(lesson_passes.cpu_features(env)["on"]), "NumPy не отключил расширения"
    assert all(name in note for name in disabled), note

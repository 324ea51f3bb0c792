"""Проходы уроков (tools/lesson_passes.py, tools/lesson_cells.py) ловят то, ради чего сделаны, и не ловят лишнего.

Маленькая тетрадка «как исполненная» идёт обычным прогоном и повторным запуском в настоящем pytest (подпроцесс):
изменившийся вывод и скрытое состояние падают, и отчёт называет урок, проход, ячейку и разницу; ячейка с меткой
nbval-ignore-output и адрес, который lessons/sanitize.cfg велит не сравнивать, проходят; assert урока падает со
своим сообщением. Картинка, заменённая в тетрадке, падает, а та же картинка — нет. И проход переносимости правда
отключает SIMD-расширения NumPy, а OpenBLAS не трогает сверх числа потоков. Переносимость уроков 09 и 10 —
под меткой slow (make test её не гоняет, CI гоняет), остальные проходы — нет.
"""

import os
import pathlib
import subprocess
import sys

import nbformat
import pytest

from tools import lesson_passes
from tools.lesson_figures import kernel_ipython_dir

ROOT = pathlib.Path(__file__).resolve().parent.parent


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
    ("counter += 1\nprint('счётчик', counter)", "счётчик 1\n", None),                   # 1: скрытое состояние
    ("print('счётчик', counter)", "счётчик 1\n", ["nbval-ignore-output"]),              # 2: не сравнивается
    ("print('где-то в', hex(id(counter)) + '0000')", "где-то в 0x1234567\n", None),     # 3: sanitize: адрес
    ("print(2 + 2)", "5\n", None),                                                       # 4: вывод изменился
    ("x = 4\nassert x == 5, f'x = {x}, а нужно 5'", None, None),                         # 5: assert урока
    ("print(undefined_name)", "x\n", None),                                              # 6: вслед за упавшей
    ("accuracy = 0.91\nassert accuracy >= 0.95", None, None),                            # 7: голый assert
]


def _run(pytester, monkeypatch, *args):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("IPYTHONDIR", kernel_ipython_dir())          # как у make test: автозапуск ядер проходов
    return pytester.runpytest_subprocess("-p", "tools.lesson_passes", "-p", "no:cacheprovider", "--nbval-current-env",
                                         "--nbval-sanitize-with", str(ROOT / "lessons" / "sanitize.cfg"), "-rf", *args)


def _failed(result):
    """Упавшие тесты из строк «FAILED путь::имя» (в CI pytest дописывает « - сообщение», локально — нет)."""
    return sorted(line.removeprefix("FAILED ").split(" - ", 1)[0].split("/")[-1]
                  for line in result.outlines if line.startswith("FAILED "))


def test_passes_catch_a_changed_output_and_hidden_state_and_only_them(pytester, monkeypatch):
    _notebook(pytester.path / "01_tiny.ipynb", CELLS)
    result = _run(pytester, monkeypatch, "--lesson-passes", "plain,rerun")
    report = result.stdout.str()
    failed = [name.split("::", 1)[1] for name in _failed(result)]
    assert failed == sorted(["урок 01 · обычный прогон::ячейка 4", "урок 01 · обычный прогон::ячейка 5",
                             "урок 01 · обычный прогон::ячейка 6", "урок 01 · обычный прогон::ячейка 7",
                             "урок 01 · повторный запуск::ячейка 1 · второй запуск",
                             *(f"урок 01 · повторный запуск::ячейка {k} · {run} запуск"
                               for k in (4, 5, 6, 7) for run in ("первый", "второй"))]), report
    result.assert_outcomes(failed=13, passed=11)
    # скрытое состояние: второй запуск печатает другое, и отчёт говорит, что было и что стало
    assert ("урок 01 · повторный запуск · ячейка 1 · второй запуск: counter += 1\n"
            "  - [stdout] счётчик 1\n  + [stdout] счётчик 2") in report, report
    # изменившийся вывод
    assert "урок 01 · обычный прогон · ячейка 4: print(2 + 2)\n  - [stdout] 5\n  + [stdout] 4" in report, report
    # assert урока — со своим сообщением и строкой, а не «AssertionError: » без значения
    assert "! исключение AssertionError: x = 4, а нужно 5" in report and "----> 2 assert x == 5" in report, report
    assert "NameError вслед за ячейкой 5, упавшей выше" in report, report
    # голый assert — со значениями, как в pytest (tools/kernel_asserts.py в автозапуске ядра)
    assert "! исключение AssertionError: assert 0.91 >= 0.95" in report, report


PLOT = "import matplotlib.pyplot as plt\nplt.figure(figsize=(4, 3), layout='constrained'); plt.plot([0, 1, 2], {ys}); plt.title('потери')\nplt.show()"


def test_a_figure_replaced_in_the_notebook_fails_and_the_same_figure_passes(pytester, monkeypatch):
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(PLOT.format(ys=[0, 1, 0])), nbformat.v4.new_code_cell(PLOT.format(ys=[2, 0, 2]))]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()                 # «исполнен сверху вниз»
    pictures = [o for cell in nb.cells for o in cell.outputs if "image/png" in o.get("data", {})]
    assert len(pictures) == 2 and pictures[0]["data"]["image/png"] != pictures[1]["data"]["image/png"]
    nbformat.write(nb, pytester.path / "02_same.ipynb")
    pictures[0]["data"]["image/png"] = pictures[1]["data"]["image/png"]                # картинку заменили руками
    nbformat.write(nb, pytester.path / "03_replaced.ipynb")
    result = _run(pytester, monkeypatch, "--lesson-passes", "plain")
    report = result.stdout.str()
    result.assert_outcomes(failed=1, passed=3)
    assert _failed(result) == ["03_replaced.ipynb::урок 03 · обычный прогон::ячейка 0"], report
    assert "картинка 1:" in report and "в тетрадке не та картинка, что рисует ячейка" in report, report


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


def test_each_lesson_pass_and_each_test_file_is_one_xdist_group():
    group = lesson_passes._group
    assert group("lessons/07_x.ipynb::урок 07 · повторный запуск::ячейка 3 · второй запуск") == \
        "lessons/07_x.ipynb::урок 07 · повторный запуск"
    assert group("tests/test_class_hub.py::TestHub::test_login[a]") == "tests/test_class_hub.py"
    assert group("tests/test_site.py::test_page[index.html]") == "tests/test_site.py"


def _collected_passes(marks, *lessons):
    """{«урок NN · проход»} — что соберёт pytest в корне курса с -m marks (как make test MARKS=...)."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marks, "-p", "no:randomly",
                          *(str(ROOT / "lessons" / name) for name in lessons)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return {line.split("::")[1] for line in out.stdout.splitlines() if "::урок " in line}


def test_portability_of_lessons_09_and_10_is_slow_and_the_other_passes_are_not():
    lessons = ("08_price_of_attention.ipynb", "09_transformer_block.ipynb", "10_gpt.ipynb")
    by_default = _collected_passes("not slow", *lessons)
    assert by_default == {"урок 08 · повторный запуск", "урок 08 · переносимость",
                          "урок 09 · повторный запуск", "урок 10 · повторный запуск"}, by_default
    assert _collected_passes("slow", *lessons) == {"урок 09 · переносимость", "урок 10 · переносимость"}


def test_a_refusal_that_is_not_a_difference_says_what_happened_not_a_diff(pytester, monkeypatch):
    """nbval отказывает не только расхождением выводов: здесь у неисполненной ячейки в тетрадке есть вывод.
    Отчёт говорит это по-русски, с сообщением nbval, а не показывает разницу выводов, которой не было."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cell = nbformat.v4.new_code_cell("print('привет')", execution_count=None)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="привет\n")]
    nb.cells = [nbformat.v4.new_code_cell("x = 1", execution_count=1), cell]
    nbformat.write(nb, pytester.path / "04_edited.ipynb")
    result = _run(pytester, monkeypatch, "--lesson-passes", "plain")
    report = result.stdout.str()
    result.assert_outcomes(failed=1, passed=1)
    assert ("урок 04 · обычный прогон · ячейка 1: print('привет')\n  ! в тетрадке у ячейки есть вывод, а номера "
            "исполнения нет") in report, report
    assert "(nbval: Unrun reference cell has outputs)" in report and "[stdout]" not in report, report

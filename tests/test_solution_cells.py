"""Ячейки-решения помечены `solution`, и урок идёт сверху вниз без них: так класс раздаёт копии без ответов
(`tools/workspace.py --no-solutions`), а nbgrader получает уроки без решений.

Дёшево для всех уроков — по коду ячеек (ast): ни одно имя, которое задают только ячейки-решения, не нужно
остальным ячейкам, и у каждого упражнения из BY_LESSON одна ячейка ученика и одно решение. Дорого, для одного
урока, — урок 02 без решений исполняется в свежем ядре без ошибок.
"""

import ast
import json
import pathlib
import sys

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course_lib.exercises import BY_LESSON  # noqa: E402
from tools import workspace  # noqa: E402
from tools.classroom import exercise_cells  # noqa: E402

NOTEBOOKS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))


def _tree(cell):
    """ast ячейки; строки магий IPython (%, !) — не Python, их пропускаем."""
    text = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in exercise_cells.source(cell).splitlines())
    return ast.parse(text)


def _module_bindings(tree):
    """Имена, которые ячейка задаёт для следующих ячеек: на уровне модуля, не внутри функций и классов."""
    names, todo = set(), list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _all_bindings(tree):
    """Все имена, которые ячейка задаёт где угодно (и локальные в своих функциях)."""
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    names |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    return names | _module_bindings(tree)


def solution_only_names_used(notebook):
    """[(номер ячейки, имя)]: ячейка без метки `solution` читает имя, которое задают только ячейки-решения."""
    code = [(i, c, _tree(c)) for i, c in enumerate(notebook["cells"]) if c["cell_type"] == "code"]
    by_solutions = set().union(*(_module_bindings(t) for _, c, t in code if workspace.is_solution(c)))
    by_others = set().union(*(_module_bindings(t) for _, c, t in code if not workspace.is_solution(c)))
    only = by_solutions - by_others
    return [(i, n.id) for i, c, t in code if not workspace.is_solution(c)
            for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id in only and n.id not in _all_bindings(t)]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_lesson_needs_no_solution_cell(notebook):
    used = solution_only_names_used(json.loads(notebook.read_text(encoding="utf-8")))
    assert not used, (f"{notebook.name}: ячейки без метки «solution» читают имена, которые задают только решения "
                      f"(ячейка, имя): {used} — без решений (копии класса, nbgrader) урок упадёт")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_exercise_has_one_learner_cell_and_one_solution(notebook):
    lesson = exercise_cells.lesson_number(notebook)
    data = json.loads(notebook.read_text(encoding="utf-8"))
    found = exercise_cells.exercises(data, lesson)              # ValueError, если ячеек не по одной
    assert [e.checker for e in found] == list(BY_LESSON.get(lesson, ()))
    solution_code = [i for i, c in enumerate(data["cells"]) if c["cell_type"] == "code" and workspace.is_solution(c)]
    assert sorted(e.solution_cell for e in found) == solution_code, (
        f"{notebook.name}: ячейки с меткой «solution» {solution_code}, а решения упражнений — "
        f"{sorted(e.solution_cell for e in found)}: метка стоит не на решении или у решения её нет")
    for e in found:
        assert e.task, f"{notebook.name}: у {e.checker} нет текста задания перед ячейкой ученика"


def _cell(text, tags=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text, "outputs": []}


def test_checker_of_the_checker():
    """Проверка ловит ячейку, которой нужно решение, и не путает это с локальным именем своей функции."""
    notebook = {"cells": [_cell("def f_solution(x):\n    return x\n\nanswer = f_solution(1)\n", ["solution"]),
                          _cell("print(answer)\n"),
                          _cell("def g(answer):\n    return answer\n")]}
    assert solution_only_names_used(notebook) == [(1, "answer")]
    with pytest.raises(ValueError, match="одна ячейка ученика и одно решение"):
        exercise_cells.exercises({"cells": [_cell("check_softmax(my_softmax)\n")]}, "02")


def test_lesson_02_runs_without_its_solutions(tmp_path):
    """Урок 02 без решений — в свежем ядре, сверху вниз, без ошибок; упражнения ждут ученика (⏳), ✅ нет нигде,
    а сверка после упражнений считает формулой из задания."""
    lesson = ROOT / "lessons" / "02_soft_search.ipynb"
    notebook = nbformat.reads(workspace.without_solutions(lesson), as_version=4)
    assert not any(workspace.is_solution(c) for c in notebook.cells)
    NotebookClient(notebook, kernel_name="python3", timeout=300,
                   resources={"metadata": {"path": str(lesson.parent)}}).execute()
    printed = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.outputs)
    assert printed.count("⏳ ещё не решено") == len(BY_LESSON["02"])
    assert "✅" not in printed
    assert "формула из задания == строка 1 из scaled_dot_product_attention: True" in printed

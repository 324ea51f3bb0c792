"""«Run All» не затирает ученика: решение упражнения — под своим именем, и его тоже проверяют.

За каждым упражнением (ячейка с `raise NotImplementedError` и вызовом `check_…(функция)`) идёт
свёрнутая ячейка-решение. Если бы решение называлось так же, как функция ученика, «Run All»
переопределил бы её и напечатал ✅ за ученика (issue 12).
"""

import pathlib
import re

import pytest

LESSONS = sorted((pathlib.Path(__file__).resolve().parent.parent / "lessons").glob("[0-9][0-9]_*.py"))
CHECK = re.compile(r"(check_\w+)\(\s*(\w+)")


def code_cells(path):
    """[(свёрнута ли, текст)] для кодовых ячеек урока в формате jupytext percent."""
    parts = re.split(r"^(# %%.*)$", path.read_text(encoding="utf-8"), flags=re.M)
    return [("source_hidden" in header, body) for header, body in zip(parts[1::2], parts[2::2])
            if "[markdown]" not in header]


def defined(body):
    return set(re.findall(r"^def (\w+)\(", body, flags=re.M))


def exercises(cells):
    """[(checker, имя функции ученика, решение: (имя, checker) из ближайшей свёрнутой ячейки или None)]."""
    found = []
    for i, (hidden, body) in enumerate(cells):
        if hidden or "raise NotImplementedError" not in body:
            continue
        for checker, name in CHECK.findall(body):
            if name in defined(body):
                solution = next((CHECK.findall(b) for h, b in cells[i + 1:] if h and CHECK.search(b)), [])
                found.append((checker, name, solution))
    return found


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_solutions_keep_their_own_names(lesson):
    cells = code_cells(lesson)
    learner = set().union(*(defined(b) for h, b in cells if not h))
    solutions = set().union(*(defined(b) for h, b in cells if h))
    assert not learner & solutions, (
        f"{lesson.name}: свёрнутое решение переопределяет функцию ученика {sorted(learner & solutions)} — "
        "назовите решение по-своему (например, my_attention -> attention_solution)"
    )
    for checker, name, solution in exercises(cells):
        assert (checker, name) not in solution and any(c == checker for c, _ in solution), (
            f"{lesson.name}: за упражнением {name} нет свёрнутого решения под своим именем, проверенного {checker}"
        )


EXERCISE = "# %%\ndef my_f(x):\n    raise NotImplementedError\n\n\ncheck_f(my_f)\n\n"
HIDDEN = '# %% jupyter={"source_hidden": true}\n'


@pytest.mark.parametrize("solution, problem", [
    ("def my_f(x):\n    return x\n\n\ncheck_f(my_f)\n", "переопределяет функцию ученика"),
    ("def f_solution(x):\n    return x\n", "нет свёрнутого решения"),          # решение не проверено
    ("def f_solution(x):\n    return x\n\n\ncheck_f(f_solution)\n", None),
])
def test_checker_of_the_checker(tmp_path, solution, problem):
    lesson = tmp_path / "99_x.py"
    lesson.write_text(EXERCISE + HIDDEN + solution, encoding="utf-8")
    if problem is None:
        test_solutions_keep_their_own_names(lesson)
    else:
        with pytest.raises(AssertionError, match=problem):
            test_solutions_keep_their_own_names(lesson)

"""Курс nbgrader из уроков: упражнения — области решения, каждый вызов проверки — свой автотест.

    .venv/bin/python -m tools.classroom.nbgrader_course --out DIR              # make nbgrader OUT=DIR
    .venv/bin/python -m tools.classroom.nbgrader_course --out DIR --lessons 02 03

В DIR — `nbgrader_config.py` и `source/lesson_NN/NN_slug.ipynb` для каждого урока с упражнениями. Дальше —
обычный nbgrader из DIR (`cd DIR && nbgrader generate_assignment lesson_02`, …; нужен extra `class`).
В тетрадке nbgrader:
- ячейка ученика — ответ (solution: true): тело его функции — решение урока под именем функции ученика
  между `### BEGIN SOLUTION` и `### END SOLUTION`; generate_assignment раздаёт вместо него заглушку
  `raise NotImplementedError  # ваш код здесь`, как в уроке;
- вызов проверки — отдельная закрытая ячейка-тест на 1 балл: `verdict = check_softmax(my_softmax)` и
  `assert verdict.passed, verdict.message` — в отзыве nbgrader ученик видит ту же русскую подсказку;
- ячейки-решения урока (метка `solution`) и их вступления выброшены, остальные ячейки — как в уроке, без выводов.
Папка DIR — только для владельца (0700): в source/ лежат решения, а nbgrader сложит туда и оценки.
"""

import argparse
import ast
import copy
import json
import os
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:                     # запуск файлом, а не через -m
    sys.path.insert(0, str(ROOT))

from tools.classroom import exercise_cells  # noqa: E402
from tools.workspace import LESSONS, is_solution, lessons  # noqa: E402

COURSE_ID = "attention-bez-magii"
TIMEOUT = 1800          # с на ячейку: урок 10 учит GPT около минуты на спокойной машине, в классе — в разы дольше
STUB = "raise NotImplementedError  # ваш код здесь"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

CONFIG = f'''\
# Курс nbgrader, собранный из уроков «Attention без магии» (tools/classroom/nbgrader_course.py).
# Команды nbgrader запускайте из этой папки: nbgrader generate_assignment lesson_02, nbgrader autograde lesson_02, …
c = get_config()  # noqa: F821 — её даёт nbgrader

c.CourseDirectory.course_id = "{COURSE_ID}"
# Сколько секунд ждать одну ячейку при autograde: урок 10 учит GPT около минуты, на занятом сервере — дольше.
c.ExecutePreprocessor.timeout = {TIMEOUT}
# Что ученик видит вместо решения — та же заглушка, что в уроках курса.
c.ClearSolutions.code_stub = {{"python": "{STUB}"}}
'''


def _nbgrader(grade_id, *, solution=False, grade=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def _code_cell(cell_id, text, metadata):
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": metadata, "outputs": [],
            "source": text}


def answer_source(learner_text, exercise, solution_text, renames):
    """Ячейка ученика без вызова проверки, тело его функции — решение между BEGIN/END SOLUTION."""
    learner = exercise_cells.function_node(learner_text, exercise.function)
    solution = exercise_cells.function_node(solution_text, exercise.solution)
    if exercise_cells.parameters(learner) != exercise_cells.parameters(solution):
        raise ValueError(f"у {exercise.solution} аргументы {exercise_cells.parameters(solution)}, а у функции ученика "
                         f"{exercise.function} — {exercise_cells.parameters(learner)}: решение не подставить")
    lines = learner_text.splitlines()
    start, end = exercise_cells.body_span(learner_text, learner)
    indent = " " * (len(lines[start]) - len(lines[start].lstrip()))
    body = textwrap.dedent("\n".join(exercise_cells.body_lines(solution_text, solution)))
    body = exercise_cells.rename(body + "\n", renames).rstrip("\n")
    replaced = {(start, end): [indent + BEGIN, textwrap.indent(body, indent), indent + END]}
    for node in ast.parse(learner_text).body:       # вызов проверки уходит в свою ячейку-тест
        if node is not learner and (exercise.checker, exercise.function) in exercise_cells.checker_calls(node):
            replaced[(node.lineno - 1, node.end_lineno)] = []
    for (first, last), new in sorted(replaced.items(), reverse=True):   # снизу вверх: номера строк выше целы
        lines[first:last] = new
    return "\n".join(lines).rstrip() + "\n"


def test_source(exercise):
    return (f"verdict = {exercise.checker}({exercise.function})\n"
            f"assert verdict.passed, verdict.message")


def convert(path):
    """Тетрадка урока (.ipynb) -> тетрадка nbgrader (словарь) или None, если упражнений в уроке нет."""
    notebook = copy.deepcopy(exercise_cells.read(path))
    found = exercise_cells.exercises(notebook, exercise_cells.lesson_number(path))
    if not found:
        return None
    renames = {e.solution: e.function for e in found}
    by_cell = {e.learner_cell: e for e in found}
    cells = []
    for i, cell in enumerate(notebook["cells"]):
        if is_solution(cell):
            continue
        if cell["cell_type"] == "code":
            cell.update(outputs=[], execution_count=None)
        if i not in by_cell:
            cells.append(cell)
            continue
        exercise = by_cell[i]
        text = answer_source(exercise_cells.source(cell), exercise,
                             exercise_cells.source(notebook["cells"][exercise.solution_cell]), renames)
        cells.append(_code_cell(cell.get("id", exercise.function), text,
                                {"nbgrader": _nbgrader(exercise.function, solution=True)}))
        cells.append(_code_cell(f"test-{exercise.checker}".replace("_", "-"), test_source(exercise),
                                {"nbgrader": _nbgrader(exercise.checker, grade=True, points=1)}))
    notebook["cells"] = cells
    return notebook


def write(out, numbers=None, source=LESSONS):
    """Курс nbgrader в `out` -> список тетрадок source/lesson_NN/NN_slug.ipynb."""
    out = pathlib.Path(out)
    chosen = [p for p in lessons(source) if numbers is None or exercise_cells.lesson_number(p) in numbers]
    unknown = set(numbers or ()) - {exercise_cells.lesson_number(p) for p in chosen}
    if unknown:
        raise ValueError(f"нет уроков с номерами {sorted(unknown)}: номера — две цифры, как в lessons/ (02, 10)")
    converted = [(p, convert(p)) for p in chosen]
    empty = [exercise_cells.lesson_number(p) for p, nb in converted if nb is None and numbers is not None]
    if empty:
        raise ValueError(f"в уроках {empty} нет упражнений — для nbgrader там нечего проверять")
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(out, 0o700)
    (out / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    written = []
    for path, notebook in converted:
        if notebook is None:
            continue
        target = out / "source" / f"lesson_{exercise_cells.lesson_number(path)}" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        written.append(target)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description="Курс nbgrader из уроков: упражнения — области решения, "
                                                 "вызовы проверок — автотесты")
    parser.add_argument("--out", type=pathlib.Path, required=True, help="папка курса nbgrader")
    parser.add_argument("--lessons", nargs="+", metavar="NN", help="номера уроков (по умолчанию все с упражнениями)")
    args = parser.parse_args(argv)
    try:
        written = write(args.out, args.lessons)
    except ValueError as error:
        print(f"make nbgrader: {error}", file=sys.stderr)
        return 2
    names = ", ".join(p.parent.name for p in written)
    print(f"Курс nbgrader — в {args.out}/: {names}. Дальше из этой папки: "
          f"nbgrader generate_assignment {written[0].parent.name}, затем autograde, generate_feedback, export.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Упражнения урока, как они лежат в тетрадке: задание, ячейка ученика с вызовом проверки и ячейка-решение.

Решение — кодовая ячейка с меткой `solution` (так же помечена и markdown-ячейка, которая только его
представляет). Ячейка ученика — кодовая ячейка без метки, где вызывается проверка урока из
`course_lib.exercises.BY_LESSON`: `check_softmax(my_softmax)`. Отсюда берут ответы учителя
(answers.py) и курс nbgrader (nbgrader_course.py), так что оба идут от самих уроков и не расходятся с ними.
Тетрадка — словарь, как его читает `json` или `nbformat`.
"""

import ast
import io
import json
import pathlib
import tokenize
from dataclasses import dataclass

from course_lib.exercises import BY_LESSON
from tools.workspace import SOLUTION_TAG, is_solution


def source(cell):
    """Текст ячейки: в .ipynb он бывает списком строк, у nbformat — одной строкой."""
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def lesson_number(path):
    """«02» из lessons/02_soft_search.ipynb."""
    return pathlib.Path(path).name[:2]


def read(path):
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))


@dataclass
class Exercise:
    checker: str            # check_softmax
    function: str           # my_softmax — функция ученика
    solution: str           # softmax_solution — функция из ячейки-решения
    task: str               # markdown-ячейки задания перед ячейкой ученика
    learner_cell: int       # номера ячеек в тетрадке
    solution_cell: int


def checker_calls(code):
    """[(проверка, имя функции)] — вызовы вида check_x(f) в коде ячейки (текст) или в узле ast."""
    if isinstance(code, str):
        try:
            code = ast.parse(code)
        except SyntaxError:
            return []
    return [(node.func.id, node.args[0].id) for node in ast.walk(code)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("check_")
            and node.args and isinstance(node.args[0], ast.Name)]


def exercises(notebook, lesson):
    """Упражнения урока `lesson` («02») по порядку BY_LESSON; ValueError, если у проверки нет ровно одной
    ячейки ученика и ровно одного решения."""
    cells = notebook["cells"]
    found = []
    for checker in BY_LESSON.get(lesson, ()):
        learner, solution = [], []
        for i, cell in enumerate(cells):
            if cell["cell_type"] != "code":
                continue
            for called, name in checker_calls(source(cell)):
                if called == checker:
                    (solution if is_solution(cell) else learner).append((i, name))
        if len(learner) != 1 or len(solution) != 1:
            raise ValueError(f"урок {lesson}: у {checker} должна быть одна ячейка ученика и одно решение с меткой "
                             f"«{SOLUTION_TAG}», а нашлось ячеек ученика {len(learner)}, решений {len(solution)}")
        (learner_cell, function), (solution_cell, solution_name) = learner[0], solution[0]
        found.append(Exercise(checker, function, solution_name, _task(cells, learner_cell), learner_cell, solution_cell))
    return found


def _task(cells, index):
    """Markdown-ячейки без метки `solution` перед ячейкой ученика: от заголовка упражнения (или от предыдущей
    кодовой ячейки) до неё."""
    parts = []
    for cell in reversed(cells[:index]):
        if cell["cell_type"] == "code":
            break
        if cell["cell_type"] == "markdown" and not is_solution(cell):
            parts.append(source(cell))
            if source(cell).lstrip().startswith("#"):
                break
    return "\n\n".join(reversed(parts)).strip()


def function_node(text, name):
    """Узел `def name(...)` в коде ячейки; ValueError, если его нет."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise ValueError(f"в ячейке нет функции {name}")


def body_span(text, node):
    """(начало, конец) тела функции в строках ячейки (срез lines[начало:конец], с комментариями внутри тела)."""
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.start < (node.lineno, node.col_offset) or tok.type != tokenize.OP:
            continue
        if tok.string == ":" and depth == 0:        # двоеточие заголовка, а не аннотации в скобках
            return tok.end[0], node.end_lineno
        depth += (tok.string in "([{") - (tok.string in ")]}")
    raise ValueError(f"у функции {node.name} не нашлось заголовка")


def body_lines(text, node):
    start, end = body_span(text, node)
    return text.splitlines()[start:end]


def rename(text, names):
    """Заменяет имена (токены NAME) по словарю {старое: новое}: решение зовёт свои функции именами ученика."""
    tokens = [tok._replace(string=names.get(tok.string, tok.string)) if tok.type == tokenize.NAME else tok
              for tok in tokenize.generate_tokens(io.StringIO(text).readline)]
    return tokenize.untokenize(tokens)


def parameters(node):
    return [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]

"""В course_lib нет строк решений уроков: с SOLUTIONS=no ученик читает course_lib (он его импортирует), и решение
не должно найтись ни в проверке упражнения, ни в библиотеке, которую она зовёт.

Строки решений и «показанное» — tests/solution_lines.py: секрет — нетривиальная строка ячейки-решения, которой
нет ни в одной ячейке урока без метки (ни в коде, ни в выводе). Проверяются обе вещи: строка файла совпала со
строкой решения, и строка решения стоит внутри строки кода (`float(a @ b / (…))` прячет решение `a @ b / (…)`;
строки-подсказки проверок не в счёт: куски ответа они называют нарочно, ученик видит их после своей ошибки).
"""

import json
import pathlib

import pytest

import solution_lines  # tests/ на sys.path (как posix_only); не «from tests …»: IPython 7 кладёт свой пакет tests на sys.path
from tools import workspace

ROOT = pathlib.Path(__file__).resolve().parents[1]
COURSE_LIB = ROOT / "course_lib"
SECRET = solution_lines.secret_lines(workspace.lessons())


def readable_files():
    """Файлы course_lib, которые ученик может открыть (кроме кэша байткода)."""
    return sorted(p for p in COURSE_LIB.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def test_every_lesson_with_exercises_has_secret_lines():
    """Проверка жива: у каждого урока с решениями есть строки, которых ученик не видит (иначе искать нечего)."""
    with_solutions = {p.name for p in workspace.lessons()
                      if any(workspace.is_solution(c) for c in json.loads(p.read_text(encoding="utf-8"))["cells"])}
    assert len(with_solutions) >= 10, f"уроков с решениями нашлось {len(with_solutions)}: метки solution потерялись?"
    missing = with_solutions - set(SECRET.values())
    assert not missing, f"у уроков {sorted(missing)} ни одной секретной строки: нормализация съела решения?"
    assert "x.reshape(N,T,h,D//h).transpose(0,2,1,3)" in SECRET, "решение split_heads урока 06 не в секрете"


@pytest.mark.parametrize("library_file", readable_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_course_lib_file_holds_no_solution_line(library_file):
    path = library_file
    lines = solution_lines.file_lines(path)
    if lines is None:
        return                                                    # не текст: .npz чекпойнта
    same = sorted(lines & set(SECRET))
    code = solution_lines.code_lines(path.read_text(encoding="utf-8")) if path.suffix == ".py" else set()
    inside = sorted(secret for secret in set(SECRET) - set(same) if any(secret in line for line in code))
    found = [f"{SECRET[s]}: {s}" for s in same] + [f"{SECRET[s]} (внутри строки): {s}" for s in inside]
    assert not found, (f"{path.relative_to(ROOT)} держит строки решений — ученик с SOLUTIONS=no прочитает ответ; "
                       "посчитайте эталон иначе:\n  " + "\n  ".join(found))


@pytest.mark.parametrize("lesson", workspace.lessons(), ids=lambda p: p.stem)
def test_a_copy_without_solutions_holds_no_secret_line(lesson):
    """Копия ученика (workspace.without_solutions) не держит строк решений ни в ячейках, ни в выводах, ни в
    метаданных. Строки решений, которые в копии всё же есть, урок показывает сам, вне решения: урок 06 печатает
    `_split` и `_merge`, урок 08 — свой `attention_in_blocks` и `online_softmax_step` (это и находил прежний обход
    ~/work: не утечка, а показанное)."""
    copy = solution_lines.file_lines_of_text(workspace.without_solutions(lesson), notebook=True)
    found = sorted(copy & set(SECRET))
    assert not found, f"копия {lesson.name} без решений держит их строки:\n  " + "\n  ".join(found)

"""Копии уроков для класса без ответов: `tools/workspace.py --no-solutions` (make class с SOLUTIONS=no).

Ячейки с меткой `solution` не попадают в копию ученика, остальные — как в курсе; уже скопированный урок
по-прежнему не перезаписывается никогда.
"""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools import workspace  # noqa: E402

LESSONS = workspace.lessons()


def _cells(path):
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))["cells"]


def test_copies_without_solution_cells(tmp_path):
    copied = workspace.prepare(tmp_path / "work", solutions=False)
    assert sorted(p.name for p in copied) == sorted(p.name for p in [*LESSONS, *workspace.documents()])
    removed = 0
    for lesson in LESSONS:
        course, copy = _cells(lesson), _cells(tmp_path / "work" / lesson.name)
        assert copy == [c for c in course if not workspace.is_solution(c)], f"{lesson.name}: копия не та"
        removed += len(course) - len(copy)
    # в уроках 01–10 — 22 упражнения, у каждого решение; у восьми ещё и markdown, который его представляет
    assert removed == 22 + 8
    text = (tmp_path / "work" / "02_soft_search.ipynb").read_text(encoding="utf-8")
    assert "softmax_solution" not in text and "check_softmax(my_softmax)" in text


def test_with_solutions_copies_are_the_course_files(tmp_path):
    workspace.prepare(tmp_path / "work")
    for lesson in LESSONS:
        assert (tmp_path / "work" / lesson.name).read_bytes() == lesson.read_bytes()


def test_existing_copy_is_never_overwritten(tmp_path):
    work = tmp_path / "work"
    workspace.prepare(work)                              # копии с решениями уже есть
    mine = work / LESSONS[2].name
    mine.write_text('{"мои": "правки"}', encoding="utf-8")
    copied = workspace.prepare(work, solutions=False)
    assert copied == [] and mine.read_text(encoding="utf-8") == '{"мои": "правки"}'
    assert any(workspace.is_solution(c) for c in _cells(work / LESSONS[3].name)), "прежняя копия осталась прежней"


def test_fresh_without_solutions(tmp_path):
    work = tmp_path / "work"
    workspace.prepare(work, solutions=False)
    assert workspace.fresh("02", work, solutions=False)[1] is None, "нетронутая копия без решений — не правка"
    (work / "02_soft_search.ipynb").write_text("{}", encoding="utf-8")
    target, backup = workspace.fresh("02", work, solutions=False)
    assert backup.read_text(encoding="utf-8") == "{}"
    assert not any(workspace.is_solution(c) for c in _cells(target))


def test_command_line(tmp_path):
    """Так зовёт его make class: любой python3, только стандартная библиотека."""
    done = subprocess.run([sys.executable, "-I", str(ROOT / "tools" / "workspace.py"), "--work", str(tmp_path / "w"),
                           "--no-solutions"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "скопировано уроков: 11" in done.stdout
    assert not any(workspace.is_solution(c) for lesson in LESSONS for c in _cells(tmp_path / "w" / lesson.name))

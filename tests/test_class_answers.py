"""Ответы учителя отдельно (`make answers`): страница на урок из самих уроков, папка только для владельца."""

import json
import pathlib
import shutil
import stat
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from course_lib.exercises import BY_LESSON  # noqa: E402
from tools import workspace  # noqa: E402
from tools.classroom import answers, exercise_cells  # noqa: E402


def _mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_every_exercise_has_task_checker_and_solution(tmp_path):
    out = tmp_path / "answers"
    written = answers.write(out)
    assert [p.name[:2] for p in written] == sorted(BY_LESSON)
    for lesson in workspace.lessons():
        number = lesson.name[:2]
        if number not in BY_LESSON:
            continue
        page = (out / f"{lesson.stem}.md").read_text(encoding="utf-8")
        notebook = exercise_cells.read(lesson)
        for exercise in exercise_cells.exercises(notebook, number):
            solution = exercise_cells.source(notebook["cells"][exercise.solution_cell]).strip()
            assert solution in page, f"{lesson.name}: нет решения {exercise.solution}"
            assert f"проверка `{exercise.checker}`" in page
            last_line = exercise.task.splitlines()[-1]
            assert f"> {last_line}" in page, f"{lesson.name}: нет задания {exercise.function}"
    index = (out / "README.md").read_text(encoding="utf-8")
    assert all(f"]({p.name})" in index for p in written)


def test_only_the_owner_reads_them(tmp_path):
    out = tmp_path / "answers"
    out.mkdir(mode=0o755)
    stale = out / "02_soft_search.md"
    stale.write_text("старое", encoding="utf-8")
    stale.chmod(0o644)
    answers.write(out, ["02"])
    assert _mode(out) == 0o700
    assert {p.name: _mode(p) for p in out.iterdir()} == {"02_soft_search.md": 0o600, "README.md": 0o600}
    assert "старое" not in stale.read_text(encoding="utf-8")


def test_page_follows_the_lesson(tmp_path):
    """Правка решения в уроке — в ответах при следующей сборке: страница не хранится отдельно."""
    source = tmp_path / "lessons"
    source.mkdir()
    notebook = json.loads((ROOT / "lessons" / "02_soft_search.ipynb").read_text(encoding="utf-8"))
    exercise = exercise_cells.exercises(notebook, "02")[1]
    cell = notebook["cells"][exercise.solution_cell]
    cell["source"] = exercise_cells.source(cell).replace("return weights @ V", "return V.T @ weights  # правка учителя")
    (source / "02_soft_search.ipynb").write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    answers.write(tmp_path / "out", source=source)
    assert "return V.T @ weights  # правка учителя" in (tmp_path / "out" / "02_soft_search.md").read_text("utf-8")


def test_unknown_lesson_is_refused_in_russian(tmp_path, capsys):
    with pytest.raises(ValueError, match="нет уроков с номерами"):
        answers.write(tmp_path / "a", ["2", "42"])
    assert answers.main(["--out", str(tmp_path / "a"), "--lessons", "42"]) == 2
    assert "make answers: нет уроков с номерами ['42']" in capsys.readouterr().err


def test_lesson_without_its_solution_cell_is_named(tmp_path):
    source = tmp_path / "lessons"
    source.mkdir()
    shutil.copy(ROOT / "lessons" / "03_self_attention.ipynb", source)
    (source / "03_self_attention.ipynb").write_text(workspace.without_solutions(source / "03_self_attention.ipynb"),
                                                     encoding="utf-8")
    with pytest.raises(ValueError, match="урок 03: у check_attention должна быть одна ячейка ученика и одно решение"):
        answers.write(tmp_path / "out", source=source)

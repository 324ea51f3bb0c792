"""Курс nbgrader из уроков — настоящим nbgrader из .venv, как его запустит учитель.

Урок 02 → курс (tools/classroom/nbgrader_course.py) → `nbgrader generate_assignment` → три сдачи (верная,
с ошибкой, нетронутая) → `autograde` → `export` (оценки 2, 1, 0 из 2) → `generate_feedback` (в отзыве
ошибившегося — русская подсказка проверки). Всё — во временной папке: конфиги и данные Jupyter и IPython
направлены туда же, ~/.jupyter не трогается.
"""

import csv
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.classroom import nbgrader_course  # noqa: E402

NBGRADER = pathlib.Path(sys.executable).parent / "nbgrader"
pytestmark = pytest.mark.skipif(sys.version_info < (3, 11) or not NBGRADER.exists(),
                                reason="nbgrader (extra class) нужен Python ≥ 3.11: pip install -e '.[class]'")

# Ответы учеников — свои, не из урока: верный и с типичной ошибкой (оценки не поделены на √d_k).
SOFTMAX = ["e = np.exp(scores - scores.max(axis=-1, keepdims=True))", "return e / e.sum(axis=-1, keepdims=True)"]
ATTEND_RIGHT = ["return nt.softmax(K @ q / np.sqrt(q.shape[0])) @ V"]
ATTEND_WRONG = ["return nt.softmax(K @ q) @ V"]
SUBMISSIONS = {"nbgtest_right": {"my_softmax": SOFTMAX, "attend_one": ATTEND_RIGHT},
               "nbgtest_wrong": {"my_softmax": SOFTMAX, "attend_one": ATTEND_WRONG},
               "nbgtest_untouched": {}}
HINT = "вы забыли поделить оценки на √d_k"


def _nbgrader(course, env, *args):
    done = subprocess.run([str(NBGRADER), *args], cwd=course, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} упал:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _answer(notebook, answers):
    """Сдача ученика: в ячейках-ответах заглушка заменена его строками (с отступом заглушки)."""
    for cell in notebook["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            text = "".join(cell["source"])
            stub = next(line for line in text.splitlines() if nbgrader_course.STUB in line)
            indent = stub[:len(stub) - len(stub.lstrip())]
            cell["source"] = text.replace(stub, "\n".join(indent + line for line in answers[grade_id]))
    return notebook


def test_three_learners_graded_with_russian_feedback(tmp_path):
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"),
           "JUPYTER_DATA_DIR": str(tmp_path / "jupyter-data"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "jupyter-runtime"),
           "IPYTHONDIR": str(tmp_path / "ipython"), "PYTHONPATH": str(ROOT),
           # nbgrader зовёт `alembic` (схема базы оценок) по PATH — как в активированном .venv
           "PATH": f"{NBGRADER.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    course = tmp_path / "course"
    assert nbgrader_course.main(["--out", str(course), "--lessons", "02"]) == 0
    assert (course / "source" / "lesson_02" / "02_soft_search.ipynb").exists()

    _nbgrader(course, env, "generate_assignment", "lesson_02")
    released = json.loads((course / "release" / "lesson_02" / "02_soft_search.ipynb").read_text(encoding="utf-8"))
    released_text = json.dumps(released, ensure_ascii=False)
    assert "softmax_solution" not in released_text and "BEGIN SOLUTION" not in released_text
    assert released_text.count(nbgrader_course.STUB) == 2, "обе функции ученика — заглушки"

    for student, answers in SUBMISSIONS.items():
        folder = course / "submitted" / student / "lesson_02"
        folder.mkdir(parents=True)
        submission = _answer(json.loads(json.dumps(released)), answers)
        (folder / "02_soft_search.ipynb").write_text(json.dumps(submission, ensure_ascii=False), encoding="utf-8")

    _nbgrader(course, env, "autograde", "lesson_02")
    _nbgrader(course, env, "export")
    with open(course / "grades.csv", encoding="utf-8") as file:
        grades = {row["student_id"]: row for row in csv.DictReader(file)}
    assert {s: (float(g["raw_score"]), float(g["max_score"])) for s, g in grades.items()} == {
        "nbgtest_right": (2.0, 2.0), "nbgtest_wrong": (1.0, 2.0), "nbgtest_untouched": (0.0, 2.0)}

    _nbgrader(course, env, "generate_feedback", "lesson_02")
    feedback = {s: (course / "feedback" / s / "lesson_02" / "02_soft_search.html").read_text(encoding="utf-8")
                for s in SUBMISSIONS}
    assert HINT in feedback["nbgtest_wrong"] and HINT not in feedback["nbgtest_right"]
    assert "ещё не решено" in feedback["nbgtest_untouched"]

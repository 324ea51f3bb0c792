"""TEACHERS.md не расходится с курсом: план уроков и список упражнений — ровно то, что даёт генератор."""

import json
import re

import numpy as np
import pytest

from course_lib.exercises import BY_LESSON, check_softmax
from tools.classroom import guide

TEXT = guide.GUIDE.read_text(encoding="utf-8")
SECTION = re.compile(r"<!-- guide:(\w+):begin -->\n(.*?)\n<!-- guide:\1:end -->", flags=re.DOTALL)


@pytest.fixture(scope="module")
def exercises():
    """Раздел упражнений, собранный один раз: все неверные и верные ответы таблиц — через проверки."""
    return guide.exercises_section()


@pytest.fixture
def fast_guide(monkeypatch, exercises):
    monkeypatch.setattr(guide, "exercises_section", lambda: exercises)


def _section(text, name):
    return dict(SECTION.findall(text))[name]


def _first_diff(expected, actual):
    for number, (want, got) in enumerate(zip(expected.splitlines(), actual.splitlines()), 1):
        if want != got:
            return f"строка {number} раздела:\n  в TEACHERS.md: {got}\n  из курса:      {want}"
    return f"в TEACHERS.md {len(actual.splitlines())} строк раздела, а из курса — {len(expected.splitlines())}"


def test_the_committed_exercises_are_what_the_checkers_say(exercises):
    committed = _section(TEXT, "exercises")
    assert committed == exercises, ("список упражнений в TEACHERS.md разошёлся с проверками — обновите его: "
                                    ".venv/bin/python -m tools.classroom.guide\n" + _first_diff(exercises, committed))


def test_the_committed_guide_is_what_the_generator_writes(fast_guide):
    assert guide.render(TEXT) == TEXT, ("TEACHERS.md разошёлся с курсом (план уроков: README, BY_LESSON или цены) — "
                                        "обновите: .venv/bin/python -m tools.classroom.guide")


def test_a_hint_in_the_guide_is_the_one_the_learner_sees(exercises, capsys):
    """Независимо от генератора: что проверка печатает на ненормированные exp, то и стоит в руководстве."""
    printed = check_softmax(lambda scores: np.exp(scores)).message
    capsys.readouterr()
    first = printed.removeprefix("❌ ").split(". ")[0]
    assert f"- ❌ {first}" in exercises.splitlines(), f"в руководстве нет подсказки, которую видит ученик: {first}"
    for name in (name for names in BY_LESSON.values() for name in names):
        assert f"**`{name}`**" in exercises, f"в руководстве нет упражнения {name}"


def test_the_plan_lists_every_lesson_with_its_costs():
    rows = re.findall(r"^\| (\d\d) \| (.*)$", _section(TEXT, "plan"), flags=re.MULTILINE)
    assert [number for number, _ in rows] == guide.lesson_numbers(), "в плане уроков не все уроки курса или не по порядку"
    unmeasured = [number for number, row in rows if "не измерено" in row]
    assert not unmeasured, f"в плане нет цены уроков {unmeasured}: benchmarks/lessons.py --json FILE, затем --costs FILE"


def _costs(tmp_path, change=None):
    data = {"format": guide.FORMAT, "machine": {"date": "2026-12-01", "cores": 8, "cpu": "тест", "load_before": 0.1,
                                                "class_limits": None},
            "lessons": {n: {"wall_s": 12.0 + int(n), "cpu_s": 3.4, "peak_mb": 150.0} for n in guide.lesson_numbers()}}
    if change:
        change(data)
    path = tmp_path / "costs.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_costs_file_fills_the_plan_and_stays_without_it(tmp_path, fast_guide):
    with_costs = guide.render(TEXT, guide.load_costs(_costs(tmp_path)))
    plan = _section(with_costs, "plan")
    assert "| 22 с / 3.4 с | 150 МБ |" in plan and "8 ядер" in plan, plan      # урок 10: 12 + 10 с
    assert guide.render(with_costs) == with_costs, "без --costs генератор потерял цены, записанные в плане"


@pytest.mark.parametrize("broken, says", [
    (lambda path: path.write_text("{не json", encoding="utf-8"), "не JSON"),
    (lambda path: path.write_text('{"lessons": {}}', encoding="utf-8"), "не от benchmarks/lessons.py"),
    ("10", "нет уроков 10"),
    ("cpu", "у урока 03 нет чисел cpu_s"),
])
def test_a_broken_costs_file_is_refused_in_russian_and_nothing_is_written(tmp_path, broken, says, capsys):
    def change(data):
        if broken == "10":
            del data["lessons"]["10"]
        elif broken == "cpu":
            data["lessons"]["03"]["cpu_s"] = -1
    path = _costs(tmp_path, change if isinstance(broken, str) else None)
    if callable(broken):
        broken(path)
    target = tmp_path / "TEACHERS.md"
    target.write_text(TEXT, encoding="utf-8")
    assert guide.main(["--costs", str(path), "--file", str(target)]) == 2
    assert says in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == TEXT


def test_check_names_what_differs_in_russian(tmp_path, fast_guide, capsys):
    line = next(line for line in _section(TEXT, "exercises").splitlines() if line.startswith("- ❌"))
    stale = tmp_path / "TEACHERS.md"
    stale.write_text(TEXT.replace(line, line + " (старая подсказка)", 1), encoding="utf-8")
    assert guide.main(["--check", "--file", str(stale)]) == 1
    err = capsys.readouterr().err
    assert "разошёлся с курсом" in err and f"-{line} (старая подсказка)" in err and f"+{line}" in err, err
    assert guide.main(["--file", str(stale)]) == 0 and stale.read_text(encoding="utf-8") == TEXT


def test_missing_markers_are_named(tmp_path, fast_guide, capsys):
    target = tmp_path / "TEACHERS.md"
    target.write_text(TEXT.replace("<!-- guide:plan:end -->", ""), encoding="utf-8")
    assert guide.main(["--check", "--file", str(target)]) == 2
    assert "пара пометок <!-- guide:plan:begin --> … <!-- guide:plan:end -->" in capsys.readouterr().err


def test_a_spoiled_costs_mark_is_named(tmp_path, fast_guide, capsys):
    target = tmp_path / "TEACHERS.md"
    target.write_text(re.sub(r"<!-- costs: .*? -->", "<!-- costs: {\"lessons\": -->", TEXT), encoding="utf-8")
    assert guide.main(["--file", str(target)]) == 2
    assert "пометка costs в плане уроков TEACHERS.md испорчена" in capsys.readouterr().err

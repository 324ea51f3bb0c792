"""Уроки: каждая пара .py/.ipynb согласована, каждая тетрадка исполнена сверху вниз без ошибок.

Сами выводы ячеек сверяет nbval (`pytest --nbval`, см. pyproject.toml) — этот файл проверяет,
что коммитнутые тетрадки вообще можно так сверять.
"""

import json
import pathlib

import jupytext
import pytest

LESSONS = pathlib.Path(__file__).resolve().parent.parent / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))
SOURCES = sorted(LESSONS.glob("[0-9][0-9]_*.py"))


def test_every_lesson_is_a_pair():
    assert NOTEBOOKS, "в lessons/ нет ни одной тетрадки"
    assert [p.stem for p in NOTEBOOKS] == [p.stem for p in SOURCES], (
        "у каждого урока должны быть оба файла, .py и .ipynb: запустите `make notebooks`"
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_pair_in_sync(notebook):
    """Read-only: текст, который jupytext делает из .ipynb, совпадает с .py (как `jupytext --to py:percent -o -`,
    но в этом процессе: команда на каждый урок стоила 2,5 с запуска)."""
    text = jupytext.writes(jupytext.read(notebook), "py:percent")
    source = notebook.with_suffix(".py").read_text(encoding="utf-8")
    assert text.strip() == source.strip(), (
        f"{notebook.name} и {notebook.with_suffix('.py').name} разошлись: правьте .py, затем `make notebooks`"
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_executed_in_order_without_errors(notebook):
    cells = [c for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    counts = [c.get("execution_count") for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{notebook.name} исполнен не сверху вниз в свежем ядре (номера ячеек {counts}): `make notebooks`"
    )
    errors = [o for c in cells for o in c["outputs"] if o["output_type"] == "error"]
    assert not errors, f"{notebook.name}: в сохранённых выводах ошибка {errors[0].get('ename')}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_jupytext_version_in_metadata(notebook):
    meta = json.loads(notebook.read_text(encoding="utf-8"))["metadata"].get("jupytext", {})
    assert "jupytext_version" not in meta.get("text_representation", {}), "версия jupytext попала в метаданные тетрадки"

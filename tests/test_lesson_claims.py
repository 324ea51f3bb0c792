"""Текст урока не расходится с его выводами: каждое дробное или многозначное число в тексте посчитано в уроке.

Число в тексте урока («потери 1.98», «124 439 808 параметров») должно быть одним из трёх:
- выводом ячейки этого урока, которую сверяет nbval (с точностью, с какой оно написано: 1.98 — это и 1.980,
  и 1.9804); выводы ячеек `nbval-ignore-output` (время, случайные тексты) не в счёт — их текст не цитирует;
- числом из кода урока (гиперпараметр `lr = 0.003`, порог `< 2.1`);
- числом из другого места — статьи, прогона инструмента курса, подписи виджета — или только примером
  («Если…»): таблица SOURCED ниже, и тогда в той же текстовой ячейке названо, откуда оно.

Так правка, после которой текст говорит одно, а ячейка рядом печатает другое, роняет `make test`: новое
число не найдётся в выводах. Проверяются дроби (1.98, 0,17) и числа с разрядами через пробел (100 000);
целые без разрядов («урок 06», «3 матрицы») слишком часто значат не измерение. Формулы ($…$) не читаются.
"""

import json
import pathlib
import re

import pytest

LESSONS = pathlib.Path(__file__).resolve().parent.parent / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))

# Число в тексте: дробь через точку или запятую, или целое с разрядами через (узкий) пробел.
CLAIM = re.compile(r"(?<![\w.,])(\d+[.,]\d+|\d{1,3}(?:[ \u00a0\u202f]\d{3})+)(?![\w])")
# Число в выводе или в коде: то же и просто целые и дроби.
ANY_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:[ \u00a0\u202f_]\d{3})+|\d+(?:\.\d+)?(?:e[-+]?\d+)?)(?![\w])")
FORMULA = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)

# (урок, число как в тексте) -> слово, которое в той же текстовой ячейке называет, откуда число: статья или модель
# (факт о мире), инструмент курса, чей прогон описан (tools/…, benchmarks/…), подпись виджета — или «Если»
# у числа, которое только пример.
SOURCED = {
    ("01", "0.000"): "подпис",               # подпись виджета embedding_explorer
    ("06", "0.9"): "Если",                   # пример: «Если shattered отдаст 0.9…»
    ("06", "0.1"): "Если",
    ("08", "2.1"): "на занятой машине",      # наклон в ячейке nbval-ignore-output: что видел автор и почему разброс
    ("08", "1.3"): "benchmarks/efficient.py",
    ("09", "2.1"): "Brown",                  # номер таблицы в статье о GPT-3
    ("10", "0.02"): "GPT-2",
    ("10", "0.008"): "train_gpt",            # умолчания train_gpt (course_lib/props/gpt_training.py)
    ("10", "0.0003"): "train_gpt",
    ("10", "1.84"): "train_gpt_checkpoint",   # прогон tools/train_gpt_checkpoint.py --steps 6000, описанный в тексте
    ("10", "1.88"): "train_gpt_checkpoint",
    ("10", "2.17"): "gpt_training",           # benchmarks/gpt_training.py --lengths 600: 2.165
}


def _number(text):
    """'1,98' -> (1.98, 2); '124 439 808' -> (124439808, 0)."""
    text = re.sub(r"[ \u00a0\u202f_]", "", text).replace(",", ".")
    if "e" in text.lower() or "." not in text:
        return float(text), 0 if "." not in text and "e" not in text.lower() else 99
    return float(text), len(text.split(".")[1])


def _agrees(claim, numbers):
    value, digits = claim
    for number, its_digits in numbers:
        if digits == 0 and its_digits == 0 and number == value:
            return True
        if digits and its_digits >= digits and round(number, digits) == round(value, digits):
            return True
    return False


def _ignored(cell):
    return "nbval-ignore-output" in cell.get("metadata", {}).get("tags", []) or "# NBVAL_IGNORE_OUTPUT" in "".join(
        cell["source"])


def claims(notebook):
    """[(номер урока, число как в тексте, текст ячейки, посчитано ли)] для одной тетрадки."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    computed = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        pieces = ["".join(cell["source"])]
        if not _ignored(cell):
            for output in cell.get("outputs", []):
                text = output.get("text") or output.get("data", {}).get("text/plain") or ""
                pieces.append("".join(text))
        computed += [_number(n) for piece in pieces for n in ANY_NUMBER.findall(piece)]
    lesson = notebook.name[:2]
    found = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for written in CLAIM.findall(FORMULA.sub(" ", text)):
            found.append((lesson, written, text, _agrees(_number(written), computed)))
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_number_in_the_text_is_computed_or_sourced(notebook):
    problems = []
    for lesson, written, text, computed in claims(notebook):
        if computed:
            continue
        source = SOURCED.get((lesson, re.sub(r"[\u00a0\u202f]", " ", written)))
        if source is None:
            problems.append(f"«{written}» — такого числа нет ни в сверяемых выводах урока, ни в его коде "
                            f"(ячейка: «{text.strip()[:90]}…»)")
        elif source not in text:
            problems.append(f"«{written}» — факт о мире, но в его ячейке не назван источник «{source}»")
    assert not problems, f"урок {notebook.stem}: текст говорит то, чего урок не показывает:\n  " + "\n  ".join(problems)


def test_sourced_facts_are_still_in_the_text():
    """Строка таблицы SOURCED, которой в тексте уже нет, — устаревшая: её убирают, а не копят."""
    written = {(lesson, re.sub(r"[\u00a0\u202f]", " ", number)) for notebook in NOTEBOOKS
               for lesson, number, _, computed in claims(notebook) if not computed}
    stale = sorted(set(SOURCED) - written)
    assert not stale, f"в SOURCED есть числа, которых текст уже не пишет (или они теперь посчитаны): {stale}"


def test_an_edited_number_is_caught(tmp_path):
    """Сам замок: текст «потери 1.98» рядом с выводом 1.980 проходит, а «потери 1.75» — нет."""
    def lesson(text):
        nb = {"cells": [{"cell_type": "code", "source": ["print(round(loss, 3))"], "metadata": {},
                         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1.980\n"]}]},
                        {"cell_type": "markdown", "source": [text], "metadata": {}}],
              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        path = tmp_path / "99_probe.ipynb"
        path.write_text(json.dumps(nb), encoding="utf-8")
        return [computed for *_, computed in claims(path)]

    assert lesson("Потери на проверке — 1.98 ната.") == [True]
    assert lesson("Потери на проверке — 1.75 ната.") == [False]
    assert lesson("Это 1,98 — то же число через запятую.") == [True]

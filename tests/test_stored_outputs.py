"""Сохранённые тетрадки не противоречат своему тексту (проверяется файл, а не скорость этой машины).

Уроки 03 и 08 пишут «удвоили текст — времени вчетверо больше»: наклон времени на графике log–log
около 2. Ячейки с замерами времени nbval не сравнивает (время зависит от машины), поэтому здесь
читаем то, что напечатано в закоммиченной тетрадке, и проверяем, что наклон там правда около 2 —
то есть тетрадку исполнили на спокойной машине и её картинка подтверждает слова.
"""

import json
import pathlib
import re

import pytest

LESSONS = pathlib.Path(__file__).resolve().parent.parent / "lessons"

TIME_SLOPES = [
    ("03_self_attention.ipynb", r"наклон log\(время\) от log\(T\) при T ≥ 256: (-?[\d.]+)"),
    ("08_price_of_attention.ipynb", r"наклон по T ≥ 256: (-?[\d.]+)"),
]


def printed_text(notebook):
    """Весь текст, который ячейки кода напечатали (stdout и text/plain)."""
    pieces = []
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain") or ""
            pieces.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(pieces)


@pytest.mark.parametrize("name, pattern", TIME_SLOPES, ids=[name for name, _ in TIME_SLOPES])
def test_stored_time_slope_matches_text(name, pattern):
    found = re.findall(pattern, printed_text(LESSONS / name))
    assert len(found) == 1, f"{name}: строка с наклоном времени не найдена ровно один раз ({found})"
    slope = float(found[0])
    assert 1.6 <= slope <= 2.4, (
        f"{name}: в сохранённой тетрадке наклон времени {slope}, а текст говорит «около 2». "
        "Пересоберите тетрадку на спокойной машине: make notebooks LESSONS=lessons/" + name.replace(".ipynb", ".py")
    )


def test_printed_text_reads_outputs(tmp_path):
    notebook = tmp_path / "x.ipynb"
    notebook.write_text(json.dumps({"cells": [
        {"cell_type": "code", "outputs": [{"output_type": "stream", "text": ["наклон по T ≥ 256: 1.97\n"]}]},
        {"cell_type": "markdown"},
    ]}), encoding="utf-8")
    assert re.findall(TIME_SLOPES[1][1], printed_text(notebook)) == ["1.97"]

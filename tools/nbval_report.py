"""Плагин pytest для tools/lesson_passes.py: что nbval нашёл в каждой ячейке — в JSON-файл.

    NBVAL_REPORT=out.json python -m pytest -p nbval_report lessons/03_self_attention.ipynb

Для каждой ячейки пишет номер (как у nbval: кодовые ячейки с нуля), исход и, если ячейка
не прошла, первые различающиеся строки: сохранённый вывод против нового, после тех же
правил sanitize и с теми же пропусками (картинки, id виджетов), что у самого nbval.
"""

import difflib
import json
import os
import sys

import pytest

# nbval читает тетрадки через nbformat, тот проверяет их схемой jsonschema, а jsonschema при импорте берёт
# rfc3987_syntax — и тот строит грамматику IRI (1,4 с процессора на каждый процесс; форматов IRI в схеме
# тетрадок нет). Проходы уроков запускают pytest на каждую тетрадку, поэтому здесь он не загружается:
# без него jsonschema просто не проверяет формат «iri». Этот плагин грузится раньше nbval (-p).
sys.modules.setdefault("rfc3987_syntax", None)

MAX_LINES = 8


def _texts(item, outputs):
    """Выводы ячейки так, как их сравнивает nbval: ключ (поток или MIME-тип) -> очищенный текст."""
    from nbval.plugin import coalesce_streams, transform_streams_for_comparison

    skip = item.parent.skip_compare
    texts = {}
    for output in transform_streams_for_comparison(coalesce_streams(list(outputs))):
        for key, value in output.items():
            if key in skip:
                continue
            parts = value.items() if key == "data" else [(key, value)]
            for name, part in parts:
                if name not in skip:
                    text = item.sanitize(part)
                    texts.setdefault(name, []).append(text if isinstance(text, str) else json.dumps(text))
    return {key: "\n".join(values) for key, values in texts.items()}


def _first_differences(item):
    """Первые строки, которыми новый вывод отличается от сохранённого ('- ' было, '+ ' стало)."""
    if item.test_outputs is None:
        return []
    errors = [o for o in item.test_outputs if o.get("output_type") == "error"]
    if errors:
        return [f"! исключение {errors[0]['ename']}: {errors[0]['evalue']}"[:300]]
    reference, fresh = _texts(item, item.cell.outputs), _texts(item, item.test_outputs)
    lines = []
    for key in sorted(set(reference) | set(fresh)):
        if key not in fresh:
            lines.append(f"! нет вывода {key} (в тетрадке он есть)")
        elif key not in reference:
            lines.append(f"! лишний вывод {key}: {fresh[key].splitlines()[:1]}")
        elif reference[key] != fresh[key]:
            diff = difflib.unified_diff(reference[key].splitlines(), fresh[key].splitlines(), lineterm="", n=0)
            changed = [line for line in diff if line[:1] in "-+" and line[:3] not in ("---", "+++")]
            lines += [f"{line[0]} [{key}] {line[1:]}"[:300] for line in changed] or [f"! [{key}] различаются пробелы"]
    return lines[:MAX_LINES]


class Recorder:
    def __init__(self, path):
        self.path, self.cells, self.errors = path, [], []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if not hasattr(item, "cell_num"):
            return
        if report.when == "call" or (report.when == "setup" and report.failed):
            entry = {"cell": item.cell_num, "outcome": report.outcome, "when": report.when,
                     "first_line": next((s for s in item.cell.source.splitlines() if s.strip()), "")[:120]}
            if report.failed:
                entry["diff"] = _first_differences(item) or [str(call.excinfo.value).splitlines()[0][:300]]
            self.cells.append(entry)

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(str(report.longrepr)[-2000:])

    def pytest_sessionfinish(self, session):
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump({"cells": self.cells, "errors": self.errors}, f, ensure_ascii=False, indent=1)


def pytest_configure(config):
    path = os.environ.get("NBVAL_REPORT")
    if path:
        config.pluginmanager.register(Recorder(path), "nbval_report_recorder")

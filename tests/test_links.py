"""Ссылки курса ведут туда, где что-то есть: файл существует, а #якорь — заголовок в нём.

Читаются markdown-ячейки уроков (lessons/NN_*.py), README.md, MAINTAINERS.md, TEACHERS.md и страницы
lessons/*.md (глоссарий, шпаргалка по формам). Якорь сверяется, как его строит GitHub: заголовок в нижнем
регистре, без знаков препинания, пробелы — дефисы, повтор заголовка получает -1, -2, …
У тетрадки (.ipynb) заголовки берутся из её markdown-ячеек.
"""

import collections
import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"

FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:id|name)=\"([^\"]+)\"", re.I)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)      # https:, mailto:, …


def lesson_markdown(path):
    """Текст markdown-ячеек урока в формате jupytext percent: строки после `# %% [markdown]` без «# »."""
    cells, current = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            current = [] if "[markdown]" in line else None
            if current is not None:
                cells.append(current)
        elif current is not None:
            current.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
    return "\n\n".join("\n".join(cell) for cell in cells)


def notebook_markdown(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def markdown_of(path):
    if path.suffix == ".ipynb":
        return notebook_markdown(path)
    if path.suffix == ".py":
        return lesson_markdown(path)
    return path.read_text(encoding="utf-8")


def prose(text):
    """Markdown без блоков кода, `кода` и формул: ссылки и заголовки ищем только в тексте."""
    return INLINE_CODE.sub("", MATH.sub("", FENCE.sub("", text)))


def slug(heading):
    """Якорь заголовка, как у GitHub: `## Три роли: query, key, value` -> `три-роли-query-key-value`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)          # ссылка в заголовке -> её текст
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)                               # \w — и кириллица, и цифры, и _
    return text.replace(" ", "-")


def anchors(path):
    """Все якоря файла: по заголовкам (с -1, -2 у повторов) и по <a id="…">."""
    text = FENCE.sub("", markdown_of(path))
    seen, result = collections.Counter(), set(HTML_ANCHOR.findall(text))
    for heading in HEADING.findall(text):
        base = slug(heading)
        result.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
        seen[base] += 1
    return result


def links(text):
    text = prose(text)
    return INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)


def broken_links(path):
    """Список (ссылка, что не так) для одного файла с markdown."""
    problems = []
    for target in links(markdown_of(path)):
        if not target or EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            problems.append((target, f"нет файла {linked}"))
        elif anchor and linked.is_file():
            found = anchors(linked)
            if anchor not in found:
                problems.append((target, f"в {linked.name} нет заголовка с якорем #{anchor}; есть: {sorted(found)}"))
    return problems


SOURCES = [ROOT / "README.md", ROOT / "MAINTAINERS.md", ROOT / "TEACHERS.md",
           *sorted(LESSONS.glob("[0-9][0-9]_*.py")), *sorted(LESSONS.glob("*.md"))]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_point_at_files_and_headings(path):
    assert path.exists(), f"{path} пропал"
    problems = broken_links(path)
    assert not problems, f"{path.relative_to(ROOT)}: битые ссылки:\n" + "\n".join(f"  {t}: {why}" for t, why in problems)


def test_glossary_and_shapes_are_linked_from_readme_and_first_lessons():
    readme = links(markdown_of(ROOT / "README.md"))
    assert "lessons/glossary.md" in readme and "lessons/shapes.md" in readme
    assert "MAINTAINERS.md" in readme, "README должен вести к документу для преподавателей и авторов"
    for lesson in ["00_start_here.py", "01_embeddings.py", "02_soft_search.py"]:
        found = links(lesson_markdown(LESSONS / lesson))
        assert "glossary.md" in found and "shapes.md" in found, f"{lesson}: нет ссылки на глоссарий или шпаргалку"


def test_readme_lists_every_lesson():
    """Таблица уроков в README — та, с которой ученик начинает: новый урок без строки в ней не найти."""
    listed = set(links(markdown_of(ROOT / "README.md")))
    lessons = [f"lessons/{p.stem}.ipynb" for p in sorted(LESSONS.glob("[0-9][0-9]_*.py"))]
    assert lessons, "уроков не нашлось"
    assert not [name for name in lessons if name not in listed], (
        f"в таблице уроков README нет: {[name for name in lessons if name not in listed]}")


def test_slugs_like_github():
    assert slug("Три роли: query, key, value") == "три-роли-query-key-value"
    assert slug("`forward` и `_split`: читаем код") == "forward-и-_split-читаем-код"
    assert slug("Шаг 1. Считаем соседей") == "шаг-1-считаем-соседей"
    assert slug("Маска — только до softmax") == "маска--только-до-softmax"      # «—» пропал, пробелы остались


def test_checker_finds_broken_links(tmp_path):
    """Сам тест ловит битую ссылку: в файле, якоре .md, якоре тетрадки; живые ссылки не трогает."""
    notebook = {"cells": [{"cell_type": "markdown", "source": ["## Первый шаг\n", "текст"]},
                          {"cell_type": "code", "source": ["# ## Не заголовок\n"], "outputs": []}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "lesson.ipynb").write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "other.md").write_text("# Шпаргалка\n\n## Формы (N, T, D)\n\n## Формы (N, T, D)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Глоссарий\n\n"
        "[живая](other.md) [якорь](other.md#формы-n-t-d) [повтор](other.md#формы-n-t-d-1) "
        "[тетрадка](lesson.ipynb#первый-шаг) [свой](#глоссарий) [сайт](https://example.org/x#y)\n\n"
        "[нет файла](missing.md) [нет якоря](other.md#нет-такого) [код не заголовок](lesson.ipynb#не-заголовок)\n\n"
        "`[в коде](ignored.md)`\n\n```\n[в блоке](ignored_too.md)\n```\n",
        encoding="utf-8")
    assert [target for target, _ in broken_links(page)] == ["missing.md", "other.md#нет-такого",
                                                            "lesson.ipynb#не-заголовок"]


def test_lesson_markdown_reads_only_markdown_cells(tmp_path):
    lesson = tmp_path / "99_x.py"
    lesson.write_text("# %% [markdown]\n# ## Раздел\n# [ссылка](nowhere.md)\n\n# %%\nx = 1  # [не ссылка](a.md)\n",
                      encoding="utf-8")
    assert [t for t, _ in broken_links(lesson)] == ["nowhere.md"]
    assert anchors(lesson) == {"раздел"}


def test_links_resolve_in_the_learners_copy(tmp_path):
    """`make lab` открывает копию work/: ссылки уроков на глоссарий и шпаргалку должны работать и там."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import workspace
    finally:
        sys.path.remove(str(ROOT / "tools"))
    work = tmp_path / "work"
    workspace.prepare(work, LESSONS)
    notebooks = sorted(work.glob("[0-9][0-9]_*.ipynb"))
    assert notebooks and (work / "glossary.md").exists() and (work / "shapes.md").exists()
    problems = {p.name: broken_links(p) for p in [*notebooks, work / "glossary.md", work / "shapes.md"]}
    assert not any(problems.values()), f"в work/ битые ссылки: { {k: v for k, v in problems.items() if v} }"

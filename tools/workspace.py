"""Рабочая копия уроков: `make lab` открывает work/, а lessons/ остаётся таким, как в git.

    .venv/bin/python tools/workspace.py             # make lab: создать work/ и докопировать новые уроки
    .venv/bin/python tools/workspace.py --fresh 03  # make fresh LESSON=03: урок 03 заново

Скрипт берёт только стандартную библиотеку Python, поэтому годится любой python3 — из .venv,
из conda-окружения или системный: ему не нужно ничего, что ставит `make lab`.

Ученик правит и сохраняет тетрадки в work/ (папка в .gitignore): его изменения не попадают
в git, а `make test` сверяет выводы уроков из lessons/, а не его. Уже скопированный урок
никогда не перезаписывается; `--fresh` кладёт прежнюю копию в work/backup/ и берёт урок заново.
В work/ только .ipynb: свой jupytext.toml отключает пары, и сохранение не создаёт .py.
"""

import argparse
import datetime
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
WORK = ROOT / "work"

# Ближайший jupytext.toml главнее корневого (в корне: пары ipynb + py для авторов курса).
JUPYTEXT_TOML = """\
# Рабочая копия ученика: только .ipynb, без пары .py (её делает jupytext.toml в корне для lessons/).
formats = "ipynb"
"""


def lessons(source=LESSONS):
    return sorted(pathlib.Path(source).glob("[0-9][0-9]_*.ipynb"))


def documents(source=LESSONS):
    """Страницы, на которые ссылаются уроки (glossary.md, shapes.md): без них ссылки в work/ не откроются."""
    return sorted(pathlib.Path(source).glob("*.md"))


def prepare(work=WORK, source=LESSONS):
    """Создаёт work/ и копирует в неё уроки (и их .md-страницы), которых там ещё нет; -> список скопированных."""
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    config = work / "jupytext.toml"
    if not config.exists():
        config.write_text(JUPYTEXT_TOML, encoding="utf-8")
    marker = work / ".course-work"              # по ней проверки узнают work/ и пишут вердикты для учителя
    if not marker.exists():
        marker.write_text('{"course": "attention-bez-magii"}\n', encoding="utf-8")
    copied = []
    for lesson in [*lessons(source), *documents(source)]:
        target = work / lesson.name
        if not target.exists():
            shutil.copy2(lesson, target)
            copied.append(target)
    for page in documents(source):              # справочные страницы, не уроки: всегда свежие
        shutil.copy2(page, work / page.name)
    return copied


def summary(copied):
    """«скопировано уроков: 11, страниц: 2» — уроки (.ipynb) и страницы (.md) считаются отдельно."""
    lesson_count = sum(1 for p in copied if pathlib.Path(p).suffix == ".ipynb")
    page_count = sum(1 for p in copied if pathlib.Path(p).suffix == ".md")
    return f"скопировано уроков: {lesson_count}, страниц: {page_count}"


def find_lesson(name, source=LESSONS):
    """Урок по номеру («3», «03»), имени («03_self_attention») или имени файла."""
    stem = pathlib.Path(str(name)).stem
    matches = [p for p in lessons(source)
               if p.stem == stem or (stem.isdigit() and p.name[:2] == f"{int(stem):02d}")]
    if len(matches) != 1:
        known = ", ".join(p.stem for p in lessons(source))
        raise ValueError(f"урок «{name}» не найден: укажите номер или имя одного из уроков ({known})")
    return matches[0]


def fresh(name, work=WORK, source=LESSONS, now=None):
    """Урок заново из lessons/; прежняя копия ученика (если была) — в work/backup/. -> (урок, копия или None)."""
    lesson, work = find_lesson(name, source), pathlib.Path(work)
    prepare(work, source)
    target, backup = work / lesson.name, None
    if target.read_bytes() != lesson.read_bytes():
        stamp = (now or datetime.datetime.now()).strftime("%Y-%m-%d-%H%M%S")
        backup = work / "backup" / f"{lesson.stem}-{stamp}.ipynb"
        backup.parent.mkdir(exist_ok=True)
        shutil.move(target, backup)
        shutil.copy2(lesson, target)
    return target, backup


def _show(path):
    try:
        return str(path.relative_to(pathlib.Path.cwd()))
    except ValueError:
        return str(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Рабочая копия уроков в work/")
    parser.add_argument("--work", type=pathlib.Path, default=WORK, help="папка рабочей копии (по умолчанию work/)")
    parser.add_argument("--fresh", metavar="УРОК", help="начать урок заново: номер (03) или имя")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    if args.fresh:
        try:
            target, backup = fresh(args.fresh, work)
        except ValueError as error:
            print(f"make fresh: {error}", file=sys.stderr)
            return 2
        print(f"{_show(target)} — снова как в курсе" +
              (f"; ваша прежняя копия: {_show(backup)}" if backup else " (вы его ещё не меняли)"))
        return 0
    copied = prepare(work)
    if copied:
        print(f"Ваши тетрадки — в {_show(work)}/ ({summary(copied)}). Там их можно менять и сохранять;")
        print("lessons/ остаётся как в курсе. Начать урок заново: make fresh LESSON=03")
    return 0


if __name__ == "__main__":
    sys.exit(main())

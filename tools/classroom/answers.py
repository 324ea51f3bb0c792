"""Ответы для учителя отдельно от уроков: по странице на урок — задание, проверка и решение каждого упражнения.

    .venv/bin/python -m tools.classroom.answers                  # make answers: class/answers/NN_slug.md
    .venv/bin/python -m tools.classroom.answers --out DIR --lessons 02 03

Страницы собираются из самих уроков (ячейки с меткой `solution`, см. exercise_cells.py), так что правка
урока попадает в ответы при следующем `make answers`. Папка — только для владельца (0700, файлы 0600):
на сервере класса ученики могут читать репозиторий курса, а ответы — нет.
"""

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:                     # запуск файлом, а не через -m
    sys.path.insert(0, str(ROOT))

import course_lib.exercises as checkers  # noqa: E402
from tools.classroom import exercise_cells  # noqa: E402
from tools.workspace import LESSONS, lessons  # noqa: E402

OUT = ROOT / "class" / "answers"


def title(notebook):
    """«Урок 02. Внимание как мягкий поиск» — первая строка первой markdown-ячейки."""
    first = next(exercise_cells.source(c) for c in notebook["cells"] if c["cell_type"] == "markdown")
    return first.splitlines()[0].lstrip("# ").strip()


def checker_file(name):
    module = sys.modules[getattr(checkers, name).__module__]
    return pathlib.Path(module.__file__).resolve().relative_to(ROOT).as_posix()


def _code(text):
    return f"```python\n{text.strip()}\n```"


def page(path):
    """Markdown-страница ответов к уроку `path` (.ipynb); None, если упражнений в уроке нет."""
    notebook, lesson = exercise_cells.read(path), exercise_cells.lesson_number(path)
    found = exercise_cells.exercises(notebook, lesson)
    if not found:
        return None
    parts = [f"# Ответы: {title(notebook)}",
             f"Собрано из `lessons/{pathlib.Path(path).name}` командой `make answers` — правьте урок, а не эту "
             "страницу. Ученикам её не показывайте."]
    for number, exercise in enumerate(found, 1):
        check = getattr(checkers, exercise.checker)
        parts += [f"## {number}. `{exercise.function}` — проверка `{exercise.checker}`",
                  "### Задание",
                  "\n".join("> " + line if line else ">" for line in exercise.task.splitlines()),
                  "### Ячейка ученика",
                  _code(exercise_cells.source(notebook["cells"][exercise.learner_cell])),
                  "### Проверка",
                  f"`{exercise.checker}` из `{checker_file(exercise.checker)}`: {(check.__doc__ or '').strip()} "
                  "Печатает ✅, ❌ с подсказкой или ⏳, если в функции ещё стоит `raise NotImplementedError`.",
                  "### Решение",
                  _code(exercise_cells.source(notebook["cells"][exercise.solution_cell]))]
    return "\n\n".join(parts) + "\n"


def _private_file(path, text):
    """Файл только для владельца (0600), даже если он уже был с другими правами."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)


def write(out=OUT, numbers=None, source=LESSONS):
    """Пишет страницы ответов в `out` (0700) -> список страниц. numbers — номера уроков («02»), None — все."""
    out = pathlib.Path(out)
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(out, 0o700)
    chosen = [p for p in lessons(source) if numbers is None or exercise_cells.lesson_number(p) in numbers]
    unknown = set(numbers or ()) - {exercise_cells.lesson_number(p) for p in chosen}
    if unknown:
        raise ValueError(f"нет уроков с номерами {sorted(unknown)}: номера — две цифры, как в lessons/ (02, 10)")
    written, index = [], ["# Ответы к упражнениям курса", "Только для учителя: `make answers` собирает их из уроков.", ""]
    for path in chosen:
        text = page(path)
        if text is not None:
            target = out / f"{path.stem}.md"
            _private_file(target, text)
            written.append(target)
            index.append(f"- [{title(exercise_cells.read(path))}]({target.name})")
    _private_file(out / "README.md", "\n".join(index) + "\n")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description="Ответы к упражнениям — отдельно от уроков, только для учителя")
    parser.add_argument("--out", type=pathlib.Path, default=OUT, help="папка ответов (по умолчанию class/answers/)")
    parser.add_argument("--lessons", nargs="+", metavar="NN", help="номера уроков (по умолчанию все): 02 03")
    args = parser.parse_args(argv)
    try:
        written = write(args.out, args.lessons)
    except ValueError as error:
        print(f"make answers: {error}", file=sys.stderr)
        return 2
    print(f"Ответы — в {args.out}/ ({len(written)} уроков, папка только для вас: права 0700). "
          "Ученикам их не давайте; на сервере класса репозиторий курса им виден, ответы — нет.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

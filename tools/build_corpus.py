"""Корпус урока 10: русский текст самих уроков курса -> course_lib/props/data/lessons_ru.txt.

Маленький GPT урока 10 учится на прозе этого курса: берём текстовые (markdown) ячейки
lessons/NN_*.py по порядку номеров, снимаем с каждой строки знак комментария «# » и
разделяем ячейки пустой строкой. Код, вывод и картинки не попадают. Ничего не взято из книг
или из сети: всё, что в файле, написано для курса.

    .venv/bin/python tools/build_corpus.py          # перезаписать корпус
    .venv/bin/python tools/build_corpus.py --check  # только сравнить с тем, что лежит

Результат зависит только от текста уроков: тот же текст — тот же файл, байт в байт.
Меняется проза уроков — меняется и корпус (и обученный на нём чекпойнт: tools/train_gpt_checkpoint.py).
"""

import argparse
import pathlib
import sys

from course_lib.russian import number

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
OUT = ROOT / "course_lib" / "props" / "data" / "lessons_ru.txt"


def markdown_cells(source):
    """Текстовые ячейки урока в формате jupytext percent: список строк-ячеек без «# »."""
    cells, current = [], None
    for line in source.splitlines():
        if line.startswith("# %%"):
            if current is not None:
                cells.append("\n".join(current).strip("\n"))
            current = [] if "[markdown]" in line else None
        elif current is not None:
            if line == "#" or line.startswith("# "):
                current.append(line[2:])
            elif line.strip():                       # строка кода в markdown-ячейке не бывает: ячейка кончилась
                cells.append("\n".join(current).strip("\n"))
                current = None
    if current is not None:
        cells.append("\n".join(current).strip("\n"))
    return [cell for cell in cells if cell]


def build_corpus(lessons=LESSONS):
    """Весь корпус одной строкой: ячейки уроков lessons/NN_*.py по порядку, через пустую строку."""
    paths = sorted(pathlib.Path(lessons).glob("[0-9][0-9]_*.py"))
    cells = [cell for path in paths for cell in markdown_cells(path.read_text(encoding="utf-8"))]
    return "\n\n".join(cells) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="не писать, а сравнить с лежащим файлом")
    args = parser.parse_args(argv)
    text = build_corpus()
    summary = f"{number(len(text))} символов, {len(set(text))} разных"
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.relative_to(ROOT)}: {'совпадает' if same else 'устарел'} с уроками ({summary})")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"записано {OUT.relative_to(ROOT)}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

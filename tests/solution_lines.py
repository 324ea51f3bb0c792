"""Строки решений уроков и поиск их в файлах: общая часть тестов «у ученика нет ответов».

Решение — кодовая ячейка урока с меткой `solution`. Его строка нормализуется: без комментария, без пробелов,
HTML-сущности раскрыты (`&lt;` → `<`: так строки выглядят в выводах text/html). Короткие строки (меньше
MIN_LENGTH знаков: `return x`, `m = m_new`) и общие строки GENERIC ничего не выдают. Не секрет и строка, которую ученик и так видит
в своей копии урока: ячейки без метки и их выводы (урок 06 сам печатает `_split` и `_merge`, урок 08 —
`online_softmax_step`: урок показывает их как образец, упражнение — повторить) — «показанное».
Секрет — остальные строки: их нет ни в одной показанной ученику ячейке, и в файле, который ученик
может прочитать, их быть не должно.

Файл запускается и сам, от имени ученика (тест tests/test_class_learner_side.py):
    python - ХЭШИ ПАПКА... < tests/solution_lines.py
обходит всё, что запись может прочитать в ПАПКАХ, и печатает JSON: hits {путь: [хэш, …]} найденных строк, files —
сколько файлов прочитано, paths — прочитанные пути (без окружений .venv*).
Ему передаются только хэши секретных строк, не сами строки: так тест не раздаёт ответы сам.
"""

import hashlib
import html
import io
import json
import os
import pathlib
import re
import sys
import tokenize

MIN_LENGTH = 16
SOLUTION_TAG = "solution"           # как tools/workspace.SOLUTION_TAG (файл запускается и без tools/)
COMMENT = re.compile(r"#.*$")
RETURN = re.compile(r"^\s*return\s+")
# Строки решений, которые ничего не выдают: шаги цикла обучения урок 07 сам перечисляет и выполняет по одному
# (optimizer.zero_grad(), loss_fn(model), backward, step — перед упражнением), а `for _ in range(steps):` —
# любой цикл. Их держат и библиотека (props/training.py — цикл обучения курса), и benchmarks.
GENERIC = {"for_inrange(steps):", "loss=loss_fn(model)", "losses.append(loss.item())"}


def normalise(line):
    """Строка без комментария, без `return` в начале и без пробелов, HTML-сущности раскрыты:
    «return x @ w  # b» -> «x@w»."""
    return re.sub(r"\s+", "", RETURN.sub("", COMMENT.sub("", html.unescape(line))))


def text_lines(text):
    """{normalise(строка)} по всем строкам текста — тем же преобразованием, но над всем текстом сразу (быстрее)."""
    text = html.unescape(text)
    text = re.sub(r"#.*$", "", text, flags=re.M)
    text = re.sub(r"^[^\S\n]*return[^\S\n]+", "", text, flags=re.M)
    return set(re.sub(r"[^\S\n]+", "", text).splitlines())


def digest(line):
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def _text(value):
    return "".join(value) if isinstance(value, list) else str(value)


def strings(value):
    """Все строки JSON-значения (списки строк ячеек склеены): источники, выводы, метаданные."""
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        yield "".join(value)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


def is_solution(cell):
    return SOLUTION_TAG in cell.get("metadata", {}).get("tags", [])


def lesson_split(notebook):
    """-> (строки решений, показанные строки) одной тетрадки (словарь JSON)."""
    solution, shown = set(), set()
    for cell in notebook["cells"]:
        if is_solution(cell):
            if cell["cell_type"] == "code":
                solution |= text_lines(_text(cell["source"]))
        else:
            for text in strings(cell):
                shown |= text_lines(text)
    return solution, shown


def secret_lines(lessons):
    """Секретные строки решений: {нормализованная строка: урок} по тетрадкам lessons (пути .ipynb)."""
    solutions, shown = {}, set()
    for path in sorted(lessons):
        solution, seen = lesson_split(json.loads(pathlib.Path(path).read_text(encoding="utf-8")))
        shown |= seen
        for line in solution:
            solutions.setdefault(line, pathlib.Path(path).name)
    return {line: lesson for line, lesson in solutions.items()
            if len(line) >= MIN_LENGTH and line not in shown and line not in GENERIC}


def code_lines(text):
    """Нормализованные строки кода Python без строковых литералов (строка -> `""`) и без `return` в начале:
    подсказки проверок называют куски ответа нарочно (их ученик видит после ошибки), а код — нет."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines = {}
    strings_types = {tokenize.STRING} | {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE",
                                                                          "FSTRING_END") if hasattr(tokenize, n)}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in skip:
            continue
        part = '""' if token.type in strings_types else token.string
        lines.setdefault(token.start[0], []).append(part)
    code = set()
    for parts in lines.values():
        if parts and parts[0] == "return":
            parts = parts[1:]
        code.add(re.sub(r'(""){2,}', '""', "".join(parts)))
    return code


def file_lines(path):
    """Нормализованные строки файла: у .ipynb — всех строк JSON (и выводов), у остальных — текста. None — не текст."""
    with open(path, "rb") as source:
        data = source.read(4096)
        if b"\0" in data:                       # двоичный файл (.so, .pyc, .npz): строк кода в нём нет
            return None
        data += source.read()
    return file_lines_of_text(data.decode("utf-8", errors="replace"), notebook=str(path).endswith(".ipynb"))


def file_lines_of_text(text, notebook=False):
    """Нормализованные строки текста; у тетрадки (notebook=True) — ещё и каждой строки её JSON."""
    lines = text_lines(text)
    if notebook:
        try:
            for value in strings(json.loads(text)):
                lines |= text_lines(value)
        except ValueError:
            pass
    return lines


def walk(folders):
    """Все файлы в folders, которые можно прочитать (папки, куда не войти, пропускаются). -> пути."""
    for folder in folders:
        for top, dirs, files in os.walk(folder, onerror=lambda error: None):
            dirs[:] = [d for d in dirs if os.access(os.path.join(top, d), os.R_OK | os.X_OK)
                       and not os.path.islink(os.path.join(top, d))]
            for name in files:
                path = os.path.join(top, name)
                if os.path.isfile(path) and os.access(path, os.R_OK):
                    yield path


def found(hashes, folders):
    """{путь: [хэши секретных строк в нём]} по всему, что можно прочитать в folders."""
    hits = {}
    for path in walk(folders):
        try:
            lines = file_lines(path)
        except OSError:
            continue
        matched = sorted({digest(line) for line in lines or ()} & hashes)
        if matched:
            hits[path] = matched
    return hits


if __name__ == "__main__":
    wanted = set(json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8")))
    readable = list(walk(sys.argv[2:]))
    print(json.dumps({"hits": found(wanted, sys.argv[2:]), "files": len(readable),
                      "paths": [p for p in readable if "/.venv" not in p]}))

"""Одна папка work/ ученика для `make results`: записи вердиктов и ячейки упражнений в тетрадках.

Сборщик идёт от root по папкам учеников, а всё, что в них лежит, написал ученик. Поэтому файлы открываются
без перехода по ссылкам (O_NOFOLLOW), только обычные и не больше предела; каждая строка записи разбирается
как JSON и сверяется по полям; ничего не исполняется (ни pickle, ни eval — ячейки только компилируются,
чтобы найти ошибку синтаксиса). Испорченное называется по-русски (ученик, файл, строка) и пропускается,
остальное собирается.

Записи — из одного из двух мест. На сервере класса — из спула службы class-verdicts
(<state>/verdicts/<ученик>.jsonl, tools/classroom/verdicts.py): каждая строка подписана, строка, чья подпись
не сошлась, не засчитывается и помечается; файл work/.verdicts.jsonl ученика там не читается — его ученик
может править. С ноутбуков (FROM=) — из work/.verdicts.jsonl: подписи у таких записей нет.
"""

import dataclasses
import datetime
import errno
import json
import math
import os
import re
import stat
import warnings

from course_lib.exercises import BY_LESSON
from course_lib.exercises._record import RECORD
from tools.classroom import verdicts
from tools.classroom.results_page import FORGED

RECORD_LIMIT = 8 * 2**20            # ≈ 25 тысяч вердиктов по ≈ 300 байт: больше ученик не набьёт за курс
NOTEBOOK_LIMIT = 64 * 2**20         # урок с картинками — до 0.6 МБ; запас на выводы ученика
SHOWN_BAD_LINES = 5                 # сколько испорченных строк одной записи назвать по номеру
STATUSES = ("solved", "wrong", "not_started")
FIELDS = ("lesson", "exercise", "status", "message", "time", "answer")
LESSON_OF = {name: lesson for lesson, names in BY_LESSON.items() for name in names}
CALL = re.compile(r"\b(check_\w+)\s*\(\s*(\w*)")           # check_softmax(my_softmax
NOTEBOOK = re.compile(r"[0-9][0-9]_.+\.ipynb")


class Refused(Exception):
    """Файл или папку не прочитать; текст — почему, по-русски."""


@dataclasses.dataclass
class Work:
    """Что собрано у одного ученика."""
    learner: str
    records: list = dataclasses.field(default_factory=list)        # верные записи, в порядке файла
    broken_cells: dict = dataclasses.field(default_factory=dict)   # упражнение -> «ошибка синтаксиса в …»
    problems: list = dataclasses.field(default_factory=list)
    signed: bool = False                                           # записи из спула службы, подпись сверена
    forged: dict = dataclasses.field(default_factory=dict)         # упражнение -> строк с несошедшейся подписью


def read_work(learner, path, state=None, secret=None):
    """Записи и тетрадки из папки `path` (work/ ученика) -> Work; саму папку не открыть -> Refused.

    state и secret (сервер класса): записи — из спула службы в state, каждая сверяется с подписью;
    без них (FROM=) — из work/.verdicts.jsonl, без подписи.
    """
    try:
        folder = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:                        # ссылка на папку с O_DIRECTORY даёт ENOTDIR, а не ELOOP
        why = _reason(error) if not os.path.islink(path) else _reason(OSError(errno.ELOOP, "ссылка"))
        raise Refused(f"{learner}: папку {path} не открыть — {why}") from None
    work = Work(learner, signed=state is not None)
    try:
        if state is not None:
            _spool(work, state, secret)
        else:
            try:
                data = _read(folder, RECORD)
            except Refused as why:
                work.problems.append(f"{learner}: work/{RECORD} — {why}; вердикты этого ученика не собраны")
            else:
                _records(work, data or b"")
        try:
            names = sorted(name for name in os.listdir(folder) if NOTEBOOK.fullmatch(name))
        except OSError as error:
            work.problems.append(f"{learner}: список тетрадок в {path} не прочитать — {_reason(error)}")
            names = []
        for name in names:
            _notebook(work, folder, name)
    finally:
        os.close(folder)
    return work


def _read(folder, name):
    """Байты файла `name` из открытой папки; нет файла -> None; ссылка, не обычный файл, слишком большой -> Refused."""
    limit = NOTEBOOK_LIMIT if name.endswith(".ipynb") else RECORD_LIMIT
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Refused(_reason(error)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused("не обычный файл (папка, канал или устройство) — такие не читаю")
        if info.st_size > limit:
            raise Refused(f"размер {_size(info.st_size)}, а читаю не больше {_size(limit)}")
        chunks, left = [], limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 2**20))):
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise Refused(f"файл растёт во время чтения и уже больше {_size(limit)}")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _spool(work, state, secret):
    """Подписанные записи ученика из спула службы class-verdicts; нет спула — ученик ещё ничего не проверял."""
    path = verdicts.spool_path(state, work.learner)
    if secret is None:                  # секрета нет: make results говорит это один раз на весь класс
        return
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as error:
        work.problems.append(f"{work.learner}: спул вердиктов {path.parent} — {_reason(error)}; вердикты не собраны")
        return
    try:
        data = _read(folder, path.name)
    except Refused as why:
        work.problems.append(f"{work.learner}: спул вердиктов {path} — {why}; вердикты этого ученика не собраны")
        return
    finally:
        os.close(folder)
    _records(work, data or b"", where=f"спул {path}", secret=secret)


def _records(work, data, where=f"work/{RECORD}", secret=None):
    bad = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            entry = _entry(raw)
            if secret is not None and not verdicts.signature_ok(secret, json.loads(raw), work.learner):
                work.forged[entry["exercise"]] = work.forged.get(entry["exercise"], 0) + 1
                bad.append(f"{work.learner}: {where}, строка {number} — {FORGED}: строку изменили после записи "
                           f"или она не этого ученика; не засчитана")
                continue
        except ValueError as why:
            if secret is not None:                # в спуле службы испорченная строка — тоже подделка
                work.forged[None] = work.forged.get(None, 0) + 1
            bad.append(f"{work.learner}: {where}, строка {number} — {why}; строка пропущена")
        else:
            if not entry["answer"].endswith("_solution"):     # решения курса — не ответ ученика
                work.records.append(entry)
    work.problems += bad[:SHOWN_BAD_LINES]
    if len(bad) > SHOWN_BAD_LINES:
        work.problems.append(f"{work.learner}: {where} — и ещё испорченных строк: {len(bad) - SHOWN_BAD_LINES}")


def _json(data, broken):
    """Байты чужого файла -> значение JSON; не UTF-8 или не JSON -> ValueError по-русски (broken — что сказать)."""
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("не текст в UTF-8") from None
    except (ValueError, RecursionError):
        raise ValueError(broken) from None


def _entry(raw):
    """Одна строка записи -> словарь из полей FIELDS; что не так -> ValueError с текстом по-русски."""
    entry = _json(raw, "не JSON: запись оборвана или испорчена")
    if not isinstance(entry, dict):
        raise ValueError(f"ожидался объект {{…}}, а пришло {_short(entry)}")
    for field in FIELDS:
        if not isinstance(entry.get(field), str):
            raise ValueError(f"поле «{field}»: ожидался текст, а пришло {_short(entry.get(field))}")
    if entry["status"] not in STATUSES:
        raise ValueError(f"поле «status»: ожидалось одно из {', '.join(STATUSES)}, а пришло {_short(entry['status'])}")
    if LESSON_OF.get(entry["exercise"]) != entry["lesson"]:
        raise ValueError(f"упражнения {_short(entry['exercise'])} в уроке {_short(entry['lesson'])} в курсе нет")
    try:
        datetime.datetime.fromisoformat(entry["time"])
    except ValueError:
        raise ValueError(f"поле «time»: ожидалось время ISO 8601, а пришло {_short(entry['time'])}") from None
    return {field: entry[field] for field in FIELDS}


def _notebook(work, folder, name):
    try:
        data = _read(folder, name)
        cells = _cells(data)
    except (Refused, ValueError) as why:
        work.problems.append(f"{work.learner}: тетрадка work/{name} — {why}; тетрадка пропущена")
        return
    for index, (kind, source) in enumerate(cells, 1):
        exercises = [check for check, argument in CALL.findall(source)
                     if check in LESSON_OF and not argument.endswith("_solution")]
        error = _syntax_error(source) if kind == "code" and exercises else None
        if error:
            line, text = error
            note = f"тетрадка {name}, ячейка {index}, строка {line}: ошибка синтаксиса — {text}"
            work.problems.append(f"{work.learner}: {note}")
            for check in exercises:
                work.broken_cells.setdefault(check, note)


def _cells(data):
    """Ячейки тетрадки -> [(тип, текст)]; не тетрадка -> ValueError с текстом по-русски."""
    if data is None:
        raise ValueError("файл исчез во время чтения")
    notebook = _json(data, "не читается как JSON (оборвана или испорчена)")
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError("в ней нет списка ячеек «cells» — это не тетрадка Jupyter")
    found = []
    for index, cell in enumerate(cells, 1):
        source = cell.get("source") if isinstance(cell, dict) else None
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str) or not isinstance(cell.get("cell_type"), str):
            raise ValueError(f"ячейка {index} без типа или текста — это не тетрадка Jupyter")
        found.append((cell["cell_type"], source))
    return found


def _syntax_error(source):
    """(строка, что не так), если ячейка не компилируется; строки-команды IPython (%, !) пропускаются."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")                   # SyntaxWarning ученика — не наша забота
            compile(code, "<ячейка>", "exec", dont_inherit=True)
    except SyntaxError as error:
        return error.lineno or 1, error.msg
    except (ValueError, RecursionError, MemoryError):
        return 1, "код не разобрать (нулевые байты или слишком глубокая вложенность)"
    return None


def _reason(error):
    return {errno.ENOENT: "её нет", errno.ELOOP: "это символическая ссылка — по ссылкам не хожу",
            errno.ENOTDIR: "это не папка", errno.EACCES: "нет прав на чтение (соберите от root: sudo make results)",
            errno.EPERM: "нет прав на чтение (соберите от root: sudo make results)"}.get(error.errno, str(error))


def _short(value):
    """Значение из записи — коротко: строка и число как есть (до 40 знаков), остальное — словами."""
    if value is None:
        return "ничего (поля нет или null)"
    text = repr(value) if isinstance(value, (str, int, float)) else {dict: "объект {…}", list: "список […]"}.get(
        type(value), type(value).__name__)
    return text if len(text) <= 40 else text[:39] + "…"


def _size(count):
    """8 МБ + 1 байт -> «8.1 МБ»: размер округляется вверх, чтобы не совпасть с пределом."""
    return f"{math.ceil(count / 2**20 * 10) / 10:.1f} МБ" if count >= 2**20 else f"{count} байт"

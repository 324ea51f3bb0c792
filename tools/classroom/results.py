"""`make results`: вердикты учеников — в одну таблицу results/class.csv и страницу results/class.html.

    .venv/bin/python -m tools.classroom.results                         # ученики хаба: class/learners.txt
    .venv/bin/python -m tools.classroom.results --from anna boris       # папки, в каждой лежит work/
    .venv/bin/python -m tools.classroom.results --from anna/work boris/work   # или сами папки work/

Строка таблицы — ученик × упражнение (все упражнения BY_LESSON по порядку): status solved (своё решение
прошло проверку хоть раз), wrong (пробовал, не прошло), not_started (попыток нет); attempts — вызовы
проверки с ответом ученика (нетронутая заготовка с `raise NotImplementedError` — не попытка); message —
вердикт последней записи (последняя подсказка). Ученик — имя папки, в которой лежит work/ (на хабе — имя
учётной записи, work/ — в её домашней папке). Что не прочитать, называется по-русски и пропускается;
код выхода 0, если таблица записана, 2 — если не собрано ничего.

Откуда вердикты. Ученики хаба — из спула службы class-verdicts в class/state (--state): строки подписаны,
строка с несошедшейся подписью не засчитывается, а её упражнение помечено «⚠️ подпись не сошлась»; файл
work/.verdicts.jsonl ученика здесь не читается. Папки FROM= — из work/.verdicts.jsonl: подписи нет, и сводка
говорит это прямо (такие записи ученик мог править).
"""

import argparse
import csv
import io
import os
import pathlib
import re
import sys

from course_lib.exercises import BY_LESSON
from course_lib.exercises._record import MARKER, RECORD
from tools.classroom import verdicts
from tools.classroom.collect import FORGED, Refused, read_work
from tools.classroom.results_page import BROKEN, UNSIGNED, page

ROOT = pathlib.Path(__file__).resolve().parents[2]
LEARNERS = ROOT / "class" / "learners.txt"
STATE = ROOT / "class" / "state"
OUT = ROOT / "results"
COLUMNS = ("learner", "lesson", "exercise", "status", "attempts", "message")
ACCOUNT = re.compile(r"[a-z_][a-z0-9_-]{0,31}")         # имя учётной записи Linux (useradd без --badname)


def hub_learners(listing=LEARNERS):
    """Ученики хаба: имена из class/learners.txt -> ([(имя, их work/)], проблемы)."""
    import pwd          # здесь, а не наверху: модуль импортируют и там, где pwd нет (тесты на Windows)

    try:
        lines = pathlib.Path(listing).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return [], [f"нет списка учеников {listing} и не задан FROM: впишите учеников в {listing} (по имени в "
                    f"строке) или соберите папки с ноутбуков: make results FROM=\"папка1 папка2\""]
    except (OSError, UnicodeDecodeError) as error:
        return [], [f"список учеников {listing} не прочитать: {error}"]
    found, problems, seen, named = [], [], set(), 0
    for number, line in enumerate(lines, 1):
        name = line.split("#", 1)[0].strip()
        where = f"{pathlib.Path(listing).name}, строка {number}"
        if not name:
            continue
        named += 1
        if not ACCOUNT.fullmatch(name):
            problems.append(f"{where}: «{name}» не может быть именем учётной записи (строчные латинские буквы, "
                            f"цифры, _ и -, до 32 знаков, первая — буква или _); пропускаю")
        elif name in seen:
            problems.append(f"{where}: ученик «{name}» записан второй раз; беру его один раз")
        else:
            seen.add(name)
            try:
                found.append((name, pathlib.Path(pwd.getpwnam(name).pw_dir) / "work"))
            except KeyError:
                problems.append(f"{where}: учётной записи «{name}» на этой машине нет (её создаёт make class); "
                                f"пропускаю")
    if not named:
        problems.append(f"в {listing} нет ни одного ученика (по имени в строке; # — комментарий)")
    return found, problems


def folder_learners(folders):
    """Папки с ноутбуков -> ([(ученик, его work/)], проблемы).

    Папка — либо та, в которой лежит work/ (ученик — её имя), либо сама work/ (в ней отметка `.course-work`
    или имя work; ученик — имя папки над ней). Так `FROM="anna boris"` и `FROM="anna/work boris/work"` — одно.
    """
    found, problems, seen = [], [], {}
    if not folders:
        problems.append("FROM пуст: укажите папки учеников (в каждой лежит work/) или сами их папки work/: "
                        "make results FROM=\"anna boris\"")
    for folder in map(pathlib.Path, folders):
        absolute = pathlib.Path(os.path.abspath(folder))     # «.» и «anna/» — тоже имя папки; ссылку не раскрываем
        if not folder.is_dir():
            problems.append(f"папки {folder} нет (в FROM — папки учеников или их папки work/); пропускаю")
            continue
        if (folder / "work").is_dir():
            name, work = absolute.name, folder / "work"
        elif absolute.name == "work" or (folder / MARKER).is_file():
            # сама work/: ученик — папка над ней; переименованная work/ (anna-work/) — ученик по её имени
            name = absolute.parent.name if absolute.name == "work" else absolute.name
            work = folder
        else:
            problems.append(f"в папке {folder} нет work/ ученика (и сама она не work/: в ней нет отметки "
                            f"{MARKER}, которую кладёт make lab); пропускаю")
            continue
        if not name:                                      # «/» или «/work»: папки над ней нет
            problems.append(f"у папки {folder} не понять имя ученика: положите её в папку с именем ученика "
                            f"(anna/work); пропускаю")
        elif name in seen and os.path.realpath(work) == os.path.realpath(seen[name][1]):
            problems.append(f"{folder} — та же work/ ученика «{name}», что и {seen[name][0]}: беру её один раз")
        elif name in seen:
            problems.append(f"у папок {seen[name][0]} и {folder} одно имя ученика «{name}»: беру первую, "
                            f"вторую переименуйте (ученик — имя папки, в которой лежит work/)")
        else:
            seen[name] = (folder, work)
            found.append((name, work))
    return found, problems


def rows(work):
    """Строки таблицы одного ученика: каждое упражнение курса по порядку."""
    table = []
    for lesson, exercises in BY_LESSON.items():
        for exercise in exercises:
            mine = [r for r in work.records if r["exercise"] == exercise]
            attempts = [r for r in mine if r["status"] != "not_started"]
            status = ("solved" if any(r["status"] == "solved" for r in mine)
                      else "wrong" if attempts else "not_started")
            message = mine[-1]["message"] if mine else ""
            if not attempts and exercise in work.broken_cells:
                message = BROKEN + work.broken_cells[exercise]
            if work.forged.get(exercise):
                message = f"{FORGED} (строк: {work.forged[exercise]}, не засчитаны)" + (f"; {message}" if message else "")
            table.append({"learner": work.learner, "lesson": lesson, "exercise": exercise, "status": status,
                          "attempts": len(attempts), "message": message})
    return table


def csv_text(table):
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in table:
        # текст ученика, начатый с = + - @, Excel принял бы за формулу: такой уводим апострофом
        text = row["message"]
        writer.writerow({**row, "message": "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text})
    return out.getvalue()


def write(out, name, text):
    """Файл результатов: сначала рядом, потом переименованием (читатель не увидит половины); только учителю."""
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    target, draft = out / name, out / f".{name}.{os.getpid()}.tmp"
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    owner = os.environ.get("SUDO_UID"), os.environ.get("SUDO_GID")
    if os.geteuid() == 0 and all(owner):                # sudo make results: файлы — учителю, а не root
        for path in (out, draft):
            os.chown(path, int(owner[0]), int(owner[1]))
    os.replace(draft, target)
    return target


def mount_homes(state, names):
    """После make class-stop дома учеников отмонтированы (их work/ — в образах class/state/disks):
    смонтировать их снова, как make class; -> проблемы по-русски."""
    import pwd          # здесь: модуль импортируют и там, где pwd нет

    from tools.classroom import disk
    problems = []
    for name in names:
        try:
            disk.ensure_home_image(pwd.getpwnam(name), state, None)
        except KeyError:
            continue
        except (disk.DiskError, OSError) as error:
            problems.append(f"{name}: образ дома не смонтировать ({error}); его work/ не прочитать")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description="Вердикты учеников в results/class.csv и results/class.html")
    parser.add_argument("--from", dest="folders", nargs="*", metavar="ПАПКА",
                        help="папки, в каждой лежит work/ ученика (по умолчанию — ученики хаба из class/learners.txt)")
    parser.add_argument("--learners", type=pathlib.Path, default=LEARNERS, help="список учеников хаба")
    parser.add_argument("--out", type=pathlib.Path, default=OUT, help="куда писать (по умолчанию results/)")
    parser.add_argument("--state", type=pathlib.Path, default=STATE,
                        help="папка состояния хаба: в ней спул подписанных вердиктов (по умолчанию class/state)")
    args = parser.parse_args(argv)
    sources, problems = (hub_learners(args.learners) if args.folders is None else folder_learners(args.folders))
    state = secret = None
    if args.folders is None:
        state = args.state
        try:
            secret = verdicts.read_secret(state)
        except OSError as error:
            why = ("нет прав на чтение (соберите от root: sudo make results)" if isinstance(error, PermissionError)
                   else "его нет: класс здесь не запускался (make class делает его при запуске)"
                   if isinstance(error, FileNotFoundError) else str(error))
            problems.append(f"секрет подписи вердиктов {state / verdicts.SECRET} не прочитать — {why}; вердикты "
                            f"учеников хаба не собраны")
    if state is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
        problems += mount_homes(state, [learner for learner, _ in sources])
    works = []
    for learner, path in sources:
        try:
            works.append(read_work(learner, path, state, secret))
        except Refused as why:
            problems.append(f"{why}; ученик пропущен")
        except (OSError, ValueError) as error:         # что угодно странное в одной папке — не повод бросать остальных
            problems.append(f"{learner}: папку {path} не прочитать ({error}); ученик пропущен")
    problems += [problem for work in works for problem in work.problems]
    if not works:
        print("make results: не собрано ни одного ученика, таблица не записана.", *problems, sep="\n  - ")
        return 2
    table = [row for work in works for row in rows(work)]
    try:
        unsigned = [work.learner for work in works if not work.signed]
        files = [write(args.out, "class.csv", csv_text(table)),
                 write(args.out, "class.html", page(table, problems, unsigned=unsigned))]
    except OSError as error:
        print(f"make results: не записать результаты в {args.out}: {error}", *problems, sep="\n  - ")
        return 2
    print(summary(works, table, problems, files))
    return 0


def summary(works, table, problems, files):
    count = {status: sum(row["status"] == status for row in table) for status in ("solved", "wrong")}
    lines = [f"Учеников собрано: {len(works)}, упражнений у каждого: {sum(map(len, BY_LESSON.values()))}."]
    for work in works:
        mine = [row for row in table if row["learner"] == work.learner]
        forged = sum(work.forged.values())
        lines.append(f"  {work.learner}: решено {sum(r['status'] == 'solved' for r in mine)}, "
                     f"пробовал без решения {sum(r['status'] == 'wrong' for r in mine)}"
                     + (f"; {FORGED}: строк {forged}, не засчитаны" if forged else ""))
    lines.append(f"Всего решено {count['solved']}, пробовали без решения {count['wrong']}.")
    if any(not work.signed for work in works):
        lines.append(f"{UNSIGNED}: вердикты взяты из файлов work/{RECORD}, которые ученик мог править "
                     f"(подписанные вердикты — только у учеников сервера класса)")
    if problems:
        lines.append(f"Пропущено из-за проблем ({len(problems)}), остальное собрано:")
        lines += [f"  - {problem}" for problem in problems]
    lines.append("Таблица: " + ", ".join(map(str, files)))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

"""Части TEACHERS.md, которые не должны расходиться с курсом: план уроков и список упражнений.

    .venv/bin/python -m tools.classroom.guide                     # переписать эти части TEACHERS.md
    .venv/bin/python -m tools.classroom.guide --costs costs.json  # и цены уроков из benchmarks/lessons.py --json
    .venv/bin/python -m tools.classroom.guide --check             # только сверить: код 1 и что разошлось

Каждая часть стоит между своими пометками (<!-- guide:plan:begin --> … <!-- guide:plan:end -->,
<!-- guide:exercises:begin --> … <!-- guide:exercises:end -->); всё вне пометок пишут люди, и генератор его
не трогает. Упражнения берутся из course_lib.exercises.BY_LESSON: что проверяет каждое — из строки
документации проверки, типичные ошибки — из её таблицы tests/checker_cases/lesson_NN.py: каждый неверный ответ
таблицы прогоняется через проверку, и в руководство идёт первое предложение подсказки, которую видит ученик.
Цены уроков (время и процессор «Run All», пик памяти) хранятся в самой таблице плана, в пометке costs;
без --costs генератор оставляет те, что там уже записаны.
"""

import argparse
import contextlib
import difflib
import importlib
import io
import json
import math
import pathlib
import re
import sys

from course_lib.russian import plural

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
GUIDE = ROOT / "TEACHERS.md"
FORMAT = 1                      # версия файла цен, который пишет benchmarks/lessons.py --json
MEASURES = ("wall_s", "cpu_s", "peak_mb")

# Что ученику нужно знать до урока и сколько времени на него заложить в классе (с упражнениями).
PLAN = {
    "00": ("ничего: как открыть тетрадку", "15 мин"),
    "01": ("Python и немного NumPy: массивы, `@`, `axis`", "60 мин"),
    "02": ("урок 01: векторы и скалярное произведение", "45–60 мин"),
    "03": ("уроки 01–02: softmax, запрос–ключ–значение; умножение матриц", "60–90 мин"),
    "04": ("урок 03: самовнимание", "45–60 мин"),
    "05": ("уроки 03–04", "45 мин"),
    "06": ("уроки 03 и 05; `reshape` и `transpose` в NumPy", "60 мин"),
    "07": ("уроки 03–06; что такое градиент — в двух словах", "60 мин"),
    "08": ("уроки 05–07: маска, головы, обучение", "90 мин"),
    "09": ("уроки 03–08", "90 мин"),
    "10": ("уроки 01, 04, 05, 06, 08 и 09", "90 мин"),
}


def _markers(name):
    return f"<!-- guide:{name}:begin -->", f"<!-- guide:{name}:end -->"


def lesson_numbers():
    return [path.name[:2] for path in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))]


def lesson_titles(readme=ROOT / "README.md"):
    """Номер урока -> (название, ссылка, «о чём») из таблицы «Уроки» в README: одно описание на оба файла."""
    rows = re.findall(r"^\| (\d\d) \| \[(.+?)\]\((lessons/.+?)\) \| (.+?) \|$", readme.read_text(encoding="utf-8"),
                      flags=re.MULTILINE)
    titles = {number: (title, link, about) for number, title, link, about in rows}
    missing = [n for n in lesson_numbers() if n not in titles]
    if missing:
        raise ValueError(f"в таблице «Уроки» README.md нет строк уроков {', '.join(missing)}: допишите их "
                         "(| 11 | [Название](lessons/11_….ipynb) | о чём |) — план берёт названия оттуда")
    return titles


# ---- упражнения

def first_sentence(message):
    """Подсказка без ❌, без расхождения в числах (оно зависит от машины) и только до конца первого предложения."""
    text = re.sub(r"\s*\(наибольшее расхождение [^)]*\)", "", message.removeprefix("❌").strip())
    sentence = re.split(r"(?<=[.!?])\s+(?=[А-ЯЁA-Z«])", text, maxsplit=1)[0]
    return sentence[:-1] if sentence.endswith(".") else sentence


def _cases(lesson):
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))
    try:
        return importlib.import_module(f"checker_cases.lesson_{lesson}").CASES
    except ModuleNotFoundError:
        raise ValueError(f"у урока {lesson} есть упражнения, но нет таблицы tests/checker_cases/lesson_{lesson}.py: "
                         "без неё руководству не из чего взять типичные ошибки") from None


def exercise(check, cases):
    """Что проверяет check, сколько верных решений принимает и какие подсказки даёт на неверные (по группам)."""
    hints, right = {}, 0
    for candidate, fragment, case_id in cases:
        with contextlib.redirect_stdout(io.StringIO()):
            result = check(candidate)
        if result.passed != (fragment is None):
            verdict = "не принимает верное решение" if fragment is None else "принимает неверное решение"
            raise ValueError(f"{check.__name__} {verdict} «{case_id}» из своей таблицы ({result.message}): "
                             "сначала почините проверку или таблицу — pytest tests/test_exercises.py")
        if fragment is None:
            right += 1
        else:
            hint = first_sentence(result.message)
            hints[hint] = hints.get(hint, 0) + 1
    doc = " ".join((check.__doc__ or "").split())
    if not doc:
        raise ValueError(f"у проверки {check.__name__} нет строки документации: напишите в ней, что получает и что "
                         "должна вернуть функция ученика — руководство берёт «что проверяет» оттуда")
    return {"name": check.__name__, "doc": doc, "right": right, "hints": hints}


def exercises_section():
    import course_lib.exercises as exercises
    from course_lib.exercises._checker import NOT_SOLVED

    titles = lesson_titles()
    lines = ["У каждого упражнения: имя проверки (оно же — столбец `exercise` в `results/`) и что она проверяет — "
             "словами самой проверки: `candidate` — функция ученика, в скобках — что она получает, после стрелки — "
             "что должна вернуть. Дальше — сколько разных верных решений проверка принимает (циклом, другой функцией "
             "NumPy, списком, во float32…) и что ученик увидит на типичные ошибки: неверные ответы из таблицы "
             "проверки, по первому предложению подсказки; в скобках — сколько разных неверных ответов ведут к той же "
             f"подсказке. Нетронутая заготовка даёт «{NOT_SOLVED.split(':')[0]}» — это не ошибка и не попытка.", ""]
    for lesson, names in exercises.BY_LESSON.items():
        table = _cases(lesson)
        lines += [f"### Урок {lesson}. {titles[lesson][0]}", ""]
        for name in names:
            check = getattr(exercises, name)
            found = exercise(check, [case[1:] for case in table if case[0] is check])
            wrong = sum(found["hints"].values())
            lines += [f"**`{name}`** — {found['doc'].replace('->', '→')}", "",
                      f"Принимает {plural(found['right'], 'верное решение', 'верных решения', 'верных решений')}, "
                      f"записанных по-разному; на {plural(wrong, 'неверный ответ', 'неверных', 'неверных')} отвечает так:",
                      ""]
            lines += [f"- ❌ {hint}" + (f" ({plural(count, 'ответ', 'ответа', 'ответов')})" if count > 1 else "")
                      for hint, count in found["hints"].items()]
            lines.append("")
    return "\n".join(lines).rstrip("\n")


# ---- план уроков

def load_costs(path):
    """Цены уроков из файла benchmarks/lessons.py --json; битый файл или файл без какого-то урока — отказ по-русски."""
    fix = f"замерьте заново: .venv/bin/python benchmarks/lessons.py --json {path}"
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"файл цен уроков {path} не открывается ({error.strerror})") from None
    except ValueError as error:
        raise ValueError(f"файл цен уроков {path} — не JSON ({error}): {fix}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("lessons"), dict):
        raise ValueError(f"файл цен уроков {path} — не от benchmarks/lessons.py (нет format {FORMAT} и lessons): {fix}")
    missing = [n for n in lesson_numbers() if n not in data["lessons"]]
    if missing:
        raise ValueError(f"в файле цен уроков {path} нет уроков {', '.join(missing)}: план показывает все уроки, {fix}")
    for number, row in data["lessons"].items():
        bad = [key for key in MEASURES if not isinstance(row, dict) or isinstance(row.get(key), bool)
               or not isinstance(row.get(key), (int, float)) or not math.isfinite(row[key]) or row[key] < 0]
        if bad:
            raise ValueError(f"в файле цен уроков {path} у урока {number} нет чисел {', '.join(bad)} "
                             f"(ждал неотрицательные числа): {fix}")
    return data


def stored_costs(text):
    """Цены, записанные в пометке costs текущей таблицы плана, или None."""
    match = re.search(r"<!-- costs: (.*?) -->", text)
    if not match:
        return None
    try:
        costs = json.loads(match.group(1))
    except ValueError:
        costs = None
    if not isinstance(costs, dict) or not isinstance(costs.get("lessons"), dict) or "machine" not in costs:
        raise ValueError("пометка costs в плане уроков TEACHERS.md испорчена: запишите цены заново — "
                         ".venv/bin/python -m tools.classroom.guide --costs FILE (FILE — от benchmarks/lessons.py --json)")
    return costs


def _seconds(value):
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def plan_section(costs):
    import course_lib.exercises as exercises

    titles = lesson_titles()
    lines = ["| № | урок и о чём | что нужно знать | время в классе | «Run All»: время / процессор | пик памяти ядра "
             "| упражнений |", "|---|---|---|---|---|---|---|"]
    for number in lesson_numbers():
        title, link, about = titles[number]
        known, time = PLAN.get(number, ("—", "—"))
        row = (costs or {}).get("lessons", {}).get(number)
        cost = (f"{_seconds(row['wall_s'])} с / {_seconds(row['cpu_s'])} с", f"{row['peak_mb']:.0f} МБ") if row \
            else ("не измерено", "не измерено")
        lines.append(f"| {number} | [{title}]({link}) — {about} | {known} | {time} | {cost[0]} | {cost[1]} | "
                     f"{len(exercises.BY_LESSON.get(number, ())) or '—'} |")
    if costs:
        where = costs["machine"]
        limit = ("с пределами ученика (" + ", ".join(f"{k}={v}" for k, v in sorted(where["class_limits"].items())) + ")"
                 if where.get("class_limits") else "без пределов ученика")
        busy = where["load_before"] >= where["cores"] / 2
        lines += ["", f"Замер {where['date']}: {plural(where['cores'], 'ядро', 'ядра', 'ядер')}, {where['cpu']}, {limit}; загрузка машины перед "
                      f"замером (load average) {where['load_before']:g}" +
                  (" — машина была занята другими задачами, на свободной числа меньше." if busy else "."),
                  "<!-- costs: " + json.dumps(costs, ensure_ascii=False, sort_keys=True) + " -->"]
    return "\n".join(lines)


# ---- сборка и сверка

def replace(text, name, body):
    begin, end = _markers(name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError(f"в TEACHERS.md должна быть ровно одна пара пометок {begin} … {end}: поставьте их туда, "
                         "где должен стоять этот раздел")
    head, rest = text.split(begin)
    return f"{head}{begin}\n{body}\n{end}{rest.split(end, 1)[1]}"


def render(text, costs=None):
    """Текст TEACHERS.md с новыми частями plan и exercises; costs=None — цены, уже записанные в плане."""
    text = replace(text, "plan", plan_section(costs if costs is not None else stored_costs(text)))
    return replace(text, "exercises", exercises_section())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--costs", type=pathlib.Path, metavar="FILE", help="цены уроков: benchmarks/lessons.py --json FILE")
    parser.add_argument("--check", action="store_true", help="не писать, а сверить; код 1, если разошлось")
    parser.add_argument("--file", type=pathlib.Path, default=GUIDE, help="файл руководства (по умолчанию TEACHERS.md)")
    args = parser.parse_args(argv)
    try:
        current = args.file.read_text(encoding="utf-8")
        fresh = render(current, load_costs(args.costs) if args.costs else None)
    except (OSError, ValueError) as error:
        print(f"tools.classroom.guide: {getattr(error, 'strerror', None) or error}", file=sys.stderr)
        return 2
    if not args.check:
        if fresh != current:
            args.file.write_text(fresh, encoding="utf-8")
        print(f"{args.file.name}: план уроков и упражнения {'обновлены' if fresh != current else 'уже такие'}")
        return 0
    if fresh == current:
        print(f"{args.file.name} совпадает с курсом")
        return 0
    diff = list(difflib.unified_diff(current.splitlines(), fresh.splitlines(), "сейчас в файле", "из курса", lineterm="", n=0))
    print(f"{args.file.name} разошёлся с курсом (проверки, их таблицы или уроки поменялись). Строки ниже: «-» — в файле, "
          "«+» — как должно быть. Обновите: .venv/bin/python -m tools.classroom.guide", file=sys.stderr)
    print("\n".join(diff[2:42]) + ("\n…" if len(diff) > 42 else ""), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

"""results/class.html: таблица «ученики × упражнения», которую учитель читает с одного взгляда.

Одна страница без скриптов и без сети: ✅ решено, ❌ и число попыток — пробовал, но не решил, · — не начинал;
наведите мышь на клетку — увидите последнюю подсказку. Всё, что пришло от учеников (имена, подсказки),
экранируется: запись ученика не может стать разметкой страницы.
"""

import datetime
import html

from course_lib.exercises import BY_LESSON

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: center; }
th.learner, td.learner { text-align: left; white-space: nowrap; }
th.exercise { font-weight: normal; font-size: 12px; writing-mode: vertical-rl; transform: rotate(180deg); }
td.solved { background: #e3f5e1; } td.wrong { background: #fde8e6; } td.not_started { color: #999; }
td.broken { background: #fff4d6; } tbody tr:hover td { outline: 1px solid #888; }
tfoot td { font-weight: bold; }
.problems li { margin: 0.2em 0; }
"""
MARK = {"solved": "✅", "wrong": "❌", "not_started": "·"}
BROKEN = "⚠️ проверка не запускалась: "      # так начинается message, если ячейка упражнения не компилируется
FORGED = "⚠️ подпись не сошлась"             # так начинается message, если строку спула изменили после записи
UNSIGNED = "Без подписи (собрано FROM= с ноутбуков)"


def page(table, problems, now=None, unsigned=()):
    """HTML-страница по строкам results.rows (в порядке учеников и упражнений) и списку проблем.

    unsigned — ученики, чьи вердикты без подписи (FROM=): у имени пометка «без подписи».
    """
    now = now or datetime.datetime.now(datetime.timezone.utc)
    exercises = [(lesson, name) for lesson, names in BY_LESSON.items() for name in names]
    learners = list(dict.fromkeys(row["learner"] for row in table))
    cell = {(row["learner"], row["exercise"]): row for row in table}
    e = html.escape
    head = ['<tr><th class="learner" rowspan="2">ученик</th><th rowspan="2">решено</th>']
    head += [f'<th colspan="{len(names)}">урок {e(lesson)}</th>' for lesson, names in BY_LESSON.items()]
    head.append("</tr><tr>")
    head += [f'<th class="exercise" title="{e(name)}">{e(name.removeprefix("check_"))}</th>' for _, name in exercises]
    head.append("</tr>")
    body = []
    for learner in learners:
        rows = [cell[learner, name] for _, name in exercises]
        solved = sum(row["status"] == "solved" for row in rows)
        note = '<small title="вердикты из файла ученика: он мог их править"> (без подписи)</small>' \
            if learner in unsigned else ""
        body.append(f'<tr><td class="learner">{e(learner)}{note}</td><td>{solved} из {len(rows)}</td>')
        body += [_cell(row) for row in rows]
        body.append("</tr>")
    totals = [sum(cell[learner, name]["status"] == "solved" for learner in learners) for _, name in exercises]
    foot = f'<tr><td class="learner">решили</td><td>{sum(totals)}</td>' + "".join(f"<td>{n}</td>" for n in totals)
    listed = "".join(f"<li>{e(problem)}</li>" for problem in problems)
    return f"""<!DOCTYPE html>
<html lang="ru"><head><meta charset="utf-8"><title>Результаты класса</title><style>{STYLE}</style></head>
<body>
<h1>Результаты класса</h1>
<p>Учеников: {len(learners)}, упражнений: {len(exercises)}. Собрано {now:%Y-%m-%d %H:%M} UTC.
✅ — решено, ❌ с числом — пробовал столько раз и не решил, · — не начинал, ⚠️ — в ячейке упражнения ошибка
синтаксиса, ⚠️✍ — подпись записи не сошлась (её изменили после записи; такая не засчитана). Наведите мышь на
клетку: там последняя подсказка проверки. Внизу — сколько учеников решили каждое упражнение.</p>
{f"<p><b>{e(UNSIGNED)}</b>: {e(', '.join(unsigned))} — вердикты из файлов учеников, их ученик мог править.</p>"
   if unsigned else ""}
<table>
<thead>{"".join(head)}</thead>
<tbody>{"".join(body)}</tbody>
<tfoot>{foot}</tr></tfoot>
</table>
{f'<h2>Что пропущено ({len(problems)})</h2><ul class="problems">{listed}</ul>' if problems else ""}
</body></html>
"""


def _cell(row):
    status, attempts, message = row["status"], row["attempts"], row["message"]
    broken = status == "not_started" and message.startswith(BROKEN)
    mark = "⚠️" if broken else MARK[status] + (f" {attempts}" if status == "wrong" else "")
    if message.startswith(FORGED):
        mark, broken = "⚠️✍ " + mark, True
    tip = f"{row['exercise']}, попыток: {attempts}" + (f"\n{message}" if message else "")
    return (f'<td class="{"broken" if broken else status}" title="{html.escape(tip)}">{mark}</td>')

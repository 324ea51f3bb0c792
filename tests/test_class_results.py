"""`make results`: папки work/ учеников -> results/class.csv и results/class.html.

Записи делают настоящие проверки (ученик в своей work/ решил, ошибся, не начинал). Всё, что лежит у ученика,
— чужие данные: ссылка, испорченная строка, не тетрадка, ошибка синтаксиса, слишком большой файл, канал
называются по-русски и пропускаются, остальное собирается; плохие FROM и class/learners.txt — тоже.
"""

import csv
import json
import os
import pathlib
import secrets
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from posix_only import skip_module_without

# make results читает папки учеников без перехода по ссылкам (O_NOFOLLOW, O_DIRECTORY) — Linux и macOS;
# на Windows python course.py results отказывает по-русски (tests/test_course_cli.py). До import pwd.
skip_module_without("pwd", "os.geteuid", "os.O_NOFOLLOW", "os.O_DIRECTORY")
import pwd  # noqa: E402

from course_lib.exercises import BY_LESSON, _record, check_softmax  # noqa: E402
from tools import workspace  # noqa: E402
from tools.classroom import collect, results, verdicts  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXERCISES = [(lesson, name) for lesson, names in BY_LESSON.items() for name in names]


def right_softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def wrong_softmax(scores):
    return np.exp(scores)


def my_softmax(scores):
    raise NotImplementedError


def learner(base, name, *answers):
    """Папка base/name/work, как у ученика: сделана workspace.prepare, проверки вызваны из неё -> их вердикты."""
    work = base / name / "work"
    workspace.prepare(work)
    here = os.getcwd()
    os.chdir(work)
    try:
        return work, [check_softmax(answer).message for answer in answers]
    finally:
        os.chdir(here)


def collect_from(base, *names, argv=()):
    """main(--from …) -> (код выхода, напечатанное, строки CSV или None)."""
    out = base / "results"
    code = results.main(["--from", *(str(base / n) for n in names), "--out", str(out), *argv])
    table = out / "class.csv"
    rows = list(csv.reader(table.read_text(encoding="utf-8").splitlines())) if table.exists() else None
    return code, rows


def row(rows, name, exercise="check_softmax"):
    return next(r for r in rows if r[0] == name and r[2] == exercise)


def test_three_learners_exact_table_and_page(tmp_path, capsys):
    _, (solved,) = learner(tmp_path, "anna", right_softmax)
    _, (hint, last_hint) = learner(tmp_path, "boris", wrong_softmax, wrong_softmax)
    _, (waiting,) = learner(tmp_path, "vera", my_softmax)
    code, rows = collect_from(tmp_path, "anna", "boris", "vera")
    expected = [list(results.COLUMNS)]
    for name in ("anna", "boris", "vera"):
        for lesson, exercise in EXERCISES:
            expected.append([name, lesson, exercise, "not_started", "0", ""])
    expected[4] = ["anna", "02", "check_softmax", "solved", "1", solved]
    expected[4 + 22] = ["boris", "02", "check_softmax", "wrong", "2", last_hint]
    expected[4 + 44] = ["vera", "02", "check_softmax", "not_started", "0", waiting]
    assert code == 0 and rows == expected
    assert (tmp_path / "results" / "class.csv").read_text(encoding="utf-8").startswith(
        "learner,lesson,exercise,status,attempts,message\n")
    page = (tmp_path / "results" / "class.html").read_text(encoding="utf-8")
    body, foot = page.split("<tbody>")[1].split("</tbody>")
    assert body.count("<tr>") == 3 and all(f'learner">{name}<' in body for name in ("anna", "boris", "vera"))
    assert body.count(">1 из 22<") == 1 and body.count(">0 из 22<") == 2 and body.count(">❌ 2<") == 1
    assert body.count(">✅<") == 1 and body.count(">·<") == 22 * 3 - 2 and "урок 02" in page
    assert 'решили</td><td>1</td><td>0</td><td>0</td><td>0</td><td>1</td><td>0</td>' in foot   # итог и урок 01, 02
    said = capsys.readouterr().out
    assert "Учеников собрано: 3" in said and "Всего решено 1, пробовали без решения 1" in said


def test_learner_text_is_escaped_in_the_page(tmp_path):
    work, _ = learner(tmp_path, "<img src=x onerror=alert(1)>")
    entry = {"lesson": "02", "exercise": "check_softmax", "status": "wrong", "message": '"><script>alert(1)</script>',
             "time": "2026-12-01T10:00:00+00:00", "answer": "x"}
    (work / _record.RECORD).write_text(json.dumps(entry) + "\n", encoding="utf-8")
    code, rows = collect_from(tmp_path, "<img src=x onerror=alert(1)>")
    page = (tmp_path / "results" / "class.html").read_text(encoding="utf-8")
    assert code == 0 and row(rows, "<img src=x onerror=alert(1)>")[3:5] == ["wrong", "1"]
    assert "<script" not in page and "<img" not in page and "&quot;&gt;&lt;script&gt;" in page
    assert "&lt;script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page


SPOILS = ("symlink", "empty", "half-written", "wrong types", "not utf-8", "unknown exercise", "too big", "fifo")


def spoil_record(work, how):
    """Испортить запись ученика, в которой уже есть одна верная строка (check_softmax решено)."""
    path = work / _record.RECORD
    good = path.read_bytes()
    if how == "symlink":
        (work.parent / "secret.jsonl").write_bytes(good)
        path.unlink()
        path.symlink_to(work.parent / "secret.jsonl")
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "half-written":
        path.write_bytes(good + good[:40])
    elif how == "wrong types":
        bad = json.loads(good)
        bad["status"] = 1
        path.write_bytes(json.dumps(bad).encode() + b"\n" + good)
    elif how == "not utf-8":
        path.write_bytes(b"\xff\xfe{}\n" + good)
    elif how == "unknown exercise":
        path.write_bytes(good.replace(b"check_softmax", b"check_magic") + good)
    elif how == "too big":
        os.truncate(path, collect.RECORD_LIMIT + 1)        # разреженный файл: места не занимает
    elif how == "fifo":
        path.unlink()
        os.mkfifo(path)


@pytest.mark.parametrize("how, said, status", [
    ("symlink", "work/.verdicts.jsonl — это символическая ссылка", "not_started"),
    ("empty", None, "not_started"),
    ("half-written", "work/.verdicts.jsonl, строка 2 — не JSON: запись оборвана", "solved"),
    ("wrong types", "строка 1 — поле «status»: ожидался текст, а пришло 1", "solved"),
    ("not utf-8", "строка 1 — не текст в UTF-8", "solved"),
    ("unknown exercise", "строка 1 — упражнения 'check_magic' в уроке '02' в курсе нет", "solved"),
    ("too big", "размер 8.1 МБ, а читаю не больше 8.0 МБ", "not_started"),
    ("fifo", "не обычный файл", "not_started"),
], ids=lambda value: value if value in SPOILS else "")
def test_spoiled_record_is_named_and_the_rest_collected(tmp_path, capsys, how, said, status):
    work, _ = learner(tmp_path, "anna", right_softmax)
    learner(tmp_path, "boris", wrong_softmax)
    spoil_record(work, how)
    code, rows = collect_from(tmp_path, "anna", "boris")
    out = capsys.readouterr().out
    assert code == 0 and row(rows, "anna")[3] == status and row(rows, "boris")[3:5] == ["wrong", "1"]
    problems = [line for line in out.splitlines() if line.startswith("  - ")]
    if said is None:
        assert not problems, out
    else:
        assert len(problems) == 1 and problems[0].startswith("  - anna: ") and said in problems[0], out


def notebook_with(cell_source):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import numpy as np\n%matplotlib inline\n!ls"),
                      nbformat.v4.new_code_cell(cell_source),
                      nbformat.v4.new_code_cell("_ = check_softmax(softmax_solution(")]   # решение курса не смотрим
    return nbformat.writes(notebook)


def test_broken_notebooks_are_named_and_skipped(tmp_path, capsys):
    work, _ = learner(tmp_path, "anna", right_softmax)
    (work / "02_soft_search.ipynb").write_text(notebook_with(
        "def attend_one(q, K, V):\n    return (K @ q\n\n_ = check_attend_one(attend_one)"), encoding="utf-8")
    (work / "03_self_attention.ipynb").write_text('{"cells": [', encoding="utf-8")
    (work / "05_causal_mask.ipynb").write_text(notebook_with(
        "%%time\ndef causal_weights(s):\n    return s\n\n_ = check_causal_weights(causal_weights)"), encoding="utf-8")
    code, rows = collect_from(tmp_path, "anna")
    out = capsys.readouterr().out
    problems = [line for line in out.splitlines() if line.startswith("  - ")]
    assert len(problems) == 2, out
    assert "anna: тетрадка 02_soft_search.ipynb, ячейка 2, строка 2: ошибка синтаксиса" in problems[0]
    assert "anna: тетрадка work/03_self_attention.ipynb — не читается как JSON" in problems[1]
    assert code == 0 and row(rows, "anna")[3] == "solved"                       # записи собраны
    attend = row(rows, "anna", "check_attend_one")
    assert attend[3:5] == ["not_started", "0"] and attend[5].startswith("⚠️ проверка не запускалась: тетрадка 02_")
    assert row(rows, "anna", "check_causal_weights")[5] == ""                   # %%time — не ошибка


def test_bad_from_folders_are_named_and_the_rest_collected(tmp_path, capsys):
    learner(tmp_path, "anna", right_softmax)
    learner(tmp_path / "laptop2", "anna", wrong_softmax)
    (tmp_path / "empty").mkdir()
    (tmp_path / "work-only").mkdir()
    workspace.prepare(tmp_path / "work-only" / "work")
    os.makedirs(tmp_path / "linked")
    (tmp_path / "linked" / "work").symlink_to(tmp_path / "anna" / "work", target_is_directory=True)
    code, rows = collect_from(tmp_path, "anna", "missing", "empty", "anna/work", "laptop2/anna", "linked")
    out = capsys.readouterr().out
    assert code == 0 and {r[0] for r in rows[1:]} == {"anna"} and row(rows, "anna")[3] == "solved"
    for said in ("папки " + str(tmp_path / "missing") + " нет", "в папке " + str(tmp_path / "empty") + " нет work/",
                 str(tmp_path / "anna/work") + " — та же work/ ученика «anna», что и " + str(tmp_path / "anna"),
                 "одно имя ученика «anna»: беру первую",
                 "linked: папку " + str(tmp_path / "linked" / "work") + " не открыть — это символическая ссылка"):
        assert said in out, out


def test_from_takes_the_work_folders_a_teacher_collected(tmp_path, capsys):
    """FROM=anna/work — сама work/ (ученик — папка над ней); переименованная work/ с отметкой — по своему имени."""
    learner(tmp_path, "anna", right_softmax)
    learner(tmp_path, "boris", wrong_softmax)
    renamed, _ = learner(tmp_path, "spare", right_softmax)
    os.rename(renamed, tmp_path / "vera-work")
    (tmp_path / "stray").mkdir()                                  # папка без work/ и без отметки — пропуск
    code, rows = collect_from(tmp_path, "anna/work", "boris", "vera-work", "stray")
    out = capsys.readouterr().out
    assert code == 0, out
    assert {r[0] for r in rows[1:]} == {"anna", "boris", "vera-work"}, out
    assert (row(rows, "anna")[3], row(rows, "boris")[3], row(rows, "vera-work")[3]) == ("solved", "wrong", "solved")
    assert f"в папке {tmp_path / 'stray'} нет work/ ученика" in out and "пропускаю" in out


def test_work_folder_alone_is_collected_with_exit_0(tmp_path, capsys):
    learner(tmp_path, "anna", right_softmax)
    code, rows = collect_from(tmp_path, "anna/work")
    assert code == 0 and row(rows, "anna")[3] == "solved", capsys.readouterr().out


def test_one_odd_folder_does_not_stop_the_rest(tmp_path, capsys, monkeypatch):
    """Неожиданная ошибка чтения одной папки (здесь — подменённый read_work) — пропуск с причиной, остальные собраны."""
    learner(tmp_path, "anna", right_softmax)
    learner(tmp_path, "boris", right_softmax)
    real = results.read_work

    def flaky(name, path, *signing):
        if name == "boris":
            raise OSError(5, "Input/output error")
        return real(name, path, *signing)
    monkeypatch.setattr(results, "read_work", flaky)
    code, rows = collect_from(tmp_path, "anna", "boris")
    out = capsys.readouterr().out
    assert code == 0 and {r[0] for r in rows[1:]} == {"anna"}
    assert "boris: папку" in out and "Input/output error" in out and "ученик пропущен" in out


@pytest.mark.parametrize("argv, said", [
    (["--from"], "FROM пуст"),
    (["--from", "nowhere"], "папки nowhere нет"),
    (["--learners", "no/such/learners.txt"], "нет списка учеников no/such/learners.txt и не задан FROM"),
])
def test_nothing_collected_exits_2_in_russian(tmp_path, capsys, argv, said):
    assert results.main([*argv, "--out", str(tmp_path / "results")]) == 2
    out = capsys.readouterr().out
    assert "не собрано ни одного ученика" in out and said in out and not (tmp_path / "results").exists()


@pytest.fixture
def account(tmp_path):
    """Настоящая учётная запись ученика (как у make class) с домом в tmp; удаляется после теста, даже при ошибке."""
    if os.geteuid() != 0:
        pytest.skip("учётную запись ученика создаёт только root")
    name, home = f"vrdt{secrets.token_hex(3)}", tmp_path / "home"
    subprocess.run(["useradd", "-M", "-d", str(home), "-s", "/usr/sbin/nologin", name], check=True)
    try:
        yield name, home
    finally:
        subprocess.run(["userdel", name], check=True)


def test_hub_learners_from_learners_txt(tmp_path, capsys, account):
    """Ученики хаба: вердикты — из подписанного спула службы; свой файл work/.verdicts.jsonl ученика не в счёт."""
    name, home = account
    workspace.prepare(home / "work")
    os.chdir(home / "work")
    try:
        check_softmax(right_softmax)                        # без хаба — в свой файл: как правка ученика
    finally:
        os.chdir(ROOT)
    assert '"solved"' in (home / "work" / _record.RECORD).read_text(encoding="utf-8")
    state = tmp_path / "state"
    state.mkdir()
    (state / verdicts.SECRET).write_text(secrets.token_hex(32))
    verdicts.append(state, verdicts.read_secret(state), name, {"lesson": "02", "exercise": "check_softmax",
                    "status": "wrong", "message": "❌ на [1, 2, 3]: не нормированы", "answer": "wrong_softmax"})
    listing = tmp_path / "learners.txt"
    listing.write_text(f"# класс 7Б\n{name}\n\n{name}  # опять\nvrdt-nobody-here\nАнна\nroot\n", encoding="utf-8")
    code = results.main(["--learners", str(listing), "--out", str(tmp_path / "results"), "--state", str(state)])
    out = capsys.readouterr().out
    rows = list(csv.reader((tmp_path / "results" / "class.csv").read_text(encoding="utf-8").splitlines()))
    assert code == 0 and {r[0] for r in rows[1:]} == {name} and row(rows, name)[3:5] == ["wrong", "1"]
    for said in (f"строка 4: ученик «{name}» записан второй раз", "строка 5: учётной записи «vrdt-nobody-here»",
                 "строка 6: «Анна» не может быть именем учётной записи", "root: папку /root/work не открыть — её нет"):
        assert said in out, out
    assert pwd.getpwnam(name).pw_dir == str(home) and "без подписи" not in out
    listing.write_text("# пока никого\n\n", encoding="utf-8")
    assert results.main(["--learners", str(listing), "--out", str(tmp_path / "results")]) == 2
    assert "нет ни одного ученика" in capsys.readouterr().out


def test_cli_with_from(tmp_path):
    learner(tmp_path, "anna", right_softmax)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tools.classroom.results", "--out", str(tmp_path / "out"), "--from"]
    done = subprocess.run([*command, str(tmp_path / "anna"), str(tmp_path / "ghost")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "anna: решено 1" in done.stdout and f"папки {tmp_path / 'ghost'} нет" in done.stdout
    assert (tmp_path / "out" / "class.csv").exists() and (tmp_path / "out" / "class.html").exists()
    assert oct((tmp_path / "out" / "class.csv").stat().st_mode & 0o777) == "0o600"
    failed = subprocess.run([*command, str(tmp_path / "ghost")], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert failed.returncode == 2 and "не собрано ни одного ученика" in failed.stdout

"""Служба class-verdicts без хаба: ученика она узнаёт только по ключу (ответ «хаба» здесь — маленький сервер
теста), тело проверяет и отвечает по-русски, строку подписывает; `make results` ловит изменённую строку.

Настоящий хаб, ядро ученика и попытки из его учётной записи — в tests/test_class_hub.py.
"""

import csv
import http.server
import json
import os
import pathlib
import secrets
import stat
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest
from posix_only import skip_module_without

# спул службы и сборщик make results открывают файлы без перехода по ссылкам — Linux и macOS
skip_module_without("os.O_NOFOLLOW", "os.O_DIRECTORY")

from course_lib.exercises import _record, check_softmax  # noqa: E402
from tools import workspace  # noqa: E402
from tools.classroom import collect, results, verdicts  # noqa: E402
from tools.classroom.results_page import FORGED  # noqa: E402

TOKENS = {                                  # ключ -> что о нём скажет GET /hub/api/user
    "anna-key": {"kind": "user", "name": "anna", "scopes": [verdicts.SCOPE, "users:activity!user=anna"]},
    "boris-key": {"kind": "user", "name": "boris", "scopes": [verdicts.SCOPE]},
    "no-scope-key": {"kind": "user", "name": "vera", "scopes": ["users:activity!user=vera"]},
    "service-key": {"kind": "service", "name": "class-tools", "scopes": [verdicts.SCOPE]},
    "odd-name-key": {"kind": "user", "name": "../boris", "scopes": [verdicts.SCOPE]},
}
GOOD = {"lesson": "02", "exercise": "check_softmax", "status": "solved", "message": "✅ softmax работает",
        "answer": "my_softmax"}


class FakeHub(http.server.BaseHTTPRequestHandler):
    def do_GET(self):                                       # noqa: N802
        token = self.headers.get("Authorization", "").removeprefix("token ")
        model = TOKENS.get(token) if self.path == "/hub/api/user" else None
        data = json.dumps(model or {"status": 403, "message": "Forbidden"}).encode()
        self.send_response(200 if model else 403)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def serve(httpd):
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def service(tmp_path):
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / verdicts.SECRET).write_text(secrets.token_hex(32))
    hub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeHub)
    serve(hub)
    httpd = verdicts.server(state, 0, f"http://127.0.0.1:{hub.server_address[1]}/hub/api")
    serve(httpd)
    try:
        yield state, f"http://127.0.0.1:{httpd.server_address[1]}/services/class-verdicts/record"
    finally:
        for server in (httpd, hub):
            server.shutdown()
            server.server_close()


def post(url, body, token=None, raw=None):
    """POST службе -> (код, ответ как словарь)."""
    headers = {"Authorization": f"token {token}"} if token else {}
    data = raw if raw is not None else json.dumps(body, ensure_ascii=False).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers, method="POST"),
                                    timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def spool_lines(state, learner):
    path = verdicts.spool_path(state, learner)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


@pytest.mark.parametrize("token, said", [
    (None, "нет ключа"), ("guessed-key", "ключ не принят хабом"), ("no-scope-key", verdicts.SCOPE),
    ("service-key", "ключ не ученика"), ("odd-name-key", "не может быть учётной записью")])
def test_no_or_foreign_key_is_403_and_nothing_written(service, token, said):
    state, url = service
    code, reply = post(url, GOOD, token)
    assert code == 403 and said in reply["error"], reply
    assert not (state / verdicts.SPOOL).exists() or not list((state / verdicts.SPOOL).iterdir())


@pytest.mark.parametrize("raw, said", [
    (b"not json {", "тело запроса не JSON"),
    (json.dumps(["02", "check_softmax"]).encode(), "ожидался JSON-объект с полями lesson, exercise"),
    (json.dumps({**GOOD, "learner": "boris"}).encode(), "лишние поля 'learner'"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "message"}).encode(), "поле «message»: ожидался текст"),
    (json.dumps({**GOOD, "status": "passed"}).encode(), "поле «status»: ожидалось одно из solved, wrong"),
    (json.dumps({**GOOD, "lesson": "07"}).encode(), "упражнения 'check_softmax' в уроке '07' в курсе нет"),
    (b"x" * (verdicts.BODY_LIMIT + 1), "а вердикт не больше"),
])
def test_bad_body_is_400_in_russian(service, raw, said):
    state, url = service
    code, reply = post(url, None, "anna-key", raw=raw)
    assert code == 400 and said in reply["error"], reply
    assert spool_lines(state, "anna") == [] and spool_lines(state, "boris") == []


def test_the_name_comes_from_the_key_and_the_line_is_signed(service):
    state, url = service
    assert post(url, GOOD, "anna-key") == (201, {"recorded": "anna"})
    assert post(url, {**GOOD, "status": "wrong", "message": "❌ не то"}, "boris-key") == (201, {"recorded": "boris"})
    (line,) = spool_lines(state, "anna")
    assert {k: line[k] for k in verdicts.BODY_FIELDS} == GOOD and line["learner"] == "anna"
    secret = verdicts.read_secret(state)
    assert verdicts.signature_ok(secret, line, "anna") and not verdicts.signature_ok(secret, line, "boris")
    assert [r["status"] for r in spool_lines(state, "boris")] == ["wrong"]
    folder, path = state / verdicts.SPOOL, verdicts.spool_path(state, "anna")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_changed_or_moved_line_is_marked_and_not_counted(service, tmp_path, capsys):
    state, url = service
    post(url, {**GOOD, "status": "wrong", "message": "❌ не то"}, "anna-key")
    post(url, {**GOOD, "exercise": "check_attend_one", "status": "wrong", "message": "❌ не то"}, "boris-key")
    anna, boris = verdicts.spool_path(state, "anna"), verdicts.spool_path(state, "boris")
    lines = anna.read_text(encoding="utf-8")
    anna.write_text(lines.replace('"wrong"', '"solved"', 1), encoding="utf-8")   # подделка «решено»
    boris_line = json.loads(boris.read_text(encoding="utf-8"))
    boris.write_text(json.dumps({**boris_line, "status": "solved"}) + "\n", encoding="utf-8")
    listing = tmp_path / "learners.txt"
    listing.write_text("anna\nboris\n", encoding="utf-8")
    works = {}
    for name in ("anna", "boris"):
        work = tmp_path / name / "work"
        workspace.prepare(work)
        works[name] = collect.read_work(name, work, state, verdicts.read_secret(state))
    assert works["anna"].records == [] and works["anna"].forged == {"check_softmax": 1}
    assert works["boris"].forged == {"check_attend_one": 1}
    assert any(FORGED in problem and "строка 1" in problem for problem in works["anna"].problems)
    table = {(r["learner"], r["exercise"]): r for work in works.values() for r in results.rows(work)}
    assert table["anna", "check_softmax"]["status"] == "not_started"
    assert table["anna", "check_softmax"]["message"].startswith(FORGED)
    assert table["boris", "check_attend_one"]["status"] == "not_started"
    page = results.page(list(table.values()), [])
    assert page.count(">⚠️✍ ·<") == 2


def test_a_line_moved_from_another_learner_fails_its_check(service, tmp_path):
    state, url = service
    post(url, GOOD, "anna-key")
    verdicts.spool_path(state, "boris").write_bytes(verdicts.spool_path(state, "anna").read_bytes())
    work = tmp_path / "boris" / "work"
    workspace.prepare(work)
    got = collect.read_work("boris", work, state, verdicts.read_secret(state))
    assert got.records == [] and got.forged == {"check_softmax": 1}


def right_softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.fixture
def work(tmp_path, monkeypatch):
    folder = tmp_path / "anna" / "work"
    workspace.prepare(folder)
    monkeypatch.chdir(folder)
    monkeypatch.setattr(_record, "_noted", False)
    return folder


def test_kernel_on_the_class_server_sends_to_the_service_not_to_its_file(service, work, monkeypatch, capsys):
    state, url = service
    monkeypatch.setenv("CLASS_VERDICTS_URL", url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "anna-key")
    assert check_softmax(right_softmax).passed
    printed = capsys.readouterr().out
    (line,) = spool_lines(state, "anna")
    assert (line["status"], line["answer"], line["message"]) == ("solved", "right_softmax", printed.strip())
    assert not (work / _record.RECORD).exists(), "на сервере класса вердикт попал и в файл ученика"


@pytest.mark.parametrize("where, token, said", [
    ("closed", "anna-key", "служба не отвечает"), ("service", "guessed-key", "служба ответила 403: ключ не принят")])
def test_service_out_of_reach_does_not_break_the_check(service, work, monkeypatch, capsys, where, token, said):
    state, url = service
    if where == "closed":
        with __import__("socket").socket() as probe:
            probe.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{probe.getsockname()[1]}/services/class-verdicts/record"
    monkeypatch.setenv("CLASS_VERDICTS_URL", url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", token)
    assert check_softmax(right_softmax).passed and check_softmax(right_softmax).passed
    out = capsys.readouterr().out.splitlines()
    notes = [line for line in out if line.startswith("ℹ️ вердикт не записан на сервере класса")]
    assert len(notes) == 1 and said in notes[0], out
    assert sum(line.startswith("✅") for line in out) == 2
    assert not (work / _record.RECORD).exists() and spool_lines(state, "anna") == []


def test_make_results_for_hub_learners_without_the_secret_says_so(tmp_path, capsys):
    listing = tmp_path / "learners.txt"
    listing.write_text("root\n", encoding="utf-8")
    results.main(["--learners", str(listing), "--out", str(tmp_path / "out"), "--state", str(tmp_path / "nothing")])
    out = capsys.readouterr().out
    assert f"секрет подписи вердиктов {tmp_path / 'nothing' / verdicts.SECRET} не прочитать" in out
    assert "класс здесь не запускался" in out and out.count(verdicts.SECRET) == 1, out


def test_service_refuses_to_start_by_hand(capsys, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_SERVICE_URL", raising=False)
    assert verdicts.main(["--state", str(pathlib.Path.cwd())]) == 2
    assert "службу запускает хаб" in capsys.readouterr().err


def test_from_folders_are_said_to_be_unsigned(tmp_path, capsys):
    work = tmp_path / "anna" / "work"
    workspace.prepare(work)
    here = os.getcwd()
    os.chdir(work)
    try:
        check_softmax(right_softmax)
    finally:
        os.chdir(here)
    assert results.main(["--from", str(tmp_path / "anna"), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "Без подписи (собрано FROM= с ноутбуков)" in out and "ученик мог править" in out
    page = (tmp_path / "out" / "class.html").read_text(encoding="utf-8")
    assert "(без подписи)</small>" in page
    rows = list(csv.DictReader((tmp_path / "out" / "class.csv").open(encoding="utf-8")))
    assert next(r for r in rows if r["exercise"] == "check_softmax")["status"] == "solved"


def test_service_started_as_the_hub_starts_it_answers_and_dies_with_the_hub(service, tmp_path):
    """python -m tools.classroom.verdicts с окружением, какое даёт хаб; «хаб» (родитель) убит kill -9 — служба уходит
    сама и освобождает порт для следующего make class."""
    import signal
    import socket
    import subprocess
    import sys
    import time

    state, _ = service
    fake_hub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeHub)
    serve(fake_hub)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[1]),
           "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{port}",
           "JUPYTERHUB_API_URL": f"http://127.0.0.1:{fake_hub.server_address[1]}/hub/api",
           "JUPYTERHUB_SERVICE_PREFIX": "/services/class-verdicts/"}
    # «хаб» — оболочка, которая запускает службу и ждёт; PID службы она печатает
    hub = subprocess.Popen(["sh", "-c", f'"{sys.executable}" -m tools.classroom.verdicts --state "{state}" & '
                                        'echo $!; wait'], env=env, stdout=subprocess.PIPE, text=True,
                           stderr=subprocess.DEVNULL, cwd=pathlib.Path(__file__).resolve().parents[1])
    pid = int(hub.stdout.readline())
    try:
        url = f"http://127.0.0.1:{port}/services/class-verdicts/record"
        deadline = time.monotonic() + 30
        while True:
            try:
                assert post(url, GOOD, "anna-key") == (201, {"recorded": "anna"})
                break
            except urllib.error.URLError:
                assert time.monotonic() < deadline, "служба не ответила за 30 с"
                time.sleep(0.2)
        assert [line["learner"] for line in spool_lines(state, "anna")] == ["anna"]
        hub.send_signal(signal.SIGKILL)
        hub.wait(10)
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            with open(f"/proc/{pid}/stat") as info:
                if info.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            time.sleep(0.2)
        with socket.socket() as again:                       # порт свободен: следующий хаб запустит службу на нём
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            again.bind(("127.0.0.1", port))
    finally:
        for target in (hub.pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except ProcessLookupError:
                pass
        fake_hub.shutdown()
        fake_hub.server_close()

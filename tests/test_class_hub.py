"""Класс на одном сервере, как он идёт: настоящий JupyterHub на 127.0.0.1, настоящие записи системы трёх учеников
и учителя, настоящие ядра. Ученики решают упражнения урока 02, `make results` даёт ровно эту таблицу; чужая work/
закрыта системой; перезапуск хаба (и kill -9 хаба с прокси) не теряет работы; пределы — от имени ученика: память
(ядро остановлено, в ячейке русское объяснение), процессы (fork-бомба), место (образ дома) — останавливают его, а не соседей.

Записи и процессы теста (имена с уникальной приставкой) убираются в конце, даже если тест упал.
Нужен root (useradd); без root тест пропускается, в CI это ошибка.
"""

import csv
import hashlib
import json
import os
import pathlib
import secrets
import stat
import subprocess
import sys
import time
from urllib.parse import quote

import pytest

from posix_only import skip_module_without

skip_module_without("pwd", "os.geteuid", "signal.SIGKILL")      # класс — только Linux; до import pwd
import pwd  # noqa: E402

from tests.hub_client import Hub, KernelDied, describe, kill, processes_of, remove_accounts
from tools.classroom import disk, limits
from tools.classroom.processes import alive, class_pid, free_port

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYTHON = sys.executable          # то же окружение, что у теста (в CI — и окружение нижних границ)
MEMORY_MB = 700          # предел в тесте: сервер с ядром курса берут ≈ 230 МБ (с кэшем файлов — больше), ядро просит 1200 МБ
DISK_MB = 256            # место ученика в тесте: его уроки с выводами — ≈ 4 МБ
NO_DISK = disk.unavailable()     # нет loop-устройств (контейнер) — класс без предела места, тест места пропускается
LESSON = ROOT / "lessons" / "02_soft_search.ipynb"

if os.geteuid() != 0:
    if os.environ.get("CI"):
        pytest.fail("tests/test_class_hub.py: в CI тест класса обязателен, а он запущен не от root", pytrace=False)
    pytest.skip("класс (make class) делает записи системы — этот тест идёт только от root", allow_module_level=True)


def hub_cli(*args, timeout=180):
    """tools/classroom/hub.py — то, что запускают make class / class-stop."""
    return subprocess.run([PYTHON, "-m", "tools.classroom.hub", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)})


def lesson_cell(marker):
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    found = [s for s in sources if marker in s]
    assert len(found) == 1, f"в уроке 02 ячеек с «{marker}»: {len(found)}, ожидалась одна"
    return found[0]


STUB = "raise NotImplementedError  # ваш код здесь"
RIGHT_SOFTMAX = "e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n    return e / e.sum(axis=-1, keepdims=True)"
WRONG_SOFTMAX = "return np.exp(scores)   # забыл поделить на сумму"


def tree_digest(folder):
    """Хэш каждого файла work/ (кроме служебных .ipynb_checkpoints) — чтобы сравнить до и после перезапуска."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".ipynb_checkpoints" not in p.parts}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    prefix = "clt" + "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(5))
    learners, teacher = [prefix + s for s in "abc"], prefix + "t"
    folder = tmp_path_factory.mktemp("class")
    (folder / "learners.txt").write_text("# ученики теста\n" + "\n".join(learners) + "\n", encoding="utf-8")
    state = folder / "state"
    info = {"learners": learners, "teacher": teacher, "state": state, "folder": folder, "kernels": {}}
    try:
        for attempt in range(3):       # порт свободен при пробе, но до запуска хаба его может занять сосед
            port = free_port()
            args = ["--learners", str(folder / "learners.txt"), "--state", str(state), "--host", "127.0.0.1",
                    "--port", str(port), "--teacher", teacher, "--memory", f"{MEMORY_MB}M",
                    "--disk", "no" if NO_DISK else f"{DISK_MB}M"]
            started = time.monotonic()
            done = hub_cli("start", *args)
            if not (done.returncode == 2 and f"порт {port} на 127.0.0.1 уже занят" in done.stderr):
                break
        info.update(args=args, hub=Hub(port, state), start_seconds=time.monotonic() - started)
        assert done.returncode == 0, f"make class не запустил класс:\n{done.stdout}\n{done.stderr}"
        info["welcome"] = done.stdout
        yield info
    finally:
        for kernel in info["kernels"].values():
            kernel.close()
        hub_cli("stop", "--state", str(state), timeout=120)
        for pid_file in ("jupyterhub.pid", "proxy.pid"):            # на случай, если stop не смог:
            kill([pid for pid in [class_pid(state / pid_file, state)] if pid])   # только процесс этого класса
        remove_accounts([teacher, *learners], state)


def test_make_class_tells_the_teacher_where_and_who(klass):
    text = klass["welcome"]
    assert f"http://127.0.0.1:{klass['hub'].base.rsplit(':', 1)[1]}/" in text
    assert all(name in text for name in klass["learners"]) and klass["teacher"] in text
    assert "новые записи системы" in text and "первом входе" in text and "make class-stop" in text and "jupyterhub.log" in text
    assert (f"память {MEMORY_MB} МБ" in text and f"процессов и потоков {limits.PIDS}" in text
            and (f"место {DISK_MB} МБ" if not NO_DISK else "место не ограничено") in text), \
        f"пределы ученика не напечатаны учителю:\n{text}"
    for name in klass["learners"]:
        home = pathlib.Path(pwd.getpwnam(name).pw_dir)
        assert (home.stat().st_mode & 0o777) == 0o700, f"дом {home} открыт другим: {oct(home.stat().st_mode)}"
        assert (home / "work" / LESSON.name).stat().st_uid == pwd.getpwnam(name).pw_uid


def test_first_sign_in_sets_the_password(klass):
    hub, first = klass["hub"], klass["learners"][0]
    password = "кот-сел-на-коврик-" + secrets.token_hex(4)
    assert hub.sign_in(first, password)[0], "первый вход через форму не прошёл"
    assert not hub.sign_in(first, "чужой-пароль-123")[0], "второй вход с другим паролем пустил"
    assert hub.sign_in(first, password)[0], "второй вход с тем же паролем не пустил"
    klass["password"] = password
    assert not hub.sign_in("nobody-" + first, password)[0], "пустил имя не из списка"
    stored = b"".join(p.read_bytes() for p in klass["state"].glob("passwords.dbm*"))
    assert password.encode() not in stored and b"$2b$" in stored, "пароль лежит не как bcrypt-хэш"


def test_servers_through_the_api_and_kernels_in_work(klass):
    hub = klass["hub"]
    for name in klass["learners"]:                     # все три запроса сразу, потом ждём каждый
        hub.request_server(name)
    for name in klass["learners"]:
        hub.wait_ready(name)
    for name in klass["learners"]:
        kernel = klass["kernels"][name] = hub.kernel(name, LESSON.name)
        seen = json.loads(kernel.run("import os, json\nprint(json.dumps([os.getcwd(), os.getuid(), "
                                     "os.environ.get('OMP_NUM_THREADS')]))"))
        account = pwd.getpwnam(name)
        assert seen == [str(pathlib.Path(account.pw_dir) / "work"), account.pw_uid, "2"], seen
        out = kernel.run("import numpy as np\nimport course_lib as nt\n"
                         "from course_lib.engine_room import pool\nprint(pool.cpu_count())")
        assert out.strip() in ("1", "2"), f"пул машинного отделения берёт {out.strip()} потоков, а не 1–2"


def test_lesson_02_exercises_reach_make_results(klass):
    right, wrong, untouched = (klass["kernels"][name] for name in klass["learners"])
    softmax, attend = lesson_cell("def my_softmax"), lesson_cell("def attend_one(")
    assert STUB in softmax and STUB in attend
    right.run(softmax.replace(STUB, RIGHT_SOFTMAX))
    right.run(attend)                                   # заготовка не тронута: не попытка
    wrong.run(softmax.replace(STUB, WRONG_SOFTMAX))
    for cell in (softmax, lesson_cell("def softmax_solution"), attend, lesson_cell("def attend_one_solution")):
        untouched.run(cell)                             # «Run All» без своего кода: заготовки и решения курса
    rows = list(make_results(klass)[1].values())
    a, b, c = klass["learners"]
    lesson_02 = {(r["learner"], r["exercise"]): (r["status"], r["attempts"]) for r in rows if r["lesson"] == "02"}
    assert lesson_02 == {
        (a, "check_softmax"): ("solved", "1"), (a, "check_attend_one"): ("not_started", "0"),
        (b, "check_softmax"): ("wrong", "1"), (b, "check_attend_one"): ("not_started", "0"),
        (c, "check_softmax"): ("not_started", "0"), (c, "check_attend_one"): ("not_started", "0"),
    }, f"таблица урока 02 не та: {lesson_02}"
    others = [r for r in rows if r["lesson"] != "02" and (r["status"], r["attempts"]) != ("not_started", "0")]
    assert not others, f"в других уроках никто не работал, а в таблице: {others}"
    assert {r["learner"] for r in rows} == {a, b, c}
    hint = next(r["message"] for r in rows if (r["learner"], r["exercise"]) == (b, "check_softmax"))
    assert hint and hint != next(r["message"] for r in rows if (r["learner"], r["exercise"]) == (a, "check_softmax"))


def as_learner(name, code):
    """code в python от имени учётной записи ученика (runuser) -> напечатанное."""
    done = subprocess.run(["runuser", "-u", name, "--", PYTHON, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd="/")
    assert done.returncode == 0, f"python от имени {name} упал:\n{done.stdout}\n{done.stderr}"
    return done.stdout.strip()


def make_results(klass):
    out = klass["folder"] / "results"
    done = subprocess.run([PYTHON, "-m", "tools.classroom.results", "--learners", str(klass["folder"] / "learners.txt"),
                           "--out", str(out), "--state", str(klass["state"])], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, f"make results упал:\n{done.stdout}\n{done.stderr}"
    with open(out / "class.csv", encoding="utf-8") as table:
        return done.stdout, {(r["learner"], r["exercise"]): r for r in csv.DictReader(table)}


def test_verdicts_are_signed_where_a_learner_cannot_write(klass):
    """Вердикты ядра — в спуле службы class-verdicts с подписью; ученик не перепишет их ни файлом, ни запросом."""
    from tools.classroom import verdicts

    a, b, c = klass["learners"]
    state, secret = klass["state"], verdicts.read_secret(klass["state"])
    kernel = klass["kernels"][a]
    seen = json.loads(kernel.run("import os, json\nprint(json.dumps([bool(os.environ.get('JUPYTERHUB_API_TOKEN')), "
                                 "os.environ.get('CLASS_VERDICTS_URL')]))"))
    assert seen[0] and seen[1] and seen[1].startswith("http://127.0.0.1:"), f"ядру не дошли ключ или адрес: {seen}"
    spools = {name: verdicts.spool_path(state, name) for name in (a, b, c)}
    lines = {name: [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
             for name, path in spools.items()}
    assert [(x["exercise"], x["status"]) for x in lines[a]] == [("check_softmax", "solved"),
                                                                  ("check_attend_one", "not_started")], lines[a]
    assert [(x["exercise"], x["status"]) for x in lines[b]] == [("check_softmax", "wrong")], lines[b]
    assert all(verdicts.signature_ok(secret, x, name) for name in lines for x in lines[name])
    for name in (a, b, c):
        work = pathlib.Path(pwd.getpwnam(name).pw_dir) / "work"
        assert not (work / ".verdicts.jsonl").exists(), f"на сервере класса вердикт {name} попал в его work/"
    assert stat.S_IMODE((state / verdicts.SPOOL).stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in spools.values() if p.exists()} == {0o600}

    # ученик (его учётная запись, не ядро) — к спулу и секрету: ни записать, ни прочитать
    probe = f"""
import pathlib
said = []
for attempt in (lambda: open({str(spools[a])!r}, "a").write("{{}}\\n"),
                lambda: pathlib.Path({str(state / verdicts.SPOOL / (a + '-copy.jsonl'))!r}).write_text("{{}}"),
                lambda: pathlib.Path({str(state / verdicts.SECRET)!r}).read_text()):
    try:
        attempt()
        said.append("открылось")
    except PermissionError:
        said.append("PermissionError")
print(said)
"""
    assert as_learner(a, probe) == str(["PermissionError"] * 3)

    # запрос службе от ядра a: ключ — его, имя в теле — чужое; без ключа и с выдуманным ключом
    post = f"""
import json, os, urllib.request, urllib.error
def send(body, token):
    headers = {{"Authorization": "token " + token}} if token else {{}}
    request = urllib.request.Request(os.environ["CLASS_VERDICTS_URL"], data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
body = {{"lesson": "02", "exercise": "check_attend_one", "status": "wrong", "message": "руками", "answer": "x"}}
token = os.environ["JUPYTERHUB_API_TOKEN"]
print(json.dumps([send({{**body, "learner": {b!r}}}, token), send(body, token), send(body, None),
                  send(body, "0" * 32)]))
"""
    as_b, as_self, no_key, made_up = json.loads(kernel.run(post))
    assert as_b[0] == 400 and "лишние поля 'learner'" in as_b[1]["error"], as_b
    assert as_self == [201, {"recorded": a}], as_self
    assert no_key[0] == 403 and "нет ключа" in no_key[1]["error"], no_key
    assert made_up[0] == 403 and "ключ не принят" in made_up[1]["error"], made_up
    after = [json.loads(x) for x in spools[b].read_text(encoding="utf-8").splitlines()]
    assert after == lines[b], "запрос ученика a попал в спул ученика b"

    # ученик c правит свой файл в work/, root правит строку b в спуле: make results не верит ни тому, ни другому
    forged = json.dumps({"lesson": "02", "exercise": "check_softmax", "status": "solved", "message": "✅",
                         "time": "2026-12-08T00:00:00+00:00", "answer": "my_softmax"})
    c_work = pathlib.Path(pwd.getpwnam(c).pw_dir) / "work"
    as_learner(c, f"open({str(c_work / '.verdicts.jsonl')!r}, 'w').write({forged + chr(10)!r})")
    text = spools[b].read_text(encoding="utf-8")
    spools[b].write_text(text.replace('"status": "wrong"', '"status": "solved"', 1), encoding="utf-8")
    out, table = make_results(klass)
    assert (table[c, "check_softmax"]["status"], table[c, "check_softmax"]["attempts"]) == ("not_started", "0")
    assert table[b, "check_softmax"]["status"] != "solved"
    assert table[b, "check_softmax"]["message"].startswith("⚠️ подпись не сошлась"), table[b, "check_softmax"]
    assert table[a, "check_softmax"]["status"] == "solved"
    assert f"{b}: решено 0" in out and "подпись не сошлась" in out, out
    spools[b].write_text(text, encoding="utf-8")          # как было: дальше тесты идут с честным спулом


def test_a_learner_cannot_reach_another_learners_work(klass):
    a, b = klass["learners"][:2]
    other = pathlib.Path(pwd.getpwnam(b).pw_dir) / "work"
    probe = f"""
import pathlib
results = []
for attempt in (lambda: pathlib.Path({str(other / LESSON.name)!r}).read_bytes(),
                lambda: pathlib.Path({str(other / 'from_a.txt')!r}).write_text('чужое'),
                lambda: list(pathlib.Path({str(other)!r}).iterdir())):
    try:
        attempt()
        results.append('открылось')
    except PermissionError:
        results.append('PermissionError')
print(results)
"""
    assert klass["kernels"][a].run(probe).strip() == str(["PermissionError"] * 3)
    assert not (other / "from_a.txt").exists()


def test_memory_limit_stops_the_greedy_kernel_not_the_neighbours(klass):
    hub, (a, b, c) = klass["hub"], klass["learners"]
    greedy = klass["kernels"][c]
    pid = int(greedy.run("import os\nprint(os.getpid())"))
    groups = [g for g in pathlib.Path("/sys/fs/cgroup").glob(f"*/attention-class/*/{c}")
              if (g / "memory.limit_in_bytes").exists() or (g / "memory.max").exists()]
    log = (klass["state"] / "jupyterhub.log").read_text(errors="replace")
    if not groups:                                      # машина не даёт cgroup памяти: хаб должен сказать это
        assert f"память ученика {c} НЕ ограничена" in log
        pytest.skip("на этой машине нет записываемого контроллера памяти cgroup — предел не ставится (хаб предупредил)")
    assert f"память ученика {c}: не больше {MEMORY_MB} МБ" in log
    group = groups[0]
    assert pid in [int(p) for p in (group / "cgroup.procs").read_text().split()], "ядро ученика не в его cgroup"
    with pytest.raises(KernelDied) as died:
        greedy.run("import numpy as np\nhog = np.ones(1200 * 2**20 // 8)\nprint('взял 1200 МБ')")
    # в ту же ячейку, раньше «kernel restarting», сервер ученика кладёт русское объяснение (tools/classroom/kernel_notice.py)
    assert died.value.error and died.value.error.startswith("ПределПамяти"), \
        f"ученик не увидел в ячейке, что ядро остановил предел памяти: {died.value.error!r} ({died.value})"
    assert f"предела памяти ученика ({MEMORY_MB} МБ)" in died.value.error
    assert "Shut Down" in greedy.traceback and "MEMORY=" in greedy.traceback, greedy.traceback
    deadline = time.monotonic() + 20
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(pid), f"ядро, взявшее 1200 МБ при пределе {MEMORY_MB} МБ, не остановлено"
    events = group / "memory.oom_control" if (group / "memory.oom_control").exists() else group / "memory.events"
    counts = dict(zip(*[iter(events.read_text().split())] * 2))
    assert int(counts.get("oom_kill", 0)) >= 1, f"{events}: ядро остановил не предел памяти: {counts}"
    assert hub.request("GET", f"/user/{c}/api/status")[0] == 200, "вместе с ядром упал сервер ученика"
    for name in (a, b):                                 # соседи работают как работали
        assert klass["kernels"][name].run("print(6 * 7)").strip() == "42"
    # Сервер ученика жив: новое ядро запускается и считает (на перезапуск убитого ядра сервером не полагаемся —
    # под нагрузкой make test он бывал дольше срока ответа).
    greedy.close()
    klass["kernels"][c] = hub.kernel(c, "после-предела-памяти.ipynb")
    assert klass["kernels"][c].run("print(6 * 7)").strip() == "42"


def test_fork_bomb_is_stopped_by_the_process_limit(klass):
    hub, (a, b, c) = klass["hub"], klass["learners"]
    groups = [g for g in pathlib.Path("/sys/fs/cgroup").glob(f"*/attention-class/*/{b}") if (g / "pids.max").exists()]
    log = (klass["state"] / "jupyterhub.log").read_text(errors="replace")
    if not groups:                                      # машина не даёт cgroup pids: хаб должен сказать это
        assert f"процессы ученика {b} НЕ ограничены" in log
        pytest.skip("на этой машине нет записываемого контроллера pids cgroup — предел процессов не ставится")
    group = groups[0]
    assert (group / "pids.max").read_text().strip() == str(limits.PIDS)
    assert f"процессы ученика {b}: не больше {limits.PIDS}" in log
    bomber = klass["kernels"][b]
    kernel_pid = int(bomber.run("import os\nprint(os.getpid())"))
    assert kernel_pid in [int(p) for p in (group / "cgroup.procs").read_text().split()], "ядро ученика не в его cgroup pids"
    before = int((group / "pids.current").read_text())
    assert before < limits.PIDS // 4, f"сервер с ядром без дела уже держат {before} задач из {limits.PIDS}"
    bomb = int(bomber.run("import subprocess\n"       # настоящая fork-бомба: каждый процесс — ещё два, без конца
                          "bomb = subprocess.Popen(['/bin/sh', '-c', 'b(){ b|b& }; b'], start_new_session=True,\n"
                          "    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint(bomb.pid)"))
    try:
        deadline, peak = time.monotonic() + 30, 0
        while time.monotonic() < deadline and peak < limits.PIDS - 8:
            peak = max(peak, int((group / "pids.current").read_text()))
            time.sleep(0.05)
        assert peak >= limits.PIDS - 8, f"fork-бомба не дошла до предела {limits.PIDS} за 30 с (пик {peak})"
        assert int((group / "pids.current").read_text()) <= limits.PIDS
        events = dict(zip(*[iter((group / "pids.events").read_text().split())] * 2)) if (group / "pids.events").exists() else {}
        assert not events or int(events.get("max", 0)) > 0, f"предел pids.max ни разу не отказал в fork: {events}"
        # бомба упирается в предел — соседи считают и запускают процессы, хаб отвечает
        for name in (a, c):
            assert klass["kernels"][name].run("import subprocess\nprint(subprocess.run(['echo', 'жив'], "
                                              "capture_output=True, text=True).stdout)").strip() == "жив"
        assert hub.request("GET", "/hub/api/")[0] == 200, "при fork-бомбе ученика не отвечает хаб"
        assert int((group / "pids.current").read_text()) <= limits.PIDS
        # учитель: «Stop Server» ученика в Admin — останавливается и бомба, ушедшая в свою сессию
        bomber.close()
        code, reply = hub.request("DELETE", f"/hub/api/users/{b}/server")
        assert code in (202, 204), f"сервер ученика с fork-бомбой не остановить: {code} {reply}"
        deadline = time.monotonic() + 60
        while (hub.request("GET", f"/hub/api/users/{b}")[1] or {}).get("servers") and time.monotonic() < deadline:
            time.sleep(0.3)
        left = [pid for pid in processes_of(pwd.getpwnam(b).pw_uid)]
        assert not left, f"после остановки сервера у ученика {b} живы процессы (бомба?): {len(left)}, {describe(left[0])}"
    finally:
        for _ in range(50):                             # страховка: вся группа процессов бомбы
            try:
                os.killpg(bomb, 9)
            except ProcessLookupError:
                break
            time.sleep(0.1)
    assert not alive(kernel_pid)
    hub.request_server(b)                               # ученик входит снова: новый сервер, новое ядро
    hub.wait_ready(b)
    klass["kernels"][b] = hub.kernel(b, LESSON.name)
    assert klass["kernels"][b].run("print(6 * 7)").strip() == "42", "после бомбы ученик не работает"


def test_one_learner_filling_the_disk_does_not_stop_the_others(klass):
    hub, (a, b, c) = klass["hub"], klass["learners"]
    if NO_DISK:
        pytest.skip(f"образ дома ученика здесь не сделать: {NO_DISK} — класс запущен с DISK=no")
    homes = {name: pathlib.Path(pwd.getpwnam(name).pw_dir) for name in klass["learners"]}
    for name, home in homes.items():                    # дом каждого — свой образ ext4 в папке состояния
        assert disk.mounted_source(home), f"дом ученика {name} не на своём образе"
        assert (klass["state"] / "disks" / f"{name}.ext4").stat().st_size == DISK_MB * 2**20
    filled = klass["kernels"][a].run(f"""
import errno, os
written, failure = 0, None
try:
    with open(os.path.expanduser('~/work/big.bin'), 'wb', buffering=0) as out:   # пишет, пока пускают
        for chunk in (2**20, 4096):                 # мегабайтами, потом остаток — блоками по 4 КБ
            try:
                while written < {4 * DISK_MB} * 2**20:
                    written += out.write(b'x' * chunk)
                    os.fsync(out.fileno())          # место — сразу, а не при записи кэша когда-нибудь
            except OSError as error:
                failure = errno.errorcode.get(error.errno)
except OSError as error:
    failure = errno.errorcode.get(error.errno)
print(written // 2**20, failure)
""").split()
    assert filled[1] == "ENOSPC", f"ученик записал {filled[0]} МБ при месте {DISK_MB} МБ и не получил ошибки: {filled}"
    assert int(filled[0]) <= DISK_MB
    note = {"type": "notebook", "format": "json", "content": {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}}
    code, reply = hub.request("PUT", f"/user/{a}/api/contents/{quote('после-полного-диска.ipynb')}", note)
    assert code >= 400 and "No space left" in str(reply), f"сохранение на полном месте прошло молча: {code} {reply}"
    for name in (b, c):                                 # соседи сохраняют тетрадки как раньше
        code, reply = hub.request("PUT", f"/user/{name}/api/contents/{quote('сосед-сохранил.ipynb')}", note)
        assert code in (200, 201), f"у соседа {name} не сохранилась тетрадка, когда {a} забил своё место: {code} {reply}"
        assert (homes[name] / "work" / "сосед-сохранил.ipynb").is_file()
    assert klass["kernels"][b].run("print(6 * 7)").strip() == "42"
    klass["kernels"][a].run("import os\nos.remove(os.path.expanduser('~/work/big.bin'))")
    code, reply = hub.request("PUT", f"/user/{a}/api/contents/{quote('после-полного-диска.ipynb')}", note)
    assert code in (200, 201), f"после удаления большого файла ученик не сохраняет: {code} {reply}"


def test_one_kernel_killed_leaves_the_others_running(klass):
    a, b, c = klass["learners"]
    victim = klass["kernels"][a]
    pid = int(victim.run("import os\nprint(os.getpid())"))
    os.kill(pid, 9)
    for name in (b, c):                                 # у c — новое ядро после предела памяти (тест выше)
        assert klass["kernels"][name].run("print(2 + 2)").strip() == "4"
    klass["kernels"][a].close()


def test_hub_restart_keeps_every_learners_work(klass):
    hub, state = klass["hub"], klass["state"]
    works = {name: pathlib.Path(pwd.getpwnam(name).pw_dir) / "work" for name in klass["learners"]}
    before = {name: tree_digest(work) for name, work in works.items()}
    spool = klass["state"] / "verdicts"
    spooled = tree_digest(spool)
    assert spooled, "спул вердиктов пуст: проверки учеников не дошли до службы class-verdicts"
    hub_pid = int((state / "jupyterhub.pid").read_text())
    os.kill(hub_pid, 15)                                # хаб остановлен, серверы учеников — нет (cleanup_servers)
    deadline = time.monotonic() + 30
    while alive(hub_pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(hub_pid), f"хаб {hub_pid} не остановился за 30 с после SIGTERM"
    for name in klass["learners"]:
        uid = pwd.getpwnam(name).pw_uid
        assert processes_of(uid), f"с хабом остановился и сервер ученика {name}"
    done = hub_cli("start", *klass["args"])
    assert done.returncode == 0, f"make class после остановки хаба:\n{done.stdout}\n{done.stderr}"
    assert "новые записи" not in done.stdout, "записи учеников сделаны заново, а не взяты те же"
    new_pid = int((state / "jupyterhub.pid").read_text())
    assert new_pid != hub_pid
    again = hub_cli("start", *klass["args"])            # тот же make class ещё раз: класс уже идёт, хаб тот же
    assert again.returncode == 0 and "класс уже идёт" in again.stdout, again.stdout + again.stderr
    assert int((state / "jupyterhub.pid").read_text()) == new_pid
    assert tree_digest(spool) == spooled, "после перезапуска хаба изменился спул вердиктов"
    for name, work in works.items():
        assert tree_digest(work) == before[name], f"после перезапуска хаба изменилась work/ ученика {name}"
        server = hub.request("GET", f"/hub/api/users/{name}")[1]["servers"].get("")
        assert server and server["ready"], f"после перезапуска хаб не видит сервер ученика {name}: {server}"
        kernel = klass["kernels"][name]
        kernel.close()                                  # прокси перезапущен: канал ядра — заново
        assert kernel.run("print('я тут')").strip() == "я тут"


def test_kill_9_of_hub_and_proxy_then_make_class_brings_the_class_back(klass):
    hub, state, first = klass["hub"], klass["state"], klass["learners"][0]
    works = {name: pathlib.Path(pwd.getpwnam(name).pw_dir) / "work" for name in klass["learners"]}
    klass["kernels"][first].run("open('после-kill.txt', 'w').write('моя работа')")
    before = {name: tree_digest(work) for name, work in works.items()}
    verdicts_before = results_rows(klass)
    assert any(r["status"] == "solved" for r in verdicts_before)
    started = {name: hub.request("GET", f"/hub/api/users/{name}")[1]["servers"][""]["started"]
               for name in klass["learners"]}
    pids = [int((state / f).read_text()) for f in ("jupyterhub.pid", "proxy.pid")]
    for pid in pids:
        os.kill(pid, 9)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in pids), f"после kill -9 живы: {[describe(p) for p in pids if alive(p)]}"
    done = hub_cli("start", *klass["args"])             # make class ещё раз — и всё
    assert done.returncode == 0, f"make class после kill -9 хаба и прокси:\n{done.stdout}\n{done.stderr}"
    assert "новые записи" not in done.stdout
    assert [int((state / f).read_text()) for f in ("jupyterhub.pid", "proxy.pid")] != pids
    deadline = time.monotonic() + 10                    # службы старого хаба не остаются вторыми рядом с новыми
    while len(services_of(state)) != 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(services_of(state)) == 2, f"служб этого класса (culler, class-verdicts) после kill -9: {services_of(state)}"
    assert hub.sign_in(first, klass["password"])[0], "после kill -9 и make class ученик не входит со своим паролем"
    for name in klass["learners"]:                     # серверы учеников пережили всё это: те же, с теми же ядрами
        server = hub.request("GET", f"/hub/api/users/{name}")[1]["servers"].get("")
        assert server and server["started"] == started[name], \
            f"после kill -9 и make class сервер ученика {name} остановлен или запущен заново: {server}"
    for name, work in works.items():
        assert tree_digest(work) == before[name], f"после kill -9 и make class изменилась work/ ученика {name}"
        hub.request_server(name)
        hub.wait_ready(name)
        kernel = klass["kernels"][name]
        kernel.close()
        assert kernel.run("print(open('после-kill.txt').read() if __import__('os').path.exists('после-kill.txt') "
                          "else 'нет')").strip() == ("моя работа" if name == first else "нет")
    assert results_rows(klass) == verdicts_before, "после kill -9 и make class вердикты класса не те"
    # и новые вердикты доходят: b исправил softmax после возвращения класса
    b = klass["learners"][1]
    klass["kernels"][b].run("import numpy as np\n" + lesson_cell("def my_softmax").replace(STUB, RIGHT_SOFTMAX))
    after = {(r["learner"], r["exercise"]): (r["status"], r["attempts"]) for r in results_rows(klass)}
    assert after[(b, "check_softmax")] == ("solved", "2"), f"вердикт после kill -9 не дошёл: {after[(b, 'check_softmax')]}"


def services_of(state):
    """Командные строки живых служб хаба этого класса: culler (рабочая папка state) и class-verdicts (--state state)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            if entry.name.isdigit() and alive(int(entry.name)) and (
                    ("jupyterhub_idle_culler" in words and os.readlink(entry / "cwd") == str(state))
                    or ("tools.classroom.verdicts" in words and str(state) in words)):
                found.append(" ".join(words))
        except OSError:
            pass
    return sorted(found)


def results_rows(klass):
    """Таблица make results для учеников теста (строки class.csv по порядку)."""
    out = klass["folder"] / "results-again"
    done = subprocess.run([PYTHON, "-m", "tools.classroom.results", "--learners", str(klass["folder"] / "learners.txt"),
                           "--out", str(out), "--state", str(klass["state"])], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, f"make results упал:\n{done.stdout}\n{done.stderr}"
    with open(out / "class.csv", encoding="utf-8") as table:
        return list(csv.DictReader(table))


def test_class_stop_ends_everything_and_can_repeat(klass):
    state = klass["state"]
    pids = [int((state / f).read_text()) for f in ("jupyterhub.pid", "proxy.pid")]
    done = hub_cli("stop", "--state", str(state))
    assert done.returncode == 0 and "остановлены" in done.stdout, done.stdout + done.stderr
    for pid in pids:
        assert not alive(pid), f"после make class-stop жив процесс {pid} ({describe(pid)})"
    uids = [pwd.getpwnam(name).pw_uid for name in [klass["teacher"], *klass["learners"]]]
    deadline = time.monotonic() + 5                     # умершего процесса ещё может не быть прибрано (зомби)
    while any(processes_of(uid) for uid in uids) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = {pid: describe(pid) for uid in uids for pid in processes_of(uid)}
    assert not left, f"после make class-stop у учеников остались процессы: {left}"
    for name in klass["learners"]:                     # образы домов отмонтированы: ни одного висящего loop
        assert disk.mounted_source(pwd.getpwnam(name).pw_dir) is None or NO_DISK, f"дом {name} остался смонтирован"
        assert NO_DISK or (state / "disks" / f"{name}.ext4").is_file()
    again = hub_cli("stop", "--state", str(state))
    assert again.returncode == 0 and "уже был остановлен" in again.stdout, again.stdout
    assert "не запущен" in hub_cli("status", "--state", str(state)).stdout

"""Соседний класс на той же машине: учитель гоняет проверки курса (или второй класс) на сервере, где уже идёт класс.

Сосед — настоящий класс (make class) на порту 8000, как у учителя по умолчанию (занят — на свободном), с учеником,
его сервером и ядром. Рядом с ним: make class на его порту отказывает по-русски, ничего не сделав; make class-stop
другого класса с теми же именами записей и старыми файлами PID соседа не трогает ни одного его процесса; тесты хаба
(tests/test_class_hub.py, test_class_accounts.py, test_class_results.py) проходят. После всего сосед цел: те же
процессы живы, записи и папка состояния те же, его порт отвечает его прокси, ядро ученика считает.

Всё, что тест запустил и завёл (сосед, его записи, процесс «учителя вне хаба»), он останавливает и удаляет сам.
Нужен root (useradd); без root тест пропускается, в CI это ошибка.
"""

import hashlib
import json
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from posix_only import skip_module_without

skip_module_without("pwd", "os.geteuid")      # класс — только Linux; до import pwd
import pwd  # noqa: E402

from tests.hub_client import Hub, kill, processes_of, remove_accounts  # noqa: E402
from tools.classroom import hub  # noqa: E402
from tools.classroom.processes import (alive, class_processes, cmdline, free_port, listeners, of_class,  # noqa: E402
                                       orphan_services, port_free)

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYTHON = sys.executable
HUB_TESTS = ["tests/test_class_hub.py", "tests/test_class_accounts.py", "tests/test_class_results.py"]

if os.geteuid() != 0:
    if os.environ.get("CI"):
        pytest.fail("tests/test_class_neighbour.py: в CI тест соседнего класса обязателен, а он запущен не от root",
                    pytrace=False)
    pytest.skip("класс (make class) делает записи системы — этот тест идёт только от root", allow_module_level=True)


def hub_cli(*args, timeout=180):
    return subprocess.run([PYTHON, "-m", "tools.classroom.hub", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)})


def random_prefix(head):
    return head + "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(5))


def digest(folder, names):
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in names}


STATE_FILES = ("class.json", "service-token", "jupyterhub_cookie_secret", "jupyterhub.pid", "proxy.pid")


@pytest.fixture(scope="module")
def neighbour(tmp_path_factory):
    """Идущий класс-сосед: хаб, прокси, culler, сервер ученика и его ядро; -> что о нём известно."""
    prefix = random_prefix("cln")
    learner, teacher = prefix + "a", prefix + "t"
    folder = tmp_path_factory.mktemp("neighbour")
    (folder / "learners.txt").write_text(learner + "\n", encoding="utf-8")
    state = folder / "state"
    info = {"learner": learner, "teacher": teacher, "state": state, "folder": folder, "kernel": None}
    try:
        for port in (8000, free_port(), free_port()):            # 8000 — порт класса по умолчанию
            if not port_free("127.0.0.1", port):
                continue
            done = hub_cli("start", "--learners", str(folder / "learners.txt"), "--state", str(state),
                           "--host", "127.0.0.1", "--port", str(port), "--teacher", teacher, "--memory", "700M")
            if not (done.returncode == 2 and "уже занят" in done.stderr):
                break
        assert done.returncode == 0, f"класс-сосед не запустился:\n{done.stdout}\n{done.stderr}"
        client = Hub(port, state)
        client.request_server(learner)
        client.wait_ready(learner)
        info["kernel"] = client.kernel(learner, "сосед.ipynb")
        kernel_pid = int(info["kernel"].run("import os\nprint(os.getpid())"))
        uid = pwd.getpwnam(learner).pw_uid
        culler = [int(p.name) for p in pathlib.Path("/proc").iterdir() if p.name.isdigit()
                  and "jupyterhub_idle_culler" in (p / "cmdline").read_bytes().decode(errors="replace")
                  and os.readlink(p / "cwd") == str(state.resolve())]
        assert len(culler) == 1, f"culler соседа не найден: {culler}"
        info.update(port=port, hub=client, kernel_pid=kernel_pid, culler=culler[0],
                    hub_pid=int((state / "jupyterhub.pid").read_text()), proxy_pid=int((state / "proxy.pid").read_text()),
                    learner_pids=sorted(processes_of(uid)),
                    uids={name: pwd.getpwnam(name).pw_uid for name in (learner, teacher)},
                    files=digest(state, STATE_FILES))
        assert kernel_pid in info["learner_pids"]
        yield info
    finally:
        if info["kernel"] is not None:
            info["kernel"].close()
        hub_cli("stop", "--state", str(state), timeout=120)
        for key in ("hub_pid", "proxy_pid", "culler"):
            if key in info and alive(info[key]):
                kill([info[key]])
        remove_accounts([learner, teacher])


def neighbour_pids(info):
    return {"хаб": info["hub_pid"], "прокси": info["proxy_pid"], "culler": info["culler"],
            **{f"процесс ученика {pid}": pid for pid in info["learner_pids"]}}


def assert_untouched(info):
    """Сосед цел: процессы, записи, папка состояния, его порт — у его прокси, ядро ученика считает."""
    dead = [what for what, pid in neighbour_pids(info).items() if not alive(pid)]
    assert not dead, f"у класса-соседа остановлены: {dead}"
    assert {name: pwd.getpwnam(name).pw_uid for name in info["uids"]} == info["uids"], "записи соседа изменились"
    assert digest(info["state"], STATE_FILES) == info["files"], "папка состояния соседа изменилась"
    assert info["proxy_pid"] in listeners(info["port"]), f"порт {info['port']} соседа слушает не его прокси"
    with urllib.request.urlopen(f"http://127.0.0.1:{info['port']}/hub/api/", timeout=10) as reply:
        assert reply.status == 200
    assert info["kernel"].run("print(6 * 7)").strip() == "42", "ядро ученика соседа не считает"


def test_make_class_on_the_neighbours_port_refuses_in_russian(neighbour, tmp_path):
    prefix = random_prefix("clr")
    (tmp_path / "learners.txt").write_text(prefix + "a\n", encoding="utf-8")
    try:
        done = hub_cli("start", "--learners", str(tmp_path / "learners.txt"), "--state", str(tmp_path / "state"),
                       "--host", "127.0.0.1", "--port", str(neighbour["port"]), "--teacher", prefix + "t")
        assert done.returncode == 2, f"make class на занятом порту не отказал:\n{done.stdout}\n{done.stderr}"
        said = done.stderr
        assert f"порт {neighbour['port']} на 127.0.0.1 уже занят" in said, said
        assert str(neighbour["state"].resolve()) in said, f"не сказано, кто держит порт: {said}"
        assert "make class PORT=" in said and "Traceback" not in said and "Класс запущен" not in done.stdout, said
        for name in (prefix + "a", prefix + "t"):                     # отказ до первой записи
            with pytest.raises(KeyError):
                pwd.getpwnam(name)
        assert not (tmp_path / "state").exists()
    finally:
        if (tmp_path / "state").exists():                          # старый код запускал второй класс «на» порту
            hub_cli("stop", "--state", str(tmp_path / "state"), timeout=120)
        remove_accounts([prefix + "a", prefix + "t"])
    assert_untouched(neighbour)


def test_stopping_another_class_with_the_same_names_leaves_the_neighbour(neighbour, tmp_path):
    """Другой класс с теми же TEACHER= и учеником (так бывает у учителя с двумя группами), и в его файлах PID —
    старые номера, которые теперь у процессов соседа. Его make class-stop не трогает ни соседа, ни учителя,
    запустившего ядро сам, вне хаба."""
    teacher = neighbour["teacher"]
    own = subprocess.Popen(["/bin/bash", "-c", "exec -a ipykernel_launcher sleep 300"],   # «ядро учителя» вне хаба
                           user=teacher, cwd="/", stdin=subprocess.DEVNULL)
    try:
        other = tmp_path / "other-state"
        other.mkdir()
        (other / "class.json").write_bytes((neighbour["state"] / "class.json").read_bytes())   # те же имена и порты
        (other / "jupyterhub.pid").write_text(str(neighbour["hub_pid"]))
        (other / "proxy.pid").write_text(str(neighbour["proxy_pid"]))
        done = hub_cli("stop", "--state", str(other))
        assert done.returncode == 0 and "хаб уже был остановлен" in done.stdout, done.stdout + done.stderr
        assert "процессов" not in done.stdout, f"остановлено чужое: {done.stdout}"
        assert alive(own.pid), "make class-stop другого класса остановил ядро учителя вне хаба"
        assert "не запущен" in hub_cli("status", "--state", str(other)).stdout
        assert_untouched(neighbour)
    finally:
        own.kill()
        own.wait()


def test_hub_tests_pass_beside_the_neighbour(neighbour):
    done = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", *HUB_TESTS], cwd=ROOT,
                          capture_output=True, text=True, timeout=1500, env={**os.environ, "PYTHONPATH": str(ROOT)})
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0 and " passed" in summary and "error" not in summary and "failed" not in summary, \
        f"тесты хаба рядом с соседом:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    assert_untouched(neighbour)


def test_neighbour_stops_by_its_own_make_class_stop(neighbour):
    """В конце сосед останавливается своим make class-stop — весь: хаб, прокси, culler, сервер и ядро ученика."""
    done = hub_cli("stop", "--state", str(neighbour["state"]))
    assert done.returncode == 0 and "хаб и прокси остановлены" in done.stdout, done.stdout + done.stderr
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in neighbour_pids(neighbour).values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [what for what, pid in neighbour_pids(neighbour).items() if alive(pid)]
    assert not left, f"make class-stop соседа оставил: {left}"
    assert port_free("127.0.0.1", neighbour["port"])


@pytest.fixture
def small_class(tmp_path):
    """Записи и папка маленького класса для hub.start в этом процессе; в конце всё, что он запустил, остановлено."""
    prefix = random_prefix("clp")
    (tmp_path / "learners.txt").write_text(prefix + "a\n", encoding="utf-8")
    state = (tmp_path / "state").resolve()
    try:
        yield {"learners": tmp_path / "learners.txt", "teacher": prefix + "t", "state": state}
    finally:
        if (state / "class.json").exists():
            hub_cli("stop", "--state", str(state), timeout=120)
        left = [int(p.name) for p in pathlib.Path("/proc").iterdir() if p.name.isdigit() and of_class(p.name, state)]
        kill(left + orphan_services(state))
        remove_accounts([prefix + "a", prefix + "t"])


def listening_socket(port=0):
    held = socket.socket()
    held.bind(("127.0.0.1", port))
    held.listen()
    return held


def start_small(small, port, **kwargs):
    return hub.start(small["learners"], small["state"], "127.0.0.1", port, small["teacher"], memory="700M",
                     wait=90, **kwargs)


@pytest.mark.parametrize("probe", ["sees", "misses"])
def test_remembered_internal_ports_taken_by_another_program(small_class, monkeypatch, capsys, probe):
    """В class.json — внутренние порты прошлого запуска, а теперь их слушает другая программа. Проба видит это —
    берутся новые; проба не видит (порт заняли между пробой и запуском хаба: здесь проба подменена) — хаб падает
    на занятом порту, и make class пробует снова с другими. Класс идёт, чужие порты не тронуты."""
    state = small_class["state"]
    taken_hub, taken_api = listening_socket(), listening_socket()
    try:
        state.mkdir()
        old = {"hub_port": taken_hub.getsockname()[1], "proxy_api_port": taken_api.getsockname()[1]}
        (state / "class.json").write_text(json.dumps(old), encoding="utf-8")
        if probe == "misses":
            monkeypatch.setattr(hub, "taken_by_other", lambda port, state: False)
        port = free_port()
        settings = start_small(small_class, port)
        said = capsys.readouterr().out
        assert {settings["hub_port"], settings["proxy_api_port"]}.isdisjoint(old.values()), settings
        if probe == "sees":
            assert f"внутренний порт {old['hub_port']} занят другой программой" in said, said
        else:
            log = (state / "jupyterhub.log").read_text(errors="replace")
            assert "EADDRINUSE" in log or "Address already in use" in log, "хаб не упирался в занятый порт"
        assert any(of_class(pid, state) for pid in listeners(port)), "порт класса слушает не его прокси"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/hub/api/", timeout=10) as reply:
            assert reply.status == 200
        for held in (taken_hub, taken_api):                      # чужие сокеты как были
            assert os.getpid() in listeners(held.getsockname()[1])
    finally:
        taken_hub.close()
        taken_api.close()


def test_public_port_taken_between_probe_and_start(small_class, monkeypatch):
    """Порт класса был свободен при пробе, а к запуску прокси его занял другой: make class отказывает по-русски
    и не оставляет ни хаба, ни прокси (раньше он печатал «Класс запущен» с чужим адресом)."""
    held = listening_socket()
    port = held.getsockname()[1]
    real_free, fooled = port_free, []

    def first_probe_misses(host, probed):
        if probed == port and not fooled:
            fooled.append(probed)
            return True
        return real_free(host, probed)
    monkeypatch.setattr(hub, "port_free", first_probe_misses)
    try:
        with pytest.raises(hub.ClassError, match=f"порт {port} на 127.0.0.1 уже занят другой программой"):
            start_small(small_class, port)
        assert fooled, "проба порта не вызвана"
        state = small_class["state"]
        left = [int(p.name) for p in pathlib.Path("/proc").iterdir() if p.name.isdigit() and of_class(p.name, state)]
        left += orphan_services(state)                         # class-verdicts узнаётся по --state в командной строке
        assert not left, f"после отказа остались процессы класса: {[(pid, cmdline(pid)) for pid in left]}"
        assert listeners(port) == [os.getpid()], "чужой порт тронут"
    finally:
        held.close()


def test_class_processes_go_by_the_environment_not_by_the_account(tmp_path):
    """Процессы одной и той же записи: сервер этого класса (CLASS_STATE), сервер старого запуска без CLASS_STATE,
    но с API хаба этого класса, процесс соседнего класса и процесс той же записи вне хаба. Свои — первые два."""
    state, hub_port = (tmp_path / "state").resolve(), free_port()
    envs = {"этот класс": {"CLASS_STATE": str(state)},
            "старый запуск этого класса": {"JUPYTERHUB_API_URL": f"http://127.0.0.1:{hub_port}/hub/api"},
            "соседний класс": {"CLASS_STATE": str(tmp_path / "other"),
                               "JUPYTERHUB_API_URL": f"http://127.0.0.1:{hub_port}/hub/api"},
            "старый сервер соседа": {"JUPYTERHUB_API_URL": f"http://127.0.0.1:{hub_port + 1}/hub/api"},
            "вне хаба": {}}
    kernel = ["/bin/bash", "-c", "exec -a ipykernel_launcher sleep 120"]          # с виду — ядро ученика
    started = {what: subprocess.Popen(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *kernel],
                                      user="nobody", cwd="/") for what, env in envs.items()}
    try:
        deadline = time.monotonic() + 10                       # env -i и bash успели смениться на «ядро»
        while any(not cmdline(p.pid).startswith("ipykernel") for p in started.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        found = set(class_processes({"teacher": "nobody", "learners": [], "hub_port": hub_port}, state))
        mine = {what for what, process in started.items() if process.pid in found}
        assert mine == {"этот класс", "старый запуск этого класса"}, mine
    finally:
        for process in started.values():
            process.kill()
            process.wait()

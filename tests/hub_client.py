"""Клиент настоящего хаба класса для tests/test_class_hub.py: форма входа, REST API хаба и jupyter_server,
ядро через websocket. Только стандартная библиотека и websocket-client."""

import http.cookiejar
import json
import os
import pathlib
import re
import signal
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import websocket


class Hub:
    """Хаб на 127.0.0.1:port; запросы API — ключом службы class-tools (файл 0600 в папке состояния)."""

    def __init__(self, port, state):
        self.base, self.state = f"http://127.0.0.1:{port}", pathlib.Path(state)

    @property
    def token(self):
        return (self.state / "service-token").read_text().strip()

    def request(self, method, path, body=None, timeout=30):
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                data = reply.read()
                return reply.status, json.loads(data) if data else None
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def sign_in(self, name, password):
        """Вход через настоящую форму /hub/login; -> (вошёл ли, cookie-jar)."""
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(self.base + "/hub/login", timeout=30).read().decode()
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode({"_xsrf": xsrf, "username": name, "password": password}).encode()
        try:
            opener.open(urllib.request.Request(self.base + "/hub/login?next=%2Fhub%2Fhome", data=form), timeout=30)
        except urllib.error.HTTPError as error:
            if error.code != 403:
                raise
        return any(cookie.name == "jupyterhub-hub-login" for cookie in jar), jar

    def request_server(self, name):
        """Запустить сервер ученика через REST API хаба (не дожидаясь)."""
        code, reply = self.request("POST", f"/hub/api/users/{name}/server")
        assert code in (201, 202) or (code == 400 and "already" in str(reply)), f"сервер {name} не запущен: {code} {reply}"

    def wait_ready(self, name, timeout=90, retries=2):
        """Ждать, пока сервер ученика готов; -> его описание из API хаба.

        Порт сервера хаб берёт пробой (random_port), и до запуска сервера его может занять сосед по машине: тогда
        запуск не удаётся (ни сервера, ни запуска в ожидании) — запросить ещё раз, не больше retries раз."""
        deadline = time.monotonic() + timeout
        missing_since = None
        while time.monotonic() < deadline:
            user = self.request("GET", f"/hub/api/users/{name}")[1] or {}
            server = user.get("servers", {}).get("") if isinstance(user, dict) else None
            if server and server.get("ready"):
                return server
            if server or (isinstance(user, dict) and user.get("pending")):
                missing_since = None
            elif missing_since is None:
                missing_since = time.monotonic()
            elif time.monotonic() - missing_since > 5 and retries > 0:   # 5 с ни сервера, ни запуска: не удался
                retries -= 1
                missing_since = None
                self.request("POST", f"/hub/api/users/{name}/server")     # ответ не важен: ждём дальше
            time.sleep(0.3)
        raise AssertionError(f"сервер ученика {name} не поднялся за {timeout} с")

    def kernel(self, name, path):
        """Сессия с тетрадкой path в work/ ученика (так ядро стартует в work/) и её ядро."""
        code, session = self.request("POST", f"/user/{name}/api/sessions",
                                     {"path": path, "type": "notebook", "kernel": {"name": "python3"}})
        assert code == 201, f"ядро у {name} не создано: {code} {session}"
        return Kernel(self, name, session["kernel"]["id"])


class KernelDied(Exception):
    """Ядро умерло посреди исполнения (сервер сообщил restarting/dead или закрыл канал).

    output и error — что ячейка успела получить до смерти ядра (так приходит и объяснение сервера класса)."""

    def __init__(self, reason, output="", error=None):
        super().__init__(reason)
        self.output, self.error = output, error


class Kernel:
    def __init__(self, hub, user, kernel_id):
        self.hub, self.user, self.id = hub, user, kernel_id
        self.ws, self.traceback = None, ""

    def connect(self):
        url = f"ws://{self.hub.base.split('://', 1)[1]}/user/{self.user}/api/kernels/{self.id}/channels"
        self.ws = websocket.create_connection(url, header=[f"Authorization: token {self.hub.token}"], timeout=90)

    def run(self, code, timeout=180):
        """Исполнить code; -> напечатанное. Ошибка в ядре -> AssertionError с её текстом; смерть ядра -> KernelDied."""
        self.close()             # каждый раз новое соединение: старое сервер мог закрыть, пока тест не читал ping
        self.connect()
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "", "session": uuid.uuid4().hex,
                       "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        out, error = [], None
        # Срок на весь ответ, а не на одно чтение: сервер шлёт ping каждые 30 с, и websocket-client, отвечая на них,
        # ждал бы ответа ядра, которое не отвечает, вечно (так и было под нагрузкой make test).
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                self.close()
                raise KernelDied(f"ядро {self.user} не ответило за {timeout} с")
            self.ws.settimeout(5)
            try:
                message = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                continue
            except (websocket.WebSocketException, ConnectionError) as lost:
                self.ws = None
                raise KernelDied(str(lost), "".join(out), error) from None
            state = message.get("content", {}).get("execution_state")
            if message["msg_type"] == "status" and state in ("restarting", "dead"):
                self.ws = None
                raise KernelDied(state, "".join(out), error)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if message["msg_type"] == "stream":
                out.append(message["content"]["text"])
            elif message["msg_type"] == "error":
                error = f"{message['content']['ename']}: {message['content']['evalue']}"
                self.traceback = "\n".join(message["content"].get("traceback", []))
            elif message["msg_type"] == "status" and state == "idle":
                break
        self.close()
        if error:
            raise AssertionError(f"ядро {self.user}: {error}")
        return "".join(out)

    def close(self):
        if self.ws is not None:
            self.ws.close()
            self.ws = None


def processes_of(uid):
    """PID живых процессов записи uid (зомби — уже не процесс: он не держит ни памяти, ни файлов)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid and describe(int(entry.name))[0] != "Z":
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def describe(pid):
    """(состояние, командная строка) процесса — для сообщения теста."""
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        return state, cmdline[:200]
    except (OSError, IndexError):
        return "?", ""


def rss_kb(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def kill(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def remove_accounts(names, state=None):
    """Убрать записи теста: их процессы, образы домов (DISK — до userdel, иначе висит loop-устройство на 1 ГБ),
    сами записи и их папки cgroup; state — папка состояния класса теста: и папку cgroup этого класса.

    Записи чужого класса сюда не передают: всё делается только с names."""
    import pwd
    import subprocess

    from tools.classroom import disk, memory_cgroup

    for name in names:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        kill(processes_of(entry.pw_uid))
        for _ in range(10):
            if disk.release(entry.pw_dir):
                break
            time.sleep(0.5)
        else:
            disk.release(entry.pw_dir, lazy=True)                  # занят: отцепить сразу, закроется, когда отпустят
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        for group in pathlib.Path("/sys/fs/cgroup").glob(f"*/{memory_cgroup.GROUP}/*/{name}"):
            try:
                group.rmdir()
            except OSError:
                pass
    if state is not None:
        for group in pathlib.Path("/sys/fs/cgroup").glob(f"*/{memory_cgroup.GROUP}/{memory_cgroup.class_key(state)}"):
            try:
                group.rmdir()
            except OSError:
                pass

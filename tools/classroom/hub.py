"""Класс на одном сервере: JupyterHub для учеников из class/learners.txt — запустить, остановить, посмотреть.

    sudo make class                # = python -m tools.classroom.hub start
    sudo make class-stop           # = python -m tools.classroom.hub stop
    sudo make class-status         # = python -m tools.classroom.hub status

Состояние (база хаба, секрет куки, пароли-хэши, ключ службы, журнал, PID) — в class/state/ (не в git).
Настройки JupyterHub — class/jupyterhub_config.py; пределы ученика — tools/classroom/limits.py.
"""

import argparse
import json
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from tools.classroom import accounts, handout_guard, limits, memory_cgroup
from tools.classroom.processes import alive, class_processes, end, free_port, read_pid

ROOT = accounts.ROOT
STATE = ROOT / "class" / "state"
CONFIG = ROOT / "class" / "jupyterhub_config.py"
BIN = pathlib.Path(sys.executable).parent
LOCAL_PROXY = ROOT / "class" / "node_modules" / ".bin" / "configurable-http-proxy"


class ClassError(RuntimeError):
    """Класс не запустить или не остановить: текст говорит, что сделать."""


def find_proxy():
    """configurable-http-proxy: своя копия в class/node_modules, иначе из PATH, иначе ставится npm-ом в class/."""
    if LOCAL_PROXY.exists():
        return str(LOCAL_PROXY)
    found = shutil.which("configurable-http-proxy")
    if found:
        return found
    if not shutil.which("npm"):
        raise ClassError("нет configurable-http-proxy (прокси JupyterHub) и нет npm, чтобы его поставить: "
                         "поставьте Node.js 18+ с npm (apt-get install nodejs npm) и запустите make class снова")
    print("make class: ставлю configurable-http-proxy в class/node_modules (npm, один раз)…")
    done = subprocess.run(["npm", "install", "--prefix", str(ROOT / "class"), "--no-save", "configurable-http-proxy@^5"],
                          capture_output=True, text=True)
    if done.returncode != 0 or not LOCAL_PROXY.exists():
        raise ClassError(f"npm не поставил configurable-http-proxy:\n{done.stderr.strip()[-800:]}")
    return str(LOCAL_PROXY)


def secret_file(path, make):
    """Файл 0600 с секретом: берётся, если есть, иначе делается."""
    path = pathlib.Path(path)
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(make())
    os.chmod(path, 0o600)
    return path.read_text().strip()


def load_settings(state):
    try:
        return json.loads((pathlib.Path(state) / "class.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def api(settings, state, method, path, body=None, timeout=10):
    """Запрос к REST API хаба от имени службы class-tools; -> (код, json или None)."""
    token = (pathlib.Path(state) / "service-token").read_text().strip()
    request = urllib.request.Request(f"http://127.0.0.1:{settings['hub_port']}/hub/api{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            data = reply.read()
            return reply.status, json.loads(data) if data else None
    except urllib.error.HTTPError as error:
        return error.code, None


def address(settings):
    scheme = "https" if settings["cert"] else "http"
    host = settings["host"]
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    return f"{scheme}://{shown}:{settings['port']}/"


def start(learners_file, state, host, port, teacher, solutions=True, cert="", key="", memory=limits.MEMORY,
          wait=60):
    """Записи, work/ и хаб; -> настройки класса. Уже идущий класс не трогается."""
    if os.geteuid() != 0:
        raise ClassError("make class делает записи учеников и запускает их серверы от их имени — нужен root: sudo make class")
    state = pathlib.Path(state).resolve()
    names = accounts.read(learners_file)
    accounts.check_teacher(teacher)
    if teacher in names:
        raise accounts.LearnersError(f"учитель «{teacher}» есть и в списке учеников: учитель — администратор хаба, "
                                     "уберите его из списка или выберите другое TEACHER=")
    if bool(cert) != bool(key):
        raise ClassError("для HTTPS нужны оба файла: CERT=fullchain.pem и KEY=privkey.pem")
    for file in filter(None, (cert, key)):
        if not pathlib.Path(file).is_file():
            raise ClassError(f"нет файла {file} (CERT/KEY — сертификат и ключ TLS, например от certbot)")
    memory_limit = limits.memory_bytes(memory)
    old = load_settings(state)
    running = [p for p in (read_pid(state / "jupyterhub.pid"), read_pid(state / "proxy.pid")) if p and alive(p)]
    if old and running:
        asked = {"host": host, "port": int(port), "teacher": teacher, "learners": names, "memory": memory_limit,
                 "solutions": bool(solutions)}
        if all(old.get(k) == v for k, v in asked.items()) and bool(old["cert"]) == bool(cert):
            print(f"make class: класс уже идёт — {address(old)} (остановить: make class-stop)")
            closed = [] if solutions else handout_guard.close(state)     # и то, что появилось с тех пор (make site)
            return {**old, "made": [], "closed": closed}
        # список или настройки изменились: перезапускаем только хаб — серверы учеников работают дальше
        print("make class: настройки или список учеников изменились — перезапускаю хаб (ученики работают дальше)")
        end(running, grace=10)
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    settings = {
        "host": host, "port": int(port), "teacher": teacher, "learners": names,
        "cert": str(pathlib.Path(cert).resolve()) if cert else "", "key": str(pathlib.Path(key).resolve()) if key else "",
        "memory": memory_limit, "solutions": bool(solutions), "proxy": find_proxy(), "singleuser": str(BIN / "jupyterhub-singleuser"),
        # внутренние порты те же после перезапуска: серверы учеников помнят адрес API хаба
        "hub_port": (old or {}).get("hub_port") or free_port(),
        "proxy_api_port": (old or {}).get("proxy_api_port") or free_port(),
    }
    secret_file(state / "service-token", lambda: secrets.token_hex(32))

    accounts.check_paths(sys.executable)          # до первой записи: ничего не сделано наполовину
    made, entries = [], []
    for name in [teacher, *names]:
        entry, created = accounts.ensure_account(name)
        entries.append(entry)
        if created:
            made.append(name)
    accounts.check_reachable(entries[0], sys.executable)
    handout_guard.reopen(state)     # копию уроков делает сам ученик: lessons/ ему нужен открытым
    with ThreadPoolExecutor(max_workers=4) as pool:   # work/ всех учеников сразу: каждая — свой процесс
        list(pool.map(lambda entry: accounts.prepare_work(entry, sys.executable, solutions=solutions), entries))
    closed = [] if solutions else handout_guard.close(state)    # SOLUTIONS=no: ответы закрыты до входа учеников
    (state / "class.json").write_text(json.dumps(settings, ensure_ascii=False, indent=1), encoding="utf-8")

    log = open(state / "jupyterhub.log", "ab")
    hub = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(CONFIG)], cwd=state, stdout=log, stderr=log,
                           stdin=subprocess.DEVNULL, start_new_session=True, env={**os.environ, "CLASS_STATE": str(state)})
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            raise ClassError(f"JupyterHub остановился при запуске (код {hub.returncode}); конец журнала "
                             f"{state / 'jupyterhub.log'}:\n{tail(state / 'jupyterhub.log')}")
        try:
            if api(settings, state, "GET", "/", timeout=2)[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.3)
    else:
        raise ClassError(f"JupyterHub не ответил за {wait} с; журнал: {state / 'jupyterhub.log'}")
    settings["made"], settings["closed"] = made, closed
    return settings


def tail(path, lines=15):
    try:
        return "\n".join(pathlib.Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(журнала нет)"


def stop(state):
    """Остановить всё сразу: хаб, прокси, culler, серверы и ядра учеников (SIGTERM, затем SIGKILL). -> строки отчёта.

    Серверы не ждут хаба: каждый на SIGTERM сам закрывает свои ядра, а хаб при следующем запуске увидит,
    что их процессов нет. Работа учеников — файлы в их work/, её остановка не трогает.
    """
    state = pathlib.Path(state).resolve()
    opened = handout_guard.reopen(state)          # SOLUTIONS=no закрывал папки курса — открываем
    reopened = [f"ученикам снова открыто: {', '.join(opened)}"] if opened else []
    settings = load_settings(state)
    if settings is None:
        return ["класс здесь не запускался (нет class/state/class.json) — останавливать нечего", *reopened]
    hub = [p for p in (read_pid(state / "jupyterhub.pid"), read_pid(state / "proxy.pid")) if p and alive(p)]
    learners = class_processes(settings, state)
    end(hub + learners, grace=10)
    leftovers = end(class_processes(settings, state))         # ядра, которые сервер успел запустить в эти секунды
    version, where = memory_cgroup.controller()
    if version is not None:
        for name in [settings["teacher"], *settings["learners"]]:
            memory_cgroup.remove_group(where / name)
    report = ["хаб и прокси остановлены" if hub else "хаб уже был остановлен"]
    if learners or leftovers:
        report.append(f"остановлены серверы и ядра учеников и culler: процессов {len(learners) + leftovers}")
    report.append("работа учеников в их work/ осталась; запустить снова: make class")
    return report + reopened


def status(state):
    state = pathlib.Path(state).resolve()
    settings = load_settings(state)
    if settings is None or not alive(read_pid(state / "jupyterhub.pid") or -1):
        return ["класс не запущен (запустить: make class)"]
    lines = [f"класс идёт: {address(settings)}, учитель {settings['teacher']}, учеников {len(settings['learners'])}"]
    try:
        _, users = api(settings, state, "GET", "/users")
        working = sorted(u["name"] for u in users or [] if u.get("servers"))
        lines.append(f"серверы запущены у {len(working)}: {', '.join(working) or 'ни у кого'}")
    except OSError:
        lines.append("хаб не отвечает на API — смотрите журнал " + str(state / "jupyterhub.log"))
    return lines


def welcome(settings, state):
    """Что напечатать учителю после make class."""
    lines = [f"Класс запущен: {address(settings)}",
             f"  входят: учитель {settings['teacher']} (администратор хаба) и ученики ({len(settings['learners'])}): "
             + ", ".join(settings["learners"]),
             "  пароль: каждый придумывает его сам при первом входе (не короче 8 знаков); в class/state хранится только",
             "          его bcrypt-хэш. Раздайте имена и попросите всех войти сразу, на первом занятии.",
             f"  пределы: память {settings['memory'] // 2**20} МБ на ученика, потоков {limits.THREADS}; ядро без дела "
             f"закрывается через {limits.KERNEL_IDLE_SECONDS // 60} мин, сервер — через {limits.SERVER_IDLE_SECONDS // 60} мин",
             f"  журнал: {state / 'jupyterhub.log'}",
             "  остановить: make class-stop (работа учеников в их ~/work остаётся)"]
    lines += [f"  {line}" for line in settings.get("closed", [])]
    if settings.get("made"):
        lines.insert(1, f"  новые записи системы: {', '.join(settings['made'])}")
    if settings["host"] not in ("127.0.0.1", "localhost", "::1") and not settings["cert"]:
        lines.append("ВНИМАНИЕ: хаб слушает не только эту машину, а TLS нет — пароли идут по сети открытым текстом. "
                     "Так можно только в закрытой сети класса; иначе CERT=… KEY=… или nginx/Caddy с HTTPS перед хабом.")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description="JupyterHub класса на одном сервере")
    parser.add_argument("command", choices=["start", "stop", "status"])
    parser.add_argument("--learners", default=str(accounts.LEARNERS), help="список учеников, одно имя в строке")
    parser.add_argument("--state", default=str(STATE), help="папка состояния хаба (по умолчанию class/state)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--teacher", default="teacher")
    parser.add_argument("--solutions", choices=["yes", "no"], default="yes", help="no: копии уроков без решений")
    parser.add_argument("--cert", default="")
    parser.add_argument("--key", default="")
    parser.add_argument("--memory", default=limits.MEMORY, help="предел памяти ученика, например 1536M")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            settings = start(args.learners, args.state, args.host, args.port, args.teacher, args.solutions == "yes",
                             args.cert, args.key, args.memory)
            print("\n".join(welcome(settings, pathlib.Path(args.state).resolve())))
        else:
            print("\n".join((stop if args.command == "stop" else status)(args.state)))
    except (ClassError, accounts.LearnersError, ValueError) as error:
        print(f"make class: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Класс на одном сервере: JupyterHub для учеников из class/learners.txt — запустить, остановить, посмотреть.

    sudo make class                # = python -m tools.classroom.hub start
    sudo make class-stop           # = python -m tools.classroom.hub stop
    sudo make class-status         # = python -m tools.classroom.hub status

Состояние (база хаба, секрет куки, пароли-хэши, ключ службы, журнал, PID, спул вердиктов verdicts/ и секрет
их подписи verdict-secret) — в class/state/ (не в git, папка 0700: ученику туда не заглянуть).
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

from tools.classroom import accounts, disk, handout_guard, limits, memory_cgroup
from tools.classroom.processes import class_processes, end, free_port, orphan_services
from tools.classroom.processes import class_pid, cmdline, environ, listeners, of_class, port_free

ROOT = accounts.ROOT
STATE = ROOT / "class" / "state"
CONFIG = ROOT / "class" / "jupyterhub_config.py"
BIN = pathlib.Path(sys.executable).parent
LOCAL_PROXY = ROOT / "class" / "node_modules" / ".bin" / "configurable-http-proxy"


INTERNAL_PORTS = ("hub_port", "proxy_api_port", "verdicts_port")   # API хаба, API прокси, служба class-verdicts


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
          wait=60, pids=limits.PIDS, disk_size=limits.DISK):
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
    pids_limit = limits.pids_count(pids)
    disk_limit = None if str(disk_size).strip().lower() == "no" else limits.disk_bytes(disk_size)
    old = load_settings(state)
    running = own_hub(state)
    if old and running:
        asked = {"host": host, "port": int(port), "teacher": teacher, "learners": names, "memory": memory_limit,
                 "solutions": bool(solutions), "pids": pids_limit}
        if all(old.get(k) == v for k, v in asked.items()) and bool(old["cert"]) == bool(cert):
            print(f"make class: класс уже идёт — {address(old)} (остановить: make class-stop)")
            closed = [] if solutions else handout_guard.close(state)     # и то, что появилось с тех пор (make site)
            return {**old, "made": [], "closed": closed}
        # список или настройки изменились: перезапускаем только хаб — серверы учеников работают дальше
        print("make class: настройки или список учеников изменились — перезапускаю хаб (ученики работают дальше)")
        end(running, grace=10)
    # хаб убит (kill -9) — его culler и class-verdicts остались сиротами: новый хаб запустит свои. До проверки
    # внутренних портов: сирота class-verdicts держит свой порт, и его занятость остановила бы серверы учеников
    end(orphan_services(state), grace=5)
    check_public_port(host, port, state)          # до первой записи: занятый порт — отказ, а не чужой адрес ученикам
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    settings = {
        "host": host, "port": int(port), "teacher": teacher, "learners": names,
        "cert": str(pathlib.Path(cert).resolve()) if cert else "", "key": str(pathlib.Path(key).resolve()) if key else "",
        "memory": memory_limit, "pids": pids_limit, "disk": disk_limit, "solutions": bool(solutions), "proxy": find_proxy(), "singleuser": str(BIN / "jupyterhub-singleuser"),
        # внутренние порты те же после перезапуска: серверы учеников помнят адрес API хаба
        "hub_port": (old or {}).get("hub_port") or free_port(),
        "proxy_api_port": (old or {}).get("proxy_api_port") or free_port(),
        "verdicts_port": (old or {}).get("verdicts_port") or free_port(),     # служба class-verdicts
    }
    for key in INTERNAL_PORTS:                   # запомненный порт слушает другая программа
        if taken_by_other(settings[key], state):
            # серверы учеников помнят адрес хаба: с новым портом хаба они не нужны (запустятся при входе)
            leftovers = end(class_processes(settings, state)) if key == "hub_port" else 0
            settings[key] = free_port()
            print(f"make class: внутренний порт {(old or {}).get(key)} занят другой программой — беру {settings[key]}"
                  + (f"; серверы учеников остановлены ({leftovers}), они запустятся при входе" if leftovers else ""))
    secret_file(state / "service-token", lambda: secrets.token_hex(32))
    secret_file(state / "verdict-secret", lambda: secrets.token_hex(32))   # подпись вердиктов: только root

    accounts.check_paths(sys.executable)          # до первой записи: ничего не сделано наполовину
    made, entries = [], []
    for name in [teacher, *names]:
        entry, created = accounts.ensure_account(name)
        entries.append(entry)
        if created:
            made.append(name)
    accounts.check_reachable(entries[0], sys.executable)
    for entry in entries:                         # дом каждого — свой образ: до work/, чтобы она легла в образ
        note = disk.ensure_home_image(entry, state, disk_limit)
        if note:
            print(f"make class: {note}")
    handout_guard.reopen(state)     # копию уроков делает сам ученик: lessons/ ему нужен открытым
    with ThreadPoolExecutor(max_workers=4) as pool:   # work/ всех учеников сразу: каждая — свой процесс
        list(pool.map(lambda entry: accounts.prepare_work(entry, sys.executable, solutions=solutions), entries))
    closed = [] if solutions else handout_guard.close(state)    # SOLUTIONS=no: ответы закрыты до входа учеников

    for attempt in range(3):
        (state / "class.json").write_text(json.dumps(settings, ensure_ascii=False, indent=1), encoding="utf-8")
        if launch(settings, state, wait):
            break
        # порт, свободный при пробе, успели занять до запуска хаба: публичный — отказ, внутренние — взять другие
        check_public_port(host, port, state)
        keys = [k for k in INTERNAL_PORTS if taken_by_other(settings[k], state)]
        for key in keys or INTERNAL_PORTS:       # не видно, какой, — все
            settings[key] = free_port()
    else:
        raise ClassError(f"JupyterHub трижды не смог занять свои внутренние порты (их занимали другие программы); "
                         f"журнал: {state / 'jupyterhub.log'}")
    settings["made"], settings["closed"] = made, closed
    return settings


def own_hub(state):
    """PID хаба и прокси этого класса, которые живы (по файлам PID и CLASS_STATE в окружении процесса)."""
    return [p for p in (class_pid(state / "jupyterhub.pid", state), class_pid(state / "proxy.pid", state)) if p]


def holder_text(port, state):
    """Кто держит порт — по-русски, для отказа; пусто, если не видно."""
    named = []
    for pid in listeners(port)[:3]:
        other = environ(pid).get("CLASS_STATE")
        if other and other != str(state):
            named.append(f"класс с папкой состояния {other} (процесс {pid})")
        else:
            named.append(f"процесс {pid}: {cmdline(pid)[:100] or '?'}")
    return "; ".join(named)


def taken_by_other(port, state):
    """Порт слушает процесс не этого класса. Свои (служба, пережившая kill -9 хаба, — её остановят позже) и сокеты
    без слушателя (соединения умершего хаба) — не в счёт: их порт хаб займёт, а занятый — launch попробует снова."""
    own = set(orphan_services(state))
    return any(pid not in own and not of_class(pid, state) for pid in listeners(port))


def check_public_port(host, port, state):
    """Порт класса свободен или его держит прокси этого же класса; иначе ClassError по-русски."""
    if port_free(host, port) or any(of_class(pid, state) for pid in listeners(port)):
        return
    who = holder_text(port, state)
    raise ClassError(f"порт {port} на {host} уже занят другой программой{f' — {who}' if who else ''}. "
                     f"Этот класс его не трогает и не запущен. Выберите свободный порт: make class PORT={free_port()} "
                     "(и дайте ученикам новый адрес) — или остановите ту программу и запустите make class снова")


def launch(settings, state, wait):
    """Запустить хаб и дождаться, пока он ответит и его прокси слушает порт класса; -> True.

    False — хаб не смог занять порт, свободный при пробе (его успели занять): hub.start берёт другие и пробует снова.
    """
    log_path = state / "jupyterhub.log"
    start_at = log_path.stat().st_size if log_path.exists() else 0
    log = open(log_path, "ab")
    hub = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(CONFIG)], cwd=state, stdout=log, stderr=log,
                           stdin=subprocess.DEVNULL, start_new_session=True, env={**os.environ, "CLASS_STATE": str(state)})
    log.close()

    def fresh_log():
        with open(log_path, "rb") as text:
            text.seek(start_at)
            return text.read().decode(errors="replace")

    def stop_launch():
        end([hub.pid, *own_hub(state)], grace=10)
        end(orphan_services(state))                  # culler и class-verdicts, если хаб успел их запустить
        hub.poll()                                   # не оставлять зомби

    deadline = time.monotonic() + wait
    answered = False
    while time.monotonic() < deadline:
        said = fresh_log()
        if "EADDRINUSE" in said or "Address already in use" in said:
            stop_launch()          # порт занят: прокси без него не выходит, а хаб ждёт его API на чужом порту
            return False
        if hub.poll() is not None:
            raise ClassError(f"JupyterHub остановился при запуске (код {hub.returncode}); конец журнала "
                             f"{log_path}:\n{tail(log_path)}")
        if not answered:
            try:
                answered = api(settings, state, "GET", "/", timeout=2)[0] == 200
            except OSError:
                pass
        if answered:
            holders = listeners(settings["port"])
            if any(of_class(pid, state) for pid in holders):
                if "JupyterHub is now running" in said:     # и маршруты в прокси добавлены: адрес класса отвечает
                    return True
            elif holders:                                # порт класса слушает не наш прокси: остановить запуск
                stop_launch()
                return False
        time.sleep(0.3)
    stop_launch()
    raise ClassError(f"JupyterHub не ответил за {wait} с; журнал: {log_path}")


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
    hub = own_hub(state)                                      # PID из файла — только если процесс этого класса
    learners = class_processes(settings, state)
    end(hub + learners, grace=10)
    leftovers = end(class_processes(settings, state))         # ядра, которые сервер успел запустить в эти секунды
    for version, where in (memory_cgroup.pids_controller(state), memory_cgroup.controller(state)):
        if version is not None:                 # папка cgroup этого класса (по его state): соседний класс не трогается
            for name in [settings["teacher"], *settings["learners"]]:
                leftovers += memory_cgroup.sweep(where / name)   # и ушедшее в свою сессию (fork-бомба)
                memory_cgroup.remove_group(where / name)
            memory_cgroup.remove_group(where)
    unmounted = disk.release_all(state, [settings["teacher"], *settings["learners"]])   # процессов учеников уже нет
    report = ["хаб и прокси остановлены" if hub else "хаб уже был остановлен"]
    if learners or leftovers:
        report.append(f"остановлены серверы и ядра учеников и culler: процессов {len(learners) + leftovers}")
    report += unmounted
    report.append("работа учеников в их work/ осталась (образы домов в class/state/disks — make class монтирует "
                  "их снова); запустить снова: make class")
    return report + reopened


def status(state):
    state = pathlib.Path(state).resolve()
    settings = load_settings(state)
    if settings is None or not class_pid(state / "jupyterhub.pid", state):
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
             f"  пределы на ученика: память {settings['memory'] // 2**20} МБ, процессов и потоков "
             f"{settings.get('pids', limits.PIDS)}, место "
             + (f"{settings['disk'] // 2**20} МБ (его дом — свой образ в {state / 'disks'})" if settings.get("disk")
                else "не ограничено (DISK=no)")
             + f", потоков счёта {limits.THREADS}; ядро без дела "
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
    parser.add_argument("--pids", default=str(limits.PIDS), help="предел процессов и потоков ученика, например 512")
    parser.add_argument("--disk", default=limits.DISK, help="место ученика (образ его дома), например 1G; no — без предела")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            settings = start(args.learners, args.state, args.host, args.port, args.teacher, args.solutions == "yes",
                             args.cert, args.key, args.memory, pids=args.pids, disk_size=args.disk)
            print("\n".join(welcome(settings, pathlib.Path(args.state).resolve())))
        else:
            print("\n".join((stop if args.command == "stop" else status)(args.state)))
    except (ClassError, accounts.LearnersError, disk.DiskError, ValueError) as error:
        print(f"make class: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Процессы класса: жив ли PID, какие процессы — этого класса (а не соседнего на той же машине), как их остановить.

Процесс — этого класса, только если это видно по нему самому: в его окружении CLASS_STATE — папка состояния
класса (её ставит make class хабу, хаб — прокси, конфиг хаба — серверам учеников, сервер — их ядрам). Ни имени
записи, ни имени программы мало: учитель может вести два класса под одним TEACHER=, а PID из старого файла
может уже принадлежать чужому процессу. Серверы, запущенные до этой проверки (без CLASS_STATE), узнаются по
адресу API своего хаба (JUPYTERHUB_API_URL с портом хаба этого класса) и записи ученика класса.
"""

import os
import pathlib
import pwd
import signal
import socket
import time


def free_port():
    """Свободный сейчас порт на 127.0.0.1. Между пробой и запуском его может занять другой — кто берёт порт
    отсюда, проверяет, что слушает на нём именно он (hub.start пробует снова)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_free(host, port):
    """Можно ли сейчас слушать host:port (проба bind с SO_REUSEADDR, как у прокси: TIME_WAIT не в счёт)."""
    try:
        family, kind, proto, _, where = socket.getaddrinfo(host or "0.0.0.0", int(port), type=socket.SOCK_STREAM)[0]
    except socket.gaierror:
        return True                          # адрес не разобрать — скажет сам прокси
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError:
            return False
    return True


def listeners(port):
    """PID процессов, слушающих TCP-порт port (по /proc/net/tcp и tcp6; чужие процессы видит только root)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = pathlib.Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == int(port):
                inodes.add(f"socket:[{fields[9]}]")
    found = []
    if not inodes:
        return found
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def environ(pid):
    """Окружение процесса pid при его запуске ({} — процесса нет или его не прочесть)."""
    try:
        raw = pathlib.Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode(errors="replace"): value.decode(errors="replace") for key, value in pairs}


def cmdline(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def of_class(pid, state):
    """Процесс pid жив и принадлежит классу с папкой состояния state (CLASS_STATE в его окружении)."""
    return alive(pid) and environ(pid).get("CLASS_STATE") == str(pathlib.Path(state).resolve())


def class_pid(path, state):
    """PID из файла path, если этот процесс жив и он — этого класса; иначе None (файл старый, PID — уже чужой)."""
    pid = read_pid(path)
    return pid if pid and of_class(pid, state) else None


def alive(pid):
    """Жив ли процесс pid (зомби — не жив)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, ValueError, IndexError):
        return False


def read_pid(path):
    try:
        return int(pathlib.Path(path).read_text().strip())
    except (OSError, ValueError):
        return None


def class_processes(settings, state):
    """PID процессов класса, переживших хаб: серверы и ядра учеников, culler этого класса (не хаб и не прокси).

    Свой — только процесс записи этого класса с CLASS_STATE этого класса (или, у серверов старого запуска,
    с адресом API хаба этого класса), и culler с CLASS_STATE или рабочей папкой state. Процессы тех же записей
    вне класса (учитель сам запустил jupyter lab) и процессы соседнего класса не трогаются.
    """
    state = str(pathlib.Path(state).resolve())
    uids = set()
    for name in [settings["teacher"], *settings["learners"]]:
        try:
            uids.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            pass
    hub_api = f"http://127.0.0.1:{settings.get('hub_port')}/hub/api" if settings.get("hub_port") else None
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit() or not alive(entry.name):
            continue
        try:
            uid = entry.stat().st_uid
        except OSError:
            continue
        pid = int(entry.name)
        if "jupyterhub_idle_culler" in cmdline(pid):
            if _culler_of(pid, state):
                found.append(pid)
            continue
        if uid not in uids:
            continue
        env = environ(pid)
        if env.get("CLASS_STATE") == state or (
                hub_api and "CLASS_STATE" not in env and env.get("JUPYTERHUB_API_URL", "").rstrip("/") == hub_api):
            found.append(pid)
    return found


def _culler_of(pid, state):
    """culler pid — этого класса: его рабочая папка — state или CLASS_STATE=state (state — строка resolve())."""
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        cwd = ""
    return cwd == state or environ(pid).get("CLASS_STATE") == state


def orphan_services(state):
    """PID служб хаба этого класса (culler, class-verdicts) — для make class, когда хаба уже нет (kill -9):
    они пережили свой хаб, а новый запустит свои. culler — с рабочей папкой state или CLASS_STATE=state,
    class-verdicts — с «--state state» в командной строке."""
    state = str(pathlib.Path(state).resolve())
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit() or not alive(entry.name):
            continue
        try:
            words = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            if "jupyterhub_idle_culler" in words:
                if _culler_of(int(entry.name), state):
                    found.append(int(entry.name))
            elif "tools.classroom.verdicts" in words and state in words:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def end(pids, grace=5):
    """SIGTERM, подождать, затем SIGKILL тем, кто ещё жив; -> сколько было живых."""
    pids = [pid for pid in pids if alive(pid)]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return len(pids)

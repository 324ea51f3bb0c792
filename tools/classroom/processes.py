"""Процессы класса: жив ли PID, какие процессы остались от учеников и culler, как их остановить."""

import os
import pathlib
import pwd
import signal
import socket
import time


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
    """PID процессов класса, переживших хаб: серверы и ядра учеников, culler этого класса."""
    uids = set()
    for name in [settings["teacher"], *settings["learners"]]:
        try:
            uids.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            pass
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            uid = entry.stat().st_uid
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd") if "jupyterhub_idle_culler" in cmdline else ""
        except OSError:
            continue
        if (uid in uids and ("jupyterhub-singleuser" in cmdline or "ipykernel" in cmdline)) or cwd == str(state):
            found.append(int(entry.name))
    return found


def cullers(state):
    """PID jupyterhub-idle-culler этого класса (хаб запускает его в папке состояния state)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (b"jupyterhub_idle_culler" in (entry / "cmdline").read_bytes()
                    and os.readlink(entry / "cwd") == str(state) and alive(int(entry.name))):
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

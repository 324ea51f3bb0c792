"""Пределы ученика в cgroup: память (взявшее больше ядро Linux останавливает) и число процессов (fork-бомба упирается
в pids.max ученика и не трогает соседей). Сервер ученика и все его ядра — в своих папках обоих контроллеров.

Обычный LocalProcessSpawner JupyterHub памяти не ограничивает (mem_limit он только передаёт серверу).
Здесь — малый наследник: перед запуском сервера хаб (он root) делает папку ученика в контроллере памяти
и пишет предел, а только что рождённый процесс сервера, ещё до смены пользователя, входит в неё;
ядра, которые сервер запускает потом, наследуют её сами. Берётся cgroup v1 (`/sys/fs/cgroup/memory`),
а если её нет — cgroup v2 с контроллером memory. Нет ни того, ни другого (контейнер без прав) —
в журнал хаба пишется предупреждение, и ученики работают без предела. Так же — контроллер pids
(`/sys/fs/cgroup/pids` или cgroup v2 с `pids`): в нём предел `pids.max` — процессов и потоков ученика вместе.
"""

import asyncio
import os
import pathlib
import signal
import time

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer

GROUP = "attention-class"           # папка класса внутри контроллера памяти


def controller():
    """(версия, папка класса) первого контроллера памяти, в котором root может делать папки, или (None, причина)."""
    v1 = pathlib.Path("/sys/fs/cgroup/memory")
    if (v1 / "memory.limit_in_bytes").exists():
        try:
            (v1 / GROUP).mkdir(exist_ok=True)
            return 1, v1 / GROUP
        except OSError as error:
            reason = f"cgroup v1 памяти есть, но папку не сделать ({error.strerror})"
    else:
        reason = "контроллера памяти cgroup v1 нет"
    for v2 in (pathlib.Path("/sys/fs/cgroup"), pathlib.Path("/sys/fs/cgroup/unified")):
        controllers = v2 / "cgroup.controllers"
        if controllers.exists() and "memory" in controllers.read_text().split():
            try:
                (v2 / "cgroup.subtree_control").write_text("+memory")
                (v2 / GROUP).mkdir(exist_ok=True)
                (v2 / GROUP / "cgroup.subtree_control").write_text("+memory")
                return 2, v2 / GROUP
            except OSError as error:
                reason += f"; cgroup v2 с memory есть, но включить её нельзя ({error.strerror})"
    return None, reason + "; в cgroup v2 контроллера memory нет"


def pids_controller():
    """(версия, папка класса) контроллера pids, в котором root может делать папки, или (None, причина)."""
    v1 = pathlib.Path("/sys/fs/cgroup/pids")
    if (v1 / "cgroup.procs").exists() and not (v1 / "cgroup.controllers").exists():
        try:
            (v1 / GROUP).mkdir(exist_ok=True)
            return 1, v1 / GROUP
        except OSError as error:
            reason = f"cgroup v1 pids есть, но папку не сделать ({error.strerror})"
    else:
        reason = "контроллера pids cgroup v1 нет"
    for v2 in (pathlib.Path("/sys/fs/cgroup"), pathlib.Path("/sys/fs/cgroup/unified")):
        controllers = v2 / "cgroup.controllers"
        if controllers.exists() and "pids" in controllers.read_text().split():
            try:
                (v2 / "cgroup.subtree_control").write_text("+pids")
                (v2 / GROUP).mkdir(exist_ok=True)
                (v2 / GROUP / "cgroup.subtree_control").write_text("+pids")
                return 2, v2 / GROUP
            except OSError as error:
                reason += f"; cgroup v2 с pids есть, но включить её нельзя ({error.strerror})"
    return None, reason + "; в cgroup v2 контроллера pids нет"


def pids_group(name, limit):
    """Папка cgroup pids ученика name с pids.max = limit; -> (папка или None, текст для журнала)."""
    version, where = pids_controller()
    if version is None:
        return None, f"процессы ученика {name} НЕ ограничены: {where}. Нужен root и записываемый /sys/fs/cgroup"
    group = where / name
    group.mkdir(exist_ok=True)
    (group / "pids.max").write_text(str(int(limit)))
    return group, f"процессы ученика {name}: не больше {int(limit)} (процессы и потоки; cgroup v{version}, {group})"


def limit_group(name, limit_bytes):
    """Папка cgroup ученика name с пределом limit_bytes; -> (папка или None, текст для журнала)."""
    version, where = controller()
    if version is None:
        return None, f"память ученика {name} НЕ ограничена: {where}. Нужен root и записываемый /sys/fs/cgroup"
    group = where / name
    group.mkdir(exist_ok=True)
    if version == 1:
        files = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]   # memsw: и в swap не уйти
        try:
            for file in files:
                if (group / file).exists():
                    (group / file).write_text(str(limit_bytes))
        except OSError:                                                # предел понижают в обратном порядке
            for file in reversed(files):
                if (group / file).exists():
                    (group / file).write_text(str(limit_bytes))
    else:
        (group / "memory.max").write_text(str(limit_bytes))
        if (group / "memory.swap.max").exists():
            (group / "memory.swap.max").write_text("0")
    return group, f"память ученика {name}: не больше {limit_bytes // 2**20} МБ (cgroup v{version}, {group})"


def members(group):
    """PID процессов в папке cgroup."""
    try:
        return [int(pid) for pid in (pathlib.Path(group) / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def sweep(group, rounds=100, spare=None):
    """SIGKILL всем процессам папки cgroup, пока она не опустеет (fork-бомба рождает новых между обходами);
    -> сколько процессов остановлено. Так останавливается и то, что ученик запустил в обход сервера (своя сессия).
    spare(pid) -> True — процесс не трогать: папка cgroup — по имени записи, а запись (учитель под одним TEACHER=)
    может быть и в соседнем классе на той же машине."""
    killed = 0
    for _ in range(rounds):
        pids = [pid for pid in members(group) if not (spare and spare(pid))]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    return killed


def remove_group(group):
    """Убрать пустую папку cgroup (с процессами внутри ядро Linux её не отдаст — тогда остаётся)."""
    try:
        pathlib.Path(group).rmdir()
        return True
    except OSError:
        return False


class MemoryLimitedSpawner(LocalProcessSpawner):
    """LocalProcessSpawner, который держит сервер ученика и его ядра в пределе Spawner.mem_limit
    и в пределе числа процессов pids_limit."""

    pids_limit = Integer(0, help="Сколько процессов и потоков ученика вместе (pids.max); 0 — без предела").tag(config=True)

    _group = None
    _pids = None

    def make_preexec_fn(self, name):
        become_user = super().make_preexec_fn(name)
        files = [str(group / "cgroup.procs") for group in (self._group, self._pids) if group is not None]

        def preexec():
            for procs in files:          # ещё root: войти в cgroup, потом стать учеником
                fd = os.open(procs, os.O_WRONLY)
                try:
                    os.write(fd, str(os.getpid()).encode())
                finally:
                    os.close(fd)
            become_user()
        return preexec

    async def start(self):
        self._group = self._pids = None
        if self.mem_limit:
            self._group, message = limit_group(self.user.name, int(self.mem_limit))
            (self.log.info if self._group else self.log.warning)(message)
        if self.pids_limit:
            self._pids, message = pids_group(self.user.name, self.pids_limit)
            (self.log.info if self._pids else self.log.warning)(message)
        result = await super().start()
        for group, what in ((self._group, "память"), (self._pids, "число процессов")):
            if group is not None and self.pid not in members(group):
                self.log.warning("сервер ученика %s (pid %s) не попал в %s: %s не ограничено",
                                 self.user.name, self.pid, group, what)
        return result

    async def stop(self, now=False):
        await super().stop(now=now)
        for version, where in (pids_controller(), controller()):
            if version is not None:
                group = where / self.user.name
                # сервер остановлен, а его ядра могли оставить своё (фоновый процесс, fork-бомба в своей сессии)
                killed = await asyncio.get_running_loop().run_in_executor(None, sweep, group)
                if killed:
                    self.log.warning("ученик %s: после остановки сервера остановлено ещё процессов: %s",
                                     self.user.name, killed)
                remove_group(group)

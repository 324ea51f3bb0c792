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
import hashlib
import os
import pathlib
import signal
import time

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer

GROUP = "attention-class"           # папка классов внутри контроллера


def class_key(state=None):
    """Имя папки одного класса внутри GROUP: по его папке состояния (у хаба — CLASS_STATE).

    Два класса на одной машине (или тесты рядом с настоящим классом) с теми же именами учеников — разные
    папки cgroup: остановка одного не трогает процессов другого."""
    state = state or os.environ.get("CLASS_STATE")
    if not state:
        raise RuntimeError("не известна папка состояния класса (CLASS_STATE): какой класс ограничивать — непонятно")
    return "c" + hashlib.sha256(str(pathlib.Path(state).resolve()).encode()).hexdigest()[:12]


def _v2_group(v2, controller_name, key):
    """Папки GROUP/key в cgroup v2 с включённым контроллером для детей; -> папка класса."""
    (v2 / "cgroup.subtree_control").write_text(f"+{controller_name}")
    (v2 / GROUP).mkdir(exist_ok=True)
    (v2 / GROUP / "cgroup.subtree_control").write_text(f"+{controller_name}")
    (v2 / GROUP / key).mkdir(exist_ok=True)
    (v2 / GROUP / key / "cgroup.subtree_control").write_text(f"+{controller_name}")
    return v2 / GROUP / key


# контроллер -> (папка cgroup v1, файл, по которому видно, что это v1 с ним, а не v2, как он зовётся по-русски)
_V1 = {"memory": ("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "памяти"),
       "pids": ("/sys/fs/cgroup/pids", "pids.max", "pids")}


def _class_folder(kind, state):
    """(версия, папка класса) контроллера kind («memory» или «pids»), в котором root может делать папки,
    или (None, причина): сперва cgroup v1, затем cgroup v2 с этим контроллером."""
    key = class_key(state)
    folder, marker, said = _V1[kind]
    v1 = pathlib.Path(folder)
    if v1.is_dir() and not (v1 / "cgroup.controllers").exists() and (v1 / "cgroup.procs").exists() \
            and (kind != "memory" or (v1 / marker).exists()):
        try:
            (v1 / GROUP / key).mkdir(parents=True, exist_ok=True)
            return 1, v1 / GROUP / key
        except OSError as error:
            reason = f"cgroup v1 {said} есть, но папку не сделать ({error.strerror})"
    else:
        reason = f"контроллера {said} cgroup v1 нет"
    for v2 in (pathlib.Path("/sys/fs/cgroup"), pathlib.Path("/sys/fs/cgroup/unified")):
        controllers = v2 / "cgroup.controllers"
        if controllers.exists() and kind in controllers.read_text().split():
            try:
                return 2, _v2_group(v2, kind, key)
            except OSError as error:
                reason += f"; cgroup v2 с {kind} есть, но включить её нельзя ({error.strerror})"
    return None, reason + f"; в cgroup v2 контроллера {kind} нет"


def controller(state=None):
    """(версия, папка класса) контроллера памяти или (None, причина); state — папка состояния класса."""
    return _class_folder("memory", state)


def pids_controller(state=None):
    """(версия, папка класса) контроллера pids или (None, причина); state — папка состояния класса."""
    return _class_folder("pids", state)


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


def sweep(group, rounds=100):
    """SIGKILL всем процессам папки cgroup, пока они есть (fork-бомба рождает новых между обходами);
    -> сколько процессов остановлено. Так останавливается и то, что ученик запустил в обход сервера (своя сессия).
    Папка — ученика этого класса (class_key по его state): процессы той же записи в другом классе в ней не лежат,
    а сменить окружение, чтобы уйти от обхода, ученик не может — из папки cgroup процесс сам не выйдет."""
    killed = 0
    for _ in range(rounds):
        pids = members(group)
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

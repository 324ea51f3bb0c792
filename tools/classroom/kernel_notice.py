"""Русское объяснение в тетрадке ученика, когда его ядро умерло посреди ячейки — прежде всего от предела памяти.

Само по себе JupyterLab показывает лишь «Kernel Restarting: the kernel appears to have died». Здесь сервер ученика
(jupyter_server; подключается файлом tools/classroom/learner_server_config.py) следит за каждым каналом ядра:
какая ячейка сейчас исполняется (сообщение status busy с её заголовком) и сколько раз cgroup памяти ученика
уже останавливала процессы (oom_kill). Когда ядро умерло и сервер его перезапускает, он раньше сообщения «restarting» шлёт в ту
ячейку сообщение error с русским текстом: при выросшем oom_kill — что взят предел памяти ученика и что делать,
иначе — что ядро упало и переменные пропали. Так текст оказывается выводом той самой ячейки.
"""

import json
import pathlib

PROC_CGROUP = pathlib.Path("/proc/self/cgroup")
CGROUP_ROOTS = (pathlib.Path("/sys/fs/cgroup/memory"), pathlib.Path("/sys/fs/cgroup"), pathlib.Path("/sys/fs/cgroup/unified"))


def memory_group():
    """Папка cgroup памяти этого процесса (v1 или v2) или None."""
    try:
        lines = PROC_CGROUP.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            group = CGROUP_ROOTS[0] / path.lstrip("/")
            if (group / "memory.oom_control").exists():
                return group
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0":
            for root in CGROUP_ROOTS[1:]:
                group = root / path.lstrip("/")
                if (group / "memory.events").exists():
                    return group
    return None


def _pairs(path):
    try:
        words = path.read_text().split()
    except OSError:
        return {}
    return dict(zip(words[::2], words[1::2]))


def oom_kills(group):
    """Сколько раз предел памяти группы уже останавливал процесс (v1 memory.oom_control, v2 memory.events)."""
    if group is None:
        return 0
    counts = _pairs(group / "memory.oom_control") or _pairs(group / "memory.events")
    try:
        return int(counts.get("oom_kill", 0))
    except ValueError:
        return 0


def memory_limit_mb(group):
    for file in ("memory.limit_in_bytes", "memory.max"):
        try:
            return int((group / file).read_text()) // 2**20
        except (OSError, ValueError):
            continue
    return None


def explanation(memory_killed, limit_mb):
    """(ename, evalue, traceback) сообщения ученику."""
    if memory_killed:
        limit = f"{limit_mb} МБ" if limit_mb else "предел"
        return ("ПределПамяти",
                f"ядро остановлено: ваши ядра вместе взяли больше предела памяти ученика ({limit}).",
                ["ПределПамяти: ядро остановлено — ваши ядра вместе взяли больше предела памяти ученика "
                 f"({limit}); сервер класса остановил ядро этой тетрадки, соседей это не коснулось.",
                 "Все переменные пропали: ядро запускается заново. Что сделать:",
                 "  • закройте лишние тетрадки (Running → Shut Down) — каждое ядро держит свою память;",
                 "  • уменьшите размеры в этой ячейке (меньше батч, короче текст, меньше модель);",
                 "  • выполните ячейки сверху заново (Run → Run All Above Selected Cell).",
                 "Если памяти не хватает на обычный урок — скажите учителю: предел задаёт MEMORY= в make class."])
    return ("ЯдроУпало",
            "ядро остановилось посреди ячейки и запускается заново.",
            ["ЯдроУпало: ядро остановилось посреди этой ячейки и запускается заново — все переменные пропали.",
             "Выполните ячейки сверху заново (Run → Run All Above Selected Cell); если повторяется — скажите учителю."])


def _bytes(frame):
    return frame.bytes if hasattr(frame, "bytes") else frame


def install():
    """Подменить у канала ядра jupyter_server разбор сообщений ядра (handle_outgoing_message: сообщения
    с тождествами zmq, до записи в websocket) и реакцию на перезапуск ядра."""
    from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection as Connection
    from jupyter_client.jsonutil import json_default
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    if getattr(Connection, "_attention_notice", False):
        return
    group = memory_group()
    original_outgoing = Connection.handle_outgoing_message
    original_restarted, original_failed = Connection.on_kernel_restarted, Connection.on_restart_failed

    def handle_outgoing_message(self, stream, msg_list):
        channel = stream if isinstance(stream, str) else getattr(stream, "channel", None)
        if channel == "iopub":
            try:
                _, fed = self.session.feed_identities(msg_list)
                unpack = self.session.unpack
                header = unpack(_bytes(fed[1]))
                if header.get("msg_type") == "status":
                    parent, content = unpack(_bytes(fed[2])), unpack(_bytes(fed[4]))
                    state = content.get("execution_state")
                    if state == "busy" and parent.get("msg_type") == "execute_request":
                        self._attention_running = (parent, oom_kills(group))
                    elif state == "idle" and parent.get("msg_id") == getattr(self, "_attention_running", ({},))[0].get("msg_id"):
                        self._attention_running = None
            except Exception:                            # чужой формат сообщения — только не мешать каналу
                pass
        return original_outgoing(self, stream, msg_list)

    def tell(self):
        running = getattr(self, "_attention_running", None)
        self._attention_running = None
        if running:
            parent, kills_before = running
            ename, evalue, traceback = explanation(oom_kills(group) > kills_before, memory_limit_mb(group) if group else None)
            message = self.session.msg("error", {"ename": ename, "evalue": evalue, "traceback": traceback},
                                       parent=parent)
            try:
                if self.subprotocol == "v1.kernel.websocket.jupyter.org":
                    self.write_message(serialize_msg_to_ws_v1(message, "iopub", self.session.pack), binary=True)
                else:
                    message["channel"] = "iopub"
                    self.write_message(json.dumps(message, default=json_default))
                self.log.warning("ядро %s: ученику сказано «%s»", self.kernel_id, evalue)
            except Exception as error:                   # канал уже закрыт — сказать некому
                self.log.warning("ядро %s: объяснение ученику не ушло: %s", self.kernel_id, error)

    def on_kernel_restarted(self):
        tell(self)                       # раньше «restarting»: после него JupyterLab уже не относит вывод к ячейке
        return original_restarted(self)

    def on_restart_failed(self):
        tell(self)
        return original_failed(self)

    Connection.handle_outgoing_message = handle_outgoing_message
    Connection.on_kernel_restarted, Connection.on_restart_failed = on_kernel_restarted, on_restart_failed
    Connection._attention_notice = True

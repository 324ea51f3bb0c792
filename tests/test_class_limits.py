"""Пределы ученика без хаба: образ дома (tools/classroom/disk.py) переносит прежнюю работу и не пускает писать
больше DISK; русское объяснение смерти ядра (tools/classroom/kernel_notice.py) различает предел памяти и падение;
значения PIDS и DISK проверяются. Как они держат настоящий класс — tests/test_class_hub.py.
"""

import os
import pathlib
import secrets
import shutil
import subprocess

import pytest

from posix_only import skip_module_without

skip_module_without("pwd", "os.geteuid")                 # записи и образы класса — только Linux; до import pwd
import pwd  # noqa: E402

from tools.classroom import accounts, disk, kernel_notice, limits  # noqa: E402


@pytest.mark.parametrize("value", ["много", "10", "0", "-5", "1e3", "100000"])
def test_pids_limit_must_be_a_sane_count(value):
    with pytest.raises(ValueError, match="предел процессов ученика PIDS"):
        limits.pids_count(value)


def test_pids_and_disk_sizes():
    assert limits.pids_count("512") == 512 == limits.pids_count()
    assert limits.disk_bytes("1G") == 2**30 and limits.disk_bytes("500m") == 500 * 2**20
    for bad in ("1.5G", "мало", "10M"):
        with pytest.raises(ValueError, match="место ученика DISK"):
            limits.disk_bytes(bad)


def test_kernel_notice_tells_memory_limit_from_a_crash(tmp_path):
    (tmp_path / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n")
    (tmp_path / "memory.limit_in_bytes").write_text(str(700 * 2**20))
    assert kernel_notice.oom_kills(tmp_path) == 3 and kernel_notice.memory_limit_mb(tmp_path) == 700
    (tmp_path / "memory.oom_control").unlink()
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 5\noom 2\noom_kill 2\n")    # cgroup v2
    assert kernel_notice.oom_kills(tmp_path) == 2
    assert kernel_notice.oom_kills(None) == 0
    ename, evalue, traceback = kernel_notice.explanation(True, 700)
    assert ename == "ПределПамяти" and "700 МБ" in evalue and any("Shut Down" in line for line in traceback)
    ename, evalue, traceback = kernel_notice.explanation(False, 700)
    assert ename == "ЯдроУпало" and "памяти" not in evalue and "переменные пропали" in traceback[0]


def test_kernel_notice_patches_the_kernel_channel_once():
    from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection as Connection
    kernel_notice.install()
    patched = Connection.on_kernel_restarted
    kernel_notice.install()
    assert Connection.on_kernel_restarted is patched and Connection._attention_notice
    assert patched.__module__ == "tools.classroom.kernel_notice"


@pytest.fixture
def account(tmp_path):
    reason = disk.unavailable()
    if reason:                          # и в CI: без root или loop-устройств образа не сделать на деле
        pytest.skip(f"образ дома здесь не сделать: {reason}")
    name = "cld" + "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(5))
    entry, _ = accounts.ensure_account(name)
    try:
        yield entry
    finally:
        for _ in range(5):
            if disk.release(entry.pw_dir):
                break
        subprocess.run(["userdel", "--remove", name], capture_output=True)


def test_home_moves_into_its_image_and_is_capped(account, tmp_path):
    home, state = pathlib.Path(account.pw_dir), tmp_path / "state"
    (home / "work").mkdir()
    (home / "work" / "моя.ipynb").write_text("работа до образа", encoding="utf-8")
    os.chown(home / "work", account.pw_uid, account.pw_gid)
    os.chown(home / "work" / "моя.ipynb", account.pw_uid, account.pw_gid)
    note = disk.ensure_home_image(account, state, 64 * 2**20)
    assert note and "перенесён" in note
    image = state / "disks" / f"{account.pw_name}.ext4"
    assert disk.mounted_source(home) and image.stat().st_size == 64 * 2**20
    assert image.stat().st_blocks * 512 >= 64 * 2**20, "место под образ не занято заранее — полный диск испортит образ"
    assert (home / "work" / "моя.ipynb").read_text(encoding="utf-8") == "работа до образа"
    assert (home / "work" / "моя.ipynb").stat().st_uid == account.pw_uid
    assert (home.stat().st_mode & 0o777) == 0o700 and home.stat().st_uid == account.pw_uid
    assert not (home / "lost+found").exists()
    assert disk.ensure_home_image(account, state, 64 * 2**20) is None       # уже смонтирован — не трогается
    fill = accounts.run_as(account, ["/bin/sh", "-c", "dd if=/dev/zero of=$HOME/work/big bs=1M count=200; echo код $?"])
    assert "No space left on device" in fill.stderr and "код 1" in fill.stdout, fill.stdout + fill.stderr
    assert (home / "work" / "big").stat().st_size <= 64 * 2**20
    # после перезагрузки (образ не смонтирован) дом пуст, а make class монтирует тот же образ с той же работой
    assert disk.release(home)
    assert list(home.iterdir()) == [], "прежние файлы дома остались под образом — make results увидел бы старую работу"
    note = disk.ensure_home_image(account, state, None)        # и с DISK=no прежний образ монтируется
    assert note and "смонтирован снова" in note
    assert (home / "work" / "моя.ipynb").read_text(encoding="utf-8") == "работа до образа"


def test_a_home_bigger_than_the_cap_is_refused_and_left_alone(account, tmp_path):
    home = pathlib.Path(account.pw_dir)
    assert disk.ensure_home_image(account, tmp_path / "state", None) is None    # DISK=no, образа нет: дом как есть
    assert disk.mounted_source(home) is None
    with open(home / "большой.bin", "wb") as out:
        out.write(os.urandom(60 * 2**20))
    with pytest.raises(disk.DiskError, match="поднимите DISK="):
        disk.ensure_home_image(account, tmp_path / "state", 64 * 2**20)
    assert (home / "большой.bin").stat().st_size == 60 * 2**20 and disk.mounted_source(home) is None
    assert not (tmp_path / "state" / "disks" / f"{account.pw_name}.ext4").exists()
    assert shutil.disk_usage(home).total > 64 * 2**20
    assert pwd.getpwnam(account.pw_name)


def test_a_kernel_dying_mid_cell_gets_a_russian_explanation_in_that_cell(tmp_path):
    """Настоящий jupyter_server с tools/classroom/learner_server_config.py: ядро убито посреди ячейки — в ту же ячейку,
    раньше status «restarting», приходит error с русским текстом (так его и показывает JupyterLab)."""
    import json
    import socket
    import sys
    import time
    import urllib.request
    import uuid

    import websocket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = secrets.token_hex(8)
    server = subprocess.Popen([sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}",
                               f"--config={accounts.ROOT / 'tools' / 'classroom' / 'learner_server_config.py'}",
                               *(["--allow-root"] if os.geteuid() == 0 else [])],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "HOME": str(tmp_path)})
    base = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "jupyter_server с настройками класса не поднялся"
                time.sleep(0.2)
        made = urllib.request.Request(f"http://{base}/api/kernels?token={token}", data=b"{}", method="POST")
        kernel = json.loads(urllib.request.urlopen(made, timeout=60).read())["id"]
        ws = websocket.create_connection(f"ws://{base}/api/kernels/{kernel}/channels?token={token}", timeout=60)
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({"header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "",
                                       "session": uuid.uuid4().hex, "version": "5.3"},
                            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                            "content": {"code": "import os, time\ntime.sleep(1)\nos.kill(os.getpid(), 9)", "silent": False,
                                        "store_history": True, "user_expressions": {}, "allow_stdin": False,
                                        "stop_on_error": True}}))
        seen = []
        while not seen or seen[-1][0] != "status restarting":
            message = json.loads(ws.recv())
            state = message["content"].get("execution_state", "")
            seen.append((f"{message['msg_type']} {state}".strip(), message.get("parent_header", {}).get("msg_id") == msg_id,
                         message["content"]))
        ws.close()
        errors = [(ours, content) for kind, ours, content in seen if kind == "error"]
        assert errors, f"ядро умерло, а в ячейку не пришло объяснения: {[kind for kind, _, _ in seen]}"
        ours, content = errors[-1]
        assert ours, "объяснение пришло не в ту ячейку (parent_header не её)"
        assert content["ename"] == "ЯдроУпало" and "переменные пропали" in content["traceback"][0]
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()

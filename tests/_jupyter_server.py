"""JupyterLab или Jupyter Notebook 7 для тестов: отдельный процесс на 127.0.0.1, свой порт и токен, без сети.

Всё, что JupyterLab пишет и читает сам (настройки, рабочие области, runtime-файлы, подписи
тетрадок, профиль IPython), уходит во временную папку: тест не трогает ~/.jupyter и не зависит
от того, что там лежит (например, от чужого kernelspec `python3` в ~/.local/share/jupyter).
"""

import contextlib
import json
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from posix_only import missing, reason

# Настройки JupyterLab, при которых он не ходит в сеть и не показывает всплывающих вопросов.
USER_SETTINGS = {
    # «Получать новости Jupyter?» — не спрашивать и не скачивать ленту.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
    # Менеджер расширений обращается к PyPI — выключаем.
    "@jupyterlab/extensionmanager-extension/plugin.jupyterlab-settings": {"enabled": False},
    # Тест тетрадку не сохраняет (и не создаёт .py-пару через jupytext).
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}


# Расширения, которых в Notebook 7 нет: их настройки он не ждёт (и падает в странице на чужих настройках).
LAB_ONLY = ("@jupyterlab/extensionmanager-extension/",)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterLab:
    """Запущенный сервер: `url(path)` — адрес страницы с токеном, `log()` — его вывод."""

    def __init__(self, root_dir, state_dir, port, token, process, log_path):
        self.root_dir, self.state_dir = pathlib.Path(root_dir), pathlib.Path(state_dir)
        self.port, self.token, self.process, self.log_path = port, token, process, log_path

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    def url(self, path):
        return f"{self.base_url}/{path.lstrip('/')}?token={self.token}"

    def log(self, tail=4000):
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-tail:]
        except OSError:
            return ""

    def api(self, path, timeout=5):
        request = urllib.request.Request(f"{self.base_url}/api/{path.lstrip('/')}",
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))


def isolated_env(state_dir, app="lab"):
    """Окружение сервера (и его ядер): все пути Jupyter/IPython — во временной папке."""
    state_dir = pathlib.Path(state_dir)
    env = dict(os.environ)
    for name in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "JUPYTER_TOKEN", "JUPYTER_PREFER_ENV_PATH",
                 "JUPYTER_PLATFORM_DIRS", "JUPYTERLAB_DIR"):
        env.pop(name, None)
    dirs = {
        "JUPYTER_CONFIG_DIR": "config",
        "JUPYTER_DATA_DIR": "data",
        "JUPYTER_RUNTIME_DIR": "runtime",
        "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
        "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces",
        "IPYTHONDIR": "ipython",
    }
    for name, sub in dirs.items():
        (state_dir / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(state_dir / sub)
    # Ядра этого сервера берут прогоны обучения из общей папки проверки, если она назначена (tools/shared_runs.py).
    from tools.lesson_figures import write_shared_runs_startup
    startup = state_dir / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    write_shared_runs_startup(startup)
    for rel, settings in USER_SETTINGS.items():
        if app == "notebook" and rel.startswith(LAB_ONLY):
            continue
        path = state_dir / "lab-settings" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings), encoding="utf-8")
    return env


def _command(root_dir, port, token, app="lab", python=None, lab3=False):
    """Команда сервера: app — 'lab' (JupyterLab) или 'notebook' (Jupyter Notebook 7); python — чей сервер
    (по умолчанию — этого окружения; tests/test_browser_colab.py берёт JupyterLab 3 из своего, lab3=True:
    ключей news_url, check_for_updates_class и extension_manager там нет, и с ними JupyterLab 3 не загружается)."""
    as_root = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []   # CI идёт под root
    common = [
        python or sys.executable, "-m", "jupyter", app, *as_root,
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",          # занят порт — ошибка, а не молча другой порт
        f"--ServerApp.root_dir={root_dir}",
        f"--IdentityProvider.token={token}",
        "--ServerApp.terminals_enabled=False",
    ]
    if app == "notebook":
        # window.jupyterapp: команды Notebook 7 из теста (новости и обновления выключены в USER_SETTINGS).
        return common + ["--JupyterNotebookApp.expose_app_in_browser=True"]
    lab4_only = [] if lab3 else [
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    return common + lab4_only + [
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: команды JupyterLab из теста
    ]


@contextlib.contextmanager
def running_jupyter(root_dir, state_dir, app="lab", start_timeout=60, attempts=3, python=None, lab3=False):
    """Запускает JupyterLab (app='lab') или Notebook 7 (app='notebook') и ждёт, пока он ответит
    на /api/status; в конце — terminate, затем kill. Без групп процессов (Windows) тест пропускается: ядра —
    дети сервера, и без os.killpg тест оставил бы их жить."""
    if absent := missing("os.killpg"):
        pytest.skip(reason(absent))
    state_dir = pathlib.Path(state_dir)
    env = isolated_env(state_dir, app)
    last_error = None
    for attempt in range(attempts):
        port, token = free_port(), secrets.token_hex(24)
        log_path = state_dir / f"jupyter-{app}-{attempt}.log"
        log_file = open(log_path, "wb")
        process = subprocess.Popen(_command(root_dir, port, token, app, python, lab3), cwd=root_dir, env=env,
                                   stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        server = JupyterLab(root_dir, state_dir, port, token, process, log_path)
        try:
            deadline = time.monotonic() + start_timeout
            while True:
                if process.poll() is not None:
                    last_error = f"jupyter {app} завершился с кодом {process.returncode}:\n{server.log()}"
                    break
                try:
                    server.api("status", timeout=2)
                    break
                except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter {app} не ответил за {start_timeout} с:\n{server.log()}")
                time.sleep(0.2)
            if process.poll() is None:
                yield server
                return
        finally:
            _stop(process)
            log_file.close()
        if "is already in use" not in (last_error or ""):
            break
    raise RuntimeError(last_error)


def running_jupyterlab(root_dir, state_dir, start_timeout=60, attempts=3):
    """JupyterLab — см. running_jupyter."""
    return running_jupyter(root_dir, state_dir, "lab", start_timeout, attempts)


def _stop(process, timeout=10):
    """Сначала вежливо (SIGTERM — сервер сам останавливает ядра), потом SIGKILL всей группе."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
    if process.poll() is None:
        process.kill()
        process.wait(timeout=timeout)
    # Ядра — дети сервера в его группе процессов; если сервер умер, не успев их остановить, добиваем.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, 9)

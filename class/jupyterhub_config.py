# Настройки JupyterHub класса. Запускает его `make class` (tools/classroom/hub.py): он пишет
# выбранное учителем (адрес, порт, ученики, учитель, сертификат) в <state>/class.json, а этот файл
# его читает. Пределы одного ученика — в tools/classroom/limits.py (их же меряет benchmarks/class.py).
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.classroom import limits  # noqa: E402

c = get_config()  # noqa: F821 — так JupyterHub передаёт настройки
STATE = pathlib.Path(os.environ.get("CLASS_STATE", ROOT / "class" / "state")).resolve()
settings = json.loads((STATE / "class.json").read_text(encoding="utf-8"))

# --- адрес: снаружи — только прокси; API хаба и прокси — на 127.0.0.1 ---
scheme = "https" if settings["cert"] else "http"
c.JupyterHub.bind_url = f"{scheme}://{settings['host']}:{settings['port']}/"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{settings['hub_port']}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['proxy_api_port']}"
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
if settings["cert"]:
    c.JupyterHub.ssl_cert = settings["cert"]
    c.JupyterHub.ssl_key = settings["key"]

# --- состояние: всё в class/state (не в git) и переживает перезапуск хаба ---
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")   # хаб сам делает его 0600
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = False     # остановка хаба не трогает серверы учеников
c.JupyterHub.cleanup_proxy = True        # прокси хаб запускает сам и сам же останавливает

# --- вход: пароль задаётся при первом входе, в файле только его bcrypt-хэш ---
c.JupyterHub.authenticator_class = "firstuseauthenticator.FirstUseAuthenticator"
c.FirstUseAuthenticator.dbm_path = str(STATE / "passwords.dbm")
c.FirstUseAuthenticator.create_users = False          # войти могут только те, кто в списке
c.FirstUseAuthenticator.min_password_length = 8
c.Authenticator.allowed_users = set(settings["learners"]) | {settings["teacher"]}
c.Authenticator.admin_users = {settings["teacher"]}

# --- серверы учеников: своя запись системы, свой work/, свои пределы памяти и процессов (место — образ дома) ---
c.JupyterHub.spawner_class = "tools.classroom.memory_cgroup.MemoryLimitedSpawner"
c.Spawner.cmd = [settings["singleuser"]]
c.Spawner.notebook_dir = "~/work"                # корень файлов и папка ядра — work/ ученика
c.Spawner.default_url = "/lab"
c.Spawner.mem_limit = settings["memory"]
c.MemoryLimitedSpawner.pids_limit = settings.get("pids", limits.PIDS)   # fork-бомба упирается в pids.max ученика
# потоки BLAS и машинного отделения; куда ядро отправляет вердикты проверок (служба class-verdicts ниже)
VERDICTS_URL = f"http://127.0.0.1:{settings['verdicts_port']}"
c.Spawner.environment = {**limits.learner_env(), "CLASS_VERDICTS_URL": f"{VERDICTS_URL}/services/class-verdicts/record"}
# ключ сервера ученика (JUPYTERHUB_API_TOKEN, его наследуют ядра): права роли server и право обратиться к службе
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", "access:services!service=class-verdicts"]
c.Spawner.args = [*limits.kernel_culling_args(),  # ядра без дела закрывает сам сервер ученика
                  # ядро умерло посреди ячейки (предел памяти) — в ячейке русское объяснение
                  f"--config={ROOT / 'tools' / 'classroom' / 'learner_server_config.py'}"]
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 90

# --- службы: culler останавливает серверы без дела; class-tools — для make class-stop/-status;
#     class-verdicts принимает вердикты проверок учеников ---
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                    f"--timeout={limits.SERVER_IDLE_SECONDS}", f"--cull-every={limits.SERVER_CULL_INTERVAL}"],
        "cwd": str(STATE),
        "environment": {"CLASS_STATE": str(STATE)},
    },
    {
        "name": "class-tools",
        "api_token": (STATE / "service-token").read_text().strip(),   # файл 0600, только для root
    },
    {   # вердикты учеников: подписанные строки в <state>/verdicts/ (tools/classroom/verdicts.py); ученика служба
        # узнаёт, спросив хаб его же ключом, — своих прав у хаба ей для этого не нужно
        "name": "class-verdicts",
        "url": VERDICTS_URL,
        "command": [sys.executable, "-m", "tools.classroom.verdicts", "--state", str(STATE)],
        "cwd": str(ROOT),
        "environment": {"PYTHONPATH": str(ROOT)},
        "display": False,
    },
]
c.JupyterHub.load_roles = [
    {   # ученики (и учитель): свои серверы, как по умолчанию, и отправка вердиктов службе class-verdicts
        "name": "user",
        "scopes": ["self", "access:services!service=class-verdicts"],
    },
    {   # JupyterHub 5+: службе — только нужные права (так велит README jupyterhub-idle-culler)
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    },
    {   # make class-stop, make class-status и тест: запускать и останавливать серверы, открывать их API
        "name": "class-tools",
        "scopes": ["list:users", "read:users", "admin:servers", "access:servers"],
        "services": ["class-tools"],
    },
]

# --- свой класс: make class-stop узнаёт процессы этого класса по CLASS_STATE в их окружении (ядра наследуют его
# от сервера) — соседний класс на той же машине и процессы тех же записей вне хаба не трогаются ---
c.Spawner.environment = {**c.Spawner.environment, "CLASS_STATE": str(STATE)}

# Настройки сервера ученика (jupyter_server) в классе: его запускает хаб с --config=этот файл
# (class/jupyterhub_config.py). Лежит в tools/, а не в class/: с SOLUTIONS=no class/ ученикам закрыта
# (handout_guard), а tools/ открыта. Здесь — русское объяснение в тетрадке, когда ядро умерло посреди ячейки
# (прежде всего от предела памяти ученика): tools/classroom/kernel_notice.py. Не вышло — сервер работает как обычно.
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
try:
    sys.path.append(str(ROOT))           # в конец: свои модули ученика и сервера важнее
    from tools.classroom import kernel_notice

    kernel_notice.install()
except Exception as error:               # noqa: BLE001 — сервер ученика важнее объяснения
    print(f"tools/classroom/learner_server_config.py: объяснения о смерти ядра не будет: {error!r}", file=sys.stderr)

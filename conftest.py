"""Корень проверок: проходы уроков — тесты pytest (tools/lesson_passes.py), и ядра, в которых они исполняют
уроки, проверяют, что подписи картинок не вылезают за край фигуры и не мельче 7 pt на экране
(tools/lesson_figures.py). Ядра наследуют окружение pytest, поэтому достаточно указать им папку IPython
с автозапуском — раньше, чем запустится первое ядро."""

import os

from tools.lesson_figures import kernel_ipython_dir

pytest_plugins = ["tools.lesson_passes", "pytester"]      # pytester: тесты самого отчёта (tests/test_readable_failures.py)

os.environ["IPYTHONDIR"] = kernel_ipython_dir()

# Учитель гоняет проверки из терминала или ядра своего класса: там заданы адрес службы вердиктов, ключ сервера
# и папка состояния класса. Проверки их не наследуют — иначе вердикты тестов ушли бы в настоящий класс (и тесты,
# ждущие файла вердиктов, упали бы), а запущенные тестами процессы считались бы процессами класса.
CLASS_SERVER_ENV = ("CLASS_VERDICTS_URL", "CLASS_STATE")
for _name in [n for n in os.environ if n in CLASS_SERVER_ENV or n.startswith("JUPYTERHUB_")]:
    del os.environ[_name]

"""Для nbval: ядра, в которых pytest исполняет уроки, проверяют, что подписи картинок не вылезают
за край фигуры и не мельче 7 pt на экране (tools/lesson_figures.py). Ядра наследуют окружение pytest, поэтому достаточно
указать им папку IPython с автозапуском — раньше, чем nbval запустит первое ядро."""

import os

from tools.lesson_figures import kernel_ipython_dir

os.environ["IPYTHONDIR"] = kernel_ipython_dir()

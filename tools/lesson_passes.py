"""Проходы уроков — обычные тесты pytest (плагин; его подключает conftest.py в корне).

Каждая тетрадка урока `lessons/NN_*.ipynb` собирается в проходы, у каждого прохода — своё ядро,
и каждая его ячейка — тест, который видно в отчёте по имени:

    lessons/07_trained_attention.ipynb::урок 07 · повторный запуск::ячейка 12 · второй запуск

- plain («обычный прогон») — как `pytest --nbval`: ячейки сверху вниз, вывод сверяется с тетрадкой;
- rerun («повторный запуск») — каждая кодовая ячейка дважды подряд (c1, c1, c2, c2, …), оба вывода
  сверяются с тетрадкой: ученик перезапускает ячейки постоянно. Первые запуски — это и есть обычный прогон;
- portability («переносимость») — NumPy идёт другим путём кода: в NPY_DISABLE_CPU_FEATURES все
  SIMD-расширения, которые NumPy выбирает во время работы на этом процессоре, и OPENBLAS_NUM_THREADS=1.
  Так ведут себя процессоры без AVX2/AVX-512 (другие пути x86, а не Apple Accelerate и не MKL).

Сверяет сам nbval (lessons/sanitize.cfg, метки nbval-ignore-output, комментарии # NBVAL_*), а ещё
каждую картинку — с картинкой в тетрадке (tools/lesson_cells.py). Номер ячейки — как у nbval: кодовые с нуля.

    pytest lessons/07_trained_attention.ipynb                         # проходы по умолчанию: rerun и portability
    pytest lessons --lesson-passes plain                              # только обычный прогон
    pytest -n auto --lesson 07                                        # всё про урок 07 (см. tests/lesson_map.py)

Группы для pytest-xdist (`--dist loadscope`): проход одного урока — одна группа (nbval исполняет его ячейки
в одном ядре по порядку), файл тестов — одна группа, даже если в нём классы.
"""

import json
import os
import subprocess
import sys

import pytest

PASSES = {"plain": "обычный прогон", "rerun": "повторный запуск", "portability": "переносимость"}
DEFAULT_PASSES = "rerun,portability"
# Проходы с меткой slow: их гоняет CI (`make test MARKS=`), а не `make test`. Переносимость уроков 09 и 10 учит
# модели заново на другом пути кода NumPy (общие прогоны её не выручают: путь кода — в ключе прогона) — это
# 2–3 минуты процессора из 25 у всего `make test`; обычный путь эти уроки проходят в повторном запуске.
SLOW_PASSES = {("portability", "09"), ("portability", "10")}


def in_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


# ---------------------------------------------------------------- portability: другой путь кода NumPy

_FEATURES = """
import json
try:
    from numpy._core import _multiarray_umath as m      # numpy 2
except ImportError:
    from numpy.core import _multiarray_umath as m       # numpy 1.x
import numpy
print(json.dumps({"numpy": numpy.__version__, "baseline": list(m.__cpu_baseline__),
                  "dispatch": list(m.__cpu_dispatch__),
                  "on": [name for name, on in m.__cpu_features__.items() if on]}))
"""


def cpu_features(env=None):
    """Что NumPy (того же питона) видит на процессоре: baseline, dispatch и включённые расширения."""
    out = subprocess.run([sys.executable, "-c", _FEATURES], env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"numpy не запустился с таким окружением:\n{out.stderr[-1500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def portability_env():
    """(окружение, отключённые расширения, пояснение). Пустой список — отключать нечего.

    Отключаем только то, что NumPy выбирает во время работы (dispatch) и что у процессора есть:
    базовый набор (baseline) NumPy отключить не даёт, а отсутствующее и так не используется.
    OPENBLAS_CORETYPE и OPENBLAS_L2_SIZE не трогаем: на некоторых машинах их задают, чтобы
    OpenBLAS не считал неверно.
    """
    seen = cpu_features()
    disabled = [f for f in seen["dispatch"] if f in seen["on"] and f not in seen["baseline"]]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if not disabled:
        return env, [], (f"NumPy {seen['numpy']} на этом процессоре не выбирает ничего сверх базового набора "
                         f"{' '.join(seen['baseline']) or '—'} (dispatch: {' '.join(seen['dispatch']) or '—'}; "
                         f"из них у процессора нет ни одного) — отключать нечего, другой путь кода не получить")
    env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    still_on = [f for f in disabled if f in cpu_features(env)["on"]]
    if still_on:
        raise RuntimeError(f"NPY_DISABLE_CPU_FEATURES={env['NPY_DISABLE_CPU_FEATURES']!r}, "
                           f"а NumPy всё равно использует {still_on}")
    return env, disabled, (f"NumPy {seen['numpy']}: отключены {' '.join(disabled)} "
                           f"(остался базовый набор {' '.join(seen['baseline'])}), OPENBLAS_NUM_THREADS=1")


_PORTABILITY = []


def portability_once():
    """portability_env() один раз на процесс (он дважды запускает питон)."""
    if not _PORTABILITY:
        _PORTABILITY.append(portability_env())
    return _PORTABILITY[0]


# ---------------------------------------------------------------- pytest: параметры, сбор, группы xdist

def pytest_addoption(parser):
    group = parser.getgroup("уроки")
    group.addoption("--lesson-passes", default=DEFAULT_PASSES, metavar="ПРОХОДЫ",
                    help=f"проходы уроков через запятую из {', '.join(PASSES)} (по умолчанию {DEFAULT_PASSES})")
    group.addoption("--no-figure-compare", action="store_true", dest="no_figure_compare",
                    help="не сверять картинки с тетрадкой: для окружения с другим matplotlib (нижние границы в .ci/run) — "
                         "тетрадки исполнены с тем, что ставит make test, а другая версия рисует на пиксели иначе")
    group.addoption("--shared-runs", default="fresh", choices=("fresh", "keep", "off"), dest="shared_runs",
                    help="общие прогоны обучения уроков 09 и 10 (tools/shared_runs.py): fresh — учить заново и делиться "
                         "(по умолчанию), keep — взять прогоны прошлого запуска (браузерная стадия make test), off — каждый учит сам")
    group.addoption("--lesson", default=None, metavar="NN",
                    help="только урок NN: его проходы и его тесты (таблица — tests/lesson_map.py)")


def chosen_passes(config):
    kinds = [kind.strip() for kind in config.getoption("lesson_passes").split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in PASSES]
    if unknown:
        raise pytest.UsageError(f"--lesson-passes: нет прохода {unknown}; есть {', '.join(PASSES)}")
    return kinds


def lesson_number(path):
    """«07» для lessons/07_trained_attention.ipynb, None для тетрадки не урока."""
    name = path.name
    return name[:2] if path.suffix == ".ipynb" and name[:2].isdigit() and name[2:3] == "_" else None


def pytest_configure(config):
    chosen_passes(config)
    lesson = config.getoption("lesson")
    if lesson is not None and not (len(lesson) == 2 and lesson.isdigit()):
        raise pytest.UsageError(f"--lesson: нужен номер урока из двух цифр, например 07, а пришло {lesson!r}")
    if not hasattr(config, "workerinput"):            # процесс xdist получает папку от главного через окружение
        from tools import shared_runs
        shared_runs.start(config.getoption("shared_runs"))


def pytest_report_header(config):
    if "portability" in chosen_passes(config):
        return f"переносимость: {portability_once()[2]}"


def pytest_collect_file(file_path, parent):
    if parent.config.option.nbval or parent.config.option.nbval_lax:
        return None                                   # просили сам nbval: пусть собирает он
    number = lesson_number(file_path)
    lesson = parent.config.getoption("lesson")
    if number is not None and (lesson is None or lesson == number):
        from tools.lesson_cells import LessonFile
        return LessonFile.from_parent(parent, path=file_path)
    return None


def _group(nodeid):
    """Группа xdist: проход урока (файл::проход) или файл тестов целиком."""
    parts = nodeid.split("::")
    return "::".join(parts[:2]) if parts[0].endswith(".ipynb") else parts[0]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    # и при `-n 2` без --dist (там xdist раздал бы ячейки одного урока разным процессам — в разные ядра)
    if config.getoption("dist") not in ("load", "loadscope", "loadfile"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LessonAndFileScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return _group(nodeid)

    return LessonAndFileScheduling(config, log)

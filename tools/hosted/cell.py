"""Первая ячейка кода каждого урока: в Google Colab и Kaggle ставит курс, везде ещё — молчит.

Colab и Kaggle открывают одну тетрадку, без папки курса: course_lib там нет. Ячейка ставит его
из репозитория (`pip install --no-deps git+…` — адрес из [project.urls] Repository в pyproject.toml)
и доставляет только те зависимости курса, которых в среде нет вовсе. IPython и ipykernel среды не
трогает (Colab держит IPython 7.34: с другим его ядро не стартует) — они прибиты к своим версиям и
в той команде, что доставляет недостающее. В Colab включает менеджер виджетов для сторонних
виджетов (google.colab.output.enable_custom_widget_manager()). В JupyterLab, Notebook 7, VS Code,
на хабе класса и в проверках ячейка ничего не делает и ничего не печатает: ни вывода, ни установки.

Текст ячейки — CELL ниже; в уроки его вставляет и обновляет

    .venv/bin/python -m tools.hosted.cell lessons/*.py      # затем make notebooks

а tests/test_hosted.py проверяет, что у каждого урока первая ячейка кода — ровно CELL, что адрес
и зависимости в ней — те, что в pyproject.toml, и что ячейка делает в Colab, Kaggle и у себя.
"""

import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
from tools.lowest_requirements import requirements  # noqa: E402

TITLE = "# @title Colab и Kaggle: поставить курс (в JupyterLab у себя эта ячейка ничего не делает)"


def repository(pyproject=ROOT / "pyproject.toml"):
    """Адрес репозитория курса из [project.urls] Repository."""
    text = pathlib.Path(pyproject).read_text(encoding="utf-8")
    match = re.search(r'^\[project\.urls\][^\[]*?^Repository\s*=\s*"([^"]+)"', text, re.M | re.S)
    if not match:
        raise ValueError(f"в {pyproject} нет [project.urls] Repository = \"https://github.com/…\": "
                         "без него первой ячейке урока неоткуда ставить курс в Colab")
    return match.group(1)


def cell(url=None, dependencies=None):
    """Текст ячейки. Зависимости — [project] dependencies (ядро курса), без extra `lab`."""
    url = repository() if url is None else url
    dependencies = requirements(extras=()) if dependencies is None else dependencies
    needs = textwrap.fill(", ".join(f'"{r}"' for r in dependencies), 100, initial_indent=" " * 13,
                          subsequent_indent=" " * 13).strip()
    return f'''{TITLE}
def _course_setup(modules, environ, run, version, python):
    """Colab и Kaggle: курс из репозитория и то, чего нет из его зависимостей; IPython и ipykernel не трогаем."""
    where = "colab" if "google.colab" in modules else "kaggle" if "KAGGLE_KERNEL_RUN_TYPE" in environ else None
    if where is None:
        return []

    def have(name):
        try:
            return version(name)
        except ImportError:                 # importlib.metadata.PackageNotFoundError
            return None

    pip = [python, "-m", "pip", "install", "-q"]
    course = "git+{url}"
    commands = [] if have("attention-bez-magii") else [[*pip, "--no-deps", course]]
    needs = [{needs}]
    missing = [r for r in needs if not have(r.split(">=")[0])]
    if missing:
        commands.append([*pip, *missing, *(f"{{n}}=={{have(n)}}" for n in ("ipython", "ipykernel") if have(n))])
    for command in commands:
        try:
            run(command)
        except Exception as error:
            raise RuntimeError(f"не удалось поставить курс ({{' '.join(command[3:])}}): {{error}}. Нужен интернет "
                               "(Kaggle: Settings → Internet on); выполните эту ячейку снова") from None
    if where == "colab":
        from google.colab import output
        output.enable_custom_widget_manager()       # ползунки курса — сторонние виджеты для Colab
    print(f"Курс готов ({{where}}): можно выполнять ячейки дальше. Файлы среды исчезают с её концом.")
    return commands


import importlib.metadata, os, subprocess, sys  # noqa: E401,E402
_course_setup(sys.modules, os.environ, subprocess.check_call, importlib.metadata.version, sys.executable)
del _course_setup'''


def setup_function(text=None):
    """_course_setup из текста ячейки — для tests/test_hosted.py (ячейка исполняется без вызова в конце)."""
    text = cell() if text is None else text
    namespace = {}
    exec(text.split("\n\nimport importlib.metadata")[0], namespace)
    return namespace["_course_setup"]


def insert(source, text=None):
    """Урок в формате jupytext percent -> тот же урок с ячейкой text первой ячейкой кода.

    Ячейка встаёт после первой ячейки markdown (заголовок урока); если она уже есть (начинается с TITLE),
    заменяется на text — так ячейка обновляется во всех уроках разом."""
    text = cell() if text is None else text
    blocks = re.split(r"(?m)^(?=# %%)", source)
    kept = [b for b in blocks if not b.startswith(f"# %%\n{TITLE}\n")]
    first_markdown = next((i for i, b in enumerate(kept) if b.startswith("# %% [markdown]")), None)
    if first_markdown is None:
        raise ValueError("в уроке нет ни одной ячейки markdown (# %% [markdown]) — некуда ставить ячейку Colab")
    kept.insert(first_markdown + 1, f"# %%\n{text}\n\n")
    return "".join(kept)


def main(paths):
    if not paths:
        print("ожидались пути к урокам (.py), например: python -m tools.hosted.cell lessons/*.py", file=sys.stderr)
        return 2
    for path in map(pathlib.Path, paths):
        before = path.read_text(encoding="utf-8")
        after = insert(before)
        if after != before:
            path.write_text(after, encoding="utf-8")
            print(f"{path}: ячейка Colab и Kaggle {'обновлена' if TITLE in before else 'добавлена'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Самые низкие версии, которые разрешает pyproject.toml, — для второго окружения в .ci/run.

    .venv/bin/python tools/lowest_requirements.py > lowest.txt     # затем: pip install -r lowest.txt -e '.[lab,test]'

Для каждой зависимости `имя>=X` (и в extra `lab` и `test`) печатает «самую раннюю разрешённую серию»:
`имя>=X,<X'`, где X' — следующая версия на последнем разряде X, дополненного до двух разрядов
(`numpy>=1.24` -> `numpy>=1.24,<1.25`, `ipywidgets>=8` -> `ipywidgets>=8,<8.1`,
`jupyterlab>=4.0.2` -> `jupyterlab>=4.0.2,<4.0.3`). Внутри серии pip берёт последний выпуск:
так пропускаются отозванные (yanked) выпуски вроде ipykernel 6.0.0, а обещание «работает с
numpy 1.24» проверяется на numpy 1.24.x. Список не ведётся руками: он читается из
pyproject.toml при каждом запуске, так что поднятая граница сразу попадает в CI.

Пакет с границами в нескольких местах (ipywidgets>=7.7 в dependencies — для Colab, ipywidgets>=8 в extra `lab` —
для JupyterLab 4) печатается один раз, с самой высокой из границ: ниже неё pip с этими extra его и не поставит.
Самые ранние версии ядра Colab (IPython 7.34, ipywidgets 7.7) проверяет отдельное окружение .ci/colab.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LOWER = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*>=\s*([0-9]+(?:\.[0-9]+)*)\s*$")


def requirements(pyproject=ROOT / "pyproject.toml", extras=("lab", "test")):
    """Зависимости курса и выбранных extra, как записаны в pyproject.toml."""
    try:
        import tomllib
    except ImportError:              # Python 3.10: tomllib появился в 3.11 — берём метаданные установленного курса
        return _installed_requirements(extras)
    project = tomllib.loads(pathlib.Path(pyproject).read_text(encoding="utf-8"))["project"]
    found = list(project["dependencies"])
    for extra in extras:
        found += project.get("optional-dependencies", {}).get(extra, [])
    return found


def requirement_name(requirement):
    """'Pillow >= 9.3' -> 'pillow', 'nbval>=0.11; extra == "test"' -> 'nbval': имя пакета, как его сравнивает pip."""
    return re.split(r"[<>=!~\s\[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _installed_requirements(extras):
    """Те же строки из метаданных пакета (make ставит его из pyproject.toml): 'pytest>=7; extra == "test"'."""
    import importlib.metadata

    found = []
    for line in importlib.metadata.requires("attention-bez-magii") or []:
        requirement, _, marker = line.partition(";")
        extra = re.search(r"extra\s*==\s*[\"']([^\"']+)", marker)
        if extra is None or extra.group(1) in extras:
            found.append(requirement.strip())
    return found


def lowest_series(requirement):
    """'numpy>=1.24' -> 'numpy>=1.24,<1.25'. Всё, кроме одной нижней границы, — ошибка: такую границу
    нечем проверить (точных `==` и верхних границ курс не ставит; tests/test_dependencies.py
    зовёт эту функцию для каждой зависимости)."""
    match = LOWER.match(requirement)
    if not match:
        raise ValueError(f"ожидалась зависимость вида «имя>=версия», а в pyproject.toml: {requirement!r}")
    name, version = match.groups()
    parts = [int(p) for p in version.split(".")]
    parts += [0] * (2 - len(parts))
    upper = parts[:-1] + [parts[-1] + 1]
    return f"{name}>={version},<{'.'.join(map(str, upper))}"


def lowest_list(found):
    """Самые ранние серии для списка зависимостей: по одной на пакет, от самой высокой из его нижних границ."""
    chosen = {}
    for requirement in found:
        series = lowest_series(requirement)            # заодно отказ для всего, кроме «имя>=версия»
        name = requirement_name(requirement)
        version = tuple(int(p) for p in LOWER.match(requirement).group(2).split("."))
        if name not in chosen or version > chosen[name][0]:
            chosen[name] = (version, series)
    return [series for _, series in chosen.values()]


def main():
    for series in lowest_list(requirements()):
        print(series)
    return 0


if __name__ == "__main__":
    sys.exit(main())

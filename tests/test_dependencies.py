"""Зависимости: всё, что код импортирует сам, объявлено в pyproject.toml, и каждую нижнюю
границу можно проверить (`.ci/run` ставит самые ранние разрешённые версии, tools/lowest_requirements.py).

Пакет, пришедший «заодно» (Pillow через matplotlib), может однажды не прийти: кто импортирует —
тот и объявляет.
"""

import ast
import fnmatch
import importlib.metadata
import importlib.util
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.lowest_requirements import lowest_list, lowest_series, requirement_name, requirements  # noqa: E402

# Импорты, которых нет в зависимостях нарочно: модуль -> файлы, которым он нужен (шаблон fnmatch), и почему.
NOT_DECLARED = {
    "torch": ("tests/make_torch_reference.py", "эталон для tests/data считается вручную, один раз; pytest torch не нужен"),
    "google": ("lessons/[0-9][0-9]_*.py", "google.colab есть только в Colab: первая ячейка урока (tools/hosted/cell.py) "
                                         "импортирует его там и только там"),
}


def _local_modules():
    names = {"course_lib", "tools", "tests"} | {p.stem for p in ROOT.glob("*.py")}   # course.py, conftest.py
    for folder in ("tests", "tools"):
        names |= {p.stem for p in (ROOT / folder).glob("*.py")} | {p.name for p in (ROOT / folder).iterdir() if p.is_dir()}
    return names


def imports(folder):
    """{модуль верхнего уровня: [файлы]} для абсолютных импортов в .py внутри folder (без stdlib и своих)."""
    found, local = {}, _local_modules()
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in local:
                    found.setdefault(top, []).append(str(path.relative_to(ROOT)))
    return found


def _distributions(module):
    dists = importlib.metadata.packages_distributions().get(module)
    if not dists and module in _class_tools_not_installed():
        return {module}      # окружение нижних границ: extra class (хаб, nbgrader) в нём не ставится, сверяем по имени
    assert dists, f"модуль {module} импортируется, но не установлен ни одним пакетом"
    return {d.lower().replace("_", "-") for d in dists}


def _class_tools_not_installed():
    """Имена пакетов extra class, которых нет в этом окружении (в .ci/run нижние границы ставят только extra lab и test)."""
    names = {requirement_name(r) for r in requirements(extras=("class",))} - {requirement_name(r) for r in requirements(extras=())}
    return {name for name in names if not importlib.util.find_spec(name.replace("-", "_"))}


def _undeclared(folders, extras):
    declared = {requirement_name(r) for r in requirements(extras=extras)}
    missing = {}
    for folder in folders:
        for module, files in imports(folder).items():
            if module in NOT_DECLARED:
                assert all(fnmatch.fnmatch(f, NOT_DECLARED[module][0]) for f in files), (
                    f"{module} теперь импортируют {sorted(set(files))}: объявите его в pyproject.toml")
                continue
            if not _distributions(module) & declared:
                missing[module] = sorted(set(files))[:3]
    return missing


def test_library_and_lessons_import_only_runtime_dependencies():
    """`make lab` ставит только [project] dependencies: их должно хватать библиотеке и каждому уроку."""
    missing = _undeclared(["course_lib", "lessons"], extras=())
    assert not missing, f"course_lib или уроки импортируют то, чего нет в [project] dependencies: {missing}"


def test_tests_and_tools_imports_are_declared():
    missing = _undeclared(["tests", "tools"], extras=("lab", "test", "class"))
    assert not missing, f"tests/ и tools/ импортируют то, чего нет ни в dependencies, ни в extra lab, test или class: {missing}"


def test_pillow_is_declared_because_live_widgets_encode_frames():
    assert "PIL" in imports("course_lib"), "если Pillow больше не нужен виджетам, уберите его из зависимостей"
    assert "pillow" in {requirement_name(r) for r in requirements(extras=())}


@pytest.mark.parametrize(("requirement", "series"), [
    ("numpy>=1.24", "numpy>=1.24,<1.25"),
    ("ipywidgets>=8", "ipywidgets>=8,<8.1"),
    ("jupyterlab>=4.0.2", "jupyterlab>=4.0.2,<4.0.3"),
    ("nbval>=0.11", "nbval>=0.11,<0.12"),
])
def test_lowest_series(requirement, series):
    assert lowest_series(requirement) == series


@pytest.mark.parametrize("requirement", ["numpy", "numpy==1.24", "numpy>=1.24,<2", "numpy~=1.24"])
def test_lowest_series_refuses_what_it_cannot_check(requirement):
    with pytest.raises(ValueError, match="имя>=версия"):
        lowest_series(requirement)


def test_every_declared_bound_has_a_lowest_series():
    series = [lowest_series(r) for r in requirements()]
    assert len(series) == len(requirements()) and all(",<" in s for s in series)


def test_installed_metadata_says_the_same_as_pyproject():
    """На Python 3.10 (без tomllib) границы берутся из метаданных установленного курса — они те же."""
    from tools.lowest_requirements import _installed_requirements

    assert _installed_requirements(("lab", "test")) == requirements(), "курс установлен из старого pyproject.toml: make setup"


def test_lowest_list_takes_the_highest_of_a_package_bounds():
    """ipywidgets>=7.7 (ядро, для Colab) и ipywidgets>=8 (extra lab): pip с '.[lab,test]' не поставит 7.7 —
    окружение нижних границ просит 8.0.x, а не обе серии сразу (такой список pip не разрешит)."""
    assert lowest_list(["ipywidgets>=7.7", "numpy>=1.24", "ipywidgets>=8"]) == ["ipywidgets>=8,<8.1", "numpy>=1.24,<1.25"]
    assert lowest_list(["ipython>=8", "ipython>=7.34"]) == ["ipython>=8,<8.1"]
    names = [requirement_name(s) for s in lowest_list(requirements())]
    assert len(names) == len(set(names)) and "jupytext" in names and "ipywidgets>=8,<8.1" in lowest_list(requirements())

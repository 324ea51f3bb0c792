"""Colab и Kaggle: первая ячейка урока (tools/hosted/cell.py) и версии их сред (tools/hosted/*.txt).

Сама установка в настоящий Colab здесь не проверяется (сети до Colab нет): ячейка исполняется с подставными
sys.modules, os.environ и pip — видно, какие команды она дала бы и что включила. Что курс работает на версиях
Colab, проверяет .ci/colab (окружение .venv-colab, уроки под nbval) и tests/test_browser_colab.py.
"""

import json
import pathlib
import re
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.hosted import cell as hosted  # noqa: E402
from tools.lowest_requirements import requirement_name, requirements  # noqa: E402

LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.py"))
COLAB_KERNEL = {"ipython": "7.34.0", "ipykernel": "6.17.1", "numpy": "2.1.3", "matplotlib": "3.10.0",
                "ipywidgets": "7.7.1", "pillow": "11.3.0", "threadpoolctl": "3.6.0", "tqdm": "4.67.3"}


def _version(found):
    def version(name):
        if name not in found:
            raise ImportError(name)          # как importlib.metadata.PackageNotFoundError
        return found[name]
    return version


def _first_code_cell_py(path):
    blocks = re.split(r"(?m)^(?=# %%)", path.read_text(encoding="utf-8"))
    code = next(b for b in blocks if b.startswith("# %%\n"))
    return code[len("# %%\n"):].rstrip("\n")


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_starts_its_code_with_the_hosted_cell(lesson):
    assert _first_code_cell_py(lesson) == hosted.cell(), (
        f"{lesson.name}: первая ячейка кода — не ячейка Colab и Kaggle: .venv/bin/python -m tools.hosted.cell {lesson}")
    notebook = json.loads(lesson.with_suffix(".ipynb").read_text(encoding="utf-8"))
    code = next(c for c in notebook["cells"] if c["cell_type"] == "code")
    assert "".join(code["source"]) == hosted.cell(), f"{lesson.stem}.ipynb не пересобран: make notebooks"
    assert code["outputs"] == [], f"{lesson.stem}.ipynb: у ячейки Colab вне Colab есть вывод: {code['outputs']}"


def test_cell_installs_from_the_repository_and_asks_for_the_core_dependencies():
    text = hosted.cell()
    assert f'"git+{hosted.repository()}"' in text and hosted.repository().startswith("https://github.com/")
    for requirement in requirements(extras=()):
        assert f'"{requirement}"' in text, requirement
    assert "jupyterlab" not in text and "jupytext" not in text, "в Colab интерфейс свой: extra lab туда не ставим"


def test_off_colab_the_cell_runs_nothing_and_prints_nothing(capsys):
    """В JupyterLab, в проверках, на хабе: ни pip, ни вывода, и имя функции не остаётся в уроке."""
    namespace = {}
    exec(hosted.cell(), namespace)
    assert capsys.readouterr() == ("", "")
    assert "_course_setup" not in namespace
    setup = hosted.setup_function()
    calls = []
    assert setup({"sys": sys}, {"VSCODE_PID": "1"}, calls.append, _version({}), "python") == [] and calls == []


@pytest.fixture
def colab_output(monkeypatch):
    """Подставной google.colab.output: сколько раз включали менеджер виджетов."""
    enabled = []
    output = types.SimpleNamespace(enable_custom_widget_manager=lambda: enabled.append(True))
    monkeypatch.setitem(sys.modules, "google.colab", types.SimpleNamespace(output=output))
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    return enabled


def test_on_colab_installs_the_course_without_deps_and_only_what_is_missing(colab_output, capsys):
    setup, calls = hosted.setup_function(), []
    missing_tqdm = {k: v for k, v in COLAB_KERNEL.items() if k != "tqdm"}
    commands = setup({"google.colab": object()}, {}, calls.append, _version(missing_tqdm), "/usr/bin/python3")
    assert calls == commands == [
        ["/usr/bin/python3", "-m", "pip", "install", "-q", "--no-deps", f"git+{hosted.repository()}"],
        # недостающее — с IPython и ipykernel, прибитыми к версиям среды: pip их не обновит
        ["/usr/bin/python3", "-m", "pip", "install", "-q", "tqdm>=4.64.1", "ipython==7.34.0", "ipykernel==6.17.1"],
    ]
    assert colab_output == [True], "в Colab ползунки курса — сторонние виджеты: нужен enable_custom_widget_manager()"
    assert "Курс готов (colab)" in capsys.readouterr().out


def test_on_colab_with_everything_present_nothing_is_installed_and_ipython_is_never_named(colab_output):
    setup, calls = hosted.setup_function(), []
    setup({"google.colab": object()}, {}, calls.append, _version(dict(COLAB_KERNEL, **{"attention-bez-magii": "0.1.0"})),
          "python")
    assert calls == [] and colab_output == [True]
    setup({"google.colab": object()}, {}, calls.append, _version(COLAB_KERNEL), "python")
    assert len(calls) == 1 and "--no-deps" in calls[0] and not any("ipython" in word for word in calls[0])


def test_on_kaggle_installs_the_course_and_does_not_touch_colab(monkeypatch, capsys):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    setup, calls = hosted.setup_function(), []
    setup({"sys": sys}, {"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, calls.append,
          _version(dict(COLAB_KERNEL, ipywidgets="8.1.5")), "python")
    assert calls == [["python", "-m", "pip", "install", "-q", "--no-deps", f"git+{hosted.repository()}"]]
    assert "Курс готов (kaggle)" in capsys.readouterr().out


def test_a_failed_install_says_in_russian_what_to_do():
    def no_network(command):
        raise OSError("Network is unreachable")

    setup = hosted.setup_function()
    with pytest.raises(RuntimeError, match=r"не удалось поставить курс .*Network is unreachable.*Internet on"):
        setup({}, {"KAGGLE_KERNEL_RUN_TYPE": "Batch"}, no_network, _version(COLAB_KERNEL), "python")


def test_repository_must_be_declared(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[project.urls\] Repository"):
        hosted.repository(pyproject)


def test_insert_puts_the_cell_after_the_title_and_replaces_an_older_one():
    lesson = "# ---\n# jupyter: {}\n# ---\n\n# %% [markdown]\n# # Урок\n\n# %%\nimport numpy as np\n"
    v1 = f"{hosted.TITLE}\nv1()"
    once = hosted.insert(lesson, v1)
    assert hosted.insert(once, v1) == once
    assert once == f"# ---\n# jupyter: {{}}\n# ---\n\n# %% [markdown]\n# # Урок\n\n# %%\n{v1}\n\n# %%\nimport numpy as np\n"
    older = hosted.insert(lesson, f"{hosted.TITLE}\nold()")
    assert hosted.insert(older, f"{hosted.TITLE}\nnew()").count(hosted.TITLE) == 1
    assert "new()" in hosted.insert(older, f"{hosted.TITLE}\nnew()") and "old()" not in hosted.insert(older, "x")
    with pytest.raises(ValueError, match="markdown"):
        hosted.insert("# %%\nx = 1\n", "CELL")


def _pins(name):
    lines = (ROOT / "tools" / "hosted" / name).read_text(encoding="utf-8").splitlines()
    return dict(line.split("==") for line in lines if line and not line.startswith("#"))


@pytest.mark.parametrize("name", ["colab.txt", "kaggle.txt"])
def test_hosted_versions_fit_the_core_bounds_and_say_where_they_come_from(name):
    """Версии сред не ниже нижних границ курса: иначе первая ячейка доставила бы в Colab новый IPython."""
    pins = {requirement_name(k): v for k, v in _pins(name).items()}
    header = (ROOT / "tools" / "hosted" / name).read_text(encoding="utf-8")
    assert re.search(r"коммит [0-9a-f]{40}", header), f"{name}: в шапке нет коммита, откуда версии"
    for requirement in requirements(extras=()):
        package, bound = requirement_name(requirement), requirement.split(">=")[1]
        assert package in pins, f"{name}: нет версии {package}"
        as_tuple = lambda v: tuple(int(p) for p in re.match(r"[\d.]+", v).group().rstrip(".").split("."))  # noqa: E731
        assert as_tuple(pins[package]) >= as_tuple(bound), f"{name}: {package}=={pins[package]} ниже границы {bound}"


def test_readme_opens_every_lesson_in_colab_from_the_repository():
    """Ссылка «Открыть в Colab» у каждого урока ведёт на его тетрадку в репозитории из pyproject.toml."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    repo = hosted.repository().removeprefix("https://github.com/")
    line = next(line for line in readme.splitlines() if line.startswith("**Открыть в Colab:**"))
    links = re.findall(r"\]\((https://colab\.research\.google\.com/github/[^)]+)\)", line)
    expected = [f"https://colab.research.google.com/github/{repo}/blob/main/lessons/{p.stem}.ipynb" for p in LESSONS]
    assert links == expected, f"в README ссылки «Открыть в Colab» не те: {sorted(set(links) ^ set(expected))}"


def test_pins_check_names_what_is_missing_or_of_another_version(tmp_path):
    """.ci/colab: `-c` не ставит пакет, который никто не потянул, — проверка должна это заметить."""
    from tools.hosted import pins
    import importlib.metadata

    path = tmp_path / "colab.txt"
    path.write_text("# шапка\nipython==7.34.0  # ядро\n\nipywidgets==7.7.1\nnumpy==2.1.3\n", encoding="utf-8")
    assert pins.pins(path) == {"ipython": "7.34.0", "ipywidgets": "7.7.1", "numpy": "2.1.3"}

    def version(name):
        if name == "numpy":
            raise importlib.metadata.PackageNotFoundError(name)
        return {"ipython": "7.34.0", "ipywidgets": "8.1.9"}[name]

    assert pins.mismatches(pins.pins(path), version) == [("ipywidgets", "7.7.1", "8.1.9"), ("numpy", "2.1.3", None)]
    path.write_text("ipython>=7.34\n", encoding="utf-8")
    with pytest.raises(ValueError, match="строка 1: ожидалось «имя==версия»"):
        pins.pins(path)
    assert set(pins.pins(ROOT / "tools" / "hosted" / "colab.txt")) >= {"ipython", "ipykernel", "ipywidgets", "numpy"}

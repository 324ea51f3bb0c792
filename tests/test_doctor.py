"""doctor() из урока 00: проверяет то, что нужно, узнаёт Colab и VS Code и не говорит лишнего.

Его вывод сверяет nbval (урок 00), поэтому он должен совпадать везде, где идут тесты:
версии стоят после « — » и заменяются правилом из lessons/sanitize.cfg, а строчка ℹ️ зависит
только от интерфейса — и в ядре nbval это всегда «ядру не виден».
"""

import configparser
import pathlib
import re
import sys

import pytest

import importlib

doc = importlib.import_module("course_lib.doctor")   # course_lib.doctor — это и функция, и модуль

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.lowest_requirements import requirements  # noqa: E402


def _sanitized(text):
    """Вывод так, как его сравнивает nbval: правила из lessons/sanitize.cfg по очереди."""
    config = configparser.ConfigParser()
    config.read(ROOT / "lessons" / "sanitize.cfg", encoding="utf-8")
    for section in config.sections():
        text = re.sub(config[section]["regex"], config[section]["replace"], text)
    return text


def _run(monkeypatch, capsys, where="jupyter", versions=None):
    monkeypatch.setattr(doc, "front_end", lambda: where)
    if versions is not None:
        monkeypatch.setattr(doc, "_version", lambda package: versions.get(package))
    ok = doc.doctor()
    return ok, capsys.readouterr().out


@pytest.mark.parametrize(("modules", "environ", "user_ns", "expected"), [
    ({"google.colab": object()}, {}, {}, "colab"),
    ({}, {"COLAB_RELEASE_TAG": "release-colab-20251201"}, {}, "colab"),
    ({}, {"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, {}, "kaggle"),
    ({}, {}, {"__vsc_ipynb_file__": "/home/me/00_start_here.ipynb"}, "vscode"),
    # Терминал VS Code задаёт VSCODE_*: тесты, запущенные оттуда, не должны решить, что урок открыт в VS Code.
    ({}, {"VSCODE_PID": "123", "TERM_PROGRAM": "vscode"}, {}, "jupyter"),
    ({}, {}, {}, "jupyter"),
])
def test_front_end_is_recognised_from_the_kernel_side(modules, environ, user_ns, expected):
    assert doc.front_end(modules=modules, environ=environ, user_ns=user_ns) == expected


def test_this_kernel_is_plain_jupyter():
    """Там, где идут тесты (pytest, ядро nbval), doctor видит обычный Jupyter — иначе урок 00 разойдётся."""
    assert doc.front_end() == "jupyter"


def test_all_fine_in_a_folder_without_jupytext_toml(monkeypatch, capsys, tmp_path):
    """Colab, VS Code, чужая папка: рядом с уроком нет jupytext.toml, а урок 00 всё равно проходит."""
    monkeypatch.chdir(tmp_path)
    for where in doc.WHERE:
        ok, out = _run(monkeypatch, capsys, where, GOOD)
        assert ok, out
        assert "jupytext" not in out
        assert out.rstrip().endswith("Всё готово, можно учиться!")


def test_colab_kaggle_and_vscode_get_their_own_hint_and_no_jupyterlab_check(monkeypatch, capsys):
    _, colab = _run(monkeypatch, capsys, "colab")
    assert "enable_custom_widget_manager()" in colab and "jupyterlab_widgets" not in colab
    _, kaggle = _run(monkeypatch, capsys, "kaggle")
    assert "открыт в Kaggle" in kaggle and "jupyterlab_widgets" not in kaggle
    _, vscode = _run(monkeypatch, capsys, "vscode")
    assert "jupyter.widgetScriptSources" in vscode and "jupyterlab_widgets" not in vscode
    _, jupyter = _run(monkeypatch, capsys, "jupyter")
    assert "✅ менеджер виджетов для JupyterLab и Notebook 7 (jupyterlab_widgets 3)" in jupyter
    assert "ядру не виден" in jupyter


GOOD = {"numpy": "1.24.4", "matplotlib": "3.7.5", "ipywidgets": "8.0.7", "jupyterlab_widgets": "3.0.8"}


@pytest.mark.parametrize(("package", "version", "line"), [
    ("numpy", "1.23.5", "❌ numpy ≥ 1.24 — 1.23.5"),
    ("matplotlib", None, "❌ matplotlib ≥ 3.7 — не установлен"),
    ("ipywidgets", "7.6.5", "❌ ipywidgets ≥ 7.7 — 7.6.5"),      # 7.7 — как в Colab (tools/hosted/colab.txt)
    ("jupyterlab_widgets", "1.1.7", "❌ менеджер виджетов для JupyterLab и Notebook 7 (jupyterlab_widgets 3) — 1.1.7"),
])
def test_too_old_or_missing_is_a_cross_with_advice(monkeypatch, capsys, package, version, line):
    ok, out = _run(monkeypatch, capsys, "jupyter", dict(GOOD, **{package: version}))
    assert not ok and line in out.splitlines()
    assert "make lab" in out.splitlines()[-1]


def test_compared_output_is_the_same_whatever_the_versions(monkeypatch, capsys):
    _, lowest = _run(monkeypatch, capsys, "jupyter", GOOD)
    _, newest = _run(monkeypatch, capsys, "jupyter", {"numpy": "2.4.6", "matplotlib": "3.11.2", "ipywidgets": "8.1.9",
                                                    "jupyterlab_widgets": "3.0.17"})
    assert lowest != newest and _sanitized(lowest) == _sanitized(newest)


@pytest.mark.parametrize(("version", "passed"), [("8.1.9", False), ("8.1.8", True), ("8.1.10", True), ("8.0.7", True)])
def test_vscode_is_warned_about_the_ipywidgets_it_cannot_show(monkeypatch, capsys, version, passed):
    """vscode-jupyter#17504: ipywidgets 8.1.9 в VS Code не рисует ничего, 8.1.8 рисует. В JupyterLab 8.1.9 в порядке."""
    ok, out = _run(monkeypatch, capsys, "vscode", dict(GOOD, ipywidgets=version))
    line = next(line for line in out.splitlines() if "VS Code умеет показать" in line)
    assert ok is passed and line.startswith("✅" if passed else "❌"), out
    assert line.endswith(f"— {version}") and "ipywidgets==8.1.8" in line
    if not passed:
        assert "ipywidgets==8.1.8" in out.splitlines()[-1]
    jupyter_ok, _ = _run(monkeypatch, capsys, "jupyter", dict(GOOD, ipywidgets=version))
    assert jupyter_ok


def test_minimums_are_the_bounds_in_pyproject():
    bounds = dict(re.match(r"([\w-]+)>=([\d.]+)$", r).groups() for r in requirements(extras=()))
    for package, minimum in doc.MINIMUM.items():
        assert minimum == tuple(int(p) for p in bounds[package].split(".")), package

"""Установка: pip (pyproject.toml) и conda/Binder (environment.yml) ставят одни и те же пакеты."""

import importlib.metadata
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _name(requirement):
    return re.split(r"[<>=!~\s\[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pip_packages():
    """Зависимости и extra `test` из pyproject.toml (в метаданных установленного пакета; make переустанавливает его при правке)."""
    return {_name(r) for r in importlib.metadata.requires("attention-bez-magii")}


def conda_packages():
    dependencies = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    return {_name(d) for d in dependencies if isinstance(d, str)} - {"python", "pip"}


def test_environment_yml_matches_pyproject():
    pip, conda = pip_packages(), conda_packages()
    assert pip == conda, f"только в pyproject.toml: {sorted(pip - conda)}; только в environment.yml: {sorted(conda - pip)}"


def test_environment_installs_course_lib_from_checkout():
    dependencies = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    pip_section = next(d["pip"] for d in dependencies if isinstance(d, dict))
    assert "-e ." in pip_section, "conda-окружение должно ставить course_lib из этой папки (pip: -e .)"


def test_no_exact_pins():
    text = (ROOT / "pyproject.toml").read_text() + (ROOT / "environment.yml").read_text()
    assert "==" not in text, "версии задаём нижними границами (>=), а не точными: точные быстро устаревают"


def test_core_does_not_import_widgets():
    """`import course_lib` не тянет ipywidgets и matplotlib: ядро живёт без Jupyter."""
    import subprocess

    code = "import sys, course_lib; print('ipywidgets' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]

"""Установка ученика: pip (`make lab`, [project] dependencies и extra `lab` в pyproject.toml) и conda/Binder (environment.yml)
ставят одни и те же пакеты с теми же границами, и ни там, ни там нет инструментов проверок (extra `test`)."""

import pathlib
import re

import yaml

from tools.lowest_requirements import lowest_list, requirements

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _normal(requirement):
    """'Pillow >= 9.3' -> 'pillow>=9.3': имя в нижнем регистре, «_» как «-», без пробелов."""
    return re.sub(r"\s", "", requirement).lower().replace("_", "-")


def conda_dependencies():
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))["dependencies"]


def test_environment_yml_asks_for_what_make_lab_installs():
    """Те же пакеты и те же нижние границы, что у ученика после `make lab`. Точную версию (`==`) не пропустит
    и pyproject.toml: её не примет tools/lowest_requirements.py (tests/test_dependencies.py), а здесь она
    разойдётся с ним. Пакет из extra `test` в environment.yml — тоже расхождение: Binder ученику его не ставит."""
    # пакет с двумя границами (ipywidgets>=7.7 в ядре для Colab, >=8 в extra lab) — с той, что выше: её и ставит pip
    pip = {_normal(series.partition(",")[0]) for series in lowest_list(requirements(extras=("lab",)))}
    conda = {_normal(d) for d in conda_dependencies() if isinstance(d, str) and not d.startswith("python")} - {"pip"}
    assert pip == conda, f"только в pyproject.toml: {sorted(pip - conda)}; только в environment.yml: {sorted(conda - pip)}"


def test_environment_installs_course_lib_from_checkout():
    pip_section = next(d["pip"] for d in conda_dependencies() if isinstance(d, dict))
    assert "-e ." in pip_section, "conda-окружение должно ставить course_lib из этой папки (pip: -e .)"

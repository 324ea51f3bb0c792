"""doctor() — проверка, что у ученика всё установлено (урок 00)."""

import importlib
import importlib.metadata
import pathlib
import sys


def _version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _major(version):
    return int(version.split(".")[0]) if version else 0


def _checks():
    """Список (что проверяем, прошло ли, подробности) — без печати, чтобы это можно было тестировать."""
    py = sys.version_info
    results = [("Python ≥ 3.10", py >= (3, 10), f"{py.major}.{py.minor}.{py.micro}")]
    for package, minimum in (("numpy", 1), ("matplotlib", 3), ("ipywidgets", 8)):
        version = _version(package)
        results.append((f"{package} ≥ {minimum}", _major(version) >= minimum, version or "не установлен"))
    ext = _version("jupyterlab_widgets")
    results.append(("расширение виджетов для JupyterLab (jupyterlab_widgets)", ext is not None, ext or "не установлено"))
    jupytext = _version("jupytext")
    config = _find_jupytext_config()
    results.append((
        "jupytext связывает .py и .ipynb уроков",
        jupytext is not None and config is not None,
        f"jupytext {jupytext}, настройки: {config.name}" if jupytext and config else
        ("jupytext не установлен" if not jupytext else "не найден jupytext.toml рядом с уроками"),
    ))
    return results


def _find_jupytext_config():
    for folder in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents]:
        if (folder / "jupytext.toml").exists():
            return folder / "jupytext.toml"
    return None


def doctor():
    """Печатает ✅/❌ для всего, что нужно курсу; возвращает True, если всё в порядке."""
    ok = True
    for what, passed, detail in _checks():
        print(("✅" if passed else "❌"), what, "—", detail)
        ok &= passed
    print("Всё готово, можно учиться!" if ok else "Что-то не так: выполните `make lab` в папке курса заново.")
    return ok

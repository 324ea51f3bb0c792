"""doctor() — всё ли установлено и что нужно ползункам там, где открыт урок (урок 00).

Строчка с ✅/❌ — проверка; после « — » идёт то, что нашлось (версия), оно у всех своё.
Строчка с ℹ️ — что ядро знает об интерфейсе. Ядро узнаёт Google Colab (модуль google.colab,
переменная COLAB_RELEASE_TAG), Kaggle (переменная KAGGLE_KERNEL_RUN_TYPE) и VS Code (переменная __vsc_ipynb_file__, которую расширение
Jupyter кладёт в пространство имён ядра). JupyterLab и Notebook 7 изнутри ядра не различить —
об этом doctor так и говорит, не угадывая.
"""

import importlib.metadata
import os
import re
import sys

# Нижние границы из pyproject.toml (их сверяет tests/test_doctor.py).
MINIMUM = {"numpy": (1, 24), "matplotlib": (3, 7), "ipywidgets": (7, 7)}
VSCODE_BLANK = (8, 1, 9)     # ipywidgets, чьи виджеты VS Code не показывает вовсе

WHERE = {
    "colab": ("ℹ️ Урок открыт в Google Colab: ползунки рисует менеджер виджетов Colab, а не JupyterLab.\n"
              "   Если вместо ползунка пусто или Colab просит включить «third-party widgets», выполните\n"
              "   `from google.colab import output; output.enable_custom_widget_manager()`\n"
              "   и запустите ячейку с виджетом снова (первая ячейка урока уже делает это сама).\n"
              "   Картинка виджета и все проверки работают и без ползунков."),
    "kaggle": ("ℹ️ Урок открыт в Kaggle: ползунки рисует интерфейс Kaggle (ipywidgets 8).\n"
               "   Если вместо ползунка пусто, перезапустите ядро (Run → Restart) и выполните ячейки сверху.\n"
               "   Картинка виджета и все проверки работают и без ползунков."),
    "vscode": ("ℹ️ Урок открыт в VS Code: ползунки рисует расширение Jupyter для VS Code.\n"
               "   Если вместо ползунка «Error displaying widget», обновите расширение Jupyter и проверьте,\n"
               "   что VS Code может скачивать код виджетов (настройка jupyter.widgetScriptSources).\n"
               "   Картинка виджета и все проверки работают и без ползунков."),
    "jupyter": ("ℹ️ Интерфейс (JupyterLab, Notebook 7 или другой) ядру не виден. В JupyterLab и Notebook 7\n"
                "   ползунки показывает jupyterlab_widgets — он должен стоять там же, где запущен сервер\n"
                "   Jupyter (`make lab` так и делает). Если вместо ползунка «Error displaying widget»,\n"
                "   перезапустите сервер: make lab."),
}

ADVICE = {
    "colab": ("Что-то не так: выполните первую ячейку урока (она ставит курс в Colab) и эту снова;\n"
              "не помогло — Runtime → Disconnect and delete runtime и ячейки сверху (см. README, «Где открывать уроки»)."),
    "kaggle": ("Что-то не так: включите в Kaggle интернет (Settings → Internet on), выполните первую ячейку\n"
               "урока (она ставит курс) и эту снова."),
    "vscode": ("Что-то не так: выберите в VS Code ядро из окружения курса (.venv) или выполните `make setup`;\n"
               "с ipywidgets 8.1.9 — поставьте 8.1.8: .venv/bin/python -m pip install \"ipywidgets==8.1.8\"."),
    "jupyter": "Что-то не так: выполните `make lab` в папке курса заново.",
}


def _version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _release(version):
    """'1.24.4' -> (1, 24, 4); '8.1.0rc1' -> (8, 1, 0); None -> ()."""
    match = re.match(r"\d+(?:\.\d+)*", version or "")
    return tuple(int(part) for part in match.group().split(".")) if match else ()


def front_end(modules=None, environ=None, user_ns=None):
    """'colab', 'kaggle', 'vscode' или 'jupyter' (JupyterLab, Notebook 7 — неразличимы из ядра)."""
    modules = sys.modules if modules is None else modules
    environ = os.environ if environ is None else environ
    if user_ns is None:
        shell = getattr(modules.get("IPython"), "get_ipython", lambda: None)()
        user_ns = getattr(shell, "user_ns", {}) or {}
    if "google.colab" in modules or "COLAB_RELEASE_TAG" in environ:
        return "colab"
    if "KAGGLE_KERNEL_RUN_TYPE" in environ:
        return "kaggle"
    if "__vsc_ipynb_file__" in user_ns:
        return "vscode"
    return "jupyter"


def _checks(where):
    """Список (что проверяем, прошло ли, что нашлось) — без печати, чтобы это можно было тестировать."""
    py = sys.version_info
    results = [("Python ≥ 3.10", py >= (3, 10), f"{py.major}.{py.minor}.{py.micro}")]
    for package, minimum in MINIMUM.items():
        version = _version(package)
        shown = ".".join(map(str, minimum))
        results.append((f"{package} ≥ {shown}", version is not None and _release(version) >= minimum,
                        version or "не установлен"))
    if where == "vscode":
        # Расширение Jupyter для VS Code не рисует виджеты ipywidgets 8.1.9 — ни ползунка, ни ошибки; 8.1.8 рисует
        # (microsoft/vscode-jupyter#17504, открыт с августа 2026).
        version = _version("ipywidgets")
        results.append(("ipywidgets, который VS Code умеет показать (не 8.1.9: vscode-jupyter#17504; "
                        'помогает pip install "ipywidgets==8.1.8" в окружении курса)',
                        _release(version)[:3] != VSCODE_BLANK, version or "не установлен"))
    if where == "jupyter":
        # JupyterLab 4 и Notebook 7 рисуют виджеты через jupyterlab_widgets 3 (он понимает ядра и с ipywidgets 7, и с 8).
        manager = _version("jupyterlab_widgets")
        results.append(("менеджер виджетов для JupyterLab и Notebook 7 (jupyterlab_widgets 3)",
                        manager is not None and _release(manager)[:1] == (3,), manager or "не установлен"))
    return results


def doctor():
    """Печатает ✅/❌ для всего, что нужно курсу, и что нужно ползункам здесь; возвращает True, если всё в порядке."""
    where = front_end()
    ok = True
    for what, passed, detail in _checks(where):
        print(("✅" if passed else "❌"), what, "—", detail)
        ok &= passed
    print(WHERE[where])
    print("Всё готово, можно учиться!" if ok else ADVICE[where])
    return ok

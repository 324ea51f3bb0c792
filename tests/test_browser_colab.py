"""Ползунки с ядром Google Colab: ipywidgets 7.7.1, IPython 7.34 — в настоящем браузере (headless Chromium).

Ядро — из окружения .venv-colab (версии tools/hosted/colab.txt), интерфейс — JupyterLab 3 с jupyterlab_widgets 1
(его менеджер виджетов — ipywidgets 7, как у Colab) из отдельного окружения .venv-colab-lab: обе среды ставит
.ci/colab. Сам Colab здесь не открыть (нужен Google-аккаунт и сеть), поэтому проверяется то, что от курса в нём
зависит: ядро с версиями Colab рисует виджеты уроков, и ползунки уроков 02, 06 и 10 перерисовывают картинку
(машинерия — та же, что у tests/test_browser.py: Run All, нажатия, новая картинка, ни «Error displaying widget»).

Ядро — kernelspec «colab» (питон .venv-colab) в папке данных сервера, и тетрадки просят именно его: у окружения
сервера есть свой ipykernel, и kernelspec «python3» достался бы ему — тест тогда молча гонял бы ipywidgets 8.

Тест идёт только под питоном .venv-colab (.ci/colab: `.venv-colab/bin/python -m pytest tests/test_browser_colab.py`);
в другом окружении (make test) он пропускается — там ядро не Colab. С COLAB_BROWSER=required (так его зовёт
.ci/colab) и в CI нет пропусков: нет окружения, Chromium или ipywidgets не 7 — тест падает.
"""

import json
import os
import pathlib
import sys
import time

import pytest

import test_browser as tb
from _jupyter_server import running_jupyter

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAB_PYTHON = ROOT / ".venv-colab-lab" / "bin" / "python"
KERNEL = "colab"
# Уроки и ползунки — те же строчки, что у tests/test_browser.py (там они двигаются с ipywidgets 8).
LESSONS = ["02_soft_search.ipynb", "06_multi_head.ipynb", "10_gpt.ipynb"]


def _required():
    return os.environ.get("COLAB_BROWSER", "") == "required" or tb._in_ci() and _is_colab_kernel()


def _is_colab_kernel():
    import ipywidgets
    return ipywidgets.__version__.startswith("7.")


def _unavailable(reason):
    if _required():
        pytest.fail(f"{reason} — в .ci/colab браузерный тест с ядром Colab обязателен")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def colab_server(tmp_path_factory):
    if not _is_colab_kernel():
        if os.environ.get("COLAB_BROWSER", "") == "required":
            pytest.fail("tests/test_browser_colab.py запущен не в .venv-colab: ipywidgets здесь не 7")
        pytest.skip("ядро не Colab (ipywidgets не 7): этот тест гоняет .ci/colab в .venv-colab")
    if tb.sync_playwright is None:
        _unavailable("playwright не установлен")
    if not tb._chromium():
        _unavailable("нет Chromium (/usr/bin/chromium): apt-get install chromium")
    if not LAB_PYTHON.exists():
        _unavailable(f"нет {LAB_PYTHON.parent.parent.name} (JupyterLab 3 с jupyterlab_widgets 1): его ставит .ci/colab")
    import nbformat

    base = tmp_path_factory.mktemp("browser-colab")
    work = base / "work"
    tb.workspace.prepare(work)
    for name in LESSONS:
        notebook = nbformat.read(work / name, as_version=4)
        notebook.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3 (Colab)", "language": "python"}
        nbformat.write(notebook, work / name)
    state = base / "state"
    spec = state / "data" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (Colab)", "language": "python"}), encoding="utf-8")
    tb.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with running_jupyter(work, state, app="lab", start_timeout=tb.SERVER_START, python=str(LAB_PYTHON),
                         lab3=True) as jupyter:
        print(f"\nJupyterLab 3 (ядро Colab) на 127.0.0.1:{jupyter.port} поднялся за {time.perf_counter() - started:.1f} с")
        jupyter.front = "JupyterLab"
        try:
            yield jupyter
        finally:
            (tb.ARTIFACTS / "colab-lab.log").write_bytes(jupyter.log_path.read_bytes())


@pytest.fixture(scope="module")
def colab_page(colab_server):
    with tb.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=tb._chromium(), headless=True, args=tb.CHROMIUM_ARGS, timeout=60_000)
        try:
            context = chromium.new_context(viewport={"width": 1400, "height": 1600}, device_scale_factor=1)
            session = tb.FrontPage(context, colab_server)
            yield session
            session.discard()
            context.close()
        finally:
            chromium.close()


def test_server_is_jupyterlab_3_with_the_ipywidgets_7_manager():
    """Интерфейс — правда тот, что рисует виджеты ipywidgets 7, а не JupyterLab 4 из основного окружения."""
    if not LAB_PYTHON.exists():
        _unavailable(f"нет {LAB_PYTHON}")
    import subprocess
    out = subprocess.run([str(LAB_PYTHON), "-c", "import jupyterlab, jupyterlab_widgets; "
                          "print(jupyterlab.__version__, jupyterlab_widgets.__version__)"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0].startswith("3.") and out[1].startswith("1."), f"JupyterLab {out[0]}, jupyterlab_widgets {out[1]}"


@pytest.mark.parametrize("name", LESSONS)
def test_colab_kernel_sliders_redraw_picture(colab_page, name):
    log, front = [], "JupyterLab"
    page = colab_page.open(name, log)
    stem = f"colab-{pathlib.Path(name).stem}"
    try:
        tb._check_kernel_python(page, name)            # ядро — питон .venv-colab, а не сервера
        version = page.evaluate(tb.JS_KERNEL_EXEC, ["import ipywidgets, IPython; print(ipywidgets.__version__, "
                                                    "IPython.__version__)", tb.KERNEL_IDLE * 1000]).split()
        assert version[0].startswith("7.7") and version[1] == "7.34.0", f"{name}: в ядре ipywidgets/IPython {version}"
        tb._run_all(page, name, log)
        drives = tb.NOTEBOOKS[name]
        outputs = tb._widget_outputs(page)
        last = max(d.widget for d in drives)
        assert tb._until(lambda: outputs.count() > last, tb.WIDGETS_DRAWN, interval=0.2), (
            f"{name}: за {tb.WIDGETS_DRAWN} с виджетов с картинкой {outputs.count()}, а нужен №{last}: "
            f"{tb._widget_errors(page)}")
        first = {}
        for widget in sorted({d.widget for d in drives}):
            output = outputs.nth(widget)
            output.scroll_into_view_if_needed()
            assert tb._until(lambda: output.evaluate(tb.JS_HAS_PICTURE), tb.NEW_PICTURE), f"{name}: нет картинки №{widget}"
            first[widget] = output.evaluate(tb.JS_PICTURE)["hash"]
            output.screenshot(path=str(tb.ARTIFACTS / f"{stem}-w{widget}-before.png"))
        for drive in drives:
            tb._drive(page, front, name, drive, outputs.nth(drive.widget))
        for widget, before in first.items():
            output = outputs.nth(widget)
            output.screenshot(path=str(tb.ARTIFACTS / f"{stem}-w{widget}-after.png"))
            assert output.evaluate(tb.JS_PICTURE)["hash"] != before, f"{name}: картинка №{widget} та же, что до нажатий"
        errors = tb._widget_errors(page)
        assert not errors, f"[ядро Colab] {name}: на странице {errors}"
        page_errors = [e for e in tb.CONSOLE if e.startswith(f"[{front} / {name}] ") and " pageerror: " in e]
        assert not page_errors, f"[ядро Colab] {name}: исключения в странице:\n" + "\n".join(page_errors)
    except BaseException:
        with tb.contextlib.suppress(tb.PlaywrightError):
            page.screenshot(path=str(tb.ARTIFACTS / f"{stem}-failure.png"), full_page=True)
        colab_page.discard()
        raise
    colab_page.close_notebook()

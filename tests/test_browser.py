"""Ползунки в настоящем браузере: JupyterLab + headless Chromium (playwright).

Что проверяем так, как это увидит ученик:
- тетрадка открывается в JupyterLab, «Run All» выполняет все ячейки без ошибок;
- ядро — питон этого окружения (course_lib импортируется);
- ползунок двигается с клавиатуры, и после каждого нажатия приходит новая картинка
  (другой src у <img> и другие пиксели), без «Error displaying widget» / «Model not found»
  и без исключений в странице;
- сколько проходит от нажатия клавиши до новой картинки (печатается, пишется в
  test-artifacts/browser/latency.txt вместе со снимками до и после).

Новый урок с ползунками добавляется строчкой в NOTEBOOKS: имя тетрадки -> какие ползунки
(по их подписи) двигать и какой клавишей. Тетрадки из GENERATED создаются тестом (для
виджетов, которых ещё нет ни в одном уроке). Сервер работает во временной папке с копиями
уроков, так что lessons/ тест не трогает.

Без Chromium или playwright тест пропускается; с переменной окружения CI — падает.
"""

import contextlib
import os
import pathlib
import re
import shutil
import statistics
import sys
import time
import warnings
from dataclasses import dataclass

import pytest

from _jupyter_server import running_jupyterlab

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:                      # pragma: no cover - зависит от окружения
    sync_playwright = None
    PlaywrightError = Exception

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Сколько ждём (секунды). Машина CI — 2 ядра, а первый импорт jupyter_server занимает ~10 с.
SERVER_START = 120
APP_LOAD = 90
KERNEL_IDLE = 60
RUN_ALL = 120
NEW_PICTURE = 15
SETTLE = 0.1                # после новой картинки: не пришла ли за тем же нажатием ещё одна


@dataclass(frozen=True)
class Drive:
    """Сдвинуть ползунок с подписью `slider` клавишей `key` `presses` раз; после каждого нажатия — новая картинка.

    widget — какой по счёту виджет с картинкой в тетрадке (0 — первый сверху), если их несколько.
    """
    slider: str
    key: str = "ArrowRight"
    presses: int = 1
    widget: int = 0


# Тетрадки с ползунками: имя -> что двигать. Уроки берутся из lessons/, остальные — из GENERATED.
# Клавиши — как у noUiSlider: ArrowRight/ArrowLeft — шаг, PageUp/PageDown — пять шагов, Home/End — края.
NOTEBOOKS = {
    "00_start_here.ipynb": [Drive("τ", "ArrowRight", 10), Drive("τ", "PageUp", 1)],
    "01_embeddings.ipynb": [Drive("предложение", "ArrowRight", 4), Drive("соседей", "ArrowRight", 2)],
    "02_soft_search.ipynb": [Drive("τ", "ArrowLeft", 2), Drive("q₁", "ArrowRight", 2, widget=1),
                             Drive("τ", "ArrowLeft", 2, widget=1)],
    # 03: сначала scaling_explorer (свой «d_k»), потом главный исследователь (T, d_k, голов).
    "03_self_attention.ipynb": [Drive("d_k", "ArrowRight", 2, widget=0), Drive("T", "ArrowLeft", 2, widget=1),
                                Drive("d_k", "ArrowRight", 2, widget=1), Drive("голов", "ArrowRight", 1, widget=1)],
    "04_permutation_and_position.ipynb": [Drive("перемешать", "ArrowRight", 3)],
    "05_causal_mask.ipynb": [Drive("T", "ArrowRight", 3), Drive("запрос №", "ArrowLeft", 2)],
    "06_multi_head.ipynb": [Drive("h", "ArrowRight", 4), Drive("голова", "ArrowRight", 2, widget=1)],
    "07_trained_attention.ipynb": [Drive("шаг", "ArrowRight", 3, widget=0), Drive("шаг", "ArrowRight", 3, widget=1),
                                   Drive("голова", "ArrowRight", 1, widget=1)],
    "08_price_of_attention.ipynb": [Drive("блок B", "ArrowRight", 2), Drive("прочитано", "ArrowRight", 2),
                                    Drive("окно", "ArrowRight", 2, widget=1)],
    "explorer.ipynb": [
        # В предложении 9 слов и T = 9: вправо T «упирается» в длину предложения (картинка та же,
        # меняется только пояснение), поэтому T двигаем влево — токенов становится меньше.
        Drive("T", "ArrowLeft", 2),
        Drive("d_k", "ArrowRight", 3),
        Drive("голов", "ArrowRight", 2),
    ],
}

# Главный исследователь в известном состоянии (9 слов, 2 головы) — тетрадку для него делает тест.
GENERATED = {
    "explorer.ipynb": [
        "from course_lib.widgets import attention_explorer",
        'attention_explorer(sentence="кот сел на тёплый коврик и смотрел в окно", heads=2)',
    ],
}

WIDGET_ERRORS = ("Error displaying widget", "Model not found")

# Вызовы виджетов курса в уроках: такой урок стоит добавить в NOTEBOOKS.
WIDGET_CALL = re.compile(r"\b(\w+_explorer|temperature_heatmap)\(")

LATENCIES = {}              # "тетрадка / ползунок клавиша" -> [мс от keydown до загрузки новой картинки]
CONSOLE = []                # ошибки консоли браузера и необработанные исключения страницы
SCALES = {}                 # тетрадка -> во сколько раз <img> растянут в странице


# ---------------------------------------------------------------- окружение: браузер и сервер

def _in_ci():
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _unavailable(reason):
    if _in_ci():
        pytest.fail(f"{reason} — в CI браузерный тест обязателен (.ci/run ставит chromium)")
    pytest.skip(reason)


def _chromium():
    if os.path.exists("/usr/bin/chromium"):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab во временной папке: копия уроков из NOTEBOOKS, jupytext.toml, сгенерированные тетрадки."""
    if sync_playwright is None:
        _unavailable("playwright не установлен (pip install -e '.[test]')")
    if not _chromium():
        _unavailable("нет Chromium (/usr/bin/chromium или chromium в PATH): apt-get install chromium")
    import nbformat

    base = tmp_path_factory.mktemp("browser")
    root = base / "course" / "lessons"
    root.mkdir(parents=True)
    # doctor() ищет jupytext.toml в папке ядра и выше — как в настоящей папке курса.
    shutil.copy2(ROOT / "jupytext.toml", root.parent / "jupytext.toml")
    for name in NOTEBOOKS:
        if name in GENERATED:
            nb = nbformat.v4.new_notebook()
            nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
            nb.cells = [nbformat.v4.new_code_cell(source) for source in GENERATED[name]]
            nbformat.write(nb, root / name)
        else:
            assert (LESSONS / name).exists(), f"{name} из NOTEBOOKS нет ни в lessons/, ни в GENERATED"
            shutil.copy2(LESSONS / name, root / name)
            pair = (LESSONS / name).with_suffix(".py")
            if pair.exists():                       # пара jupytext, как у ученика
                shutil.copy2(pair, root / pair.name)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in [*ARTIFACTS.glob("*.png"), *ARTIFACTS.glob("*.txt"), *ARTIFACTS.glob("*.log")]:
        old.unlink()                                # снимки прошлого запуска не должны путать
    started = time.perf_counter()
    try:
        with running_jupyterlab(root, base / "state", start_timeout=SERVER_START) as server:
            print(f"\nJupyterLab на 127.0.0.1:{server.port} поднялся за {time.perf_counter() - started:.1f} с")
            try:
                yield server
            finally:
                shutil.copy2(server.log_path, ARTIFACTS / "jupyterlab.log")
    finally:
        _write_report()


@pytest.fixture(scope="module")
def lab_page(lab):
    """Одна вкладка JupyterLab на все тетрадки: приложение грузится один раз, тетрадки открываются в нём."""
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=_chromium(), headless=True, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            context = chromium.new_context(viewport={"width": 1400, "height": 1600}, device_scale_factor=1)
            session = LabPage(context, lab)
            yield session
            session.discard()
            context.close()
        finally:
            chromium.close()


# ---------------------------------------------------------------- JupyterLab в странице

JS_STATUS = """(path) => {
    const app = window.jupyterapp;
    if (!app || !app.shell) return {stage: 'app'};
    const dialogs = [...document.querySelectorAll('.jp-Dialog')].map(d => d.innerText.slice(0, 300));
    const panel = app.shell.currentWidget;
    if (!panel || !panel.context || panel.context.path !== path || !panel.content || !panel.content.model)
        return {stage: 'panel', dialogs};
    const sc = panel.sessionContext;
    const kernel = sc && sc.session && sc.session.kernel;
    const cells = [];
    const model = panel.content.model;
    for (let i = 0; i < model.cells.length; i++) {
        const c = model.cells.get(i);
        if (c.type !== 'code') continue;
        const errors = c.outputs.toJSON().filter(o => o.output_type === 'error')
            .map(o => `${o.ename}: ${o.evalue}\\n${(o.traceback || []).join('\\n')}`);
        cells.push({count: c.executionCount, state: c.executionState || null, errors});
    }
    const prompts = [...panel.node.querySelectorAll('.jp-InputArea-prompt')].map(p => p.textContent.trim());
    return {stage: 'ready', dialogs, ready: !!(sc && sc.isReady), kernel: kernel ? kernel.status : null,
            kernelName: kernel ? kernel.name : null, cells, busyPrompts: prompts.filter(p => p.includes('*')).length};
}"""

# Промисы в странице ждём не дольше ms: page.evaluate сам по себе не ограничен по времени.
JS_BOUNDED = "(promise, ms) => Promise.race([promise, new Promise((_, no) => setTimeout(() => no(new Error('timeout ' + ms + ' ms')), ms))])"

JS_KERNEL_EXEC = """async ([code, ms]) => {
    const bounded = %s;
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    let out = '';
    const future = kernel.requestExecute({code, silent: false, store_history: false});
    future.onIOPub = (msg) => {
        if (msg.header.msg_type === 'stream') out += msg.content.text;
        if (msg.header.msg_type === 'error') out += 'ERROR ' + msg.content.ename + ': ' + msg.content.evalue;
    };
    await bounded(future.done, ms);
    return out;
}""" % JS_BOUNDED

# Отпечаток того, что сейчас нарисовано в <img>: src и SHA-256 пикселей (а не только адреса blob:).
JS_PICTURE = """async (img) => {
    if (!img.src) return null;
    try { await (%s)(img.decode(), 5000); } catch (e) { return null; }
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    if (!canvas.width || !canvas.height) return null;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const digest = await crypto.subtle.digest('SHA-256', pixels);
    const hash = [...new Uint8Array(digest)].map(b => b.toString(16).padStart(2, '0')).join('');
    return {src: img.src, width: canvas.width, height: canvas.height, hash};
}""" % JS_BOUNDED

# Время в странице: keydown (в фазе захвата, до noUiSlider) и load каждой новой картинки.
JS_RECORDER = """(img) => {
    if (img.__rec) return;
    const rec = img.__rec = {keys: [], loads: []};
    document.addEventListener('keydown', () => rec.keys.push(performance.now()), true);
    img.addEventListener('load', () => rec.loads.push({t: performance.now(), src: img.src}));
}"""


def _wait(page, path, done, what, timeout, log):
    """Опрашивает JS_STATUS, пока done(status); попутно закрывает диалоги JupyterLab."""
    deadline = time.monotonic() + timeout
    status = {}
    while True:
        try:
            status = page.evaluate(JS_STATUS, path)
        except PlaywrightError as error:         # страница ещё грузится / перезагрузилась
            status = {"stage": "evaluate", "error": str(error)[:200]}
        for text in status.get("dialogs") or []:
            _dismiss_dialog(page, text, log)
        errors = [e for c in status.get("cells", []) for e in c["errors"]]
        if errors:
            raise AssertionError(f"{path}: ячейка упала с ошибкой:\n{_strip_ansi(errors[0])}")
        if done(status):
            return status
        if time.monotonic() > deadline:
            raise AssertionError(f"{path}: не дождались «{what}» за {timeout} с; последнее состояние: {status}")
        page.wait_for_timeout(200)


def _dismiss_dialog(page, text, log):
    """Диалог JupyterLab (выбор ядра, предупреждение): записываем и принимаем предложенное."""
    log.append(f"диалог: {text!r}")
    page.screenshot(path=str(ARTIFACTS / f"dialog-{len(log)}.png"))
    button = page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept")
    if button.count():
        button.first.click()
    else:
        page.keyboard.press("Escape")
    page.wait_for_timeout(300)


def _strip_ansi(text):
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _widget_errors(page):
    text = page.evaluate("() => document.body.textContent")
    return [e for e in WIDGET_ERRORS if e.lower() in text.lower()]


def _slider(page, label, scope=None):
    """Контейнер ползунка ipywidgets 8 (noUiSlider) с подписью ровно `label` (внутри `scope`, если задан)."""
    exact = page.locator("label.widget-label", has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
    return (scope or page).locator(".widget-slider", has=exact)


class LabPage:
    """Вкладка браузера с JupyterLab. Первая тетрадка открывается по адресу /lab/tree/<имя>,
    следующие — командой docmanager:open в том же приложении. После сбоя вкладка пересоздаётся."""

    def __init__(self, context, lab):
        self.context, self.lab, self.page, self.current = context, lab, None, "?"

    def _new_page(self):
        page = self.context.new_page()
        page.on("console", lambda msg: msg.type == "error" and CONSOLE.append(f"[{self.current}] console.error: {msg.text}"))
        page.on("pageerror", lambda error: CONSOLE.append(f"[{self.current}] pageerror: {error}"))
        page.set_default_timeout(30_000)
        return page

    def open(self, name, log):
        self.current = name
        started = time.perf_counter()
        if self.page is None:
            self.page = self._new_page()
            # ?reset: чистая рабочая область — без вкладок, сохранённых сервером раньше.
            self.page.goto(self.lab.url(f"lab/tree/{name}") + "&reset", wait_until="domcontentloaded",
                           timeout=APP_LOAD * 1000)
            how = "JupyterLab загрузился"
        else:
            self.page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', "
                               "{path, factory: 'Notebook'}); }", name)
            how = "тетрадка открылась"
        _wait(self.page, name, lambda s: s.get("stage") == "ready", "JupyterLab открыл тетрадку", APP_LOAD, log)
        opened = time.perf_counter()
        _wait(self.page, name, lambda s: s["ready"] and s["kernel"] == "idle", "ядро запустилось (idle)",
              KERNEL_IDLE, log)
        print(f"  {name}: {how} за {opened - started:.1f} с, ядро готово ещё через {time.perf_counter() - opened:.1f} с")
        return self.page

    def close_notebook(self):
        """Останавливает ядро тетрадки и закрывает её без вопроса «сохранить?» (тест ничего не сохраняет)."""
        if self.page is None:
            return
        try:
            self.page.evaluate("""async () => {
                const panel = window.jupyterapp.shell.currentWidget;
                if (!panel || !panel.sessionContext) return;
                await (%s)(panel.sessionContext.shutdown(), 15000);
                panel.context.model.dirty = false;
                panel.dispose();
            }""" % JS_BOUNDED)
        except PlaywrightError:
            self.discard()

    def discard(self):
        if self.page is not None:
            try:
                self.page.close()
            except PlaywrightError:
                pass
            self.page = None


def _check_kernel_python(page, name):
    """Ядро — питон того же окружения, что и тест (kernelspec python3 из .venv), и видит course_lib."""
    out = page.evaluate(JS_KERNEL_EXEC, ["import sys, course_lib; print(sys.prefix); print(course_lib.__file__)",
                                         KERNEL_IDLE * 1000])
    lines = out.strip().splitlines()
    assert len(lines) == 2 and not out.startswith("ERROR"), f"{name}: ядро не импортирует course_lib: {out!r}"
    assert os.path.realpath(lines[0]) == os.path.realpath(sys.prefix), (
        f"{name}: ядро запущено не из окружения теста: sys.prefix ядра {lines[0]}, теста {sys.prefix}")
    assert pathlib.Path(lines[1]).resolve().is_relative_to(ROOT), f"{name}: course_lib не из этой папки: {lines[1]}"


def _run_all(page, name, log):
    started = time.perf_counter()
    # Промис команды не ждём: он разрешится, лишь когда выполнятся все ячейки, а ждать мы хотим с _wait
    # (ограничение по времени, диалоги, ранний выход на первой ошибке).
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    _wait(page, name, lambda s: s["kernel"] == "idle" and s["busyPrompts"] == 0
          and all(c["count"] is not None and c["state"] != "running" for c in s["cells"]),
          "все ячейки выполнены", RUN_ALL, log)
    print(f"  {name}: Run All — {time.perf_counter() - started:.1f} с")


def _drive(page, name, drive, output, img):
    """Нажимает клавишу `drive.presses` раз; после каждого нажатия ждёт новую картинку и меряет задержку."""
    slider = _slider(page, drive.slider, output)
    assert slider.count() == 1, (
        f"{name}: в виджете №{drive.widget} ползунков с подписью «{drive.slider}» {slider.count()}, а нужен один")
    handle, readout = slider.locator(".noUi-handle"), slider.locator(".widget-readout")
    img_handle = img.element_handle()
    page.evaluate(JS_RECORDER, img_handle)
    key_name = f"{name} / {drive.slider} {drive.key}" + (f" (виджет {drive.widget})" if drive.widget else "")
    for press in range(1, drive.presses + 1):
        before = page.evaluate(JS_PICTURE, img_handle)
        assert before, f"{key_name}: картинка не загружена до нажатия"
        value_before = readout.inner_text()
        loads_before = page.evaluate("(img) => img.__rec.loads.length", img_handle)
        started = time.perf_counter()
        handle.press(drive.key)
        try:
            page.wait_for_function("([img, src]) => img.src !== src && img.complete && img.naturalWidth > 0",
                                   arg=[img_handle, before["src"]], timeout=NEW_PICTURE * 1000, polling="raf")
        except PlaywrightError:
            raise AssertionError(
                f"{key_name}, нажатие {press}: картинка не сменилась за {NEW_PICTURE} с "
                f"(ползунок: {value_before} -> {readout.inner_text()})") from None
        seen = time.perf_counter() - started
        page.wait_for_timeout(SETTLE * 1000)
        rec = page.evaluate("(img) => ({keys: img.__rec.keys, loads: img.__rec.loads})", img_handle)
        after = page.evaluate(JS_PICTURE, img_handle)
        assert after and after["hash"] != before["hash"], (
            f"{key_name}, нажатие {press}: src сменился, а пиксели те же — картинка не перерисована")
        key_t = rec["keys"][-1]
        new_loads = [load for load in rec["loads"][loads_before:] if load["t"] >= key_t]
        assert new_loads, f"{key_name}: нет события load после нажатия"
        ms = new_loads[0]["t"] - key_t
        LATENCIES.setdefault(key_name, []).append(ms)
        if len(new_loads) > 1:
            print(f"    {key_name}, нажатие {press}: {len(new_loads)} картинки на одно нажатие")
        print(f"    {key_name} #{press}: {value_before} -> {readout.inner_text()}, "
              f"картинка через {ms:.0f} мс (из Python {seen * 1000:.0f} мс), {after['width']}×{after['height']}")


def _report_scale(page, name, img):
    """Во сколько раз браузер растянул картинку относительно её настоящего размера (1.0 — пиксель в пиксель)."""
    size = page.evaluate("(img) => [img.naturalWidth, img.naturalHeight, img.clientWidth, img.clientHeight]",
                         img.element_handle())
    scale = size[2] / size[0]
    print(f"  {name}: картинка {size[0]}×{size[1]} показана как {size[2]}×{size[3]} (масштаб {scale:.2f})")
    SCALES[name] = scale


def _write_report():
    lines = ["# От нажатия клавиши на ползунке до загрузки новой картинки (мс, performance.now() в странице)",
             f"# {'ползунок':<42} {'n':>3} {'p50':>7} {'p90':>7} {'max':>7}"]
    for key, values in LATENCIES.items():
        q = statistics.quantiles(values, n=10, method="inclusive") if len(values) > 1 else values * 9
        lines.append(f"{key:<44} {len(values):>3} {statistics.median(values):>7.0f} {q[8]:>7.0f} {max(values):>7.0f}")
    everything = [v for values in LATENCIES.values() for v in values]
    if everything:
        lines.append(f"{'все нажатия':<44} {len(everything):>3} {statistics.median(everything):>7.0f} "
                     f"{'':>7} {max(everything):>7.0f}")
    if SCALES:
        lines += ["", "# Масштаб картинки в странице (ширина на экране / ширина PNG)"]
        lines += [f"{name:<44} {scale:.2f}" for name, scale in SCALES.items()]
    lines += ["", "# Ошибки в консоли браузера"] + (CONSOLE or ["нет"])
    text = "\n".join(lines) + "\n"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "latency.txt").write_text(text, encoding="utf-8")
    print("\n" + text)


# ---------------------------------------------------------------- тесты

def test_lessons_with_widgets_are_listed():
    """Напоминание (предупреждение, не ошибка): урок с ползунками курса, которого нет в NOTEBOOKS,
    браузерный тест не открывает. Каждая тетрадка — это ~10–30 с теста, поэтому список ведётся руками."""
    missing = [p.with_suffix(".ipynb").name for p in sorted(LESSONS.glob("[0-9][0-9]_*.py"))
               if WIDGET_CALL.search(p.read_text(encoding="utf-8")) and p.with_suffix(".ipynb").name not in NOTEBOOKS]
    if missing:
        warnings.warn(f"уроки с ползунками, которые браузерный тест не двигает (см. NOTEBOOKS в "
                      f"tests/test_browser.py): {', '.join(missing)}", UserWarning, stacklevel=1)


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_sliders_redraw_picture(lab_page, name):
    log = []
    stem = pathlib.Path(name).stem
    page = lab_page.open(name, log)
    try:
        _check_kernel_python(page, name)
        stale = _widget_errors(page)
        if stale:
            print(f"  {name}: до Run All в сохранённом выводе видно {stale}")
            page.screenshot(path=str(ARTIFACTS / f"{stem}-opened.png"))
        _run_all(page, name, log)

        drives = NOTEBOOKS[name]
        outputs = page.locator(".jp-Notebook .jp-OutputArea-output").filter(has=page.locator("img.widget-image"))
        try:   # виджеты рисуются уже после того, как ядро ответило
            outputs.nth(max(d.widget for d in drives)).wait_for(state="attached", timeout=NEW_PICTURE * 1000)
        except PlaywrightError:
            pass
        assert outputs.count() > max(d.widget for d in drives), (
            f"{name}: виджетов с картинкой {outputs.count()}, а в NOTEBOOKS нужен №{max(d.widget for d in drives)}")
        pictures = {}
        for widget in sorted({d.widget for d in drives}):
            output, img = outputs.nth(widget), outputs.nth(widget).locator("img.widget-image")
            img.scroll_into_view_if_needed()
            page.wait_for_function("(img) => img.src && img.complete && img.naturalWidth > 0",
                                   arg=img.element_handle(), timeout=NEW_PICTURE * 1000)
            output.screenshot(path=str(ARTIFACTS / f"{stem}-w{widget}-before.png"))
            pictures[widget] = page.evaluate(JS_PICTURE, img.element_handle())["hash"]
            _report_scale(page, f"{name} / виджет {widget}", img)

        for drive in drives:
            output = outputs.nth(drive.widget)
            _drive(page, name, drive, output, output.locator("img.widget-image"))

        for widget, first in pictures.items():
            output = outputs.nth(widget)
            output.screenshot(path=str(ARTIFACTS / f"{stem}-w{widget}-after.png"))
            last = page.evaluate(JS_PICTURE, output.locator("img.widget-image").element_handle())
            assert last and last["hash"] != first, f"{name}: картинка виджета №{widget} в итоге та же, что до нажатий"
        errors = _widget_errors(page)
        assert not errors, f"{name}: на странице {errors}"
        # Исключения страницы и ошибки консоли про виджеты — провал; прочие ошибки JupyterLab только в отчёте.
        page_errors = [e for e in CONSOLE if e.startswith(f"[{name}] ")
                       and (" pageerror: " in e or "widget" in e.lower())]
        assert not page_errors, f"{name}: ошибки в браузере:\n" + "\n".join(page_errors)
        if log:
            print(f"  {name}: " + "; ".join(log))
    except BaseException:
        with contextlib.suppress(PlaywrightError):
            page.screenshot(path=str(ARTIFACTS / f"{stem}-failure.png"), full_page=True)
        lab_page.discard()          # следующая тетрадка — в свежей вкладке
        raise
    lab_page.close_notebook()       # ядро этой тетрадки больше не нужно: не отнимаем процессор у следующей

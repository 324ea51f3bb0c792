"""Статический сайт курса (tools/build_site.py): собирается, открывается с file:// без сети, ползунки работают.

Быстрая часть — без браузера: описания рисунков по данным, выбор положений длинного ползунка,
ссылки между страницами. Браузерная — Chromium из Debian (как tests/test_browser.py), сайт
собирается один раз за сессию во временную папку (это дорого: все уроки исполняются заново), с бюджетом
кадров build_site.CHECK — меньше положений на ползунок, чем у `make site` (PUBLISH), а код сборки и проверки
те же; `SITE_DIR=site` берёт уже собранный `make site`. Обучение уроков 09 и 10 сборка проходит сама
(память прогонов — только в процессе). Каждая страница открывается
с file://, всё, что не file:// внутри сайта, обрывается и считается; каждый ползунок каждого
проигрывателя двигается с клавиатуры. Пиксели кадра сверяются с тем, что рисуют функция вида
и художник, на выборке: виджеты уроков PIXEL_LESSONS (урок исполняется ещё раз, в процессе).
"""

import html.parser
import importlib.util
import io
import json
import os
import pathlib
import re

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PIXEL_LESSONS = ("03", "05")          # выборка для сверки пикселей: уроки без обучения, исполняются за секунды


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_site = _load("build_site", ROOT / "tools" / "build_site.py")
describe = _load("site_describe", ROOT / "tools" / "site_describe.py")


# ---------------------------------------------------------------- быстрая часть

def test_importing_the_builder_leaves_the_environment_alone():
    """Сборщик работает в процессе pytest: переменная вроде MPLBACKEND перешла бы во все ядра nbval после него."""
    import subprocess
    import sys

    code = ("import os, runpy; before = dict(os.environ); "
            f"runpy.run_path({str(ROOT / 'tools' / 'build_site.py')!r}, run_name='not_main'); "
            "print(sorted(set(os.environ.items()) ^ set(before.items())))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]", f"сборщик сайта поменял окружение процесса: {out.strip()}"


def test_heatmap_description_names_each_querys_top_keys():
    import matplotlib
    matplotlib.use("Agg")
    from course_lib import vis
    weights = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]])
    fig = vis.heatmap(weights, ["кот", "сел", "тут"], ["кот", "сел", "тут"], title="веса")
    said = " ".join(describe.describe_figure(fig))
    assert "«кот» → «кот» 0.7, «сел» 0.2" in said
    assert "«сел» → «тут» 0.8" in said
    assert "«веса»" in said


def test_line_description_gives_start_end_and_extremes():
    from matplotlib.figure import Figure
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([0, 1, 2, 3], [5.0, 1.0, 9.0, 4.0], label="потери")
    ax.set_xlabel("шаг")
    said = " ".join(describe.describe_figure(fig))
    assert "в начале y = 5" in said and "в конце y = 4" in said
    assert "наибольшее 9 при x = 2" in said and "наименьшее 1 при x = 1" in said
    assert "линия «потери»" in said and "шаг" in said


def test_long_slider_keeps_both_ends_and_the_start_and_at_most_the_budget():
    import ipywidgets as widgets
    slider = widgets.IntSlider(value=64, min=1, max=512)
    positions = build_site._positions(slider, 64)
    assert positions[0] == 1 and positions[-1] == 512 and 64 in positions
    assert len(positions) <= build_site.PUBLISH.max_positions + 2
    assert build_site._positions(widgets.IntSlider(value=2, min=0, max=5), 2) == [0, 1, 2, 3, 4, 5]


def test_links_go_to_pages_and_repository_files_become_text():
    page = build_site._links('<a href="05_causal_mask.ipynb#маска">урок 05</a> <a href="glossary.md">глоссарий</a> '
                             '<a href="../course_lib/vis.py">vis.py</a> <a href="https://example.org">внешняя</a>')
    assert '<a href="05_causal_mask.html#маска">урок 05</a>' in page
    assert '<a href="glossary.html">глоссарий</a>' in page
    assert "../course_lib" not in page.split("title=")[0] and 'class="repo-ref"' in page
    assert 'href="https://example.org"' in page


# ---------------------------------------------------------------- собранный сайт

@pytest.fixture(scope="session")
def site(tmp_path_factory):
    given = os.environ.get("SITE_DIR")
    if given:
        return pathlib.Path(given).resolve()
    out = tmp_path_factory.mktemp("site") / "site"
    from tools import shared_runs
    shared_runs.install()                               # уроки 09 и 10 — прогонами прохода «повторный запуск»
    try:
        build_site.build(out, budget=build_site.CHECK)  # меньше кадров на ползунок, тот же код и те же проверки
    finally:
        shared_runs.uninstall()                         # другим тестам этого процесса — обычная память прогонов
    return out


def _pages(site):
    return sorted(site.glob("*.html"))


class _Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name):
                self.refs.append(attrs[name])


def test_every_lesson_has_a_page_and_every_local_link_resolves(site):
    lessons = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    assert {p.stem for p in _pages(site)} >= set(lessons) | {"index", "glossary", "shapes"}
    broken = []
    for page in _pages(site):
        parser = _Refs()
        parser.feed(page.read_text(encoding="utf-8"))
        for ref in parser.refs:
            if re.match(r"^(https?:|mailto:|#|data:)", ref):
                continue
            target = ref.split("#")[0].split("?")[0]
            if target and not (site / target).exists():
                broken.append((page.name, ref))
    assert broken == []
    index = (site / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{name}.html"' in index for name in lessons)


def test_every_widget_of_every_notebook_became_a_player(site):
    """Вывод-виджет в тетрадке (его repr) -> проигрыватель на странице, ни один не остался картинкой."""
    for path in sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")):
        lesson = build_site.Lesson(path)
        widgets = sum(bool(build_site.WIDGET_REPR.match("".join(o.get("data", {}).get("text/plain", ""))))
                      for cell in lesson.notebook["cells"] for o in cell.get("outputs", []))
        page = (site / f"{path.stem}.html").read_text(encoding="utf-8")
        players = len(re.findall(r'<section\b[^>]*\bclass="player"', page))   # порядок атрибутов — как запишет nbconvert
        assert players == widgets, f"{path.name}: виджетов в тетрадке {widgets}, проигрывателей на странице {players}"


def test_site_is_small_enough_to_publish(site):
    """Размер сайта с бюджетом PUBLISH (make site): у проигрывателей — средний кадр × сколько положений нарисовала бы
    та сборка (без рисования, Player.states_when_published); у сайта, собранного с PUBLISH (SITE_DIR=site), это
    его настоящий размер."""
    report = json.loads((site / "build-report.json").read_text(encoding="utf-8"))
    players = report["players"]
    assert players and all(p["states"] >= 1 and p["states_when_published"] >= 1 for p in players)
    frames = sum(p["bytes"] for p in players)
    published = sum(p["bytes"] / p["states"] * p["states_when_published"] for p in players)
    total = report["total_bytes"] - frames + published
    assert total < 50 * 2**20, f"сайт с бюджетом PUBLISH — около {total / 2**20:.1f} МБ"


# ---------------------------------------------------------------- браузер

@pytest.fixture(scope="module")
def browser():
    """Один Chromium на этот файл. Не на сессию: пока открыт sync_playwright, в процессе работает его цикл asyncio,
    и следующий файл того же воркера xdist не смог бы ни открыть свой браузер (tests/test_browser.py), ни вызвать
    asyncio.run — так и упал CI, когда оба файла попали на один воркер."""
    browser_test = _load("course_browser_test", ROOT / "tests" / "test_browser.py")
    if not browser_test._chromium():
        browser_test._unavailable("нет Chromium (/usr/bin/chromium или chromium в PATH): apt-get install chromium")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=browser_test._chromium(), headless=True,
                                     args=browser_test.CHROMIUM_ARGS, timeout=60_000)
        try:
            yield chromium.new_context(viewport={"width": 1300, "height": 1000}, device_scale_factor=1)
        finally:
            chromium.close()


def _open(context, site, name):
    """Страница с file://; запросы вне site/ обрываются и записываются, ошибки консоли — тоже."""
    page = context.new_page()
    outside, errors = [], []
    root = site.as_uri()

    def route(r):
        if r.request.url.startswith(root + "/"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((site / name).as_uri())
    page.wait_for_load_state("load")
    page.wait_for_function("!window.MathJax || !MathJax.Hub || MathJax.Hub.queue.pending === 0 && MathJax.Hub.queue.running === 0",
                           timeout=30_000)
    return page, outside, errors


def _page_names():
    lessons = sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    return ["index.html", "glossary.html", "shapes.html"] + [f"{name}.html" for name in lessons]


def _press(page, selector, kind, at_top):
    element = page.locator(selector)
    element.focus()
    if kind == "check":
        page.keyboard.press("Space")
    elif kind == "select":
        page.keyboard.press("ArrowUp" if at_top else "ArrowDown")
    else:
        page.keyboard.press("ArrowLeft" if at_top else "ArrowRight")


def _state(page, ident):
    return page.evaluate("""(id) => {
        const s = document.getElementById(id);
        const img = s.querySelector('img.frame');
        return {frame: +s.dataset.frame, live: s.dataset.live ? JSON.parse(s.dataset.live) : null,
                numbers: s.dataset.live ? s.querySelector('.live').getAttribute('data-numbers') : null,
                src: img.getAttribute('src'), caption: s.querySelector('.caption').textContent,
                message: s.querySelector('.message').textContent,
                description: s.querySelector('.description').textContent, alt: img.alt};
    }""", ident)


def _normal(markup):
    """Текст подписи без разметки и пробелов: браузер переписывает HTML по-своему (<tbody>, кавычки)."""
    import html
    return re.sub(r"\s+", "", html.unescape(re.sub(r"<[^>]+>", "", markup)))


@pytest.mark.parametrize("name", _page_names())
def test_page_offline_no_errors_figures_described_every_control_moves_the_frame(browser, site, name):
    page, outside, errors = _open(browser, site, name)
    try:
        assert outside == [], f"{name}: запросы вне сайта"
        assert errors == [], f"{name}: ошибки консоли"
        undescribed = page.evaluate("""() => [...document.querySelectorAll('img')].filter(img => {
            const d = document.getElementById(img.getAttribute('aria-describedby') || '');
            return !img.alt.trim() || !d || !d.textContent.trim();
        }).map(img => img.getAttribute('src'))""")
        assert undescribed == [], f"{name}: рисунки без описания"
        if re.match(r"\d\d_", name):
            assert "make lab" in page.locator(".static-banner").inner_text()
            unnamed = page.evaluate("() => [...document.querySelectorAll('.input_area')].filter(c => "
                                    "c.getAttribute('aria-label') !== 'код ячейки').length")
            assert unnamed == 0 and page.locator(".input_area").count() > 0, f"{name}: код без подписи для экранного диктора"
        for ident in page.evaluate("() => [...document.querySelectorAll('section.player')].map(s => s.id)"):
            data = json.loads(page.locator(f"#{ident} .player-data").text_content())
            specs = {spec["name"]: spec for spec in data["controls"]}
            for at, control in enumerate(data["names"]):
                before = _state(page, ident)
                # после посчитанного в странице (кадра нет) положение — у самого ползунка, а не в кадре
                value = before["live"][control] if before["live"] else data["frames"][before["frame"]]["v"][at]
                spec = specs[control]
                at_top = spec["kind"] == "select" and value == len(spec["options"]) - 1 or \
                    spec["kind"] in ("range", "log") and abs(value - _limits(page, ident, control)[1]) < 1e-9
                _press(page, f"#{ident}-{control}", spec["kind"], at_top)
                after = _state(page, ident)
                if after["live"] is not None:             # кадра нет — страница посчитала сама (tools/site/live.js)
                    assert data["live"], f"{ident}: живой счёт у проигрывателя без данных для него"
                    assert after["live"][control] != value, f"{ident}: «{control}» с клавиатуры не сдвинулся"
                    assert json.loads(after["numbers"]) and after["description"]
                    continue
                frame = data["frames"][after["frame"]]
                assert frame["v"][at] != value, f"{ident}: «{control}» с клавиатуры не сдвинул кадр"
                assert after["src"] == frame["f"]
                assert _normal(after["caption"]) == _normal(frame["c"])
                assert after["message"] == (f"⚠ {frame['m']}" if frame["m"] else "")
                assert after["description"] and after["alt"].startswith("кадр виджета: ")
                if before["live"] is None and _normal(frame["c"]) != _normal(data["frames"][before["frame"]]["c"]):
                    assert _normal(after["caption"]) != _normal(before["caption"])
    finally:
        page.close()


def _limits(page, ident, control):
    """Пределы ползунка control проигрывателя ident — какими их видит читатель (min и max на странице)."""
    return page.evaluate("""([id, name]) => {
        const input = document.getElementById(id).querySelector(`[data-name="${name}"]`);
        return [Number(input.min), Number(input.max)];
    }""", [ident, control])


def _go_to(page, ident, data, k, focus=None):
    """Ставит ползунки проигрывателя как в кадре k — как ученик, по одному, — и возвращает, какой кадр показан.

    focus — имя ползунка: ещё и поставить на него фокус (для нажатий с клавиатуры) и вернуть
    (кадр, min, max) — пределы ползунка, какими их видит читатель; всё одним вызовом в браузер."""
    return page.evaluate("""([id, names, specs, values, focus]) => {
        const s = document.getElementById(id);
        names.forEach((name, j) => {
            const input = s.querySelector(`[data-name="${name}"]`), kind = specs[name].kind;
            if (kind === 'check') input.checked = !!values[j]; else input.value = String(values[j]);
            input.dispatchEvent(new Event(kind === 'range' || kind === 'log' ? 'input' : 'change'));
        });
        if (focus === null) return +s.dataset.frame;
        const input = s.querySelector(`[data-name="${focus}"]`);
        input.focus();
        return [+s.dataset.frame, Number(input.min), Number(input.max)];
    }""", [ident, data["names"], {spec["name"]: spec for spec in data["controls"]}, data["frames"][k]["v"], focus])


@pytest.mark.parametrize("name", [n for n in _page_names() if re.match(r"\d\d_", n)])
def test_from_every_drawn_frame_every_slider_that_can_move_moves(browser, site, name):
    """Не только из начального положения: у урока 08 «прочитано» меняет пределы вслед за «блок B» (sync),
    и ползунок должен двигать кадр при любом B — из каждого нарисованного кадра, с клавиатуры.

    И у проигрывателей, нарисованных по одному ползунку: при T = 7 у урока 05 «запрос №» 6 не нарисован (при
    начальном T = 6 его нет), и ползунок не должен туда пускать — пределы берутся со страницы, как их видит читатель."""
    page, _, _ = _open(browser, site, name)
    try:
        for ident in page.evaluate("() => [...document.querySelectorAll('section.player')].map(s => s.id)"):
            data = json.loads(page.locator(f"#{ident} .player-data").text_content())
            specs = {spec["name"]: spec for spec in data["controls"]}
            stuck = []
            for k, frame in enumerate(data["frames"]):
                for at, control in enumerate(data["names"]):
                    spec = specs[control]
                    if spec["kind"] not in ("range", "log"):
                        continue
                    # одним вызовом: ползунки как в кадре k, фокус на control, его пределы на странице
                    shown, low, high = _go_to(page, ident, data, k, focus=control)
                    assert shown == k, f"{ident}: кадр {frame['v']} не достать ползунками"
                    if high <= low:
                        continue                      # у ползунка одно положение: двигать некуда
                    page.keyboard.press("ArrowLeft" if abs(frame["v"][at] - high) < 1e-9 else "ArrowRight")
                    after = page.evaluate("""([id, name]) => { const s = document.getElementById(id);
                        return s.dataset.live ? JSON.parse(s.dataset.live)[name] : null; }""", [ident, control])
                    if after is None:                       # кадр; у живого счёта — само положение ползунка
                        after = data["frames"][page.evaluate("(id) => +document.getElementById(id).dataset.frame", ident)]["v"][at]
                    if after == frame["v"][at]:
                        stuck.append(f"«{control}» в кадре {frame['v']}")
            assert stuck == [], f"{ident}: ползунок с клавиатуры не сдвинул кадр: {', '.join(stuck)}"
    finally:
        page.close()


@pytest.fixture(scope="session")
def lesson_widgets():
    """Виджеты уроков PIXEL_LESSONS, исполненных ещё раз: {id проигрывателя: (виджет, положения при показе)}."""
    found = {}
    for number in PIXEL_LESSONS:
        path = next((ROOT / "lessons").glob(f"{number}_*.ipynb"))
        lesson = build_site.Lesson(path)
        recorder = build_site.run_lesson(lesson.notebook, ROOT / "lessons")
        shown = [w for cell in sorted(recorder.widgets) for w in recorder.widgets[cell]]
        for k, widget in enumerate(shown, start=1):
            found[f"w{number}-{k}"] = widget
    return found


def _render(explorer, start, names, values):
    """Кадр, который рисуют функция вида и художник при этих положениях ползунков (RGB)."""
    for name, value in start.items():
        explorer.controls[name].value = value
    for name, value in zip(names, values):
        build_site._set_position(explorer.controls[name], value)
    view = explorer.view(**explorer.values())
    return np.asarray(explorer.live.render(view))[..., :3].astype(int)


@pytest.mark.parametrize("number", PIXEL_LESSONS)
def test_frame_pixels_are_what_the_view_and_painter_draw(browser, site, lesson_widgets, number):
    from PIL import Image
    name = next(p.name for p in _pages(site) if p.name.startswith(f"{number}_"))
    page, _, _ = _open(browser, site, name)
    checked = 0
    try:
        for ident in page.evaluate("() => [...document.querySelectorAll('section.player')].map(s => s.id)"):
            explorer, start = lesson_widgets[ident]
            data = json.loads(page.locator(f"#{ident} .player-data").text_content())
            specs = {spec["name"]: spec for spec in data["controls"]}
            first = None
            for at, control in enumerate(data["names"][:2]):      # выборка: два первых ползунка
                before = _state(page, ident)
                value = before["live"][control] if before["live"] else data["frames"][before["frame"]]["v"][at]
                spec = specs[control]
                at_top = spec["kind"] in ("range", "log") and abs(value - spec["max"]) < 1e-9
                _press(page, f"#{ident}-{control}", spec["kind"], at_top)
                state = _state(page, ident)
                if state["live"] is not None:
                    continue                      # кадра нет: посчитала страница (test_sliders_without_a_frame_…)
                frame = data["frames"][state["frame"]]
                size = page.locator(f"#{ident} img.frame").evaluate(
                    "img => img.decode().then(() => [img.naturalHeight, img.naturalWidth])")
                src = page.locator(f"#{ident} img.frame").get_attribute("src")
                shot = np.asarray(Image.open(site / src).convert("RGB")).astype(int)   # файл, который показывает браузер
                assert list(shot.shape[:2]) == size
                drawn = _render(explorer, start, data["names"], frame["v"])
                assert shot.shape == drawn.shape, f"{ident}: размер кадра"
                assert np.abs(shot - drawn).mean() < 1.0, f"{ident}/{control}: кадр не тот, что рисует вид"
                if first is not None and not np.array_equal(first, drawn):
                    assert np.abs(shot - first).mean() > 0.05        # картинка и правда сменилась
                first = drawn
                checked += 1
    finally:
        page.close()
    assert checked > 0


# ---------------------------------------------------------------- живой счёт (уроки 02–06)

LIVE_LESSONS = ("02", "03", "04", "05", "06")   # уроки, чьи проигрыватели считают в странице


@pytest.fixture(scope="session")
def live_widgets():
    """Виджеты уроков 02–06, исполненных ещё раз: {id проигрывателя: (виджет, положения при показе)}."""
    found = {}
    for number in LIVE_LESSONS:
        path = next((ROOT / "lessons").glob(f"{number}_*.ipynb"))
        recorder = build_site.run_lesson(build_site.Lesson(path).notebook, ROOT / "lessons")
        shown = [w for cell in sorted(recorder.widgets) for w in recorder.widgets[cell]]
        for k, widget in enumerate(shown, start=1):
            found[f"w{number}-{k}"] = widget
    return found


def _expected(view):
    """Числа вида (course_lib, numpy), которые живой счёт страницы кладёт в data-numbers, — под теми же именами."""
    fields = {"SoftmaxView": ("weights", "entropy"), "SoftSearchView": ("scores", "weights", "output", "best", "entropy"),
              "AttentionView": ("weights", "entropy", "peak"),
              "PermutationView": ("weights", "permuted", "order", "moved_together"),
              "CausalView": ("weights", "hidden", "query"), "HeadsView": ("weights", "heads", "d_head", "params")}
    return {name: getattr(view, name) for name in fields[type(view).__name__]}


def _printed(view):
    """Веса, которые таблица страницы печатает первыми (до тысячных): закрытые маской клетки — «—», не числа."""
    weights = np.asarray(view.weights)
    mask = getattr(view, "mask", None)
    shown = weights.ravel() if mask is None else weights[np.broadcast_to(mask, weights.shape)]
    return [f"{w:.3f}" for w in shown]


# Виджеты уроков 02–06, которые страница не считает: урок 03 «зачем делить на √d_k» — у каждого d_k свои
# 4000 случайных пар q, k из генератора numpy (tools/site_live.py); при make site нарисованы все его сочетания.
NOT_LIVE = {"ScalingView"}


def _complete(data, specs):
    """Нарисовано всё: все сочетания и каждый шаг каждого ползунка."""
    return data["full"] and all(_unframed(data, specs[name], at) is None for at, name in enumerate(data["names"])
                                if specs[name]["kind"] in ("range", "log"))


def _unframed(data, spec, at):
    """Положение ползунка на его шаге, которого нет ни в одном кадре (или любое не начальное, если все есть)."""
    steps = round((spec["max"] - spec["min"]) / spec["step"])
    grid = [round(spec["min"] + k * spec["step"], 6) for k in range(steps + 1)]
    drawn = {round(frame["v"][at], 6) for frame in data["frames"]}
    missing = [p for p in grid if p not in drawn]
    if not missing and data["full"]:
        return None                                   # нарисованы все сочетания: у ползунка всё — кадры
    others = missing or [p for p in grid if abs(p - data["start"][at]) > 1e-9]
    return others[len(others) // 2]


@pytest.mark.parametrize("number", LIVE_LESSONS)
def test_sliders_without_a_frame_show_numbers_the_page_computed_as_numpy_does(browser, site, live_widgets, number):
    """Ползунки ставятся туда, где кадра нет (шаг между нарисованными, сочетание нескольких сдвинутых): страница
    показывает посчитанное в ней самой (attention.js, live.js), и эти числа — те же, что у вида в course_lib, до 1e-6;
    в таблице — они же, округлённые до тысячных. Ни один запрос не уходит за пределы сайта."""
    name = next(p.name for p in _pages(site) if p.name.startswith(f"{number}_"))
    page, outside, errors = _open(browser, site, name)
    checked = 0
    try:
        for ident in page.evaluate("() => [...document.querySelectorAll('section.player')].map(s => s.id)"):
            data = json.loads(page.locator(f"#{ident} .player-data").text_content())
            specs = {spec["name"]: spec for spec in data["controls"]}
            explorer, start = live_widgets[ident]
            if not data["live"]:
                kind = type(explorer.view(**start)).__name__
                assert kind in NOT_LIVE or _complete(data, specs), f"{ident}: кадров не все, а страница не считает"
                continue
            # «free» — ползунки, которые страница считает при любом положении; «covered» — положения остальных,
            # для которых в странице есть входные числа (случайные Q и K от numpy): туда тоже ставим
            free, covered = data["live"].get("free", data["names"]), data["live"].get("covered", {})
            wanted, moved_covered = list(data["start"]), False
            for at, control in enumerate(data["names"]):
                kind = specs[control]["kind"]
                if control in free and kind in ("range", "log"):
                    position = _unframed(data, specs[control], at)
                    wanted[at] = wanted[at] if position is None else position
                elif control in free and kind == "check":
                    wanted[at] = 1 - wanted[at]
                elif covered.get(control) and not moved_covered:          # только один такой: пары — по одному
                    others = [p for p in covered[control] if abs(p - wanted[at]) > 1e-9]
                    wanted[at] = others[len(others) // 2] if others else wanted[at]
                    moved_covered = bool(others)
            if wanted == data["start"]:
                assert data["full"], f"{ident}: нечего сдвинуть"
                continue                                  # все положения нарисованы (make site): досчитывать нечего
            shown = page.evaluate("""([id, names, specs, values]) => {
                const s = document.getElementById(id);
                names.forEach((name, j) => {
                    const input = s.querySelector(`[data-name="${name}"]`), kind = specs[name].kind;
                    if (kind === 'check') input.checked = !!values[j]; else input.value = String(values[j]);
                    input.dispatchEvent(new Event(kind === 'range' || kind === 'log' ? 'input' : 'change'));
                });
                const panel = s.querySelector('.live');
                return {live: s.dataset.live ? JSON.parse(s.dataset.live) : null, hidden: panel.hidden,
                        image: s.querySelector('img.frame').hidden, numbers: JSON.parse(panel.getAttribute('data-numbers') || 'null'),
                        cells: [...panel.querySelectorAll('td')].map(td => td.textContent)};
            }""", [ident, data["names"], specs, wanted])
            assert shown["live"] is not None, f"{ident}: при {wanted} показан кадр, а его нет"
            assert not shown["hidden"] and shown["image"], f"{ident}: таблица не показана вместо кадра"
            for control, value in start.items():
                explorer.controls[control].value = value
            for control in data["names"]:
                build_site._set_position(explorer.controls[control], shown["live"][control])
            view = explorer.view(**explorer.values())
            expected = _expected(view)
            for key, value in expected.items():
                np.testing.assert_allclose(np.asarray(shown["numbers"][key], dtype=float), np.asarray(value, dtype=float),
                                           rtol=0, atol=1e-6, err_msg=f"{ident} {key} при {shown['live']}")
            printed = _printed(view)
            cells = [c for c in shown["cells"] if re.fullmatch(r"\d\.\d{3}", c)]
            assert cells[:len(printed)] == printed, f"{ident}: в таблице не те веса"
            checked += 1
        assert outside == [], f"{name}: запросы вне сайта"
        assert errors == [], f"{name}: ошибки консоли"
    finally:
        page.close()
    # с бюджетом CHECK кадров мало — считать есть что в каждом уроке; make site (SITE_DIR=site) рисует у урока 04 всё
    assert checked > 0 or os.environ.get("SITE_DIR"), f"урок {number}: ни один проигрыватель не считает в странице"


# ---------------------------------------------------------------- цветовые карты для дальтоников

# Machado, Oliveira, Fernandes (2009), полная степень, в линейном RGB.
COLOUR_BLINDNESS = {
    "протанопия": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "дейтеранопия": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "тританопия": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}


def _lab(rgb, matrix):
    """sRGB (…, 3) -> CIELAB того, что видит читатель с этим зрением."""
    rgb = np.asarray(rgb, dtype=float)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    linear = np.clip(linear @ np.asarray(matrix).T, 0, 1)
    xyz = linear @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


@pytest.mark.parametrize("vision", ["обычное"] + list(COLOUR_BLINDNESS))
def test_course_colour_maps_stay_readable_for_colour_blind_readers(vision):
    """Веса (WEIGHTS_CMAP): светлота растёт с весом при любом зрении — больше значит светлее.
    Знак (SIGNED_CMAP): два конца различимы, середина светлее концов. Серый маски не сливается с весами."""
    from matplotlib import colormaps
    from matplotlib.colors import to_rgb

    from course_lib import vis
    matrix = np.eye(3) if vision == "обычное" else COLOUR_BLINDNESS[vision]
    weights = _lab(colormaps[vis.WEIGHTS_CMAP](np.linspace(0, 1, 64))[:, :3], matrix)
    assert np.all(np.diff(weights[:, 0]) > 0), f"{vis.WEIGHTS_CMAP}: светлота не растёт с весом ({vision})"
    signed = _lab(colormaps[vis.SIGNED_CMAP](np.linspace(0, 1, 65))[:, :3], matrix)
    assert np.linalg.norm(signed[0] - signed[-1]) > 30, f"{vis.SIGNED_CMAP}: концы сливаются ({vision})"
    assert signed[32, 0] > max(signed[0, 0], signed[-1, 0]) + 40
    hidden = _lab(np.array([to_rgb(vis.HIDDEN_COLOR)]), matrix)
    assert np.linalg.norm(weights - hidden, axis=1).min() > 10, f"серый маски похож на цвет веса ({vision})"

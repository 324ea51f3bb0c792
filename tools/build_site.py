"""Курс как сайт, который работает без интернета: `make site` -> site/ (в .gitignore).

    python tools/build_site.py                 # весь сайт в site/
    python tools/build_site.py --out /tmp/s    # в другую папку
    python tools/build_site.py 03 06           # только эти уроки (и оглавление)

Для сопровождающих — как это устроено:

- Источник — исполненные тетрадки lessons/NN_*.ipynb: текст, код, выводы и рисунки берутся из них
  как есть. Страницу урока рисует nbconvert (`HTMLExporter`, шаблон basic — тот же экспорт, что у Jupyter),
  а его препроцессор (tools/site_page.py) заменяет виджеты проигрывателями и рисунки — файлами с описаниями.
  Чтобы у рисунков были данные для описаний, а у виджетов — сами виджеты, каждый урок ещё раз исполняется здесь же, в процессе (IPython InteractiveShell, бэкенд Agg, папка lessons/):
  после каждой ячейки открытые фигуры matplotlib описываются (tools/site_describe.py) и
  закрываются, а каждый показанный виджет запоминается вместе с положениями ползунков в момент
  показа (`course_lib.widgets.recording_shown()` вокруг ячейки). Вывод-виджет в тетрадке (text/plain вида
  «AttentionExplorer(children=(HBox(…») сопоставляется с виджетом, показанным в той же ячейке, по
  порядку; имя класса в repr сверяется. Так виджет на странице — тот же объект, что в уроке, с теми
  же аргументами (а не копия из списка): проигрыватель нельзя «забыть» обновить. Не совпало число
  рисунков или виджетов — на странице остаётся картинка из тетрадки, описание берётся из ячейки
  (заголовок, подписи осей из кода и напечатанные числа), а сборка печатает предупреждение.
- Проигрыватель: кадры рисуют те же функция вида и художник, что и в Jupyter (`explorer.frame()`).
  Положения ползунков перебираются через сами ipywidgets (`explorer.controls`; работает `sync`: T
  тянет за собой «запрос №»), перерисовка на время перебора выключена (`with explorer.quiet():`). Если всех сочетаний не
  больше Budget.full_grid — рисуются все; иначе каждый ползунок по всему диапазону при остальных в начальном
  положении (страница говорит об этом одной строкой). Кадр — WebP без потерь (точные пиксели,
  меньше PNG); одинаковые кадры хранятся один раз. Для кадра хранятся положения всех ползунков,
  их пределы (если sync их сдвинул), подпись художника, message вида и описание рисунка.
  JS (tools/site/player.js) при сдвиге ищет кадр с этим значением, ближайший к остальным
  положениям, и ставит все ползунки как в нём.
- Живой счёт (уроки 02–06): если кадра с этими положениями нет, страница считает их сама — tools/site/attention.js
  (копия softmax и scaled_dot_product_attention из course_lib, сверена с numpy в tests/test_site_attention_js.py) и
  tools/site/live.js (таблица весов вместо кадра); входные числа виджета кладёт в страницу tools/site_live.py.
- Формулы: MathJax 2 из PyPI-пакета jupyter-server-mathjax (его ставит `make setup`, extra [test]),
  нужная часть копируется в site/mathjax/. Страницы не загружают ничего извне: ни шрифтов, ни
  скриптов; рисунки уроков — файлы в site/figures/, кадры — в site/frames/.
- Проверка: tests/test_site.py (Chromium из Debian, file://, сеть отрезана).
"""

import argparse
import contextlib
import hashlib
import html
import io
import json
import math
import os
import pathlib
import re
import shutil
import sys
import time
import warnings
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent
ASSETS = pathlib.Path(__file__).resolve().parent / "site"
LESSONS = ROOT / "lessons"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))      # tools/site_describe.py



@dataclass(frozen=True)
class Budget:
    """Сколько кадров рисовать: все сочетания положений, если их не больше full_grid, иначе — по одному
    ползунку; у длинного ползунка — не больше max_positions положений (каждый k-й шаг, оба края и начало)."""
    full_grid: int
    max_positions: int


PUBLISH = Budget(full_grid=160, max_positions=64)     # make site: сайт, который публикуют
# tests/test_site.py в make test: тот же код сборки и те же проверки каждого проигрывателя, но кадров
# в несколько раз меньше (сборка с PUBLISH — около 3 минут процессора, а бюджет make test — 12 минут на 2 ядрах).
CHECK = Budget(full_grid=24, max_positions=5)
WIDGET_REPR = re.compile(r"^(\w+)\(children=\(HBox\(children=\(")
OTHER_WIDGET = re.compile(r"^([A-Z]\w*)\((children|value|layout|description|max|min)=")   # полоса прогресса и т. п.
LIVE = "<code>make lab</code>"
STATIC_NOTE = ("Это статическая версия курса: код здесь нельзя изменить и запустить, упражнения не проверяются, "
               "ползунки показывают заранее нарисованные кадры (у виджетов уроков 02–06 положения без кадра страница "
               "считает сама). Живой курс — в Jupyter: скачайте репозиторий и выполните <code>make lab</code>.")


# ---------------------------------------------------------------- исполнение урока: рисунки и виджеты

class Recorder:
    """Что показала каждая ячейка: описания фигур и виджеты (с положениями ползунков при показе)."""

    def __init__(self):
        self.figures, self.widgets, self.errors = {}, {}, {}


def run_lesson(notebook, lesson_dir):
    """Исполняет код тетрадки в процессе; {ячейка: [описания фигур]}, {ячейка: [(виджет, положения)]}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython.core.interactiveshell import InteractiveShell
    from matplotlib.figure import Figure

    from course_lib.widgets import recording_shown
    from site_describe import describe_figure

    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    recorder = Recorder()
    cwd = os.getcwd()
    os.chdir(lesson_dir)
    sink = io.StringIO()
    try:
        for index, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "code":
                continue
            with recording_shown() as shown:              # виджеты, показанные этой ячейкой, и их положения при показе
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = shell.run_cell(cell["source"], store_history=False)
            if shown:
                recorder.widgets[index] = [(s.explorer, s.values) for s in shown]
            error = result.error_before_exec or result.error_in_exec
            if error is not None and not any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
                recorder.errors[index] = f"{type(error).__name__}: {error}"
            figures = [plt.figure(n) for n in plt.get_fignums()]
            value = result.result
            if isinstance(value, Figure) and value not in figures:
                figures.insert(0, value)
            if figures:
                recorder.figures[index] = [describe_figure(f) for f in figures]
            plt.close("all")
            sink.seek(0)
            sink.truncate()
    finally:
        os.chdir(cwd)
    return recorder


# ---------------------------------------------------------------- виджет -> проигрыватель

def _kind(control):
    import ipywidgets as w
    if isinstance(control, w.FloatLogSlider):
        return "log"
    if isinstance(control, (w.IntSlider, w.FloatSlider)):
        return "range"
    if isinstance(control, w.Checkbox):
        return "check"
    if isinstance(control, w.Dropdown):
        return "select"
    return "fixed"


def _interactive(control):
    """Ползунок, который ученик может сдвинуть: не текст, не заблокирован и не из одного положения."""
    kind = _kind(control)
    if kind == "fixed" or control.disabled:
        return False
    return kind not in ("range", "log") or control.max > control.min


def _position(control):
    """Положение ползунка в ключе кадра: число (у логарифмического — показатель), 0/1, номер варианта."""
    kind = _kind(control)
    if kind == "log":
        return round(math.log10(control.value), 6)
    if kind == "range":
        return round(float(control.value), 6)
    if kind == "check":
        return int(bool(control.value))
    if kind == "select":
        return control.index
    return None


def _set_position(control, position):
    kind = _kind(control)
    if kind == "log":
        control.value = 10 ** position
    elif kind == "range":
        control.value = int(round(position)) if isinstance(control.value, int) and not isinstance(control.value, bool) else position
    elif kind == "check":
        control.value = bool(position)
    elif kind == "select":
        control.index = position


def _positions(control, start=None, budget=PUBLISH):
    """Положения ползунка при его нынешних пределах; у длинного — не больше budget.max_positions
    (равный шаг, плюс оба края и начальное положение)."""
    kind = _kind(control)
    if kind in ("range", "log"):
        count = _steps(control)
        chosen = set(range(0, count, _stride(control, budget))) | {count - 1}
        positions = {round(control.min + k * control.step, 6) for k in chosen}
        if start is not None and control.min - 1e-9 <= start <= control.max + 1e-9:
            positions.add(start)
        return sorted(positions)
    if kind == "check":
        return [0, 1]
    if kind == "select":
        return list(range(len(control.options)))
    return []


def _steps(control):
    """Сколько положений у ползунка (range или log) при его нынешних пределах."""
    return round((control.max - control.min) / control.step) + 1


def _stride(control, budget=PUBLISH):
    """Через сколько шагов нарисованы кадры ползунка (1 — каждый шаг)."""
    if _kind(control) not in ("range", "log"):
        return 1
    return math.ceil(_steps(control) / budget.max_positions)


def _spec(name, control):
    kind = _kind(control)
    spec = {"name": name, "kind": kind, "label": control.description or name,
            "disabled": not _interactive(control)}
    if kind in ("range", "log"):
        spec.update(min=control.min, max=control.max, step=control.step, start=_position(control),
                    format=getattr(control, "readout_format", "d"))
    elif kind == "check":
        spec.update(start=_position(control))
    elif kind == "select":
        spec.update(start=_position(control), options=[str(label) for label in control.options])
    else:
        spec.update(value=str(getattr(control, "value", "")))
    return spec


def _encode(frame):
    from PIL import Image
    buffer = io.BytesIO()
    Image.fromarray(frame[..., :3]).save(buffer, format="webp", lossless=True, quality=25, method=2)  # 15 мс, как PNG-палитра по размеру
    return buffer.getvalue()


class Player:
    """Кадры одного виджета: перебор положений ползунков через сам виджет, кадр — функцией вида и художником."""

    def __init__(self, explorer, start, ident, out, budget=PUBLISH):
        self.explorer, self.start, self.ident, self.out, self.budget = explorer, dict(start), ident, out, budget
        self.controls = explorer.controls
        self.full = False
        self.names = [n for n, c in self.controls.items() if _interactive(c)]
        self.frames, self.files, self.bytes = {}, {}, 0
        self._reset()
        self.key_start = {n: _position(self.controls[n]) for n in self.names}
        self.live = None

    def grid_size(self, budget=None):
        self._reset()
        budget = budget or self.budget
        return math.prod(len(_positions(self.controls[n], self.key_start[n], budget)) for n in self.names)

    def states_when_published(self):
        """Сколько положений нарисовала бы сборка с бюджетом PUBLISH (без рисования): для оценки размера сайта.

        Оценка: пределы ползунков берутся при начальном положении, а sync может их двигать (урок 08: «прочитано»
        до 24 // B) — тогда настоящих положений чуть больше или меньше."""
        grid = self.grid_size(PUBLISH)
        if grid <= PUBLISH.full_grid:
            return grid
        self._reset()
        return 1 + sum(len(_positions(self.controls[n], self.key_start[n], PUBLISH)) for n in self.names)

    def _reset(self):
        for name, value in self.start.items():
            if self.controls[name].value != value:
                self.controls[name].value = value

    def build(self):
        from site_describe import describe_figure, plain
        with self.explorer.quiet():                       # перебор без перерисовки; на выходе — начальные положения
            self.full = self.grid_size() <= self.budget.full_grid
            if self.full:
                self._walk(0)
            if not self.full or len(self.frames) > 2 * self.budget.full_grid:
                self.full, self.frames = False, {}
                self._reset()
                self._snap(describe_figure, plain)
                for name in self.names:
                    self._reset()
                    for position in _positions(self.controls[name], self.key_start[name], self.budget):
                        self._reset()
                        _set_position(self.controls[name], position)
                        self._snap(describe_figure, plain)
            self._reset()
            if not self.complete():                       # без кадра страница досчитает сама (None — не умеет)
                from site_live import live_data
                self.live = live_data(self.explorer, self.start)
        return self

    def complete(self):
        """Нарисованы все сочетания и каждый шаг каждого ползунка: досчитывать странице нечего."""
        return self.full and all(_stride(self.controls[n], self.budget) == 1 for n in self.names)

    def _walk(self, depth):
        from site_describe import describe_figure, plain
        if depth == len(self.names):
            self._snap(describe_figure, plain)
            return
        control = self.controls[self.names[depth]]
        for position in _positions(control, self.key_start[self.names[depth]], self.budget):
            _set_position(control, position)
            self._walk(depth + 1)
            if len(self.frames) > 2 * self.budget.full_grid:
                return

    def _snap(self, describe_figure, plain):
        key = tuple(_position(self.controls[n]) for n in self.names)
        if key in self.frames:
            return
        drawn = self.explorer.frame()
        frame, view = drawn.image, drawn.view
        data = _encode(frame)
        digest = hashlib.sha1(data).hexdigest()[:16]
        if digest not in self.files:
            path = f"frames/{self.ident}/{digest}.webp"
            (self.out / path).parent.mkdir(parents=True, exist_ok=True)
            (self.out / path).write_bytes(data)
            self.files[digest] = path
            self.bytes += len(data)
        ranges = {}
        for n in self.names:
            control = self.controls[n]
            if _kind(control) in ("range", "log"):
                ranges[n] = [control.min, control.max]
        description = describe_figure(drawn.figure, tokens=getattr(view, "tokens", None))
        self.frames[key] = {"v": list(key), "r": ranges, "f": self.files[digest], "c": drawn.caption,
                            "m": view.message, "d": description, "w": int(frame.shape[1]), "h": int(frame.shape[0])}

    def html(self):
        specs = [_spec(n, c) for n, c in self.controls.items()]
        data = {"names": self.names, "controls": specs, "frames": list(self.frames.values()),
                "start": [_position(self.controls[n]) for n in self.names], "full": self.full, "live": self.live}
        first = self.frames[tuple(data["start"])] if tuple(data["start"]) in self.frames else data["frames"][0]
        mode = ("Нарисованы все сочетания положений ползунков." if self.full else
                "Сочетаний слишком много: каждый ползунок двигается один, остальные при этом возвращаются "
                "в начальное положение.")
        sparse = [f"«{self.controls[n].description or n}» — каждый {_stride(self.controls[n], self.budget)}-й шаг"
                  for n in self.names if _stride(self.controls[n], self.budget) > 1]
        if sparse:
            mode += " Длинные ползунки нарисованы не на каждом шаге: " + ", ".join(sparse) + '.'
        if self.live:                                     # не все сочетания — досчитывает страница (site_live.py)
            from site_live import live_note
            if not self.full:
                mode = mode.replace("Сочетаний слишком много: каждый ползунок двигается один, остальные при этом "
                                    "возвращаются в начальное положение.",
                                    "Нарисованы не все сочетания положений ползунков.")
            mode += " " + live_note(self.live)
        rows = []
        for spec in specs:
            cid = f"{self.ident}-{spec['name']}"
            disabled = " disabled" if spec["disabled"] else ""
            if spec["kind"] in ("range", "log"):
                rows.append(f'<div class="control"><label for="{cid}">{html.escape(spec["label"])}</label>'
                            f'<input type="range" id="{cid}" data-name="{spec["name"]}" min="{spec["min"]}" '
                            f'max="{spec["max"]}" step="{spec["step"]}" value="{spec["start"]}"{disabled}>'
                            f'<output for="{cid}"></output></div>')
            elif spec["kind"] == "check":
                checked = " checked" if spec["start"] else ""
                rows.append(f'<div class="control"><input type="checkbox" id="{cid}" data-name="{spec["name"]}"'
                            f'{checked}{disabled}><label for="{cid}">{html.escape(spec["label"])}</label></div>')
            elif spec["kind"] == "select":
                options = "".join(f'<option value="{i}"{" selected" if i == spec["start"] else ""}>{html.escape(o)}</option>'
                                  for i, o in enumerate(spec["options"]))
                rows.append(f'<div class="control"><label for="{cid}">{html.escape(spec["label"])}</label>'
                            f'<select id="{cid}" data-name="{spec["name"]}"{disabled}>{options}</select></div>')
            else:
                rows.append(f'<div class="control fixed"><label for="{cid}">{html.escape(spec["label"])}</label>'
                            f'<input type="text" id="{cid}" readonly value="{html.escape(spec["value"])}" '
                            f'aria-describedby="{self.ident}-fixed"></div>')
        fixed = (f'<p class="fixed-note" id="{self.ident}-fixed">Текст здесь не меняется: в статической версии виджет '
                 f'показывает кадры только для этого текста; свой текст — в живом курсе ({LIVE}).</p>'
                 if any(s["kind"] == "fixed" for s in specs) else "")
        payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
        return (f'<section class="player" id="{self.ident}" aria-label="виджет: статический проигрыватель">'
                f'<p class="player-mode">{mode} Кадров: {len(self.files)}.</p>'
                f'<div class="controls">{"".join(rows)}</div>{fixed}'
                f'<div class="message" role="status" aria-live="polite"></div>'
                f'<div class="caption" aria-live="polite">{first["c"]}</div>'
                f'<figure><img class="frame" src="{first["f"]}" width="{first["w"]}" height="{first["h"]}" '
                f'alt="кадр виджета" aria-describedby="{self.ident}-desc">'
                f'<div class="live" hidden role="region" aria-label="посчитано в странице"></div>'
                f'<figcaption><details><summary>Описание кадра</summary><ul class="description" id="{self.ident}-desc">'
                f'{"".join(f"<li>{html.escape(line)}</li>" for line in first["d"])}</ul></details></figcaption></figure>'
                f'<script type="application/json" class="player-data">{payload}</script></section>')


# ---------------------------------------------------------------- страницы

def _markdown(text):
    from nbconvert.filters.markdown_mistune import markdown2html_mistune
    return _links(markdown2html_mistune(text))


def _links(page):
    """Ссылки на уроки и справочники — на их страницы; на файлы репозитория — текст с путём."""
    def fix(match):
        href, text = html.unescape(match.group(1)), match.group(2)
        if re.match(r"^(https?:|mailto:|#)", href):
            return match.group(0)
        target, _, anchor = href.partition("#")
        name = pathlib.PurePosixPath(target).name
        if re.match(r"^\d\d_\w+\.(ipynb|py)$", name) or name in ("glossary.md", "shapes.md"):
            page_name = re.sub(r"\.(ipynb|py|md)$", ".html", name)
            return f'<a href="{html.escape(page_name + ("#" + anchor if anchor else ""))}">{text}</a>'
        return f'<span class="repo-ref" title="файл репозитория: {html.escape(href)}">{text}</span>'
    return re.sub(r'<a href="([^"]*)"[^>]*>(.*?)</a>', fix, page, flags=re.S)


def _strip_ansi(text):
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def _cell_fallback(cell):
    """Описание рисунка без данных: заголовки и подписи из кода ячейки и напечатанные числа."""
    source = cell["source"]
    found = re.findall(r"(?:title|set_title|xlabel|ylabel|set_xlabel|set_ylabel|suptitle)\s*[=(]\s*f?[\"']([^\"']+)[\"']",
                       source)
    printed = " ".join(_strip_ansi("".join(o.get("text", ""))) for o in cell.get("outputs", [])
                       if o.get("output_type") == "stream")
    said = ["Описание по коду ячейки (данных рисунка нет)"]
    if found:
        said.append("подписи: " + "; ".join(f"«{t}»" for t in found[:8]))
    if printed.strip():
        said.append("ячейка напечатала: " + " ".join(printed.split())[:400])
    return said


def _description_html(ident, lines):
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return (f'<figcaption><details><summary>Описание рисунка</summary>'
            f'<ul class="description" id="{ident}">{items}</ul></details></figcaption>')


class Lesson:
    def __init__(self, path):
        self.path = path
        self.stem = path.stem
        self.number = path.name[:2]
        import nbformat
        self.notebook = nbformat.read(path, as_version=4)    # строки-списки тетрадки (source, text) — уже строки
        self.title = next((line.lstrip("# ").strip() for cell in self.notebook["cells"] if cell["cell_type"] == "markdown"
                           for line in cell["source"].splitlines() if line.startswith("# ")), self.stem)


def render_lesson(lesson, recorder, out, lessons, report, budget=PUBLISH):
    """Страница урока: ячейки рисует nbconvert (tools/site_page.py), сверху — плашка, по краям — навигация."""
    from types import SimpleNamespace

    from site_page import lesson_body
    site = SimpleNamespace(WIDGET_REPR=WIDGET_REPR, OTHER_WIDGET=OTHER_WIDGET, LIVE=LIVE, PUBLISH=PUBLISH, Player=Player,
                           cell_fallback=_cell_fallback, description_html=_description_html, links=_links)
    body = lesson_body(site, lesson, recorder, out, report, budget)
    numbers = [l.stem for l in lessons]
    at = numbers.index(lesson.stem)
    nav = ['<a href="index.html">Оглавление</a>', '<a href="glossary.html">Глоссарий</a>', '<a href="shapes.html">Шпаргалка по формам</a>']
    if at > 0:
        nav.insert(1, f'<a href="{lessons[at - 1].stem}.html" rel="prev">← {html.escape(lessons[at - 1].title)}</a>')
    if at + 1 < len(lessons):
        nav.append(f'<a href="{lessons[at + 1].stem}.html" rel="next">{html.escape(lessons[at + 1].title)} →</a>')
    return page(lesson.title, f'<div class="static-banner" role="note">{STATIC_NOTE}</div>' + body, nav)


def page(title, body, nav, formulas=True, player=True):
    navigation = f'<nav aria-label="навигация">{" · ".join(nav)}</nav>'
    scripts = ""
    if formulas:
        # Веб-шрифты MathJax (woff) Chromium с file:// не грузит (CORS): там формулы набираются
        # шрифтами системы (Unicode), на сервере — шрифтами STIX-Web из site/mathjax/fonts/.
        scripts += ('<script type="text/x-mathjax-config">var web=location.protocol!=="file:";MathJax.Hub.Config({'
                    'tex2jax:{inlineMath:[["$","$"],["\\\\(","\\\\)"]],displayMath:[["$$","$$"],["\\\\[","\\\\]"]],processEscapes:true},'
                    '"HTML-CSS":{availableFonts:web?["STIX-Web"]:[],preferredFont:web?"STIX-Web":null,'
                    'webFont:web?"STIX-Web":null,imageFont:null},'
                    'showMathMenu:false,messageStyle:"none",menuSettings:{zoom:"None"}});</script>'
                    '<script src="mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"></script>')
    if player:
        scripts += '<script src="attention.js"></script><script src="live.js"></script><script src="player.js"></script>'
    return (f'<!DOCTYPE html><html lang="ru"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(title)} — Attention без магии</title>'
            f'<link rel="stylesheet" href="style.css"><link rel="stylesheet" href="pygments.css"></head>'
            f'<body>{navigation}<main>{body}</main>{navigation}{scripts}</body></html>')


def render_index(lessons, out):
    rows = "".join(f'<tr><td>{l.number}</td><td><a href="{l.stem}.html">{html.escape(l.title)}</a></td>'
                   f'<td>{html.escape(_summary(l))}</td></tr>' for l in lessons)
    body = ('<h1>Attention без магии — статическая версия курса</h1>'
            f'<div class="static-banner" role="note">{STATIC_NOTE}</div>'
            '<p>Курс читается здесь без установки: текст, формулы, код, его выводы и рисунки. '
            'Виджеты стали проигрывателями: ползунки двигаются, кадры нарисованы заранее, а у уроков 02–06 '
            'положения без кадра страница считает сама (веса внимания — таблицей с числами).</p>'
            '<h2>Уроки</h2><table class="lessons"><thead><tr><th>№</th><th>Урок</th><th>О чём</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>'
            '<h2>Справочники</h2><ul><li><a href="glossary.html">Глоссарий: русский ↔ английский</a></li>'
            '<li><a href="shapes.html">Шпаргалка по формам массивов и формулам</a></li></ul>')
    return page("Оглавление", body, ['<a href="glossary.html">Глоссарий</a>', '<a href="shapes.html">Шпаргалка по формам</a>'],
                player=False)


def _summary(lesson):
    """Первый абзац урока после заголовка (без разметки), до 200 знаков."""
    for cell in lesson.notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for block in cell["source"].split("\n\n"):
            block = block.strip()
            if block and not block.startswith(("#", "|", ">", "-", "*", "!", "<")):
                text = re.sub(r"\*\*|`|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", " ".join(block.split()))
                if len(text) > 200:
                    text = text[:197].rsplit(" ", 1)[0]
                    if text.count("$") % 2:                       # формулу не обрываем посередине
                        text = text[:text.rindex("$")].rstrip()
                    text += "…"
                return text
    return ""


def copy_mathjax(out):
    """Нужная часть MathJax 2 из пакета jupyter-server-mathjax: без SVG, a11y и чужих языков."""
    try:
        import jupyter_server_mathjax
    except ImportError:
        sys.exit("build_site: нет пакета jupyter-server-mathjax (формулы без интернета) — выполните make setup")
    static = pathlib.Path(jupyter_server_mathjax.__file__).parent / "static"
    target = out / "mathjax"

    def skip(folder, names):
        rel = pathlib.Path(folder).relative_to(static).as_posix()
        dropped = set()
        if rel == "jax/output":
            dropped.add("SVG")                  # в пакете только шрифты SVG, без самого вывода
        if rel == "extensions":
            dropped.add("a11y")
        if rel == "localization":
            dropped |= {n for n in names if n not in ("en", "ru")}
        return dropped

    shutil.copytree(static, target, ignore=skip)


def build(out, only=(), budget=PUBLISH):
    started = time.perf_counter()
    from pygments.formatters import HtmlFormatter
    out = pathlib.Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    report = {"players": [], "warnings": [], "pages": []}
    copy_mathjax(out)
    for name in ("style.css", "attention.js", "live.js", "player.js"):
        shutil.copy2(ASSETS / name, out / name)
    (out / "pygments.css").write_text(HtmlFormatter().get_style_defs(".highlight"), encoding="utf-8")
    lessons = [Lesson(p) for p in sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))]
    for reference, title in (("glossary", "Глоссарий"), ("shapes", "Шпаргалка по формам")):
        text = (LESSONS / f"{reference}.md").read_text(encoding="utf-8")
        nav = ['<a href="index.html">Оглавление</a>', '<a href="glossary.html">Глоссарий</a>',
               '<a href="shapes.html">Шпаргалка по формам</a>']
        (out / f"{reference}.html").write_text(page(title, _markdown(text), nav, player=False), encoding="utf-8")
        report["pages"].append(f"{reference}.html")
    (out / "index.html").write_text(render_index(lessons, out), encoding="utf-8")
    report["pages"].append("index.html")
    for lesson in lessons:
        if only and lesson.number not in only:
            continue
        began = time.perf_counter()
        recorder = run_lesson(lesson.notebook, LESSONS)
        ran = time.perf_counter() - began
        report["warnings"] += [f"{lesson.stem}, ячейка {i}: при исполнении упала ({e}), а в тетрадке — нет"
                               for i, e in recorder.errors.items()]
        (out / f"{lesson.stem}.html").write_text(render_lesson(lesson, recorder, out, lessons, report, budget), encoding="utf-8")
        report["pages"].append(f"{lesson.stem}.html")
        print(f"{lesson.stem}: исполнен за {ran:.0f} с, страница за {time.perf_counter() - began - ran:.0f} с", flush=True)
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    report["total_bytes"] = total
    report["seconds"] = time.perf_counter() - started
    (out / "build-report.json").write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"\n{'виджет':<44} {'сетка':<8} {'кадров':>6} {'КБ':>7} {'с':>5}")
    for p in report["players"]:
        print(f"{p['id'] + ' ' + p['widget']:<44} {'вся' if p['full'] else 'по одному':<8} {p['frames']:>6} "
              f"{p['bytes'] / 1024:>7.0f} {p['seconds']:>5.0f}")
    for warning in report["warnings"]:
        print("внимание:", warning)
    print(f"site: {total / 2**20:.1f} МБ, {len(report['pages'])} страниц, за {report['seconds']:.0f} с -> {out}")
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description="Собрать статический сайт курса")
    parser.add_argument("lessons", nargs="*", help="номера уроков (по умолчанию все)")
    parser.add_argument("--out", default=str(ROOT / "site"))
    args = parser.parse_args(argv)
    build(args.out, tuple(args.lessons))


if __name__ == "__main__":
    main()

"""Связка «ползунки → чистая функция → картинка», общая для всех виджетов курса.

Логика виджета — чистая функция `view(**значения ползунков) -> вид` (что рисовать) и
«художник» (painter). Их договор записан в base.py (`View`, `Painter`); здесь только проводка,
и только здесь решается, когда строить фигуру и когда обновлять данные. Пока раскладка та же (`painter.layout_key(вид)`), фон с осями и
подписями не перерисовывается: он сохранён, и поверх рисуются лишь меняющиеся артисты
(приём blitting из matplotlib). Готовый кадр — JPEG (сжимается в несколько раз быстрее PNG) —
уходит текстом: `<img src="data:image/jpeg;base64,…">` в виджете HTML. Двоичных буферов
у живого виджета нет вовсе, поэтому он работает в любом менеджере виджетов (JupyterLab,
Notebook 7, VS Code, Colab — менеджер Colab двоичные буферы не передаёт); base64 добавляет
к кадру около трети байтов и доли миллисекунды (benchmarks/widgets.py печатает цену кадра).
Фигура не пересоздаётся и вывод не очищается, поэтому ничего не мигает. Числа, которые меняются с каждым сдвигом
(энтропия, наибольший вес), художник может отдать текстом в `caption(вид)` — их рисует
браузер, а не matplotlib.
Новая раскладка — самое дорогое (80–120 мс: оси, подписи, фон). Виджет, показанный на экране,
строит раскладки соседних положений ползунков, меняющих раскладку, заранее — в фоновом потоке,
пока ученик смотрит на кадр (`Explorer(prefetch=...)`, `LiveFigure.prefetch`).
"""

import base64
import contextlib
import copy
import io
import threading
import time
from collections import OrderedDict

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from course_lib.widgets.base import Painter, View
from course_lib.widgets.frames import Frame, note_shown

# ipywidgets 7 (Google Colab) показывает виджет через Widget._ipython_display_, ipywidgets 8 — через _repr_mimebundle_.
# Explorer держит свой _repr_mimebundle_ (с кадром PNG для сохранённой тетрадки) в обеих: на 7 его зовёт свой
# _ipython_display_, а часть пакета данных про сам виджет собирается так же, как это делает ipywidgets 8.
IPYWIDGETS_7 = not hasattr(widgets.Widget, "_repr_mimebundle_")


def widget_view_bundle(widget):
    """Пакет данных виджета, как у ipywidgets 8 (Widget._repr_mimebundle_): text/plain и ссылка на модель."""
    plaintext = repr(widget)
    if len(plaintext) > 110:
        plaintext = plaintext[:110] + "…"
    bundle = {"text/plain": plaintext}
    if widget._view_name is not None:
        bundle["application/vnd.jupyter.widget-view+json"] = {
            "version_major": 2, "version_minor": 0, "model_id": widget._model_id}
    return bundle

DPI = 90


def new_figure(width, height, layout="constrained"):
    """Фигура вне pyplot: Jupyter не покажет её сам, её показывает только виджет."""
    fig = Figure(figsize=(width, height), dpi=DPI, layout=layout)
    FigureCanvasAgg(fig)
    return fig


class LiveFigure:
    """Фигура, которая перерисовывается целиком только при смене раскладки.

    Уже виденные раскладки (например, T = 8 после T = 9) не строятся заново: для каждой
    хранится своя фигура с готовым фоном, до `cache_size` последних.
    """

    def __init__(self, painter, fig, cache_size=8):
        if not isinstance(painter, Painter):
            raise TypeError(f"LiveFigure рисует художником — наследником widgets.base.Painter, а пришёл {type(painter).__name__}")
        self.painter, self.fig = painter, fig
        self._template = (painter, fig.get_size_inches().copy(), fig.get_layout_engine() is not None)
        self._cache = OrderedDict()      # раскладка -> (художник, фигура, фон)
        self.cache_size = cache_size
        self.full_redraws = 0
        self.frame = None
        self.encode_seconds = self.text_seconds = 0.0   # JPEG и base64 последнего кадра (benchmarks/widgets.py)
        self._drawing = threading.Lock()   # кэш и текущая фигура: их трогают render и фоновый поток (prefetch)
        self._wanted, self._wanted_lock, self._worker = [], threading.Lock(), None
        self._building, self._built = None, threading.Event()   # какую раскладку строит фоновый поток

    def render(self, view):
        """Рисует вид и возвращает кадр (H, W, 4) uint8: новая раскладка — build, затем всегда refresh."""
        key = self._key(view)
        if self._building == key:                # её как раз строит фоновый поток: дождаться, а не строить вторую
            self._built.wait()
        with self._drawing:
            if key not in self._cache:
                self._store(key, self._build(view, first=not self._cache))
            self._cache.move_to_end(key)
            self.painter, self.fig, background = self._cache[key]
            self.fig.canvas.restore_region(background)
            self.painter.refresh(view)
            for artist in self.painter.dynamic:
                self.fig.draw_artist(artist)
            self.frame = np.asarray(self.fig.canvas.buffer_rgba())
        return self.frame

    def _build(self, view, first=False):
        """Новая раскладка: (художник, фигура, фон без меняющихся артистов). Кэш и текущую фигуру не трогает."""
        painter, fig = self._fresh(first)
        painter.build(fig, view)
        for artist in painter.dynamic:
            artist.set_animated(True)            # в фон не попадают, рисуем их поверх
        fig.canvas.draw()
        return painter, fig, fig.canvas.copy_from_bbox(fig.bbox)

    def _store(self, key, built):
        self._cache[key] = built
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        self.full_redraws += 1

    def has_layout(self, view):
        """Раскладка этого вида уже построена (лежит в кэше)?"""
        return self._key(view) in self._cache

    def _key(self, view):
        return self._template[0].layout_key(view)

    def prefetch(self, views):
        """Строит раскладки этих видов в фоновом потоке, по очереди; кадр и текущая фигура не меняются.

        Новый вызов заменяет ещё не начатые раскладки прежнего: ученик уже сдвинул ползунок дальше.
        Фоновая постройка рисует свою, новую фигуру и не мешает render рисовать кадр в это время.
        """
        with self._wanted_lock:
            self._wanted = list(views)
            if self._worker is None:
                self._worker = threading.Thread(target=self._prefetch_loop, name="course_lib-prefetch", daemon=True)
                self._worker.start()

    def join_prefetch(self, timeout=30):
        """Дождаться, пока фоновый поток достроит всё, что просили (для тестов и замеров)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def _prefetch_loop(self):
        while True:
            with self._wanted_lock:
                if not self._wanted:
                    self._worker = None
                    return
                view = self._wanted.pop(0)
            key = self._key(view)
            with self._drawing:
                if key in self._cache:
                    continue
                self._building = key
                self._built.clear()
            try:
                built = self._build(view)
                with self._drawing:
                    self._store(key, built)
            except Exception:    # в фоне — молча: эту раскладку построит render, и ошибка будет видна там
                pass
            finally:
                self._building = None
                self._built.set()

    def prepare(self, views):
        """Строит раскладки этих видов заранее, в кэш: первый сдвиг в них — уже не постройка фигуры.

        Для виджетов с немногими раскладками (heads: h из делителей d_model; causal: T до 11).
        Кадр после этого — последнего вида; Explorer.prepare рисует текущий вид заново.
        """
        for view in list(views)[-self.cache_size:]:
            self.render(view)

    def _fresh(self, first=False):
        """Первый раз — фигура и художник, которых нам дали; дальше — их чистые копии."""
        painter, size, constrained = self._template
        if first and not self.fig.axes:
            return painter, self.fig
        return copy.copy(painter), new_figure(*size, layout="constrained" if constrained else None)

    def html(self, view):
        """Кадр как HTML: <img> с data: URL, 1:1 по пикселям (браузер не растягивает и не сжимает)."""
        frame = self.render(view)
        started = time.perf_counter()
        picture = encode_jpeg(frame)
        encoded = time.perf_counter()
        height, width = frame.shape[:2]
        html = (f'<img class="widget-image" width="{width}" height="{height}" style="max-width:none" '
                f'alt="картинка виджета" src="data:image/jpeg;base64,{base64.b64encode(picture).decode("ascii")}">')
        self.encode_seconds, self.text_seconds = encoded - started, time.perf_counter() - encoded
        return html


def encode_png(frame):
    buffer = io.BytesIO()
    Image.fromarray(frame[..., :3]).save(buffer, format="png", compress_level=1)   # быстрое сжатие
    return buffer.getvalue()


def encode_jpeg(frame):
    buffer = io.BytesIO()
    Image.fromarray(frame[..., :3]).save(buffer, format="jpeg", quality=92)   # 92: текст без заметных ореолов
    return buffer.getvalue()


class Explorer(widgets.VBox):
    """Ползунки сверху, сообщение и картинка снизу; `update()` — один шаг перерисовки.

    В Jupyter это живой виджет; там, где виджеты не работают (GitHub, nbviewer),
    показывается PNG того же рисунка при исходном положении ползунков.

    Для тех, кто рисует виджет без Jupyter (сборщик сайта, тесты; см. frames.py):
    `controls` — ползунки {имя: ipywidgets-виджет}, их двигают, меняя `.value`;
    `values()` — их положения; `frame()` — кадр при этих положениях; `quiet()` — двигать без перерисовки.
    """

    def __init__(self, controls, view, painter, fig, prefetch=(), layout_view=None):
        if prefetch and layout_view is None:
            raise TypeError("Explorer(prefetch=...) строит соседние раскладки по виду для раскладки: передайте "
                            "layout_view(**положения ползунков) -> вид с тем же ключом раскладки, но без дорогих расчётов")
        self.controls, self.view, self.painter, self.layout_view = controls, view, painter, layout_view
        self.live = LiveFigure(painter, fig, cache_size=12 if prefetch else 8)
        self.prefetch_controls, self._shown = tuple(prefetch), False   # ползунки, меняющие раскладку
        self._last_move = (None, -1)       # (имя ползунка, +1 или −1): куда ученик двигал в последний раз
        self.image = widgets.HTML(layout=widgets.Layout(align_self="flex-start"))   # кадр — текстом, см. выше
        self.message, self.caption = widgets.HTML(), widgets.HTML()
        rows = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        super().__init__([rows, self.message, self.caption, self.image])
        self._syncing, self._quiet = False, 0
        self._frame_elsewhere = False      # live.frame — кадр frame(), а не показанный вид (см. _repr_mimebundle_)
        for control in controls.values():
            control.observe(self._on_change, names="value")
        self.update()

    def sync(self, change):
        """Согласовать ползунки между собой (например, T за предложением). По умолчанию — ничего."""

    def _on_change(self, change):
        if self._syncing:                  # ползунок сдвинули мы сами в sync(): кадр нарисуем один раз
            return
        name = next(name for name, control in self.controls.items() if control is change["owner"])
        self._last_move = (name, 1 if isinstance(change["new"], (int, float)) and change["new"] > change["old"] else -1)
        self._syncing = True
        try:
            self.sync(change)
        finally:
            self._syncing = False
        self.update()

    def prepare(self, views):
        """Строит раскладки этих видов заранее (LiveFigure.prepare) и снова рисует текущий вид."""
        views = list(views)
        self.live.cache_size = max(self.live.cache_size, len(views))
        self.live.prepare(views)
        self._frame_elsewhere = True          # в буфере — последний из views; update() нарисует текущий вид
        self.update()

    def values(self):
        """Положения ползунков сейчас: {имя: значение}."""
        return {name: control.value for name, control in self.controls.items()}

    def _view_now(self):
        view = self.view(**self.values())
        if not isinstance(view, View):
            raise TypeError(f"функция вида должна вернуть наследника widgets.base.View, а вернула {type(view).__name__}")
        return view

    def frame(self):
        """Кадр при нынешних положениях ползунков (`Frame`: пиксели, подпись, вид, фигура).

        Рисуют те же функция вида и художник, что и в Jupyter, но показанный виджет не меняется:
        ни картинка, ни подпись, ни сообщение. Вместе с `quiet()` так рисуют кадры на любые положения.
        """
        view = self._view_now()
        self._frame_elsewhere = True
        image = self.live.render(view).copy()    # render отдаёт буфер фигуры, а его перепишет следующий кадр
        return Frame(image=image, caption=self.live.painter.caption(view), view=view, figure=self.live.fig)

    @contextlib.contextmanager
    def quiet(self):
        """Блок `with`, в котором ползунки двигаются без перерисовки виджета; на выходе — положения, как при входе.

        Ползунки по-прежнему согласуются между собой (`sync`: T тянет за собой «запрос №»), а `update()`
        ничего не рисует. На выходе (и по исключению) ползунки встают, как были, и показанный виджет
        остаётся тем же: он и не перерисовывался. Блоки вкладываются.
        """
        start, last_move = self.values(), self._last_move
        self._quiet += 1
        try:
            yield self
        finally:
            try:
                for name, value in start.items():      # по порядку ползунков, как их ставит ученик: sync видит каждый шаг
                    if self.controls[name].value != value:
                        self.controls[name].value = value
            finally:
                self._quiet -= 1
                self._last_move = last_move

    def update(self):
        if self._quiet:                       # внутри quiet(): кадр не рисуем, показан прежний self.state
            return self.state
        self.state = self._view_now()
        warning = self.state.message
        self.message.value = f"<span style='color:#a00'>⚠ {warning}</span>" if warning else ""
        self.image.value = self.live.html(self.state)
        self._frame_elsewhere = False
        self.caption.value = self.live.painter.caption(self.state)
        if self._shown:
            self._prefetch_neighbours()
        return self.state

    def _prefetch_neighbours(self):
        """Раскладки на шаг влево и вправо каждого ползунка из prefetch — строить в фоне.

        Ключ раскладки соседа — из `layout_view(**положения)`: дешёвый вид без расчётов (не вид целиком);
        фоновый поток рисует фигуру только тех соседей, чьей раскладки ещё нет в кэше.
        """
        values, (moved, direction) = self.values(), self._last_move
        first, rest = [], []                   # ползунок, который двигали, — первым, и сначала туда, куда двигали
        for name in self.prefetch_controls:
            control = self.controls[name]
            for step in (direction, -direction) if name == moved else (-1, 1):
                value = control.value + step
                if not control.disabled and control.min <= value <= control.max:
                    view = self.layout_view(**{**values, name: value})
                    if not self.live.has_layout(view):
                        (first if name == moved else rest).append(view)
        if first or rest:
            self.live.prefetch(first + rest)

    def _repr_mimebundle_(self, **kwargs):
        note_shown(self)                      # для recording_shown() (frames.py): кто и с какими положениями показан
        self._shown = True                    # виджет на экране: пока ученик смотрит, готовим соседние раскладки
        self._prefetch_neighbours()
        bundle = widget_view_bundle(self) if IPYWIDGETS_7 else super()._repr_mimebundle_(**kwargs)
        if self._frame_elsewhere:             # после frame() в буфере чужой кадр: PNG — того, что показано
            self.live.render(self.state)
            self._frame_elsewhere = False
        bundle["image/png"] = base64.b64encode(encode_png(self.live.frame)).decode("ascii")
        return bundle

    if IPYWIDGETS_7:
        def _ipython_display_(self, **kwargs):
            """ipywidgets 7: IPython зовёт _ipython_display_ раньше _repr_mimebundle_ — показываем тот же пакет данных."""
            from IPython.display import display
            display(self._repr_mimebundle_(**kwargs), raw=True)
            if self._view_name is not None:
                self._handle_displayed(**kwargs)

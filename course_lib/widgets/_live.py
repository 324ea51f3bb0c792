"""Связка «ползунки → чистая функция → картинка», общая для всех виджетов курса.

Логика каждого виджета — чистая функция `view(**значения) -> вид` (что рисовать) и
функция `draw(fig, вид)`, которая меняет данные уже нарисованной фигуры. Здесь только
проводка: ползунок сдвинули — посчитали вид — перерисовали ту же фигуру — отправили PNG
в виджет Image. Фигура не пересоздаётся и вывод не очищается, поэтому ничего не мигает.
"""

import base64
import io

import ipywidgets as widgets
from matplotlib.figure import Figure

DPI = 80


def new_figure(width, height):
    """Фигура вне pyplot: Jupyter не покажет её сам, её показывает только виджет."""
    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def png_bytes(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


class Explorer(widgets.VBox):
    """Ползунки сверху, картинка и сообщение снизу; `update()` — один шаг перерисовки.

    Показ в Jupyter — живой виджет; там, где виджеты не работают (GitHub, nbviewer),
    показывается PNG того же рисунка в исходном положении ползунков.
    """

    def __init__(self, controls, view, draw, fig):
        self.controls, self.view, self.draw, self.fig = controls, view, draw, fig
        self.image = widgets.Image(format="png")
        self.message = widgets.HTML()
        super().__init__([widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap")),
                          self.message, self.image])
        for control in controls.values():
            control.observe(lambda change: self.update(), names="value")
        self.update()

    def values(self):
        return {name: control.value for name, control in self.controls.items()}

    def update(self):
        state = self.view(**self.values())
        warning = getattr(state, "message", "")
        self.message.value = f"<span style='color:#b00'>⚠ {warning}</span>" if warning else ""
        self.draw(self.fig, state)
        self.image.value = png_bytes(self.fig)
        self.state = state
        return state

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["image/png"] = base64.b64encode(self.image.value).decode("ascii")
        return bundle

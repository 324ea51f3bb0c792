"""Живой счёт в проигрывателях сайта (tools/build_site.py): данные, из которых страница сама считает внимание.

Кадры проигрывателя нарисованы при сборке, но не на каждом шаге длинного ползунка и не при всех сочетаниях
(Budget). Для виджетов уроков 02–06 страница досчитывает остальные положения сама: tools/site/attention.js —
копия softmax и scaled_dot_product_attention из course_lib (сверена с numpy до 1e-6 в
tests/test_site_attention_js.py), tools/site/live.js — что из этого показать (таблица весов с цветом и числа).

`live_data(explorer, start)` — словарь для страницы (вид и входные числа виджета) или None, если этот виджет
страница сама не посчитает. Числа берутся из вида самого виджета при сборке (explorer.view) — те же, что в
Jupyter: оценки и каталог урока 02 — как есть.
"""


def live_data(explorer, start):
    """Что нужно странице, чтобы считать этот виджет самой: {"kind": …, …} или None."""
    view = explorer.view(**start)
    maker = MAKERS.get(type(view).__name__)
    return maker(explorer, start, view) if maker else None


def _softmax(explorer, start, view):
    """Урок 02: оценки и подписи; веса softmax(оценки / τ) и энтропию считает страница."""
    return {"kind": "softmax", "labels": list(view.labels), "scores": view.scores.tolist()}


def _soft_search(explorer, start, view):
    """Урок 02: ключи и значения каталога; q·k, веса, смесь и лучшую книгу считает страница."""
    return {"kind": "soft_search", "labels": list(view.labels), "keys": view.keys.tolist(),
            "values": view.values.tolist()}


MAKERS = {"SoftmaxView": _softmax, "SoftSearchView": _soft_search}


def live_note(live):
    """Строка для страницы над проигрывателем: что считает сама страница."""
    return LIVE_NOTES[live["kind"]]


LIVE_NOTES = {
    "softmax": "Положения без кадра страница считает сама: softmax(оценки / τ) на JavaScript — те же формулы, что в course_lib.",
    "soft_search": "Любое сочетание q₁, q₂ и τ без кадра страница считает сама (q·k, softmax, смесь цветов — на JavaScript, "
                   "те же формулы, что в course_lib): кадр там заменяет таблица весов.",
}

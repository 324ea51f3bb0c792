"""Каждый ползунок каждого виджета уроков — на краях и на шаг за краем: вид либо показывает
другое (то, что просили), либо в `message` по-русски сказано, что он сделал вместо этого.

Молчаливый сдвиг выглядит так: ползунок двигается, а картинка та же и пояснения нет (урок 05:
«запрос №» до 10 при T = 6, а 6…10 показывали запрос 5). Край ползунка двигают через виджет
(ученик тащит ручку); шаг за край — вызовом функции вида (так её зовут в уроках: `causal_view(6, True, 9)`).
"""

import dataclasses
import importlib.util
import pathlib
import re

import ipywidgets as widgets
import numpy as np
import pytest

from course_lib import widgets as W

# Виджеты уроков с теми же аргументами, что в lessons/NN_*.py: один список с benchmarks/widgets.py.
_BENCHMARK = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "widgets.py"
_spec = importlib.util.spec_from_file_location("benchmark_widgets", _BENCHMARK)
benchmark = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(benchmark)
LESSON_WIDGETS = benchmark.widgets_of_the_course()

SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)
RUSSIAN = re.compile("[а-яё]", re.IGNORECASE)


def _same_picture(a, b):
    """Два вида рисуют одно и то же: все поля, кроме message, равны."""
    for field in dataclasses.fields(a):
        if field.name == "message":
            continue
        x, y = getattr(a, field.name), getattr(b, field.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True):
                return False
        elif isinstance(x, list) and x and isinstance(x[0], np.ndarray):
            if len(x) != len(y) or not all(np.array_equal(p, q) for p, q in zip(x, y)):
                return False
        elif x != y:
            return False
    return True


def _value(control, position):
    """Значение ползунка в позиции position (в шагах от min; у FloatLogSlider — по показателю)."""
    exponent = control.min + position * control.step
    return 10 ** exponent if isinstance(control, widgets.FloatLogSlider) else exponent


def _positions(control):
    """(шаг за нижним краем, нижний край, шаг внутрь) и то же сверху — в шагах от min."""
    top = round((control.max - control.min) / control.step)
    return [(-1, 0), (0, 1), (top, top - 1), (top + 1, top)]


def _silent_moves(explorer):
    """Сдвиги ползунков, после которых картинка та же, а пояснения нет: [(ползунок, откуда, куда)]."""
    silent = []
    for name, control in explorer.controls.items():
        if not isinstance(control, SLIDERS) or control.disabled or control.max == control.min:
            continue
        start = control.value
        for asked, neighbour in _positions(control):
            inside = 0 <= asked <= round((control.max - control.min) / control.step)
            if inside:                                   # край: ученик тащит ручку
                control.value = _value(control, asked)
                view = explorer.state
            else:                                        # за краем: так функцию вида зовут в уроке
                view = explorer.view(**{**explorer.values(), name: _value(control, asked)})
            other = explorer.view(**{**explorer.values(), name: _value(control, neighbour)})
            if _same_picture(view, other) and not (view.message and RUSSIAN.search(view.message)):
                silent.append((name, _value(control, neighbour), _value(control, asked)))
        control.value = start
    return silent


@pytest.mark.parametrize("name", list(LESSON_WIDGETS))
def test_every_slider_end_and_one_step_beyond_shows_what_was_asked_or_says_what_it_did(name):
    explorer = LESSON_WIDGETS[name]()
    assert _silent_moves(explorer) == [], f"{name}: картинка не сменилась и пояснения нет"


def test_query_slider_of_the_causal_widget_follows_T():
    explorer = W.causal_explorer(T=6, causal=True)
    assert explorer.controls["query"].max == 5                 # запросов столько, сколько токенов
    explorer.controls["T"].value = 9
    assert explorer.controls["query"].max == 8
    explorer.controls["query"].value = 8
    explorer.controls["T"].value = 3
    assert explorer.controls["query"].value == 2 and explorer.state.query == 2 and explorer.state.message == ""


@pytest.mark.parametrize("view", [
    lambda: W.attention_view("кот сел", T=2, seed=-1),
    lambda: W.causal_view(4, True, 1, seed=-1),
    lambda: W.heads_view(2, seed=-1),
    lambda: W.permutation_view("кот сел на коврик", 1, False, seed=-1),
    lambda: W.scaling_view(8, True, seed=-1),
    lambda: W.online_softmax_view(4, 1, seed=-1),
    lambda: W.local_window_view(4, 9, seed=-1),
])
def test_negative_seed_is_explained_in_russian_not_a_traceback(view):
    assert "зерно" in view().message


def test_negative_shuffle_is_explained_in_russian():
    view = W.permutation_view("кот сел на тёплый коврик", -1, False)
    assert "перемешивания" in view.message and list(view.order) == [0, 1, 2, 3, 4]

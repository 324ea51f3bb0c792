"""Каждый ползунок каждого виджета уроков — на краях и на шаг за краем: вид либо показывает
другое (то, что просили), либо в `message` по-русски сказано, что он сделал вместо этого.

Молчаливый сдвиг выглядит так: ползунок двигается, а картинка та же и пояснения нет (урок 05:
«запрос №» до 10 при T = 6, а 6…10 показывали запрос 5). Край ползунка двигают через виджет
(ученик тащит ручку); шаг за край — вызовом функции вида (так её зовут в уроках: `causal_view(6, True, 9)`).
"""

import dataclasses
import re

import ipywidgets as widgets
import numpy as np
import pytest

import course_lib as nt
from course_lib import widgets as W
from course_lib.props.induction import repeated_blocks
from course_lib.widgets.soft_search import CATALOGUE_KEYS, CATALOGUE_LABELS

SIX = "кот сел на тёплый коврик и долго смотрел в окно"


def _bank_training():
    """Маленькое обучение «две связи» со снимками — как у ползунков «шаг» и «голова» урока 07."""
    from course_lib.props.models import TinyAttention
    from course_lib.props.tasks import letters, two_relations
    from course_lib.props.training import relations_loss, train

    data = two_relations(16, T=6, K=3, seed=0)
    nt.manual_seed(0)
    model = TinyAttention(3, 6, d_model=8, num_heads=2, max_len=6)
    history = train(model, lambda m: relations_loss(m, data), steps=8, lr=0.05, probe=data.ids[0], snapshot_every=2)
    return history, letters(data.ids[0], numbered=True)


def _induction():
    from course_lib.props.induction import attention_only
    from course_lib.props.induction_training import train_induction

    probe = repeated_blocks(1, 5, np.random.default_rng(0))[0]
    nt.manual_seed(0)
    model = attention_only(2)
    history = train_induction(model, steps=20, seed=0, probe=probe, snapshot_every=10)
    return history, [str(t) for t in probe]


def _trained_bank_layer():
    nt.manual_seed(0)
    return nt.MultiHeadAttention(8, 2)


# Виджеты уроков с теми же аргументами, что в lessons/NN_*.py.
LESSON_WIDGETS = {
    "00 temperature_heatmap": lambda: W.temperature_heatmap(),
    "01 embeddings_explorer": lambda: W.embeddings_explorer(),
    "02 softmax_explorer": lambda: W.softmax_explorer(CATALOGUE_KEYS @ [0.0, 4.0], CATALOGUE_LABELS),
    "02 soft_search_explorer": lambda: W.soft_search_explorer(),
    "03 scaling_explorer": lambda: W.scaling_explorer(d_k=64, scaled=False),
    "03 attention_explorer": lambda: W.attention_explorer(sentence=SIX, d_k=8, heads=1),
    "04 permutation_explorer": lambda: W.permutation_explorer(sentence="кот сел на тёплый коврик"),
    "05 causal_explorer": lambda: W.causal_explorer(T=6, causal=True),
    "06 heads_explorer": lambda: W.heads_explorer(heads=4),
    "06 attention_explorer": lambda: W.attention_explorer(sentence=SIX, heads=4),
    "07 training_explorer": lambda: W.training_explorer(*_bank_training(), query=5),
    "07 attention_explorer(model)": lambda: W.attention_explorer(sentence="вчера я видел банк у реки",
                                                                 model=_trained_bank_layer()),
    "08 online_softmax_explorer": lambda: W.online_softmax_explorer(block_size=6, step=1),
    "08 local_window_explorer": lambda: W.local_window_explorer(window=4, query=9),
    "09 induction_explorer": lambda: W.induction_explorer(*_induction()),
}

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

"""Фоновая постройка раскладок (LiveFigure.prefetch, Explorer(prefetch=...)): виджет на экране
заранее строит раскладки на шаг влево и вправо ползунков, меняющих раскладку, — и кадр от этого
не меняется ни на пиксель, а сдвиг в готовую раскладку фигуру не перестраивает."""

import numpy as np

import course_lib as nt
from course_lib import widgets as W

SENTENCE = "кот сел на тёплый коврик и смотрел в окно"      # 9 слов: T от 1 до 9


def layouts(explorer):
    return {(len(tokens), heads) for tokens, heads in explorer.live._cache}


def test_not_shown_explorer_builds_nothing_in_background():
    explorer = W.attention_explorer(sentence=SENTENCE, heads=2)
    explorer.controls["T"].value = 8
    assert explorer.live._worker is None and layouts(explorer) == {(9, 2), (8, 2)}


def test_shown_explorer_prepares_one_step_of_T_and_heads_and_keeps_its_frame():
    explorer = W.attention_explorer(sentence=SENTENCE, heads=2)
    frame, image = explorer.live.frame.copy(), explorer.image.value
    explorer._repr_mimebundle_()                                   # так Jupyter показывает виджет
    explorer.live.join_prefetch()
    assert layouts(explorer) == {(9, 2), (8, 2), (9, 1), (9, 3)}   # T = 10 нет: в предложении 9 слов
    assert np.array_equal(explorer.live.frame, frame) and explorer.image.value == image

    redraws = explorer.live.full_redraws
    explorer.controls["heads"].value = 3                           # готовая раскладка: только данные
    assert explorer.live.full_redraws == redraws
    fresh = W.attention_explorer(sentence=SENTENCE, heads=3)       # тот же вид, построенный с нуля
    assert np.array_equal(explorer.live.frame, fresh.live.frame)
    explorer.live.join_prefetch()
    assert {(9, 4), (8, 3)} <= layouts(explorer)                   # и снова на шаг вокруг


def test_the_slider_just_moved_is_prepared_first_in_its_direction():
    explorer = W.attention_explorer(sentence=SENTENCE, heads=4)
    explorer._repr_mimebundle_()
    explorer.live.join_prefetch()
    asked = []
    explorer.live.prefetch = lambda views: asked.extend((len(v.tokens), len(v.weights)) for v in views)
    explorer.controls["heads"].value = 5
    assert asked[0] == (9, 6)                                      # двигали «голов» вправо: сначала 6 голов


def test_disabled_sliders_are_not_prepared():
    nt.manual_seed(0)
    model = nt.MultiHeadAttention(8, 2)
    explorer = W.attention_explorer(sentence="a b c d", model=model)
    explorer._repr_mimebundle_()
    explorer.live.join_prefetch()
    assert layouts(explorer) == {(4, 2), (3, 2)}                   # «голов» заблокирован: у модели их 2


def test_a_move_computes_one_view_and_neighbours_come_from_slider_values():
    """Соседние раскладки — из layout_view (без внимания): на сдвиг любого ползунка — один настоящий вид."""
    explorer = W.attention_explorer(sentence=SENTENCE, heads=2)
    explorer._repr_mimebundle_()
    explorer.live.join_prefetch()
    view, calls = explorer.view, []
    explorer.view = lambda **values: calls.append(values) or view(**values)
    for name, value in [("T", 8), ("T", 7), ("heads", 3), ("d_k", 9), ("query", 2)]:
        calls.clear()
        explorer.controls[name].value = value
        explorer.live.join_prefetch()
        assert len(calls) == 1, f"{name} = {value}: видов посчитано {len(calls)}"
    assert {(6, 3), (7, 2), (7, 4)} <= layouts(explorer)          # соседи всё равно построены


def test_layout_view_has_the_layout_key_of_the_full_view():
    painter = W.explorer.ExplorerPainter()
    for sentence, T, heads in [(SENTENCE, 4, 3), ("", 2, 1), ("а б", 9, 0), (SENTENCE, 0, 2)]:
        full = W.attention_view(sentence, T=T, heads=heads)
        assert painter.layout_key(W.explorer.attention_layout(sentence, T=T, heads=heads)) == painter.layout_key(full)

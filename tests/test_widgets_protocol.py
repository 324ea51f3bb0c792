"""Договор виджетов (widgets/base.py): вид, художник, одна точка, где решают, когда обновлять."""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import pytest

import course_lib as nt
from course_lib.functional import scaled_dot_product_attention
from course_lib.widgets._live import Explorer, LiveFigure, new_figure
from course_lib.widgets.base import Painter, View, clamp
from course_lib.widgets.common import attention_weights


@dataclass
class CounterView(View):
    value: int


class CountingPainter(Painter):
    """Считает вызовы: build и refresh приходят только от LiveFigure, refresh — после каждого кадра."""

    def __init__(self):
        self.calls = []

    def layout_key(self, view):
        return view.value > 10

    def draw(self, fig, view):
        self.calls.append("draw")
        self.text = fig.text(0.5, 0.5, " ")
        return [self.text]

    def refresh(self, view):
        self.calls.append("refresh")
        self.text.set_text(str(view.value))


def test_live_figure_builds_once_per_layout_and_refreshes_every_frame():
    painter = CountingPainter()
    live = LiveFigure(painter, new_figure(2, 1))
    for value in (1, 2, 3):
        live.render(CounterView(value))
    assert painter.calls == ["draw", "refresh", "refresh", "refresh"]
    assert painter.dynamic == [painter.text] and painter.text.get_text() == "3"
    live.render(CounterView(20))                          # другая раскладка: новая фигура, свой художник
    assert live.painter is not painter and live.painter.calls[-2:] == ["draw", "refresh"]
    assert live.full_redraws == 2


def test_defaults_of_the_contract():
    class Blank(Painter):
        def draw(self, fig, view):
            return []

    painter = Blank()
    assert painter.caption(View()) == "" and painter.layout_key(View()) == ()
    assert View().message == ""
    with pytest.raises(NotImplementedError, match="draw"):
        Painter().build(new_figure(1, 1), View())
    with pytest.raises(TypeError, match="Painter"):
        LiveFigure(object(), new_figure(1, 1))


def test_view_function_must_return_a_view():
    slider = widgets.IntSlider(value=1)
    with pytest.raises(TypeError, match="View"):
        Explorer({"value": slider}, lambda value: {"value": value}, CountingPainter(), new_figure(2, 1))
    explorer = Explorer({"value": slider}, lambda value: CounterView(value, message="осторожно"),
                        CountingPainter(), new_figure(2, 1))
    assert "осторожно" in explorer.message.value


def test_without_sqrt_dk_is_the_library_attention_with_scale_one():
    nt.manual_seed(2)
    mha = nt.MultiHeadAttention(d_model=12, num_heads=3)
    X = np.random.default_rng(4).normal(size=(6, 12))
    mha(X[None])
    kept = mha.attn.copy()
    for scaled, scale in ((True, None), (False, 1.0)):
        weights, _ = attention_weights(mha, X, causal=False, scaled=scaled)
        q = mha.W_q(X[None]).data.reshape(1, 6, 3, 4).transpose(0, 2, 1, 3)
        k = mha.W_k(X[None]).data.reshape(1, 6, 3, 4).transpose(0, 2, 1, 3)
        _, expected = scaled_dot_product_attention(q, k, k, scale=scale)
        assert np.allclose(weights, expected[0])
    assert np.array_equal(mha.attn, kept) and mha.scale is None        # слой ученика не тронут


def test_prefetch_needs_a_layout_view():
    with pytest.raises(TypeError, match="layout_view"):
        Explorer({"value": widgets.IntSlider(value=1)}, lambda value: CounterView(value), CountingPainter(),
                 new_figure(2, 1), prefetch=("value",))


def test_clamp_says_what_it_showed_instead():
    notes = []
    assert clamp(7, 0, 5, "запрос №", notes) == 5 and clamp(3, 0, 5, "запрос №", notes) == 3
    assert clamp(-1, 0, None, "зерно", notes) == 0
    assert notes == ["Значение «запрос №» бывает от 0 до 5, а пришло 7 — показываю 5.",
                     "Значение «зерно» бывает не меньше 0, а пришло -1 — показываю 0."]

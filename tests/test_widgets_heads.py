"""Виджет «сколько голов при той же ширине» (урок 06): чистая функция вида на сетке ползунков и её отрисовка."""

import itertools

import numpy as np
import pytest

import course_lib as nt
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib._checks import divisors
from course_lib.widgets.heads import D_MODEL, MAX_HEADS, HeadsPainter, heads_explorer, heads_view
from widget_asserts import assert_shows


def test_grid_of_slider_values_draws_and_holds_invariants():
    live = LiveFigure(HeadsPainter(), new_figure(9, 6))
    for heads, seed in itertools.product([1, 3, 5, MAX_HEADS], [0, 7]):   # 5 не делит 24: покажет 4
        view = heads_view(heads, seed)
        T = len(view.tokens)
        assert D_MODEL % view.heads == 0 and view.heads <= heads
        assert view.heads * view.d_head == D_MODEL
        assert view.weights.shape == (view.heads, T, T)
        assert np.allclose(view.weights.sum(axis=-1), 1)
        assert view.params == 4 * D_MODEL**2 + 4 * D_MODEL              # от h не зависит
        assert (view.message == "") == (D_MODEL % heads == 0)
        live.render(view)
        for image, weights in zip(live.painter.images, view.weights, strict=True):
            assert_shows(image, weights)
        titles = [t.get_text() for ax in live.fig.axes for t in ax.texts if t.get_text().startswith("голова")]
        assert len(titles) == len(live.painter.images) == view.heads
        assert titles[-1].endswith(str(D_MODEL - 1))                      # последняя голова берёт последние столбцы
        assert f"d_head = {D_MODEL} / {view.heads} = {view.d_head}" in live.painter.headline.get_text()


@pytest.mark.parametrize("heads, shown", [(5, 4), (7, 6), (0, 1), (-3, 1), (100, 24)])
def test_non_divisor_falls_back_with_a_message(heads, shown):
    view = heads_view(heads)
    assert view.heads == shown
    if heads > 1 and heads != shown:
        assert f"не делится на h = {heads}" in view.message and f"h = {shown}" in view.message


def test_same_matrices_for_every_h_only_the_cut_differs():
    """При одном зерне слой тот же: h = 1 видит те же Q и K, что h = 4, просто целиком."""
    one, four = heads_view(1), heads_view(4)
    assert not np.allclose(one.weights[0], four.weights[0])              # другой разрез — другие веса
    from course_lib.widgets.common import random_model
    a, b = random_model(1, D_MODEL, 0), random_model(4, D_MODEL // 4, 0)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        assert np.array_equal(getattr(a, name).weight.data, getattr(b, name).weight.data)


def test_weights_match_multi_head_attention_heads():
    """Панели — это ровно mha.attn слоя с теми же весами."""
    from course_lib.widgets.common import embed_words, random_model
    from course_lib.widgets.heads import SENTENCE, WORD_SCALE

    view = heads_view(3, seed=5)
    mha = random_model(3, D_MODEL // 3, 5)
    X = WORD_SCALE * embed_words(SENTENCE.split(), D_MODEL, 5)
    mha(X[None])
    assert np.allclose(view.weights, mha.attn[0])


def test_bad_inputs_give_messages_or_clear_errors():
    assert "пустое" in heads_view(2, sentence="").message
    assert len(heads_view(2, sentence="a b c").tokens) == 3
    assert divisors(12) == [1, 2, 3, 4, 6, 12]
    with pytest.raises(ValueError, match="d_model"):
        heads_view(2, d_model=0)


def test_live_widget_shows_message_and_redraws():
    explorer = heads_explorer(heads=4)
    before = explorer.image.value
    explorer.controls["heads"].value = 5
    assert "не делится" in explorer.message.value
    assert explorer.image.value != before                  # подпись «h = 5 не делит 24» — картинка другая
    explorer.controls["heads"].value = 6
    assert explorer.message.value == "" and explorer.state.heads == 6
    redraws = explorer.live.full_redraws
    explorer.controls["seed"].value = 3
    assert explorer.live.full_redraws == redraws           # то же h: меняются только данные


def test_params_match_the_library_layer():
    assert nt.MultiHeadAttention(D_MODEL, 4).num_params() == heads_view(4).params

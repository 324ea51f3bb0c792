"""Виджеты урока 08 без браузера: online softmax по блокам и локальное окно на сетке ползунков."""

import itertools

import numpy as np
import pytest

from course_lib.functional import softmax
from course_lib.widgets._live import LiveFigure, new_figure
from matplotlib.colors import to_rgba

from course_lib.widgets.efficient import (
    CURRENT_COLOR, N_KEYS, LocalWindowPainter, OnlineSoftmaxPainter, demo_scores, local_window_explorer, local_window_view,
    online_softmax_explorer, online_softmax_view,
)
from widget_asserts import assert_shows, heights


def test_online_softmax_grid_draws_and_ends_at_true_softmax():
    live = LiveFigure(OnlineSoftmaxPainter(), new_figure(10, 6))
    scores = demo_scores()
    for block_size in (1, 5, 7, 24):                         # раскладка меняется с блоком: 4 полных перерисовки
        n_blocks = -(-N_KEYS // block_size)
        for step in sorted({1, min(2, n_blocks), n_blocks // 2 or 1, n_blocks}):
            view = online_softmax_view(block_size, step)
            assert view.message == "" and view.n_blocks == n_blocks
            seen = min(step * block_size, N_KEYS)
            assert np.isclose(view.m_history[step - 1], scores[:seen].max()), "m — максимум прочитанных оценок"
            assert np.isclose(view.weights_so_far[:seen].sum(), 1), "по прочитанным ключам веса в сумме 1"
            assert np.all(view.weights_so_far[seen:] == 0)
            live.render(view)
            painter = live.painter
            assert np.array_equal(heights(painter.weight_bars), view.weights_so_far), "столбики — веса вида"
            assert list(painter.m_line.get_ydata()) == [view.m_history[step - 1]] * 2
            assert len(painter.m_points.get_xdata()) == step
            current = [j for j, bar in enumerate(painter.score_bars) if bar.get_facecolor() == to_rgba(CURRENT_COLOR)]
            assert current == list(range((step - 1) * block_size, seen)), "жёлтые — ровно ключи текущего блока"
        assert np.allclose(view.weights_so_far, softmax(scores)), "после последнего блока — настоящий softmax"
        assert np.isclose(view.l_history[-1], np.exp(scores - scores.max()).sum())


def test_correction_is_below_one_exactly_when_the_max_grows():
    view = online_softmax_view(6, 1)
    grew = np.diff(view.m_history) > 0
    assert grew.any(), "в демо-оценках максимум должен хотя бы раз вырасти — иначе нечего показывать"
    assert np.all(view.corrections[1:][grew] < 1) and np.all(view.corrections[1:][~grew] == 1)
    assert view.corrections[0] == 0                          # до первого блока l = 0: поправлять нечего


@pytest.mark.parametrize("block_size, step, expected", [
    (0, 1, "не меньше 1"),
    (-3, 1, "не меньше 1"),
    (6, 9, "всего 4 блок"),
    (6, 0, "показываю шаг 1"),
])
def test_online_softmax_bad_values_give_a_message(block_size, step, expected):
    view = online_softmax_view(block_size, step)
    assert expected in view.message
    assert 1 <= view.step <= view.n_blocks


def test_online_softmax_explorer_keeps_step_within_blocks():
    explorer = online_softmax_explorer(block_size=2, step=1)
    assert explorer.controls["step"].max == 12
    explorer.controls["step"].value = 10
    explorer.controls["block_size"].value = 8               # 3 блока: шаг 10 не бывает
    assert explorer.controls["step"].max == 3 and explorer.controls["step"].value == 3
    assert explorer.state.step == 3 and explorer.message.value == ""


def test_local_window_grid():
    live = LiveFigure(LocalWindowPainter(), new_figure(10, 4.6))   # токены те же: рисуется только меняющееся
    for window, query in itertools.product([1, 2, 4, 7, 8, 10, 11], [0, 5, 9, 10]):
        view = local_window_view(window, query)
        T = len(view.tokens)
        assert np.allclose(view.weights.sum(axis=1), 1)
        assert np.all(view.weights[~view.mask] == 0), "за окном и в будущем веса нулевые"
        assert view.allowed == view.mask.sum() <= view.causal_allowed == T * (T + 1) // 2
        it, ball = view.tokens.index("it"), view.tokens.index("ball")
        assert (("it", "ball", it - ball) in view.lost) == (window <= it - ball)
        live.render(view)
        assert_shows(live.painter.image, view.weights, view.mask)
        assert np.array_equal(heights(live.painter.bars), view.weights[view.query])
        assert f"«{view.tokens[view.query]}»" in live.painter.bar_title.get_text()
        assert (f"it→ball ({it - ball})" in live.painter.bar_title.get_text()) == (window <= it - ball)
    assert live.full_redraws == 1


def test_link_inside_the_window_gets_most_of_the_weight():
    view = local_window_view(8, 9)                           # «it» (9) видит «ball» (2): расстояние 7 < 8
    assert view.tokens[view.weights[9].argmax()] == "ball"
    assert local_window_view(7, 9).weights[9, 2] == 0        # окно 7: «ball» уже не видно


@pytest.mark.parametrize("window, query, expected", [(0, 3, "хотя бы 1"), (3, 40, "от 0 до 10")])
def test_local_window_bad_values_give_a_message(window, query, expected):
    view = local_window_view(window, query)
    assert expected in view.message
    assert np.allclose(view.weights.sum(axis=1), 1)


def test_local_window_explorer_redraws_without_rebuilding():
    explorer = local_window_explorer()
    before, redraws = explorer.image.value, explorer.live.full_redraws
    explorer.controls["window"].value = 11
    assert explorer.image.value != before and explorer.live.full_redraws == redraws
    assert "нет" in explorer.live.painter.bar_title.get_text()

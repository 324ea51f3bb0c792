"""Ползунок по снимкам обучения (урок 07): чистая функция вида на сетке значений и отрисовка."""

import numpy as np
import pytest

import course_lib as nt
from course_lib.props.models import TinyAttention
from course_lib.props.tasks import letters, two_relations
from course_lib.props.training import History, relations_loss, train
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.training import SnapshotPainter, snapshot_view, training_explorer
from widget_asserts import assert_shows, heights


@pytest.fixture(scope="module")
def trained():
    """Короткое обучение задачи «две связи»: 12 шагов, снимки каждые 4 (шаги 0, 4, 8, 12)."""
    data = two_relations(32, T=6, K=3, seed=0)
    nt.manual_seed(0)
    model = TinyAttention(3, 6, d_model=8, num_heads=2, max_len=6)
    history = train(model, lambda m: relations_loss(m, data), steps=12, lr=0.05, probe=data.ids[0], snapshot_every=4)
    return history, letters(data.ids[0], numbered=True)


def tick_texts(fig):
    return {t.get_text() for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}


def test_grid_of_slider_values_draws_and_shows_the_right_snapshot(trained):
    history, tokens = trained
    live = LiveFigure(SnapshotPainter(), new_figure(9, 6))
    for step in [-1, 0, 3, 4, 5, 8, 12, 15]:
        for head in [0, 1, 2, 3]:
            view = snapshot_view(step, head, history, tokens, query=5)
            shown = min(max(step, 0) // 4 * 4, 12)                   # последний снимок не позже шага
            assert view.step == shown, (step, head)
            assert view.head == min(max(head, 1), 2)
            assert np.array_equal(view.weights, history.snapshots[shown // 4, view.head - 1])
            assert np.allclose(view.weights.sum(axis=-1), 1)
            assert view.loss == history.losses[max(shown, 1) - 1]
            live.render(view)
            assert_shows(live.painter.image, view.weights)
            assert np.array_equal(heights(live.painter.bars), view.weights[5])
            assert live.painter.cursor.get_xdata()[0] == shown
    assert live.full_redraws == 1                                    # раскладка одна: фон рисуется один раз
    assert set(tokens) <= tick_texts(live.fig)


@pytest.mark.parametrize("step, head, expected", [
    (5, 1, "показываю шаг 4"),
    (40, 1, "обучение шло 12 шагов"),
    (4, 3, "голов 2"),
    (4, 0, "голов 2"),
])
def test_bad_slider_values_give_a_message_not_a_traceback(trained, step, head, expected):
    history, tokens = trained
    assert expected in snapshot_view(step, head, history, tokens).message


def test_snapshot_steps_give_no_message(trained):
    history, tokens = trained
    for step in [0, 4, 8, 12]:
        assert snapshot_view(step, 2, history, tokens).message == ""


def test_different_steps_draw_different_pictures(trained):
    history, tokens = trained
    live = LiveFigure(SnapshotPainter(), new_figure(9, 6))
    first = live.render(snapshot_view(0, 1, history, tokens)).copy()
    last = live.render(snapshot_view(12, 1, history, tokens))
    assert not np.array_equal(first, last)


def test_explorer_slider_moves_through_snapshots(trained):
    history, tokens = trained
    explorer = training_explorer(history, tokens, query=5)
    assert set(explorer.controls) == {"step", "head"}
    assert (explorer.controls["step"].step, explorer.controls["step"].max) == (4, 12)
    before, redraws = explorer.image.value, explorer.live.full_redraws
    explorer.controls["step"].value = 8
    assert explorer.state.step == 8 and explorer.image.value != before
    assert explorer.live.full_redraws == redraws                     # та же раскладка: только данные
    explorer.controls["head"].value = 2
    assert explorer.state.head == 2 and explorer.message.value == ""


def test_one_head_has_no_head_slider_and_bad_history_is_explained():
    nt.manual_seed(0)
    model = TinyAttention(4, 2, d_model=4, num_heads=1)
    ids = np.array([[0, 1, 2]])
    history = train(model, lambda m: nt.cross_entropy(m(ids, read_at=[0]), np.array([1])), steps=4,
                    probe=ids[0], snapshot_every=2)
    assert set(training_explorer(history, list("абв")).controls) == {"step"}
    with pytest.raises(ValueError, match="подписей 2"):
        training_explorer(history, list("аб"))
    empty = History(np.ones(3), np.array([], dtype=np.int64), np.empty((0, 0, 0, 0)))
    with pytest.raises(ValueError, match="probe"):
        snapshot_view(0, 1, empty, [])

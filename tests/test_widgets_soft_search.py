"""Виджет мягкого поиска (урок 02) без браузера: вид на сетке ползунков, отрисовка, сообщения."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.soft_search import (
    CATALOGUE_KEYS, CATALOGUE_LABELS, CATALOGUE_VALUES, QUERY_RANGE, SoftSearchPainter, soft_search_explorer,
    soft_search_view,
)
from widget_asserts import heights

GRID = np.linspace(-QUERY_RANGE, QUERY_RANGE, 5)


@pytest.fixture(scope="module")
def live():
    """Одна фигура на все тесты модуля: раскладка одна, строится один раз (это дольше всего)."""
    return LiveFigure(SoftSearchPainter(), new_figure(12, 4.8))


def test_grid_of_sliders_draws_and_holds_invariants(live):
    for qx, qy, tau in itertools.product(GRID, GRID, [0.1, 1.0, 10.0]):
        view = soft_search_view(qx, qy, tau)
        assert np.isclose(view.weights.sum(), 1) and (view.weights >= 0).all()
        assert np.allclose(view.output, view.weights @ CATALOGUE_VALUES)      # выход — смесь значений
        assert (view.output >= 0).all() and (view.output <= 1).all()           # смесь цветов — снова цвет
        assert view.best == np.argmax(CATALOGUE_KEYS @ [qx, qy])
        live.render(view)
        assert np.array_equal(heights(live.painter.bars), view.weights)
        assert np.allclose(live.painter.soft.get_facecolor()[:3], view.output)          # квадрат — смешанный цвет
        assert live.painter.hard_text.get_text() == CATALOGUE_LABELS[view.best]
        assert np.allclose(live.painter.star.get_xydata()[0], [qx, qy])
    assert live.full_redraws == 1                # каталог тот же: двигаются только данные
    labels = {t.get_text() for ax in live.fig.axes for t in ax.get_xticklabels()}
    assert set(CATALOGUE_LABELS) <= labels


def test_default_query_gives_the_article_mix():
    """Запрос «про нейросети» по умолчанию: 60 % — машинное обучение, 30 % — оптимизация, 10 % — статистика."""
    view = soft_search_view(0.0, 4.0, 1.0)
    assert np.allclose(view.weights[:3], [0.6, 0.3, 0.1], atol=0.01)
    assert view.weights[3:].sum() < 0.01
    assert view.message == ""


def test_small_temperature_turns_soft_search_into_hard_lookup():
    for qx, qy in [(0, 4), (2, -1), (-3, 1), (-1, -3)]:
        view = soft_search_view(qx, qy, 0.1)
        assert np.allclose(view.output, CATALOGUE_VALUES[view.best], atol=0.02)


def test_large_temperature_flattens_the_weights():
    view = soft_search_view(0, 4, 10.0)
    assert view.weights.max() - view.weights.min() < 0.2
    assert view.entropy > soft_search_view(0, 4, 1.0).entropy > soft_search_view(0, 4, 0.1).entropy


def test_longer_query_acts_like_lower_temperature():
    """Оценки q·k растут с длиной запроса: удвоить запрос — то же, что вдвое уменьшить τ."""
    assert np.allclose(soft_search_view(0, 4, 1.0).weights, soft_search_view(0, 2, 0.5).weights)


@pytest.mark.parametrize("qx, qy, tau, expected", [
    (0, 0, 1.0, "веса поровну"),
    (0, 4, 0, "больше 0"),
    (0, 4, -1, "больше 0"),
    (0, 4, float("nan"), "больше 0"),
    (float("nan"), 1, 1.0, "обычных чисел"),
    (float("inf"), 1, 1.0, "обычных чисел"),
])
def test_bad_slider_values_give_a_message_not_a_traceback(qx, qy, tau, expected, live):
    view = soft_search_view(qx, qy, tau)
    assert expected in view.message
    assert np.isclose(view.weights.sum(), 1) and np.isfinite(view.output).all()
    live.render(view)
    assert np.array_equal(heights(live.painter.bars), view.weights)
    assert live.full_redraws == 1


def test_zero_query_weights_are_uniform():
    assert np.allclose(soft_search_view(0, 0, 1.0).weights, 1 / len(CATALOGUE_LABELS))


def test_live_widget_moves_with_sliders_and_reports_messages():
    explorer = soft_search_explorer()
    before = explorer.image.value
    explorer.controls["qx"].value = 3.0
    assert explorer.image.value != before
    assert explorer.state.best == 1                          # запрос повернули к «оптимизации»
    explorer.controls["qx"].value, explorer.controls["qy"].value = 0.0, 0.0
    assert "поровну" in explorer.message.value
    assert explorer.live.full_redraws == 1


def test_own_catalogue_and_its_errors():
    keys = np.array([[1.0, 0.0], [0.0, 1.0]])
    values = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    explorer = soft_search_explorer(keys, values, ["красная", "синяя"], query=(1.0, 1.0))
    assert np.allclose(explorer.state.output, [0.5, 0.0, 0.5])     # равные оценки — цвета пополам
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        soft_search_explorer(np.ones((2, 3)), values, ["a", "b"])
    with pytest.raises(ValueError, match="RGB"):
        soft_search_explorer(keys, values * 2, ["a", "b"])
    with pytest.raises(ValueError, match="подписей 1"):
        soft_search_explorer(keys, values, ["a"])


@settings(max_examples=200, deadline=None)
@given(qx=st.floats(-QUERY_RANGE, QUERY_RANGE), qy=st.floats(-QUERY_RANGE, QUERY_RANGE),
       tau=st.floats(0.1, 10.0))
def test_any_slider_position_gives_a_proper_mixture(qx, qy, tau):
    """Веса в сумме 1, смесь каждого канала — между наименьшим и наибольшим значением (выпуклая комбинация)."""
    view = soft_search_view(qx, qy, tau)
    assert view.message == "" or "поровну" in view.message
    assert np.isclose(view.weights.sum(), 1) and (view.weights >= 0).all()
    assert (view.output >= CATALOGUE_VALUES.min(axis=0) - 1e-12).all()
    assert (view.output <= CATALOGUE_VALUES.max(axis=0) + 1e-12).all()
    assert view.weights[view.best] == view.weights.max()               # у лучшего ключа — наибольший вес

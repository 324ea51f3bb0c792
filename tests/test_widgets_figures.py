"""Картинки виджетов читаются: ни одна подпись не вылезает за край, подписи не повторяются, нужные оси подписаны.

Каждый художник проходит свои виды из test_widgets_painters.CASES (короткие и длинные подписи,
разные раскладки), и после каждого кадра проверяется то, что видит ученик.
"""

import numpy as np
import pytest

from course_lib import widgets as W
from course_lib.widgets._live import LiveFigure, new_figure
from test_widgets_painters import CASES, _history


def drawn_parts(fig, renderer):
    """(что, рамка) для всего, что видно: каждая ось с её делениями и подписями (только нарисованными) и тексты фигуры."""
    for ax in fig.axes:
        if ax.get_visible():
            box = ax.get_tightbbox(renderer)
            if box is not None:
                yield f"ось «{ax.get_title() or ax.get_ylabel() or ax.get_xlabel()}»", box
    for text in fig.texts + ([fig._suptitle] if fig._suptitle else []):
        if text.get_visible() and text.get_text().strip():
            yield f"«{text.get_text()}»", text.get_window_extent(renderer)


def frames(name):
    painter, size, constrained, views = CASES[name]
    live = LiveFigure(painter(), new_figure(*size, layout="constrained" if constrained else None))
    for view in views():
        live.render(view)
        yield live, view


@pytest.mark.parametrize("name", CASES)
def test_no_text_falls_outside_the_figure(name):
    for live, view in frames(name):
        renderer = live.fig.canvas.get_renderer()
        width, height = live.fig.bbox.width, live.fig.bbox.height
        for what, box in drawn_parts(live.fig, renderer):
            inside = box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1
            assert inside, f"{name}: {what} выходит за край фигуры ({box} при {width:.0f}×{height:.0f})"


def colorbars(fig):
    return [ax for ax in fig.axes if getattr(ax, "_colorbar", None) is not None]


@pytest.mark.parametrize("name", CASES)
def test_a_colour_bar_and_its_neighbour_do_not_share_a_label(name):
    for live, view in frames(name):
        renderer = live.fig.canvas.get_renderer()
        for cax in colorbars(live.fig):
            label = cax.get_ylabel()
            box = cax.get_window_extent(renderer)
            right = [ax for ax in live.fig.axes if ax is not cax and ax.get_visible()
                     and ax.get_window_extent(renderer).x0 > box.x1
                     and ax.get_window_extent(renderer).y0 < box.y1 and ax.get_window_extent(renderer).y1 > box.y0]
            if right:
                neighbour = min(right, key=lambda ax: ax.get_window_extent(renderer).x0)
                assert neighbour.get_ylabel() != label, f"{name}: «{label}» и у цветового столбика, и у соседа справа"


@pytest.mark.parametrize("name", ["explorer", "heads", "causal", "local_window", "training", "temperature", "permutation"])
def test_heatmaps_name_both_axes(name):
    for live, view in frames(name):
        heatmaps = [ax for ax in live.fig.axes if ax.images and getattr(ax, "_colorbar", None) is None]
        assert heatmaps
        assert any(ax.get_xlabel() for ax in heatmaps), f"{name}: у оси ключей нет подписи"
        assert any(ax.get_ylabel() for ax in heatmaps), f"{name}: у оси запросов нет подписи"


def test_every_bar_and_line_panel_names_its_axes():
    for name in ["softmax", "scaling", "online_softmax", "soft_search", "neighbours"]:
        for live, view in frames(name):
            for ax in live.fig.axes:
                if ax.patches and ax.axison and getattr(ax, "_colorbar", None) is None:
                    assert ax.get_ylabel() or not ax.get_yticklabels() or ax.get_yticks().size == 0, \
                        f"{name}: у панели «{ax.get_title()}» нет подписи оси y"


def test_tick_labels_are_readable():
    for name in ["heads", "explorer"]:
        for live, view in frames(name):
            sizes = [t.get_fontsize() for ax in live.fig.axes
                     for t in ax.get_xticklabels() + ax.get_yticklabels() + ax.texts if t.get_text()]
            assert min(sizes) >= 7, f"{name}: подписи делений мельче 7 pt ({min(sizes)})"


def test_cosines_axis_ends_at_one():
    for live, view in frames("neighbours"):
        assert live.painter.bars[0].axes.get_xlim()[1] <= 1.0


def test_online_softmax_titles_say_what_happened():
    for live, view in frames("online_softmax"):
        title = live.painter.titles[2].get_text()
        assert "ℓ" in title and "l =" not in title
        correction = view.corrections[view.step - 1]
        if view.step == 1:
            assert "× 0.000" not in title and "нечего" in title
        elif correction < 1:
            assert f"× {correction:.3f}" in title
        else:
            assert "не вырос" in title


def test_explorer_says_what_the_red_frame_is():
    for live, view in frames("explorer"):
        assert "красн" in live.painter.bar_title.get_text()


def test_training_widget_stores_the_trained_picture():
    history, tokens = _history(6, 0)
    explorer = W.training_explorer(history, tokens)
    assert explorer.controls["step"].value == history.snapshot_steps[-1] == explorer.state.step
    trained = explorer.live.frame.copy()
    explorer.controls["step"].value = 0
    assert explorer.state.step == 0
    assert not np.array_equal(trained, explorer.live.frame), "сохранённая картинка — как до обучения"


def test_caller_can_stretch_the_colour_scale():
    flat = W.attention_explorer(heads=2, vmax=0.3)
    assert all(image.get_clim() == (0.0, 0.3) for image in flat.live.painter.images)
    flat.controls["heads"].value = 3                        # новая раскладка — копия художника с тем же vmax
    assert [image.get_clim() for image in flat.live.painter.images] == [(0.0, 0.3)] * 3
    assert W.heads_explorer(vmax=0.5).live.painter.images[0].get_clim() == (0.0, 0.5)
    with pytest.raises(ValueError, match="vmax"):
        W.attention_explorer(vmax=0)

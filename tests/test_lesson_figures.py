"""Проверка подписей картинок уроков (tools/lesson_figures.py) сама не слепая, и кадры виджетов её проходят."""

import os
import pathlib
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pytest

import course_lib as nt
from course_lib import vis
from course_lib.props.induction import attention_only, repeated_blocks
from course_lib.props.induction_training import train_induction
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.induction import AblationPainter, InductionPainter, ablation_view, induction_view
from test_widgets_painters import CASES
from course_lib.widgets.permutation import PermutationPainter, permutation_view
from course_lib.widgets.scaling import ScalingPainter, scaling_view
from tools.lesson_figures import (empty_axis, kernel_ipython_dir, legend_over_data, markers_past_axes,
                                  small_text, text_outside)


def test_a_title_wider_than_the_figure_is_caught():
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.set_title("очень длинный заголовок, который никак не влезет в узкую фигуру")
    problems = text_outside(fig)
    assert len(problems) == 1 and "очень длинный заголовок" in problems[0]


def test_a_fitting_figure_passes():
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.plot([0, 1], [1, 0])
    ax.set(title="коротко", xlabel="x", ylabel="y")
    assert text_outside(fig) == []


def test_heatmap_widens_its_own_figure_for_a_long_title():
    tokens = "the cat sat on".split()
    fig = vis.heatmap(np.full((4, 4), 0.25), tokens, tokens, title="Очень длинный заголовок тепловой карты из многих слов")
    assert text_outside(fig) == [] and fig.axes[0].get_title() == "Очень длинный заголовок тепловой карты из многих слов"


def test_five_point_tick_labels_are_caught_and_ten_point_ones_pass():
    fig, ax = plt.subplots(figsize=(3, 3), dpi=100)
    ax.plot([0, 1], [1, 0])
    assert small_text(fig) == []
    ax.tick_params(labelsize=5)
    problems = small_text(fig)
    assert len(problems) == 1 and "5.2 pt на экране" in problems[0]


def test_the_size_on_screen_follows_the_figure_dpi():
    """7 pt в кадре виджета (dpi 90) на экране в 96 пикселей на дюйм — 6.6 pt: мелко."""
    fig = new_figure(3, 3, layout=None)
    fig.text(0.5, 0.5, "подпись", fontsize=7)
    assert "6.6 pt на экране" in " ".join(small_text(fig))
    fig.texts[0].set_fontsize(7.5)
    assert small_text(fig) == []


def test_a_legend_over_a_curve_is_caught_and_one_beside_it_passes():
    """Как в уроке 09: кривая идёт у верха осей, а легенда «где лучше» легла на неё."""
    fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
    steps = np.arange(100)
    ax.plot(steps, 0.85 + 0.05 * np.sin(steps / 5), label="совпадение префикса")
    ax.plot(steps, 0.1 + 0.3 * steps / 100, label="вес на предыдущий токен")
    ax.legend(loc="upper right")
    problems = legend_over_data(fig)
    assert len(problems) == 1 and "«совпадение префикса»" in problems[0] and "предыдущий" not in problems[0]
    ax.get_legend().remove()
    fig.legend(loc="outside lower center", ncol=2)
    assert legend_over_data(fig) == [] and text_outside(fig) == []


def test_a_legend_over_a_bar_is_caught():
    fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
    ax.bar([0, 1, 2], [0.2, 3.4, 0.2])
    ax.axhline(3.5, ls="--", label="наугад")
    ax.legend(loc="upper center")
    assert "«столбик»" in " ".join(legend_over_data(fig))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    assert legend_over_data(fig) == []


def test_a_marker_on_the_axes_edge_is_caught_and_one_inside_passes():
    """Как в уроке 07: точка текущего шага на последнем шаге — на правой рамке осей, срезана наполовину."""
    fig, ax = plt.subplots(figsize=(6, 2), layout="constrained")
    ax.plot(np.arange(1, 61), np.geomspace(1, 1e-4, 60))
    ax.plot([60], [1e-4], "o", markersize=8, label="шаг 60")
    ax.set_yscale("log")
    ax.set_xlim(0, 60)
    assert "«шаг 60»" in " ".join(markers_past_axes(fig))
    for line in ax.lines:
        line.set_clip_on(False)             # не срезана, но лежит поверх рамки: тоже находка
    assert markers_past_axes(fig) != []
    ax.set_xlim(-1.5, 61.5)
    ax.margins(y=0.12)
    ax.autoscale_view()
    assert markers_past_axes(fig) == []


def test_points_cut_off_entirely_by_the_limits_are_not_a_finding():
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.plot([0, 1, 2, 50], [0.5, 0.6, 0.7, 0.8], "o")
    ax.set(xlim=(-1, 3), ylim=(0, 1))
    assert markers_past_axes(fig) == []


def test_an_axis_far_beyond_the_data_is_caught_and_a_weights_axis_is_not():
    """Как в уроке 03: ось 0…1800 у гистограммы, чьи столбики ниже 220."""
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.bar(np.arange(20), 220 * np.exp(-((np.arange(20) - 10) / 4) ** 2))
    ax.set_ylim(0, 1800)
    problems = empty_axis(fig)
    assert len(problems) == 1 and "от 0 до 1800" in problems[0] and "12% высоты" in problems[0]
    ax.set_ylim(0, 240)
    assert empty_axis(fig) == []
    ax.set_ylim(0, 1)                     # веса и вероятности — на шкале 0…1 всегда, это договор курса
    assert empty_axis(fig) == []


def test_the_scaling_histogram_axis_follows_its_bars():
    """Урок 03: без деления при d_k = 64 столбики ≈ 220 — и ось им по росту; с делением ось выше."""
    live = LiveFigure(ScalingPainter(), new_figure(9, 3.8, layout=None))
    tops = {}
    for d_k, scaled in [(64, False), (512, False), (64, True), (1, False)]:
        live.render(scaling_view(d_k, scaled))
        hist_ax = live.fig.axes[0]
        counts = [bar.get_height() for bar in hist_ax.patches]
        tops[d_k, scaled] = hist_ax.get_ylim()[1]
        assert max(counts) <= tops[d_k, scaled] and empty_axis(live.fig) == [], (d_k, scaled, tops)
    assert tops[64, False] <= 300 < 1200 <= tops[64, True]


def test_the_permutation_colour_scale_shows_the_spread_of_random_weights():
    """Урок 04: случайные веса не выше 0.5; на шкале 0…1 обе карты были ровной мутью."""
    live = LiveFigure(PermutationPainter(), new_figure(9, 4.4, layout=None))
    for shuffle, positional in [(1, False), (3, True)]:
        view = permutation_view("кот сел на тёплый коврик", shuffle, positional)
        live.render(view)
        top = max(view.weights.max(), view.permuted.max())
        for image in (ax.images[0] for ax in live.fig.axes if ax.images):
            assert image.norm.vmin == 0 and top <= image.norm.vmax <= top + 0.1, (image.norm.vmax, top)


def _induction_frames():
    probe = repeated_blocks(1, 12, np.random.default_rng(0))[0]
    nt.manual_seed(0)
    model = attention_only(2)
    history = train_induction(model, steps=10, seed=0, probe=probe, snapshot_every=10)
    tokens = [str(t) for t in probe]
    return {"induction": (InductionPainter, (11, 5.6), True, lambda: [induction_view(10, history, tokens)]),
            "ablation": (AblationPainter, (9, 3.4), True, lambda: [ablation_view(model, probe, [(0, 0)])])}


@pytest.mark.parametrize("name", [*CASES, "induction", "ablation"])
def test_every_widget_frame_has_readable_text_a_free_legend_and_whole_points(name):
    """Подписи не мельче 7 pt, легенда ни на чём нарисованном, точки целиком в рамке — на каждом виде.

    (Ось далеко за данными у виджета бывает нарочно: одна шкала на все положения ползунка, — её не проверяем.)
    """
    painter, size, constrained, views = CASES[name] if name in CASES else _induction_frames()[name]
    live = LiveFigure(painter(), new_figure(*size, layout="constrained" if constrained else None))
    for i, view in enumerate(views()):
        live.render(view)
        for check in (small_text, legend_over_data, markers_past_axes):
            assert check(live.fig) == [], f"{name}, вид {i}: {check(live.fig)}"


def test_kernels_started_with_the_dir_check_figures(tmp_path):
    """Ядро с этим IPYTHONDIR падает на plt.show() у вылезшей подписи — как ячейка урока под nbval."""
    code = ("import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots(figsize=(2, 2)); ax.set_title('x' * 200)\n"
            "try:\n    plt.show()\nexcept AssertionError as e:\n    print('поймано:', str(e).splitlines()[0])\n"
            "plt.close('all'); fig, ax = plt.subplots(figsize=(3, 3)); ax.tick_params(labelsize=5)\n"
            "try:\n    plt.show()\nexcept AssertionError as e:\n    print('поймано:', str(e).splitlines()[0])\n"
            "plt.close('all'); fig, ax = plt.subplots(figsize=(3, 3), layout='constrained')\n"
            "ax.plot([0, 1], [1, 0], label='линия'); ax.legend(loc='center')\n"
            "try:\n    plt.show()\nexcept AssertionError as e:\n    print('поймано:', str(e).splitlines()[0])\n")
    script = tmp_path / "cell.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, IPYTHONDIR=kernel_ipython_dir())
    out = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", str(script)],
                         env=env, capture_output=True, text=True, cwd=pathlib.Path(__file__).parent)
    assert "поймано: подписи картинки выходят за край фигуры" in out.stdout, out.stdout + out.stderr
    assert "поймано: подписи картинки слишком мелкие" in out.stdout, out.stdout + out.stderr
    assert "поймано: легенда закрывает данные" in out.stdout, out.stdout + out.stderr


def test_points_of_a_scatter_count_as_data_and_an_equal_aspect_plane_is_not_checked():
    """Урок 01: точки слов на плоскости — данные; у плоскости с равным масштабом ось y идёт за осью x."""
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.scatter([0, 1, 2], [10, 50, 90])
    ax.axhline(0)
    ax.set_ylim(0, 100)
    assert empty_axis(fig) == []
    ax.set_ylim(0, 1000)
    assert "от 0 до 1000" in " ".join(empty_axis(fig))
    points = np.array([[-3.0, 0.1], [3.0, -0.2], [2.0, 0.3]])
    fig = vis.vectors_2d(points, ["а", "б", "в"])
    assert empty_axis(fig) == []

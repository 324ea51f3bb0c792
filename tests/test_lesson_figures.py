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
from tools.lesson_figures import kernel_ipython_dir, small_text, text_outside


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


def _induction_frames():
    probe = repeated_blocks(1, 12, np.random.default_rng(0))[0]
    nt.manual_seed(0)
    model = attention_only(2)
    history = train_induction(model, steps=10, seed=0, probe=probe, snapshot_every=10)
    tokens = [str(t) for t in probe]
    return {"induction": (InductionPainter, (11, 5.6), True, lambda: [induction_view(10, history, tokens)]),
            "ablation": (AblationPainter, (9, 3.4), True, lambda: [ablation_view(model, probe, [(0, 0)])])}


@pytest.mark.parametrize("name", [*CASES, "induction", "ablation"])
def test_every_widget_frame_has_text_of_at_least_seven_points_on_screen(name):
    painter, size, constrained, views = CASES[name] if name in CASES else _induction_frames()[name]
    live = LiveFigure(painter(), new_figure(*size, layout="constrained" if constrained else None))
    for view in views():
        live.render(view)
        assert small_text(live.fig) == [], f"{name}: {small_text(live.fig)}"


def test_kernels_started_with_the_dir_check_figures(tmp_path):
    """Ядро с этим IPYTHONDIR падает на plt.show() у вылезшей подписи — как ячейка урока под nbval."""
    code = ("import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots(figsize=(2, 2)); ax.set_title('x' * 200)\n"
            "try:\n    plt.show()\nexcept AssertionError as e:\n    print('поймано:', str(e).splitlines()[0])\n"
            "plt.close('all'); fig, ax = plt.subplots(figsize=(3, 3)); ax.tick_params(labelsize=5)\n"
            "try:\n    plt.show()\nexcept AssertionError as e:\n    print('поймано:', str(e).splitlines()[0])\n")
    script = tmp_path / "cell.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, IPYTHONDIR=kernel_ipython_dir())
    out = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", str(script)],
                         env=env, capture_output=True, text=True, cwd=pathlib.Path(__file__).parent)
    assert "поймано: подписи картинки выходят за край фигуры" in out.stdout, out.stdout + out.stderr
    assert "поймано: подписи картинки слишком мелкие" in out.stdout, out.stdout + out.stderr

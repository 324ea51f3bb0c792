"""Проверка подписей картинок уроков (tools/lesson_figures.py) сама не слепая."""

import os
import pathlib
import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np

from course_lib import vis
from tools.lesson_figures import kernel_ipython_dir, text_outside


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


def test_kernels_started_with_the_dir_check_figures(tmp_path):
    """Ядро с этим IPYTHONDIR падает на plt.show() у вылезшей подписи — как ячейка урока под nbval."""
    code = ("import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
            "fig, ax = plt.subplots(figsize=(2, 2)); ax.set_title('x' * 200)\n"
            "try:\n    plt.show()\nexcept AssertionError as e:\n    print('поймано:', str(e).splitlines()[0])\n")
    script = tmp_path / "cell.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, IPYTHONDIR=kernel_ipython_dir())
    out = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", str(script)],
                         env=env, capture_output=True, text=True, cwd=pathlib.Path(__file__).parent)
    assert "поймано: подписи картинки выходят за край фигуры" in out.stdout, out.stdout + out.stderr

"""Виджеты без браузера: чистые функции вида на сетке положений ползунков и их отрисовка.

Каждая комбинация маленьких значений рисуется без ошибок; строки весов в сумме 1;
с маской верхний треугольник нулевой; панелей столько, сколько голов; слова — в подписях.
"""

import itertools

import numpy as np
import pytest

import course_lib as nt
from course_lib import widgets as W
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.causal import CausalPainter
from course_lib.widgets.common import MAX_T, attention_weights, embed_words
from course_lib.widgets.explorer import ExplorerPainter
from course_lib.widgets.permutation import PermutationPainter
from course_lib.widgets.scaling import ScalingPainter
from course_lib.widgets.softmax import SoftmaxPainter, TemperaturePainter
from widget_asserts import assert_changes_only_inside, assert_shows, heights, pixels_of

SENTENCE = "кот сел на тёплый коврик и смотрел в окно"


def tick_texts(fig):
    """Подписи у осей: деления и тексты-подписи токенов (виджеты голов пишут токены текстами)."""
    return {t.get_text() for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels() + ax.texts}


def test_main_explorer_grid_draws_and_holds_invariants():
    live = LiveFigure(ExplorerPainter(), new_figure(8, 6))
    # раскладка (T, голов) — во внешних циклах: фигура перестраивается 12 раз, а не 144
    grid = itertools.product([1, 2, 5, 9], [1, 2, 3], [1, 3, 8], [False, True], [False, True])
    for T, heads, d_k, causal, scaled in grid:
        view = W.attention_view(SENTENCE, T=T, d_k=d_k, heads=heads, causal=causal, scaled=scaled, query=T - 1)
        assert view.weights.shape == (heads, T, T)
        assert np.allclose(view.weights.sum(axis=-1), 1), (T, d_k, heads, causal, scaled)
        if causal:
            assert np.all(np.triu(view.weights, k=1) == 0)
        live.render(view)
        for image, weights in zip(live.painter.images, view.weights):
            assert_shows(image, weights, view.mask)
        assert np.array_equal(heights(live.painter.bars), view.weights[view.head - 1, view.query])
        assert f"«{view.tokens[view.query]}» (голова {view.head})" in live.painter.bar_title.get_text()
        assert f"запрос «{view.tokens[view.query]}»" in live.painter.caption(view)
        titles = [t.get_text() for t in live.painter.panels.ax.texts if t.get_text().startswith("голова")]
        assert len(live.painter.images) == heads and titles == [f"голова {i + 1}" for i in range(heads)]
        assert set(view.tokens) <= tick_texts(live.fig)


def test_sentence_words_become_tokens_and_T_follows():
    view = W.attention_view("собака кусает человека", T=3)
    assert view.tokens == ["собака", "кусает", "человека"]
    view = W.attention_view("собака кусает человека", T=2)
    assert view.tokens == ["собака", "кусает"]
    explorer = W.attention_explorer(sentence="кот сел")
    explorer.controls["sentence"].value = "мама мыла раму очень долго"
    assert explorer.controls["T"].value == 5
    assert explorer.state.tokens == ["мама", "мыла", "раму", "очень", "долго"]
    assert explorer.controls["query"].max == 4


@pytest.mark.parametrize("sentence, T, d_k, expected", [
    ("", 5, 8, "пустое"),
    ("   ", 5, 8, "пустое"),
    ("кот", 1, 8, "Один токен"),
    (" ".join(f"слово{i}" for i in range(40)), 32, 8, "40 слов"),
    (SENTENCE, 4, 1, "d_k = 1"),
    ("кот сел", 9, 8, "T = 2"),
])
def test_bad_slider_values_give_a_message_not_a_traceback(sentence, T, d_k, expected):
    view = W.attention_view(sentence, T=T, d_k=d_k, heads=2)
    assert expected in view.message
    assert np.allclose(view.weights.sum(axis=-1), 1)
    assert 1 <= len(view.tokens) <= MAX_T


def test_bad_values_in_live_widget_show_message():
    explorer = W.attention_explorer()
    explorer.controls["sentence"].value = ""
    assert "пустое" in explorer.message.value
    explorer.controls["sentence"].value = " ".join(["а"] * 40)
    assert "40 слов" in explorer.message.value
    assert len(explorer.state.tokens) == MAX_T
    explorer.controls["sentence"].value = "кот сел на коврик"
    assert explorer.message.value == ""


def test_same_word_same_vector_wherever_it_stands():
    X = embed_words(["на", "кот", "на"], 6, seed=0)
    assert np.array_equal(X[0], X[2]) and not np.array_equal(X[0], X[1])


def test_explorer_weights_match_multi_head_attention():
    """Картинка показывает ровно то, что считает MultiHeadAttention (с делением на √d_k)."""
    nt.manual_seed(3)
    mha = nt.MultiHeadAttention(d_model=12, num_heads=3, causal=True)
    X = np.random.default_rng(1).normal(size=(7, 12))
    mha(X[None])
    weights, _ = attention_weights(mha, X, causal=True, scaled=True)
    assert np.allclose(weights, mha.attn[0])


def test_plugged_model_fixes_heads_and_uses_its_embedding():
    nt.manual_seed(0)
    mha = nt.MultiHeadAttention(d_model=6, num_heads=3)
    calls = []

    def embed(tokens):
        calls.append(list(tokens))
        return np.ones((len(tokens), 6)) * np.arange(len(tokens))[:, None]

    explorer = W.attention_explorer(sentence="a b c d", model=mha, embed=embed)
    assert explorer.controls["heads"].disabled and explorer.controls["heads"].value == 3
    assert calls[-1] == ["a", "b", "c", "d"]
    assert explorer.state.weights.shape == (3, 4, 4)


def test_moving_seed_redraws_without_rebuilding_the_figure():
    explorer = W.attention_explorer(heads=2)
    before, redraws = explorer.image.value, explorer.live.full_redraws
    explorer.controls["seed"].value = 7
    assert explorer.image.value != before
    assert explorer.live.full_redraws == redraws          # та же раскладка: только данные
    explorer.controls["heads"].value = 3
    assert explorer.live.full_redraws == redraws + 1      # другая раскладка: перерисовка целиком


def test_static_fallback_picture_in_mimebundle():
    bundle = W.attention_explorer()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["image/png"].startswith("iVBORw0KGgo")   # base64 PNG


# ---- маленькие исследователи ---------------------------------------------------------


@pytest.mark.parametrize("tau", [0.1, 0.5, 1.0, 3.0, 10.0])
def test_temperature_view_rows_sum_to_one(tau):
    view = W.temperature_view(tau)
    assert np.allclose(view.weights.sum(axis=1), 1)
    live = LiveFigure(TemperaturePainter(), new_figure(4, 4))
    live.render(W.temperature_view(1.0 if tau != 1.0 else 2.0))
    before, where = live.frame.copy(), pixels_of(live.fig, [live.painter.image, live.painter.title])
    live.render(view)
    assert_shows(live.painter.image, view.weights)
    assert f"τ = {tau:.2f}" in live.painter.title.get_text()
    # другая τ меняет только клетки карты и заголовок: оси, подписи и цветовой столбик — те же
    assert_changes_only_inside(before, live.frame, where | pixels_of(live.fig, [live.painter.image, live.painter.title]))


def test_temperature_sharpens_and_flattens():
    sharp, flat = W.temperature_view(0.1), W.temperature_view(10.0)
    assert sharp.weights.max(axis=1).min() > 0.8
    assert flat.weights.max(axis=1).max() < 0.3
    assert "больше 0" in W.temperature_view(0).message


def test_softmax_view_entropy_grows_with_temperature():
    scores, labels = [2.0, 1.0, 0.0, -1.0], list("abcd")
    entropies = [W.softmax_view(tau, scores, labels).entropy for tau in (0.1, 1.0, 10.0)]
    assert entropies[0] < entropies[1] < entropies[2] <= 2.0
    live = LiveFigure(SoftmaxPainter(), new_figure(6, 3))
    for tau in (0.1, 1.0, 10.0):
        view = W.softmax_view(tau, scores, labels)
        live.render(view)
        assert np.array_equal(heights(live.painter.bars), view.weights)
        assert f"энтропия {view.entropy:.2f} бит" in live.painter.title.get_text()
    with pytest.raises(ValueError, match="подписей|подпис"):
        W.softmax_explorer([1.0, 2.0], ["один"])


@pytest.mark.parametrize("d_k", [1, 4, 64, 512])
def test_scaling_view_spread(d_k):
    raw, scaled = W.scaling_view(d_k, scaled=False), W.scaling_view(d_k, scaled=True)
    assert abs(raw.spread / np.sqrt(d_k) - 1) < 0.1            # без деления разброс ≈ √d_k
    assert abs(scaled.spread - 1) < 0.1                          # с делением ≈ 1 при любом d_k
    assert np.isclose(raw.weights.sum(), 1) and np.isclose(scaled.weights.sum(), 1)
    live = LiveFigure(ScalingPainter(), new_figure(8, 3))
    live.render(raw)
    def changing(painter):            # столбики меняют высоту, а ось гистограммы — верх (по росту столбиков)
        hist_ax = painter.hist[0].axes
        return [hist_ax, *hist_ax.get_yticklabels(), *hist_ax.yaxis.get_ticklines(), hist_ax.yaxis.label, painter.bars[0].axes,
                painter.hist_title, painter.weight_title]
    before, where = live.frame.copy(), pixels_of(live.fig, changing(live.painter))
    live.render(scaled)
    assert np.array_equal(heights(live.painter.bars), scaled.weights)
    assert heights(live.painter.hist).sum() == ((scaled.sample_scores >= -40) & (scaled.sample_scores <= 40)).sum()
    assert f"{scaled.spread:.2f}" in live.painter.hist_title.get_text()
    if d_k > 1:                           # при d_k = 1 деление ничего не меняет, кроме подписи
        assert_changes_only_inside(before, live.frame, where | pixels_of(live.fig, changing(live.painter)))


def test_scaling_saturates_without_sqrt():
    assert W.scaling_view(512, scaled=False).weights.max() > 0.95
    assert W.scaling_view(512, scaled=True).entropy > 1.0


@pytest.mark.parametrize("shuffle", [0, 1, 2, 5])
def test_permutation_moves_rows_and_columns_together(shuffle):
    view = W.permutation_view("собака кусает человека и кота", shuffle, positional=False)
    assert view.moved_together
    assert np.allclose(view.permuted, view.weights[view.order][:, view.order])
    if shuffle:
        assert not np.array_equal(view.order, np.arange(len(view.tokens)))
    live = LiveFigure(PermutationPainter(), new_figure(8, 4))
    live.render(view)
    assert [view.tokens[i] for i in view.order] == [t.get_text() for t in live.painter.key_labels]
    assert [t.get_text() for t in live.painter.query_labels] == [t.get_text() for t in live.painter.key_labels]


def test_positional_encoding_breaks_the_permutation_symmetry():
    view = W.permutation_view("собака кусает человека и кота", 1, positional=True)
    assert not view.moved_together


@pytest.mark.parametrize("T, causal, query", list(itertools.product([1, 3, 6], [False, True], [0, 2, 5])))
def test_causal_view_hides_the_future(T, causal, query):
    view = W.causal_view(T, causal, query)
    assert np.allclose(view.weights.sum(axis=1), 1)
    assert view.query == min(query, T - 1)
    if causal:
        assert np.all(np.triu(view.weights, k=1) == 0)
        assert view.hidden == T * (T - 1) // 2
    else:
        assert view.hidden == 0
    live = LiveFigure(CausalPainter(), new_figure(8, 4))
    live.render(view)
    assert_shows(live.painter.image, view.weights, view.mask)
    assert np.array_equal(heights(live.painter.bars), view.weights[view.query])
    assert f"«{view.tokens[view.query]}»" in live.painter.bar_title.get_text()
    assert f"{view.hidden} из {T * T}" in live.painter.title.get_text()


def test_moving_the_query_redraws_only_the_bars():
    live = LiveFigure(CausalPainter(), new_figure(8, 4))
    live.render(W.causal_view(6, True, 5))
    painter = live.painter
    before, where = live.frame.copy(), pixels_of(live.fig, [painter.bars[0].axes, painter.bar_title])
    live.render(W.causal_view(6, True, 2))
    assert_changes_only_inside(before, live.frame, where | pixels_of(live.fig, [painter.bars[0].axes, painter.bar_title]))
    assert painter.bar_title.get_text() == "куда смотрит «starts»"


@pytest.mark.parametrize("tau", [1e-308, 5e-324, 1e-320])
def test_temperature_too_small_for_float_is_raised_with_a_note_not_an_error(tau):
    view = W.temperature_view(tau)                  # оценки / 1e-308 переполнили бы float
    assert np.isfinite(view.weights).all() and np.allclose(view.weights.sum(axis=-1), 1)
    assert view.temperature > tau and "температура" in view.message
    assert W.temperature_view(1e-300).message == ""  # а такая ещё помещается: показана как есть


@pytest.mark.parametrize("tau", [None, "тепло", [1.0]])
def test_temperature_of_a_wrong_type_is_explained(tau):
    view = W.temperature_view(tau)
    assert view.temperature == 1.0 and "число больше 0" in view.message

"""Виджеты урока 09: ползунок по снимкам индукционной головы и флажки абляции — чистые виды и отрисовка."""

import numpy as np
import pytest

import course_lib as nt
from course_lib.props.induction import ablate, attention_only, repeated_blocks
from course_lib.props.induction_training import evaluate, smooth, train_induction
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.induction import (AblationPainter, InductionPainter, ablation_explorer, ablation_view,
                                          induction_explorer, induction_view)


def _trained(length, seed, steps=30):
    probe = repeated_blocks(1, length, np.random.default_rng(seed))[0]
    nt.manual_seed(seed)
    model = attention_only(2)
    history = train_induction(model, steps=steps, seed=seed, probe=probe, snapshot_every=10)
    return model, history, probe, [str(t) for t in probe]


@pytest.fixture(scope="module")
def trained():
    return _trained(6, 0)


def test_view_picks_the_last_snapshot_not_after_the_step(trained):
    _, history, _, tokens = trained
    for step, shown in [(0, 0), (9, 0), (10, 10), (25, 20), (30, 30), (99, 30), (-5, 0)]:
        view = induction_view(step, history, tokens)
        assert view.step == shown, step
        assert np.array_equal(view.weights, history.snapshots[shown // 10])          # (layers, h, T, T)
        assert np.allclose(view.second, smooth(history.second))
    assert "показываю шаг 20" in induction_view(25, history, tokens).message
    assert "обучение шло 30 шагов" in induction_view(99, history, tokens).message
    assert induction_view(20, history, tokens).message == ""
    with pytest.raises(ValueError, match="подписей"):
        induction_view(0, history, tokens[:-1])


def test_painter_draws_the_views_weights_and_the_loss_up_to_the_step(trained):
    _, history, _, tokens = trained
    live = LiveFigure(InductionPainter(), new_figure(11, 5.6))
    for step in [0, 10, 30]:
        view = induction_view(step, history, tokens)
        live.render(view)
        painter = live.painter
        for image, weights in zip(painter.images, view.weights.reshape(4, *view.weights.shape[2:])):
            assert np.array_equal(np.asarray(image.get_array()), weights)
        assert len(painter.second_line.get_xdata()) == step
        assert np.array_equal(painter.second_line.get_ydata(), view.second[:step])
        assert painter.cursor.get_xdata()[0] == step
    assert live.full_redraws == 1
    titles = {ax.get_title() for ax in live.fig.axes}
    assert {"слой 0, голова 0", "слой 1, голова 1"} <= titles


def test_cached_redraw_equals_a_fresh_build_also_after_another_layout(trained):
    _, history, _, tokens = trained
    _, other, _, other_tokens = _trained(9, 1, steps=20)                  # другое T и другая длина кривых
    views = [induction_view(0, history, tokens), induction_view(30, history, tokens),
             induction_view(20, other, other_tokens), induction_view(10, history, tokens)]
    live = LiveFigure(InductionPainter(), new_figure(11, 5.6))
    for view in views:
        redrawn = live.render(view).copy()
        fresh = LiveFigure(InductionPainter(), new_figure(11, 5.6)).render(view)
        assert redrawn.shape == fresh.shape and not (redrawn != fresh).any()


def test_ablation_view_matches_the_ablated_model(trained):
    model, _, probe, tokens = trained
    plain, off = ablation_view(model, probe, []), ablation_view(model, probe, [(0, 1), (0, 1)])
    assert off.heads_off == ((0, 1),)                                    # повторы и порядок не важны
    assert plain.second == pytest.approx(evaluate(model, per_length=16).second)
    assert off.correct.shape == (len(probe) - 1,) and ((0 <= off.correct) & (off.correct <= 1)).all()
    assert not np.allclose(plain.correct, off.correct)
    assert len(off.predicted) == len(probe) - 1


def test_ablation_view_follows_a_model_trained_further():
    """Кэш абляции помнит веса, а не объект: дообученная модель — новые предсказания и новый loss."""
    model, _, probe, _ = _trained(6, 2, steps=10)
    before = ablation_view(model, probe, [(1, 0)])
    for parameter in model.parameters():
        parameter.data += 0.05 * np.random.default_rng(0).normal(size=parameter.data.shape)   # «ещё шаги обучения»
    after = ablation_view(model, probe, [(1, 0)])
    assert not np.allclose(before.correct, after.correct) and before.second != after.second
    assert after.second == pytest.approx(evaluate(ablate(model, [(1, 0)]), per_length=16).second)


def test_ablation_painter_bars_follow_the_view_and_redraw_equals_fresh(trained):
    model, _, probe, tokens = trained
    views = [ablation_view(model, probe, []), ablation_view(model, probe, [(0, 0), (1, 1)])]
    live = LiveFigure(AblationPainter(), new_figure(9, 3.4))
    for view in views:
        redrawn = live.render(view).copy()
        assert [bar.get_height() for bar in live.painter.bars] == list(view.correct)
        assert "0.0, 1.1" in live.painter.title.get_text() or not view.heads_off
        fresh = LiveFigure(AblationPainter(), new_figure(9, 3.4)).render(view)
        assert not (redrawn != fresh).any()
    caption = AblationPainter().caption(views[0])
    assert caption.count("<b>") + caption.count("color:#a00") == len(probe) - 1


def test_explorers_move_with_their_controls(trained):
    model, history, probe, tokens = trained
    explorer = induction_explorer(history, tokens)
    assert (explorer.controls["step"].step, explorer.controls["step"].max, explorer.state.step) == (10, 30, 30)
    before = explorer.image.value
    explorer.controls["step"].value = 10
    assert explorer.state.step == 10 and explorer.image.value != before
    ablation = ablation_explorer(model, probe)
    assert set(ablation.controls) == {"off_0_0", "off_0_1", "off_1_0", "off_1_1"}
    ablation.controls["off_1_0"].value = True
    assert ablation.state.heads_off == ((1, 0),)
    assert "BOS" in ablation.state.tokens[0]

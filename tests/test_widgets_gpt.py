"""Виджеты урока 10 на маленькой модели: кадр после сдвигов — тот же, что у новой фигуры, и виды
говорят, что сделали с «плохими» положениями ползунков. (Те же виджеты на чекпойнте урока — в
tests/test_widgets_ranges.py через benchmarks/widgets.py и в tests/test_gpt_lesson.py.)"""

import dataclasses

import numpy as np
import pytest

import course_lib as nt
from course_lib.props.gpt_training import train_gpt
from course_lib.props.tokenizer import CharTokenizer
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.gpt import (GPTHeadPainter, SamplesPainter, SamplingPainter, gpt_heads_view, samples_explorer,
                                    samples_view, sampling_view, shown_char)

TEXT = "кот сел на тёплый коврик. банк выдал кредит. " * 20
TOKENIZER = CharTokenizer.from_text(TEXT)


@pytest.fixture(scope="module")
def model():
    nt.manual_seed(0)
    return nt.GPT(TOKENIZER.vocab_size, 16, 8, 2, 2)


@pytest.fixture(scope="module")
def run():
    return train_gpt(TEXT, 6, seed=0, T=8, d_model=8, num_heads=2, num_layers=1, eval_every=2,
                     snapshot_steps=(0, 2, 4, 6), sample_len=20, phrases=("кот",), prompt="кот",
                     progress=lambda *args: None)


def frames_match(painter, size, views):
    live = LiveFigure(painter(), new_figure(*size))
    for view in views:
        fresh = LiveFigure(painter(), new_figure(*size)).render(view)
        assert np.array_equal(live.render(view), fresh)


def test_sampling_frames(model):
    frames_match(SamplingPainter, (8, 3), [sampling_view(model, TOKENIZER, "кот", 0.8, 0),
                                           sampling_view(model, TOKENIZER, "кот", 2.0, 3),
                                           sampling_view(model, TOKENIZER, "банк", 0.5, 0)])


def test_heads_frames(model):
    frames_match(GPTHeadPainter, (9, 8), [gpt_heads_view(model, TOKENIZER, "кот сел", 0, 0),
                                          gpt_heads_view(model, TOKENIZER, "кот сел", 1, 1),
                                          gpt_heads_view(model, TOKENIZER, "банк выдал", 0, 1)])


def test_samples_frames(run):
    frames_match(SamplesPainter, (8, 3), [samples_view(run, 6), samples_view(run, 0), samples_view(run, 4)])


def test_sampling_labels_do_not_depend_on_temperature_or_top_k(model):
    views = [sampling_view(model, TOKENIZER, "кот", tau, k) for tau in (0.1, 1.0, 2.0) for k in (0, 1, 5)]
    assert all(v.labels == views[0].labels for v in views)
    assert all(np.isclose(v.probs.sum(), 1.0) or v.probs.sum() < 1 for v in views)
    greedy = sampling_view(model, TOKENIZER, "кот", 1.0, 1)
    assert greedy.probs[0] == 1.0 and (greedy.probs[1:] == 0).all()


def test_same_settings_give_the_same_text_and_the_seed_changes_it(model):
    first = sampling_view(model, TOKENIZER, "кот", 1.0, 0, seed=0)
    assert sampling_view(model, TOKENIZER, "кот", 1.0, 0, seed=0).text == first.text
    assert sampling_view(model, TOKENIZER, "кот", 1.0, 0, seed=1).text != first.text


def test_sampling_text_fills_the_window_and_is_what_generate_writes(model):
    for prompt, tau, k, seed in [("кот", 1.0, 0, 0), ("банк вы", 0.5, 3, 4), ("к", 2.0, 1, 1)]:
        view = sampling_view(model, TOKENIZER, prompt, tau, k, seed=seed)
        ids = TOKENIZER.encode(prompt)[None]
        with nt.fast():
            expected = model.generate(ids, model.max_len - len(prompt), tau, k or None, np.random.default_rng(seed))
        assert view.text == TOKENIZER.decode(expected[0, len(prompt):]), (prompt, tau, k, seed)
        assert len(view.prompt + view.text) == model.max_len and not view.message


def test_a_long_prompt_is_cut_from_the_start_and_said_so(model):
    prompt = "кот сел на тёплый коврик"                                # 24 символа, окно модели — 16
    view = sampling_view(model, TOKENIZER, prompt, 1.0, 0)
    assert view.prompt == prompt[-8:] and len(view.text) == 8     # max(16 − MIN_NEW, 16 // 2) = 8 символов промпта
    assert "последние 8" in view.message and "16" in view.message


def test_samples_view_picks_the_last_snapshot_and_says_so(run):
    view = samples_view(run, 3)
    assert view.step == 2 and "шаг 2" in view.message
    assert samples_view(run, 4).message == "" and samples_view(run, 4).sample == run.snapshots[2].sample
    beyond = samples_view(run, 7)
    assert beyond.step == 6 and "шаг" in beyond.message


@pytest.fixture(scope="module")
def late_run():
    """Прогон, у которого первый снимок — после шага 2, а не 0."""
    return train_gpt(TEXT, 4, seed=0, T=8, d_model=8, num_heads=2, num_layers=1, eval_every=2,
                     snapshot_steps=(2, 4), sample_len=10, phrases=("кот",), prompt="кот",
                     progress=lambda *args: None)


def test_samples_view_before_the_first_snapshot_shows_the_first_and_says_so(late_run):
    view = samples_view(late_run, 0)
    assert view.step == 2 and view.sample == late_run.snapshots[0].sample      # а не последний снимок (шаг 4)
    assert "шаг 2" in view.message
    slider = samples_explorer(late_run).controls["step"]
    assert slider.min == 2 and slider.max == 4                               # ползунок — от первого снимка


def test_samples_explorer_without_snapshots_says_so_in_russian(late_run):
    empty = dataclasses.replace(late_run, snapshots=[])
    with pytest.raises(ValueError, match="нет снимков"):
        samples_explorer(empty)


def test_a_phrase_longer_than_the_window_is_cut_with_a_note(model):
    phrase = "кот сел на тёплый коврик"                                      # 24 символа, окно модели — 16
    view = gpt_heads_view(model, TOKENIZER, phrase)
    assert view.tokens == [shown_char(c) for c in phrase[-model.max_len:]]
    assert str(model.max_len) in view.message and "последние" in view.message
    assert gpt_heads_view(model, TOKENIZER, phrase[:model.max_len]).message == ""

"""Виджет соседей (урок 01): сетка выборов рисуется, вектор слова одинаков в любом предложении."""

import numpy as np
import pytest

from course_lib.props.embeddings import load_corpus, load_sections, train_static_embeddings
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.embeddings import (DEFAULT_WORDS, K_MAX, MIN_ROWS, NeighboursPainter, contexts_for,
                                           embeddings_explorer, explorer_view, neighbours_view)
from widget_asserts import assert_shows


@pytest.fixture(scope="module")
def emb():
    return train_static_embeddings(load_corpus("ru"))


@pytest.fixture(scope="module")
def sections():
    return load_sections("ru")


def test_every_word_context_and_k_draws_and_the_vector_never_moves(emb, sections):
    live = LiveFigure(NeighboursPainter(), new_figure(7.5, 5.4))
    for word in DEFAULT_WORDS:
        count = len(contexts_for(word, sections))
        assert count >= 2, word
        vectors = []
        for context, k in zip(range(count), [3, 8, 15, 1, 8, 15]):
            view = explorer_view(emb, sections, word, context, k)
            assert view.message == "" and view.context[view.position] == word
            assert view.drift == 0.0 and "предложение на него не влияет" in view.note
            assert [w for w, _ in view.neighbours] == [w for w, _ in emb.nearest(word, k=k)]
            vectors.append(view.vector)
            live.render(view)
            assert_shows(live.painter.image, view.vector[None])             # полоска — вектор слова
            labels = [t.get_text() for t in live.painter.labels if t.get_text()]
            assert labels == [f"{w} {c:.2f}" for w, c in view.neighbours]           # подписи = соседи по порядку
            assert [b.get_width() for b in live.painter.bars[:k]] == [c for _, c in view.neighbours]
            assert view.topic in live.painter.sentence.get_text()
        assert all(np.array_equal(v, vectors[0]) for v in vectors)           # одна строка таблицы на все контексты
    assert live.full_redraws == 1                       # одна раскладка на всё: меняются только данные


def test_bank_contexts_cover_money_and_river(sections):
    assert {topic for topic, _ in contexts_for("банк", sections)} == {"финансы", "река"}


def test_slider_values_out_of_range_are_clamped_and_said_so(emb, sections):
    last = len(contexts_for("банк", sections)) - 1
    beyond, first = explorer_view(emb, sections, "банк", 99), explorer_view(emb, sections, "банк", -5)
    assert beyond.context == explorer_view(emb, sections, "банк", last).context and f"показываю {last}" in beyond.message
    assert first.context == explorer_view(emb, sections, "банк", 0).context and "показываю 0" in first.message
    none = explorer_view(emb, sections, "банк", 0, k=0)
    assert len(none.neighbours) == 1 and "соседей" in none.message
    many = explorer_view(emb, sections, "банк", 0, k=10_000)
    assert len(many.neighbours) == len(emb) - 1 and f"первых {K_MAX}" in many.message
    live = LiveFigure(NeighboursPainter(), new_figure(7.5, 5.4))
    live.render(many)
    assert sum(bool(t.get_text()) for t in live.painter.labels) == K_MAX  # на картинке — первые K_MAX


@pytest.mark.parametrize("word, context, expected", [
    ("банкк", "банк выдал кредит", "Похожие слова из словаря: банк"),
    ("квазар", "банк выдал кредит", "Похожих слов в словаре нет"),
    ("банк", "кот сел на тёплый коврик", "нет слова «банк»"),
    ("банк", "", "нет слова «банк»"),
    ("банк", None, "нет слова «банк»"),
])
def test_odd_choices_give_a_message_not_a_traceback(emb, word, context, expected):
    view = neighbours_view(emb, word, context)
    assert expected in view.message
    assert view.word in emb and len(view.neighbours) == 8 and view.drift == 0.0
    live = LiveFigure(NeighboursPainter(), new_figure(7.5, 5.4))
    live.render(view)
    assert f"«{view.word}»" in live.painter.title.get_text()                # показан тот, кого подставили
    assert [t.get_text() for t in live.painter.labels[:8]] == [f"{w} {c:.2f}" for w, c in view.neighbours]


def test_moving_through_sentences_changes_only_the_caption(emb):
    explorer = embeddings_explorer(emb)
    c = explorer.controls
    assert c["word"].value == "банк" and c["context"].max == 5
    bars_before, first_picture = explorer.state.neighbours, explorer.image.value
    redraws = explorer.live.full_redraws
    c["context"].value = 4                                                  # предложение про реку
    assert explorer.state.topic == "река" and explorer.state.neighbours == bars_before
    assert explorer.live.full_redraws == redraws                            # столбики не перерисовывались
    assert explorer.image.value != first_picture                            # подпись сменилась
    c["k"].value = 12
    assert len(explorer.state.neighbours) == 12 and explorer.image.value != first_picture
    c["word"].value = "кот"
    assert c["context"].value == 0 and c["context"].max == len(contexts_for("кот", explorer.sections)) - 1
    assert explorer.state.word == "кот" and "кот" in explorer.state.context and explorer.message.value == ""
    assert explorer.live.full_redraws == redraws                            # и слово, и k — без перестройки


def test_explorer_needs_known_words(emb):
    with pytest.raises(ValueError, match="ни одного слова"):
        embeddings_explorer(emb, words=["квазар"])


def test_mole_explorer_works_on_the_english_corpus():
    emb = train_static_embeddings(load_corpus("mole_en"))
    explorer = embeddings_explorer(emb, words=["mole", "soil", "grams", "skin"], corpus="mole_en")
    assert {topic for topic, _ in contexts_for("mole", explorer.sections)} == {"animal", "chemistry", "medicine"}
    assert explorer.controls["context"].max == 8
    assert explorer.state.word == "mole" and explorer.state.drift == 0.0


@pytest.mark.parametrize("k", [1, 3, 8, K_MAX, K_MAX + 5])
def test_neighbour_bars_fill_the_axis_whatever_k(emb, k):
    """Столбиков столько, сколько соседей (до K_MAX): ни одной пустой строки на оси."""
    view = neighbours_view(emb, "банк", "", k)
    live = LiveFigure(NeighboursPainter(), new_figure(7.5, 5.4))
    live.render(view)
    rows = max(min(k, K_MAX), MIN_ROWS)
    axis = live.painter.bars[0].axes
    assert axis.get_ylim() == (rows - 0.5, -0.5)
    shown = [label for label in live.painter.labels if label.get_text()]
    assert len(shown) == min(k, K_MAX) and all(label.get_position()[1] < rows - 0.5 for label in shown)
    assert [t.get_text() for t in shown] == [f"{w} {c:.2f}" for w, c in view.neighbours[:K_MAX]]


def test_changing_k_gives_the_frame_a_new_figure_would(emb):
    """Ось столбиков меняет высоту в refresh: кадр после сдвига k тот же, что у новой фигуры."""
    live = LiveFigure(NeighboursPainter(), new_figure(7.5, 5.4))
    for k in (15, 3, 8, 1):
        view = neighbours_view(emb, "банк", "", k)
        fresh = LiveFigure(NeighboursPainter(), new_figure(7.5, 5.4)).render(view)
        assert np.array_equal(live.render(view), fresh), k

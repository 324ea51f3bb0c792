"""Главное обещание виджетов: кадр после любых сдвигов ползунков — тот же, что у только что построенной фигуры.

Живая фигура перерисовывает только меняющихся артистов поверх сохранённого фона, а при смене
раскладки строит новую фигуру или берёт её из кэша. Если художник что-то нарисовал в фоне по
первому виду (заголовок, раскладку по длине подписей), кадр следующего вида разойдётся с
картинкой, построенной для него с нуля. Здесь каждый художник проходит цепочку видов —
с той же раскладкой, с другой (другое T, другое число голов, другие подписи, длиннее заголовки)
и снова с первой (из кэша) — и после каждого шага кадр сравнивается пиксель в пиксель.
"""

import numpy as np
import pytest

import course_lib as nt
from course_lib import widgets as W
from course_lib.props.embeddings import load_corpus, train_static_embeddings
from course_lib.props.models import TinyAttention
from course_lib.props.tasks import letters, two_relations
from course_lib.props.training import relations_loss, train
from course_lib.widgets._live import LiveFigure, new_figure
from course_lib.widgets.causal import CausalPainter
from course_lib.widgets.efficient import LocalWindowPainter, OnlineSoftmaxPainter
from course_lib.widgets.embeddings import NeighboursPainter, neighbours_view
from course_lib.widgets.explorer import ExplorerPainter
from course_lib.widgets.heads import HeadsPainter
from course_lib.widgets.permutation import PermutationPainter
from course_lib.widgets.scaling import ScalingPainter
from course_lib.widgets.soft_search import CATALOGUE_KEYS, CATALOGUE_LABELS, SoftSearchPainter
from course_lib.widgets.softmax import SoftmaxPainter, TemperaturePainter
from course_lib.widgets.training import SnapshotPainter

LONG = "собака кусает человека и кота а потом убегает далеко в лес за реку"


def _history(T, seed):
    data = two_relations(16, T=T, K=3, seed=seed)
    nt.manual_seed(seed)
    model = TinyAttention(3, 6, d_model=8, num_heads=2, max_len=T)      # K = 3 буквы, 2K ответов
    history = train(model, lambda m: relations_loss(m, data), steps=8, lr=0.05, probe=data.ids[0], snapshot_every=4)
    return history, letters(data.ids[0], numbered=True)


def _snapshots():
    (short, short_tokens), (long, long_tokens) = _history(5, 0), _history(8, 1)
    return [W.snapshot_view(0, 1, short, short_tokens, query=4), W.snapshot_view(8, 2, short, short_tokens, query=1),
            W.snapshot_view(4, 1, long, long_tokens, query=7), W.snapshot_view(8, 1, short, short_tokens, query=0)]


def _neighbours():
    emb = train_static_embeddings(load_corpus("ru"))
    return [neighbours_view(emb, "банк", "банк выдал кредит", k=3, topic="финансы"),
            neighbours_view(emb, "река", "река течёт к морю", k=15),
            neighbours_view(emb, "кот", "", k=8)]


scores, labels = [2.0, 1.0, 0.5, -1.0], ["a", "b", "c", "d"]
CASES = {
    # имя: (художник, размер фигуры как у виджета, с движком раскладки?, виды по порядку)
    "temperature": (TemperaturePainter, (5.0, 4.4), False, lambda: [
        W.temperature_view(0.3), W.temperature_view(3.0),
        W.temperature_view(1.0, np.eye(3), ["один", "два", "длинное_слово"]), W.temperature_view(0.5)]),
    "softmax": (SoftmaxPainter, (8, 3.6), False, lambda: [
        W.softmax_view(0.2, scores, labels), W.softmax_view(7.0, scores, labels),
        W.softmax_view(1.0, CATALOGUE_KEYS @ [0.0, 4.0], CATALOGUE_LABELS),
        W.softmax_view(0.0, scores, labels)]),
    "soft_search": (SoftSearchPainter, (12, 4.8), True, lambda: [
        W.soft_search_view(0, 4, 1.0), W.soft_search_view(3, -2, 0.1),
        W.soft_search_view(1, 1, 2.0, np.eye(2), np.eye(3)[:2], ["красная книга", "синяя"]),
        W.soft_search_view(0, 0, 9.0)]),
    "scaling": (ScalingPainter, (9, 3.8), False, lambda: [
        W.scaling_view(1, False), W.scaling_view(512, False), W.scaling_view(64, True), W.scaling_view(0, True)]),
    "explorer": (ExplorerPainter, (8, 6), False, lambda: [
        W.attention_view("кот сел на тёплый коврик", T=5, heads=2, query=4, head=2),
        W.attention_view("кот сел на тёплый коврик", T=5, heads=2, seed=3, causal=True, query=1),
        W.attention_view(LONG, T=14, heads=5, d_k=4, query=13, head=5),
        W.attention_view("кот сел на тёплый коврик", T=3, heads=1, scaled=False),
        W.attention_view("кот сел на тёплый коврик", T=5, heads=2, query=0)]),
    "permutation": (PermutationPainter, (9, 4.4), False, lambda: [
        W.permutation_view("кот сел на тёплый коврик", 1, False), W.permutation_view("кот сел на тёплый коврик", 1, True),
        W.permutation_view(LONG, 3, False), W.permutation_view("кот сел на тёплый коврик", 0, False)]),
    "causal": (CausalPainter, (9, 4.2), False, lambda: [
        W.causal_view(6, True, 5), W.causal_view(6, False, 2), W.causal_view(11, True, 10), W.causal_view(1, True, 0),
        W.causal_view(6, True, 0)]),
    "heads": (HeadsPainter, (9, 6), False, lambda: [
        W.heads_view(4), W.heads_view(4, seed=3), W.heads_view(8), W.heads_view(5), W.heads_view(1, sentence=LONG),
        W.heads_view(4)]),
    "training": (SnapshotPainter, (9, 6), False, _snapshots),
    "neighbours": (NeighboursPainter, (7.5, 5.4), False, _neighbours),
    "online_softmax": (OnlineSoftmaxPainter, (10, 6), False, lambda: [
        W.online_softmax_view(6, 1), W.online_softmax_view(6, 4), W.online_softmax_view(1, 20),
        W.online_softmax_view(24, 1), W.online_softmax_view(6, 2)]),
    "local_window": (LocalWindowPainter, (10, 4.6), False, lambda: [
        W.local_window_view(4, 9), W.local_window_view(11, 0), W.local_window_view(1, 10)]),
}


def fresh_frame(painter, size, constrained, view):
    return LiveFigure(painter(), new_figure(*size, layout="constrained" if constrained else None)).render(view)


@pytest.mark.parametrize("name", CASES)
def test_redrawn_frame_equals_a_fresh_build(name):
    painter, size, constrained, views = CASES[name]
    live = LiveFigure(painter(), new_figure(*size, layout="constrained" if constrained else None))
    for i, view in enumerate(views()):
        redrawn = live.render(view).copy()
        fresh = fresh_frame(painter, size, constrained, view)
        assert redrawn.shape == fresh.shape, f"{name}, вид {i}: размер кадра {redrawn.shape} вместо {fresh.shape}"
        differ = int((redrawn != fresh).any(axis=-1).sum())
        assert differ == 0, f"{name}, вид {i}: {differ} пикселей не как у фигуры, построенной с нуля"


# Модули виджетов уроков 00–08; новый модуль виджета добавляется сюда вместе со своими видами в CASES.
LESSON_WIDGETS = {"softmax", "embeddings", "soft_search", "scaling", "explorer", "permutation", "causal",
                  "masked_row", "heads", "training", "efficient"}


def _all_subclasses(cls):
    return {sub for direct in cls.__subclasses__() for sub in {direct} | _all_subclasses(direct)}


def test_every_painter_of_the_course_is_in_the_table():
    import importlib

    from course_lib.widgets.base import Painter

    for module in LESSON_WIDGETS:
        importlib.import_module(f"course_lib.widgets.{module}")
    painters = {cls for cls in _all_subclasses(Painter) if cls.__module__.removeprefix("course_lib.widgets.") in LESSON_WIDGETS}
    tested = {case[0] for case in CASES.values()}
    untested = {cls.__name__ for cls in painters if not any(issubclass(t, cls) for t in tested)}
    assert len(tested) == 12 and not untested, f"художники без проверки: {untested}"

"""Виды виджетов уроков 00–10 на значениях, которых ползунок не даёт: дробное вместо целого, текст, None, nan, inf,
True, огромное. Вид не бросает исключение (ни английское, ни MemoryError) и не молчит: в `message` по-русски сказано,
что показано вместо просимого."""

import functools
import re

import numpy as np
import pytest

import course_lib as nt
from course_lib import widgets as W
from course_lib.props.gpt_training import GPTRun, Snapshot
from course_lib.props.tokenizer import CharTokenizer
from course_lib.props.training import History
from course_lib.widgets.gpt import gpt_heads_view, samples_view, sampling_view
from course_lib.widgets.training import snapshot_view

RUSSIAN = re.compile("[а-яё]", re.IGNORECASE)

@functools.lru_cache(maxsize=None)
def tiny_gpt():
    """GPT урока 10 в миниатюре (2 слоя, 2 головы, окно 16) и его словарь: виду всё равно, обучен ли он."""
    tokenizer = CharTokenizer.from_text("кот сел на тёплый коврик")
    nt.manual_seed(0)
    return nt.GPT(tokenizer.vocab_size, 16, 8, 2, 2), tokenizer


def tiny_history():
    """История обучения урока 07: снимки после шагов 0, 4, 8 для 2 голов на 5 токенах."""
    weights = np.full((3, 2, 5, 5), 0.2)
    return History(np.linspace(2.0, 1.0, 8), np.array([0, 4, 8]), weights)


def tiny_run():
    """Прогон train_gpt со снимками после шагов 0, 2, 4 — только то, что читает samples_view."""
    snapshots = [Snapshot(s, 3.0 - s / 4, f"после {s}", ()) for s in (0, 2, 4)]
    return GPTRun(*tiny_gpt(), np.ones(4), np.array([0, 2, 4]), np.array([3.0, 2.5, 2.0]), snapshots, 0.0)


# целые ползунки: (имя, вид от значения)
INTEGER_SLIDERS = {
    "03 scaling d_k": lambda v: W.scaling_view(v, True),
    "03 attention T": lambda v: W.attention_view(T=v),
    "03 attention d_k": lambda v: W.attention_view(d_k=v),
    "03 attention heads": lambda v: W.attention_view(heads=v),
    "03 attention query": lambda v: W.attention_view(query=v),
    "03 attention head": lambda v: W.attention_view(head=v),
    "04 permutation shuffle": lambda v: W.permutation_view("кот сел на коврик", v, False),
    "05 causal T": lambda v: W.causal_view(v, True, 0),
    "05 causal query": lambda v: W.causal_view(6, True, v),
    "06 heads h": lambda v: W.heads_view(v),
    "08 online block": lambda v: W.online_softmax_view(v, 1),
    "08 online step": lambda v: W.online_softmax_view(4, v),
    "08 window": lambda v: W.local_window_view(v, 9),
    "08 window query": lambda v: W.local_window_view(4, v),
    "any seed": lambda v: W.causal_view(4, True, 1, seed=v),
    "07 training step": lambda v: snapshot_view(v, 1, tiny_history()),
    "07 training head": lambda v: snapshot_view(4, v, tiny_history()),
    "07 training query": lambda v: snapshot_view(4, 1, tiny_history(), query=v),
    "10 sampling top_k": lambda v: sampling_view(*tiny_gpt(), "кот", 1.0, v),
    "10 sampling seed": lambda v: sampling_view(*tiny_gpt(), "кот", 1.0, 0, seed=v),
    "10 heads layer": lambda v: gpt_heads_view(*tiny_gpt(), "кот сел", v, 0),
    "10 heads head": lambda v: gpt_heads_view(*tiny_gpt(), "кот сел", 0, v),
    "10 samples step": lambda v: samples_view(tiny_run(), v),
}
NOT_WHOLE = {"fraction": 2.5, "text": "3", "None": None, "nan": float("nan"), "inf": float("inf"), "True": True}


# T=None у видов уроков 03 и 05 значит «все слова предложения» — это не ошибка
ODD = [(name, value) for name in INTEGER_SLIDERS for value in NOT_WHOLE if not (name.endswith(" T") and value == "None")]


@pytest.mark.parametrize("name, value", ODD, ids=[f"{n}-{v}" for n, v in ODD])
def test_an_integer_slider_given_a_non_integer_says_what_it_shows(name, value):
    view = INTEGER_SLIDERS[name](NOT_WHOLE[value])
    assert RUSSIAN.search(view.message) and "целое" in view.message, f"{name} = {NOT_WHOLE[value]!r}: {view.message!r}"


def test_a_whole_float_is_taken_silently():
    assert W.causal_view(6.0, True, 2.0).message == "" and W.causal_view(6.0, True, 2.0).query == 2


@pytest.mark.parametrize("view", [lambda: W.scaling_view(10**9, True), lambda: W.attention_view(d_k=10**9),
                                  lambda: W.attention_view(heads=10**9)])
def test_a_huge_size_is_capped_with_a_note_not_a_memory_error(view):
    assert "показываю" in view().message


@pytest.mark.parametrize("tau", [None, "тепло"])
def test_soft_search_temperature_of_a_wrong_type_is_explained(tau):
    view = W.soft_search_view(0.5, 0.5, tau)
    assert "температура" in view.message and np.isclose(view.weights.sum(), 1)


def test_window_query_past_T_uses_the_common_clamp_note():
    view = W.local_window_view(4, 99)
    assert view.query == len(view.tokens) - 1 and "запрос №" in view.message and "99" in view.message


@pytest.mark.parametrize("value", ["yes", "False", 1, None, np.nan], ids=["yes", "текст False", "1", "None", "nan"])
@pytest.mark.parametrize("view, what, fallback", [
    (lambda v: W.causal_view(4, v, 1), "маска", False),
    (lambda v: W.attention_view(causal=v), "маска", False),
    (lambda v: W.attention_view(scaled=v), "делить на √d_k", True),
], ids=["05 маска", "03 маска", "03 масштаб"])
def test_a_switch_given_a_non_bool_says_what_it_shows(view, what, fallback, value):
    shown = view(value)
    assert f"«{what}» — флажок" in shown.message and repr(value) in shown.message, shown.message
    honest = view(fallback)
    assert honest.message == "" and np.array_equal(shown.weights, honest.weights), "показано не то, что сказано"


@pytest.mark.parametrize("words, told", [("кот", "1 слово"), ("кот сел на", "3 слова"),
                                         ("а б в г д е ж з и к л", "11 слов")])
def test_the_word_count_note_agrees_in_number(words, told):
    assert f"В предложении {told} — поэтому" in W.attention_view(sentence=words, T=12).message


@pytest.mark.parametrize("args, what", [(("0.5", 0.5, 1.0), "запрос x"), ((0.5, True, 1.0), "запрос y"),
                                        ((0.5, 0.5, "0.3"), "температура"), ((0.5, 0.5, [1.0]), "температура")],
                         ids=["x текстом", "y — True", "τ текстом", "τ списком"])
def test_soft_search_slider_given_a_non_number_says_so_and_shows_the_fallback(args, what):
    view = W.soft_search_view(*args)
    assert f"«{what}» — число, а пришло" in view.message, view.message
    assert np.isclose(view.weights.sum(), 1)
    assert W.soft_search_view(0.5, 0.5, 1.0).message == "" and W.soft_search_view(np.float32(0.5), 1, 2).message == ""


@pytest.mark.parametrize("view, shown", [
    (lambda: sampling_view(*tiny_gpt(), "кот", 1.0, 2.7), lambda v: v.top_k == 2),
    (lambda: gpt_heads_view(*tiny_gpt(), "кот сел", 1.5, 0), lambda v: v.layer == 1),
    (lambda: gpt_heads_view(*tiny_gpt(), "кот сел", 0, np.float32(1.5)), lambda v: v.head == 1),
    (lambda: samples_view(tiny_run(), 2.5), lambda v: v.step == 2),
], ids=["top_k=2.7", "layer=1.5", "head=float32(1.5)", "step=2.5"])
def test_a_lesson_10_slider_between_its_steps_says_it_rounds(view, shown):
    """Задача 36, часть 5: top_k=2.7 и layer=1.5 раньше молча становились 2 и 1."""
    got = view()
    assert shown(got) and "целое число, а пришло" in got.message and "показываю" in got.message, got.message


@pytest.mark.parametrize("tau, told, shown", [
    (0.123, "с точностью до 0.01, а пришло 0.123 — показываю 0.12", 0.12),
    ("тепло", "«температура» — число, а пришло 'тепло'", 0.8),
    (None, "«температура» — число, а пришло None", 0.8),
    (float("nan"), "«температура» — число, а пришло nan — показываю 0.8", 0.8),
    (float("inf"), "от 0.1 до 2.0, а пришло inf — показываю 2.0", 2.0),
    (5.0, "от 0.1 до 2.0, а пришло 5.0 — показываю 2.0", 2.0),
], ids=["0.123", "текст", "None", "nan", "inf", "5"])
def test_the_lesson_10_temperature_says_what_it_shows(tau, told, shown):
    view = sampling_view(*tiny_gpt(), "кот", tau, 0)
    assert told in view.message and view.temperature == shown, view.message


def test_lesson_10_slider_values_on_their_steps_are_taken_silently():
    """Ползунок температуры с шагом 0.1 даёт и 0.30000000000000004: это не «округлил», а целое 2.0 — это 2."""
    assert sampling_view(*tiny_gpt(), "кот", 0.1 + 0.2, 2.0).message == ""
    assert gpt_heads_view(*tiny_gpt(), "кот сел", 1.0, np.int64(1)).message == ""

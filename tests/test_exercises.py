"""Таблица проверок упражнений: каждую `check_*` гоняем на неверных и на верных ответах.

Случаи лежат в tests/checker_cases/lesson_NN.py, по модулю на урок; этот файл собирает все такие
модули сам, его править не нужно. Чтобы добавить случаи (например, для урока 09), создайте
tests/checker_cases/lesson_09.py со списком

    CASES = [
        (check_x, wrong_answer, "кусок подсказки", "id"),   # ❌, и подсказка называет эту ошибку
        (check_x, right_answer, None, "id"),                # ✅
    ]

У каждой проверки из `course_lib.exercises.__all__` должно быть не меньше 8 неверных ответов
и 5 верных, записанных по-разному (списки и кортежи, циклы, float32 в другом порядке, Tensor, другие
функции NumPy) — это тоже проверяется. Подсказка к неверному ответу — по-русски, без английского текста
ошибки Python. Заготовка с `raise NotImplementedError` даёт ⏳, а ответ любого типа и любое исключение
в коде ученика — русский вердикт ❌, а не падение проверки.
"""

import importlib
import re
import pkgutil
from collections import Counter

import numpy as np
import pytest

import checker_cases
import course_lib.exercises as exercises
from course_lib.exercises._checker import UNREADABLE

from checker_asserts import assert_not_solved, assert_russian

CHECKERS = {name: getattr(exercises, name) for name in exercises.__all__ if name.startswith("check_")}
CASES = [case for info in pkgutil.iter_modules(checker_cases.__path__) if info.name.startswith("lesson_")
         for case in importlib.import_module(f"checker_cases.{info.name}").CASES]

# Так выглядят ошибки NumPy по-английски: ученик не должен видеть их вместо подсказки.
RAW_NUMPY = ["could not be broadcast", "core dimension", "not aligned", "out of bounds", "cannot reshape",
             "must match exactly", "axes don't match", "zero-size array", "Traceback"]


@pytest.mark.parametrize("check, candidate, fragment", [case[:3] for case in CASES],
                         ids=[f"{case[0].__name__}-{case[3]}" for case in CASES])
def test_checker_table(check, candidate, fragment, capsys):
    result = check(candidate)
    printed = capsys.readouterr().out
    assert printed.strip().splitlines()[-1] == result.message, printed
    if fragment is None:
        assert result.passed and printed.startswith("✅"), f"верное решение не принято: {result.message}"
        return
    assert not result.passed and result.solved, f"ошибочное решение не поймано: {result.message}"
    assert result.message.startswith("❌")
    assert fragment in result.message, result.message
    assert not any(raw in result.message for raw in RAW_NUMPY), result.message
    assert UNREADABLE.split("(")[0] not in result.message, result.message
    assert_russian(result.message)
    assert_where_not_repeated(result.message)


def assert_where_not_repeated(message):
    """Подсказка не повторяет то, что уже сказано в «где» перед ней («на больших оценках: на больших оценках …»):
    ни одна тройка слов подряд из текста до первого «: » не встречается после него."""
    where, _, hint = message.removeprefix("❌ ").partition(": ")
    triples = lambda text: {tuple(w[i:i + 3]) for w in [re.findall(r"[а-яё]+", text.lower())]
                            for i in range(len(w) - 2)}
    repeated = triples(where) & triples(hint)
    assert not repeated, f"подсказка повторяет своё «где» ({sorted(' '.join(t) for t in repeated)}): {message}"


# Ответы, которых проверка не ждёт: у каждой проверки на любой из них — русский вердикт ❌.
ODD_ANSWERS = {"text": "ответ", "dict": {"ответ": 1.0}, "function": print, "nones": [None, None],
               "generator": (x for x in ()), "object": object(), "nan": float("nan"), "words": np.array(["а", "б"])}


@pytest.mark.parametrize("answer", ODD_ANSWERS, ids=ODD_ANSWERS)
@pytest.mark.parametrize("name", CHECKERS)
def test_any_answer_gets_a_russian_verdict(name, answer, capsys):
    result = CHECKERS[name](lambda *args: ODD_ANSWERS[answer])
    assert not result.passed and result.solved and result.message.startswith("❌"), result.message
    assert UNREADABLE.split("(")[0] not in result.message, result.message
    assert_russian(result.message)


def _raises(error):
    def candidate(*args):
        raise error
    return candidate


ERRORS = {"KeyError": KeyError("word"), "RuntimeError": RuntimeError("something went wrong in the loop"),
          "AssertionError": AssertionError("shapes are not equal"), "StopIteration": StopIteration()}


@pytest.mark.parametrize("error", ERRORS)
@pytest.mark.parametrize("name", CHECKERS)
def test_a_crash_is_told_in_russian_and_named(name, error, capsys):
    result = CHECKERS[name](_raises(ERRORS[error]))
    assert not result.passed and result.solved and "функция упала" in result.message, result.message
    assert error in result.message, f"вердикт должен назвать исключение {error}: {result.message}"
    assert_russian(result.message)


@pytest.mark.parametrize("check", CHECKERS.values(), ids=CHECKERS.keys())
def test_stub_is_not_solved_and_does_not_raise(check, capsys):
    assert_not_solved(check, capsys)


@pytest.mark.parametrize("name", CHECKERS)
def test_every_checker_has_enough_wrong_and_right_answers(name):
    wrong = sum(1 for case in CASES if case[0] is CHECKERS[name] and case[2] is not None)
    right = sum(1 for case in CASES if case[0] is CHECKERS[name] and case[2] is None)
    assert wrong >= 8 and right >= 5, f"{name}: неверных {wrong} (нужно ≥ 8), верных {right} (нужно ≥ 5)"


def test_case_ids_are_unique():
    repeated = [key for key, n in Counter((case[0].__name__, case[3]) for case in CASES).items() if n > 1]
    assert not repeated, repeated


@pytest.mark.parametrize("message", ["unravel_index() missing required argument 'shape' (pos 2)",   # Python 3.10, C
                                     "unravel_index() missing required argument 'shape'"])
def test_missing_argument_is_told_the_same_on_every_python(message):
    """Подсказка не зависит от версии Python: «(pos 2)» функций на C в 3.10 ученику не показываем (и TEACHERS.md с ней
    не расходится между окружениями)."""
    from course_lib.exercises._errors import explain

    kind, text = explain(TypeError(message))
    assert kind == "argument" and text.endswith("не хватает 'shape'"), text

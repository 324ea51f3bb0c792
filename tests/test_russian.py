"""Числа по-русски (course_lib/russian.py): формы слова после числа и разряды через пробел, а не запятую."""

import numpy as np
import pytest

from course_lib.russian import number, plural


@pytest.mark.parametrize("n, said", [(1, "1 ядро"), (2, "2 ядра"), (4, "4 ядра"), (5, "5 ядер"), (11, "11 ядер"),
                                     (12, "12 ядер"), (14, "14 ядер"), (21, "21 ядро"), (22, "22 ядра"),
                                     (111, "111 ядер"), (112, "112 ядер"), (101, "101 ядро"), (0, "0 ядер")])
def test_plural_picks_the_form_russian_grammar_asks_for(n, said):
    assert plural(n, "ядро", "ядра", "ядер") == said


@pytest.mark.parametrize("n, said", [(0, "0"), (999, "999"), (1000, "1 000"), (126_767, "126 767"),
                                     (124_439_808, "124 439 808"), (-1_234_567, "-1 234 567"),
                                     (np.int64(10_000_000_000), "10 000 000 000"), (np.uint8(255), "255"),
                                     (1e6, "1 000 000"), (np.float64(126767.0), "126 767"), (round(2.5e4 / 3), "8 333")])
def test_number_separates_thousands_with_spaces_not_the_decimal_comma(n, said):
    assert number(n) == said
    assert f"{number(n):>14}".endswith(said)                  # в столбец таблицы — как строка


@pytest.mark.parametrize("bad", [1.5, np.float32(0.1), float("nan"), float("inf"), "1000", True, None, 3 + 0j])
def test_number_refuses_what_is_not_an_integer_and_says_how_to_round(bad):
    with pytest.raises(TypeError, match=r"нужно целое число, а пришло .*number\(round\(x\)\)"):
        number(bad)

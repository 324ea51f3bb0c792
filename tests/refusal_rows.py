"""Строка таблицы плохих входов (tests/test_bad_input.py, tests/test_gpt_refusals.py): вызов, тип отказа и что
в русском сообщении должно быть сказано — что ожидалось и что пришло."""

from dataclasses import dataclass
from typing import Callable


@dataclass
class Row:
    name: str
    call: Callable
    error: type
    expected: str          # регулярное выражение: что ожидалось
    arrived: str           # регулярное выражение: что пришло
    issue: bool = False    # пример из текста задачи

"""Общие проверки для тестов упражнений: заготовка с `raise NotImplementedError` даёт ⏳, а вердикт — по-русски."""

import re

# Служебные слова английских сообщений Python и NumPy: в коде из подсказок (`return m, l, acc`,
# `[vocab[i] for i in order]`) их нет, а в «'float' object cannot be interpreted as an integer» — несколько сразу.
ENGLISH = {"is", "not", "be", "cannot", "must", "of", "the", "an", "as", "with", "got", "object", "defined", "only",
           "could", "has", "are", "was", "were", "into", "type", "unexpected", "argument", "unsupported", "operand"}


def stub(*args):
    """Нерешённое упражнение — как в уроке: `raise NotImplementedError`."""
    raise NotImplementedError


def assert_not_solved(check, capsys):
    result = check(stub)
    assert not result.passed and not result.solved
    assert "ещё не решено" in capsys.readouterr().out


def assert_russian(message):
    """В вердикте нет английского текста ошибки: два служебных слова английской фразы — уже она."""
    english = ENGLISH & set(re.findall(r"[A-Za-z]+", message))
    assert len(english) < 2, f"в вердикте английский текст ({sorted(english)}): {message}"

"""Общие проверки для тестов упражнений: заготовка — ⏳, верное решение — ✅, ошибка — ❌ с нужной подсказкой."""


def stub(*args):
    """Нерешённое упражнение — как в уроке: `raise NotImplementedError`."""
    raise NotImplementedError


def assert_not_solved(check, capsys):
    result = check(stub)
    assert not result.passed and not result.solved
    assert "ещё не решено" in capsys.readouterr().out


def assert_hint(check, wrong, hint):
    result = check(wrong)
    assert not result.passed and result.solved, f"ошибочное решение не поймано: {result.message}"
    assert hint in result.message, result.message

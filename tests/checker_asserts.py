"""Общие проверки для тестов упражнений: заготовка с `raise NotImplementedError` даёт ⏳, а не исключение."""


def stub(*args):
    """Нерешённое упражнение — как в уроке: `raise NotImplementedError`."""
    raise NotImplementedError


def assert_not_solved(check, capsys):
    result = check(stub)
    assert not result.passed and not result.solved
    assert "ещё не решено" in capsys.readouterr().out

"""Отчёт о падении читает преподаватель (tests/conftest.py): сообщение теста — без страниц массивов после него,
голый assert — с разбором pytest, тест с фикстурой path говорит, каким путём он упал и прошёл ли другим."""

import pathlib

import pytest

CONFTEST = (pathlib.Path(__file__).parent / "conftest.py").read_text(encoding="utf-8")

FAILING = '''
import numpy as np
import pytest

def test_message_with_arrays():
    a = np.arange(3000.0)
    assert np.array_equal(a, a + 1), f"веса разошлись: первое число {a[0]} против {a[0] + 1}"

def test_numpy_err_msg():
    np.testing.assert_allclose(np.zeros(2000), np.full(2000, 0.5), err_msg="потери не те")

def test_bare_assert():
    x = 3
    assert x == 4

@pytest.fixture(params=["plain", "fast"])
def path(request):
    return request.param

def test_only_fast_is_wrong(path):
    value = 1.0 if path == "plain" else 1.5
    assert value == 1.0, f"сумма весов {value}, а должна быть 1"
'''


def test_failure_reports_read_well(pytester):
    """Один запуск pytest в подпроцессе (секунды) — и все три вида отчёта."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_demo=FAILING)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=4, passed=1)
    report = result.stdout.str()
    # сообщение теста — без массивов, которые pytest и NumPy дописали бы после него; место падения названо
    assert "веса разошлись: первое число 0.0 против 1.0" in report
    assert "потери не те" in report and "Max absolute difference" in report
    assert "array([" not in report and "x: array" not in report, report
    assert "(test_demo.py:6, test_message_with_arrays)" in report, report
    # голый assert — разбор pytest со значениями
    assert "assert 3 == 4" in report
    # тест с фикстурой path: какой путь неверен
    assert "сумма весов 1.5, а должна быть 1" in report
    assert "неверен путь «fast»" in report and "по книге тот же тест прошёл" in report

"""Общие настройки тестов: картинки без окна и без утечки фигур между тестами."""

import matplotlib

# Бэкенд выбираем только в этом процессе. Переменную окружения MPLBACKEND не трогаем:
# её унаследовали бы ядра, в которых `make test` (nbval) исполняет уроки, и картинки
# уроков перестали бы выводиться.
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (после выбора бэкенда)
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")

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


@pytest.fixture(params=["plain", "fast"])
def path(request):
    """Тест идёт дважды: по книге и в машинном отделении (`with nt.fast():`) — как SimpleOps и FastOps в minitorch.

    Подключается строкой `pytestmark = pytest.mark.usefixtures("path")` в файле или
    `@pytest.mark.usefixtures("path")` над тестом; сам тест пишется один раз.
    """
    import course_lib as nt

    with nt.fast(request.param == "fast"):
        yield request.param

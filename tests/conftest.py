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


# ---------------------------------------------------------------- make test LESSON=NN (pytest --lesson NN)

def _lesson(config):
    return config.getoption("lesson", default=None)


def pytest_ignore_collect(collection_path, config):
    """С --lesson NN в tests/ собираются только файлы урока (tests/lesson_map.py): так быстрее, чем собрать всё."""
    lesson = _lesson(config)
    if lesson is None or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    from lesson_map import files_of
    return True if collection_path.name not in files_of(lesson) else None


def pytest_collection_modifyitems(config, items):
    lesson = _lesson(config)
    if lesson is None:
        return
    import pathlib

    from course_lib.exercises import BY_LESSON
    from lesson_map import belongs
    stems = [p.stem for p in (pathlib.Path(__file__).parent.parent / "lessons").glob(f"{lesson}_*.ipynb")]
    if not stems:
        raise pytest.UsageError(f"--lesson {lesson}: в lessons/ нет урока {lesson}_*.ipynb")
    keep = [item for item in items if item.path.suffix == ".ipynb"
            or belongs(item, lesson, stems[0], BY_LESSON.get(lesson, ()))]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep

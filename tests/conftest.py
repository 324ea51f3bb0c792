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


@pytest.fixture(autouse=True, scope="module")
def no_event_loop_left_running(request):
    """Файл не оставляет после себя работающий цикл asyncio (его оставляет, например, sync_playwright в фикстуре
    scope="session"). Иначе следующий файл на том же воркере xdist падает в чужом месте: «Sync API inside the
    asyncio loop» или «asyncio.run() cannot be called from a running event loop», — смотря как xdist разложил файлы.
    Проверка после файла падает в том файле, который цикл оставил, при любой раскладке."""
    yield
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    pytest.fail(f"после {request.node.name} в процессе остался работающий цикл asyncio ({loop!r}): "
                "фикстура с циклом (sync_playwright и т. п.) должна закрываться вместе со своим файлом (scope=\"module\")")


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


# ---------------------------------------------------------------- отчёт, который читает преподаватель

PATHS = {"plain": "по книге", "fast": "в машинном отделении (nt.fast())"}
_OUTCOMES = {}            # (файл, тест без [path]) -> {путь: исход}: какой путь уже прошёл в этом процессе
MAX_MESSAGE_LINES = 20


def own_message(error):
    """Сообщение, которое написал тест, без того, что pytest и NumPy дописывают к нему (массивы, «assert ...»).

    None — сообщения нет (голый assert): тогда отчёт pytest с его разбором значений остаётся как есть.
    """
    text = str(error)
    if not text.strip() or text.startswith("assert "):
        return None
    text = text.split("\nassert ")[0]                        # разбор выражения после сообщения — массивы целиком
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith(("x: array", "y: array", "ACTUAL: array", "DESIRED: array")):
            break                                             # np.testing: дальше — оба массива целиком
        lines.append(line)
    if len(lines) > MAX_MESSAGE_LINES:
        lines = lines[:MAX_MESSAGE_LINES] + [f"… и ещё {len(lines) - MAX_MESSAGE_LINES} строк"]
    return "\n".join(lines).strip() or None


def _path_verdict(item, failed):
    """Для тестов с фикстурой path: какой путь упал и как прошёл тот же тест другим путём."""
    params = getattr(item, "callspec", None)
    if params is None or "path" not in params.params:
        return None
    mine = params.params["path"]
    key = (item.path, item.originalname, tuple(sorted((k, repr(v)) for k, v in params.params.items() if k != "path")))
    seen = _OUTCOMES.setdefault(key, {})
    seen[mine] = "упал" if failed else "прошёл"
    if not failed:
        return None
    other = "fast" if mine == "plain" else "plain"
    if seen.get(other) == "прошёл":
        return (f"упал {PATHS[mine]}, а {PATHS[other]} тот же тест прошёл: неверен путь «{mine}» "
                f"(эталон — то, с чем сверяет тест)")
    if seen.get(other) == "упал":
        return f"упал обоими путями: ошибка не в развилке книга / машинное отделение"
    return f"упал {PATHS[mine]} (второй путь, «{other}», идёт следом — смотрите его строку)"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call":
        return
    verdict = _path_verdict(item, report.failed)
    if not report.failed or call.excinfo is None:
        return
    message = own_message(call.excinfo.value) if call.excinfo.errisinstance(AssertionError) else None
    if message is None:
        if verdict:
            report.sections.append(("книга или машинное отделение", verdict))
        return
    where = next((entry for entry in reversed(call.excinfo.traceback) if entry.path == item.path),
                 call.excinfo.traceback[-1])
    try:
        place = where.path.relative_to(item.config.rootpath)
    except ValueError:
        place = where.path
    lines = message.splitlines() + ([verdict] if verdict else []) + [f"({place}:{where.lineno + 1}, {item.name})"]
    report.longrepr = "\n".join(lines)


def pytest_make_parametrize_id(config, val, argname):
    """Байты в имени теста — как текст с \\x-кодами: без экранирования имён (pyproject.toml) pytest склеивал бы
    их с текстом и падал на сборке."""
    if isinstance(val, bytes):
        return repr(val[:40])[2:-1]                           # b'\x89PNG\r\n' -> \x89PNG\r\n
    return None

"""Какие тесты — про какой урок: `make test LESSON=07` (pytest --lesson 07) гоняет ровно их.

У каждого урока без записи здесь есть четыре вещи: его проходы (tools/lesson_passes.py), его пара .py/.ipynb
(tests/test_notebooks.py, по имени тетрадки), числа его текста (tests/test_lesson_claims.py), его таблица проверок упражнений (tests/test_exercises.py, по
course_lib.exercises.BY_LESSON) и файлы тестов из WIDGET_TESTS — виджеты урока без браузера и то, что
нужно только ему. Новый урок без строки здесь не пройдёт tests/test_lesson_map.py.
"""

WIDGET_TESTS = {
    "00": ["test_widgets.py", "test_doctor.py"],
    "01": ["test_widgets_embeddings.py"],
    "02": ["test_widgets_soft_search.py"],
    "03": ["test_widgets.py"],
    "04": ["test_widgets.py"],
    "05": ["test_widgets.py"],
    "06": ["test_widgets_heads.py"],
    "07": ["test_widgets_training.py"],
    "08": ["test_widgets_efficient.py"],
    "09": ["test_widgets_induction.py"],
    "10": ["test_widgets_gpt.py", "test_gpt_lesson.py"],
}

# Файлы, из которых урок берёт свои тесты по имени теста: пара уроков и таблица проверок.
BY_NAME = ("test_notebooks.py", "test_lesson_claims.py", "test_exercises.py")


def files_of(lesson):
    """Имена файлов в tests/, которые собираются для урока lesson."""
    return set(WIDGET_TESTS.get(lesson, ())) | set(BY_NAME)


def belongs(item, lesson, stem, checkers):
    """Тест item — про урок lesson (тетрадка stem, проверки упражнений checkers)?"""
    if item.path.name in WIDGET_TESTS.get(lesson, ()):
        return True
    params = getattr(item, "callspec", None)
    if params is None:
        return True                             # тесты без параметров из BY_NAME — про все уроки сразу
    name = item.name
    if item.path.name in ("test_notebooks.py", "test_lesson_claims.py"):
        return f"[{stem}]" in name
    return any(checker in name for checker in checkers)

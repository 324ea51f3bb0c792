"""tests/lesson_map.py: у каждого урока есть запись, и каждый названный файл тестов есть."""

import pathlib

from course_lib.exercises import BY_LESSON
from lesson_map import WIDGET_TESTS, files_of

TESTS = pathlib.Path(__file__).resolve().parent
LESSONS = sorted(p.name[:2] for p in (TESTS.parent / "lessons").glob("[0-9][0-9]_*.ipynb"))


def test_every_lesson_has_its_tests_and_only_lessons_do():
    assert sorted(WIDGET_TESTS) == LESSONS, (f"уроки в lessons/: {LESSONS}, записи в tests/lesson_map.py: "
                                             f"{sorted(WIDGET_TESTS)} — добавьте строку новому уроку")
    missing = {lesson: name for lesson in LESSONS for name in files_of(lesson) if not (TESTS / name).exists()}
    assert not missing, f"в tests/lesson_map.py названы файлы, которых нет: {missing}"


def test_every_lesson_with_exercises_is_known_to_the_checker_table():
    assert set(BY_LESSON) <= set(LESSONS), f"проверки упражнений уроков, которых нет: {set(BY_LESSON) - set(LESSONS)}"

"""Упражнения с мгновенной проверкой: `check_*` печатает ✅, ❌ с подсказкой или ⏳ «ещё не решено»."""

from course_lib.exercises._checker import Result, Wrong, checker
from course_lib.exercises.softmax import check_softmax

__all__ = ["Result", "Wrong", "checker", "check_softmax"]

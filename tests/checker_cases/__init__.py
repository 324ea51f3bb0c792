"""Случаи для таблицы проверок упражнений: по модулю lesson_NN.py на урок, в каждом список CASES (см. tests/test_exercises.py)."""

"""Виджеты курса: ползунки над картинками. Импортируют только уроки — ядро course_lib о них не знает."""

from course_lib.widgets.softmax import temperature_heatmap, temperature_view

__all__ = ["temperature_heatmap", "temperature_view"]

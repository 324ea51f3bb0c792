"""Виджеты курса: ползунки над картинками. Импортируют только уроки — ядро course_lib о них не знает.

Логика каждого — чистая функция `*_view(...)` (её проверяют тесты на сетке значений),
картинку рисует «художник», а ipywidgets только связывают ползунки с ними (см. _live.py).
"""

from course_lib.widgets.causal import causal_explorer, causal_view
from course_lib.widgets.explorer import attention_explorer, attention_view
from course_lib.widgets.permutation import permutation_explorer, permutation_view
from course_lib.widgets.scaling import scaling_explorer, scaling_view
from course_lib.widgets.softmax import softmax_explorer, softmax_view, temperature_heatmap, temperature_view

__all__ = [
    "attention_explorer", "attention_view",
    "temperature_heatmap", "temperature_view", "softmax_explorer", "softmax_view",
    "scaling_explorer", "scaling_view",
    "permutation_explorer", "permutation_view",
    "causal_explorer", "causal_view",
]

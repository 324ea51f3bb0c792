"""Виджеты курса: ползунки над картинками. Импортируют только уроки — ядро course_lib о них не знает.

Логика каждого — чистая функция `*_view(...)` (её проверяют тесты на сетке значений),
картинку рисует «художник», а ipywidgets только связывают ползунки с ними (см. _live.py).
Без Jupyter виджет рисуют через `Explorer.frame()` и `Explorer.quiet()`, а показанные виджеты
собирает `recording_shown()` (frames.py; так работает сборщик сайта tools/build_site.py).
"""

from course_lib.widgets.causal import causal_explorer, causal_view
from course_lib.widgets.efficient import (local_window_explorer, local_window_view, online_softmax_explorer,
                                          online_softmax_view)
from course_lib.widgets.embeddings import embeddings_explorer, neighbours_view
from course_lib.widgets.explorer import attention_explorer, attention_view
from course_lib.widgets.frames import Frame, Shown, recording_shown
from course_lib.widgets.gpt import (gpt_heads_explorer, gpt_heads_view, samples_explorer, samples_view,
                                    sampling_explorer, sampling_view)
from course_lib.widgets.heads import heads_explorer, heads_view
from course_lib.widgets.induction import ablation_explorer, ablation_view, induction_explorer, induction_view
from course_lib.widgets.permutation import permutation_explorer, permutation_view
from course_lib.widgets.scaling import scaling_explorer, scaling_view
from course_lib.widgets.soft_search import soft_search_explorer, soft_search_view
from course_lib.widgets.softmax import softmax_explorer, softmax_view, temperature_heatmap, temperature_view
from course_lib.widgets.training import snapshot_view, training_explorer

__all__ = [
    "temperature_heatmap", "temperature_view",                           # урок 00
    "embeddings_explorer", "neighbours_view",                            # урок 01
    "softmax_explorer", "softmax_view", "soft_search_explorer", "soft_search_view",   # урок 02
    "scaling_explorer", "scaling_view", "attention_explorer", "attention_view",       # урок 03
    "permutation_explorer", "permutation_view",                          # урок 04
    "causal_explorer", "causal_view",                                    # урок 05
    "heads_explorer", "heads_view",                                      # урок 06
    "training_explorer", "snapshot_view",                                # урок 07
    "online_softmax_explorer", "online_softmax_view", "local_window_explorer", "local_window_view",  # урок 08
    "induction_explorer", "induction_view", "ablation_explorer", "ablation_view",    # урок 09
    "samples_explorer", "samples_view",   # урок 10
    "sampling_explorer", "sampling_view", "gpt_heads_explorer", "gpt_heads_view",
    "Frame", "Shown", "recording_shown",                                 # кадры без Jupyter (сборщик сайта)
]

"""Упражнения с мгновенной проверкой: `check_*` печатает ✅, ❌ с подсказкой или ⏳ «ещё не решено».

Каждая проверка живёт рядом со своей темой; здесь они собраны, чтобы было видно, какие есть.
"""

from course_lib.exercises._checker import Result, Wrong, checker
from course_lib.exercises.causal import check_causal_weights, check_padding_mask
from course_lib.exercises.efficient import check_kv_step, check_online_softmax_step
from course_lib.exercises.embeddings import check_cosine, check_nearest, check_one_hot_lookup
from course_lib.exercises.gpt import check_bigram_loss, check_next_token_probs
from course_lib.exercises.induction import check_layer_norm, check_prefix_matching, check_previous_token_head
from course_lib.exercises.multi_head import check_merge_heads, check_split_heads
from course_lib.exercises.permutation import check_equivariance_gap, check_permutation_matrix
from course_lib.exercises.self_attention import check_attention, check_self_attention
from course_lib.exercises.soft_search import check_attend_one
from course_lib.exercises.softmax import check_softmax
from course_lib.exercises.training import check_relation_scores, check_training_loop

# Упражнения по урокам: номер урока -> имена его проверок (в порядке, в каком они идут в уроке).
# Отсюда берут номер урока вердикты, которые записываются для учителя, TEACHERS.md и сбор результатов класса.
BY_LESSON = {
    "01": ("check_cosine", "check_one_hot_lookup", "check_nearest"),
    "02": ("check_softmax", "check_attend_one"),
    "03": ("check_attention", "check_self_attention"),
    "04": ("check_permutation_matrix", "check_equivariance_gap"),
    "05": ("check_causal_weights", "check_padding_mask"),
    "06": ("check_split_heads", "check_merge_heads"),
    "07": ("check_training_loop", "check_relation_scores"),
    "08": ("check_online_softmax_step", "check_kv_step"),
    "09": ("check_prefix_matching", "check_previous_token_head", "check_layer_norm"),
    "10": ("check_next_token_probs", "check_bigram_loss"),
}

__all__ = [
    "Result", "Wrong", "checker", "BY_LESSON",
    "check_cosine", "check_one_hot_lookup", "check_nearest",            # урок 01
    "check_softmax", "check_attend_one",                                 # урок 02
    "check_attention", "check_self_attention",                           # урок 03
    "check_permutation_matrix", "check_equivariance_gap",                # урок 04
    "check_causal_weights", "check_padding_mask",                        # урок 05
    "check_split_heads", "check_merge_heads",                            # урок 06
    "check_training_loop", "check_relation_scores",                      # урок 07
    "check_online_softmax_step", "check_kv_step",                        # урок 08
    "check_prefix_matching", "check_previous_token_head", "check_layer_norm",   # урок 09
    "check_next_token_probs", "check_bigram_loss",                       # урок 10
]

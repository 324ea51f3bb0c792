"""Проверки упражнений урока 08: верное решение — ✅, типичные ошибки — ❌ с нужной подсказкой, заготовка — ⏳."""

import numpy as np
import pytest

from course_lib.exercises.efficient import check_kv_step, check_online_softmax_step

from checker_asserts import assert_hint, assert_not_solved


# ---- шаг online softmax ------------------------------------------------------------------

def step_right(m, l, acc, scores, values):
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    correction = np.exp(m - m_new)
    exp_scores = np.exp(scores - m_new)
    return m_new, l * correction + exp_scores.sum(axis=-1, keepdims=True), acc * correction + exp_scores @ values


def step_block_max_only(m, l, acc, scores, values):
    m_new = scores.max(axis=-1, keepdims=True)
    exp_scores = np.exp(scores - m_new)
    return m_new, l * np.exp(m - m_new) + exp_scores.sum(-1, keepdims=True), acc * np.exp(m - m_new) + exp_scores @ values


def step_no_correction(m, l, acc, scores, values):
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    exp_scores = np.exp(scores - m_new)
    return m_new, l + exp_scores.sum(-1, keepdims=True), acc + exp_scores @ values


def step_flipped_correction(m, l, acc, scores, values):
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    correction = np.exp(m_new - m)
    exp_scores = np.exp(scores - m_new)
    return m_new, l * correction + exp_scores.sum(-1, keepdims=True), acc * correction + exp_scores @ values


def step_raw_exp(m, l, acc, scores, values):
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    correction = np.exp(m - m_new)
    return m_new, l * correction + np.exp(scores).sum(-1, keepdims=True), acc * correction + np.exp(scores) @ values


def step_acc_not_corrected(m, l, acc, scores, values):
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))
    exp_scores = np.exp(scores - m_new)
    return m_new, l * np.exp(m - m_new) + exp_scores.sum(-1, keepdims=True), acc + exp_scores @ values


def test_online_softmax_stub_is_not_solved(capsys):
    assert_not_solved(check_online_softmax_step, capsys)


def test_online_softmax_right_answer_passes(capsys):
    assert check_online_softmax_step(step_right).passed
    assert capsys.readouterr().out.startswith("✅")


@pytest.mark.parametrize("wrong, hint", [
    (step_block_max_only, "из старого m и блока"),
    (step_no_correction, "забыли поправку"),
    (step_flipped_correction, "перевёрнута"),
    (step_raw_exp, "от нового максимума"),
    (step_acc_not_corrected, "acc тоже"),
    (lambda m, l, acc, s, v: (m, l), "три значения"),
    (lambda m, l, acc, s, v: (m[:, 0], l, acc), "m: ожидалась форма"),
    (lambda m, l, acc, s, v: None, "return"),
])
def test_online_softmax_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_online_softmax_step, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")


# ---- шаг с KV-кэшем --------------------------------------------------------------------

def attend(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def kv_right(k_cache, v_cache, q_new, k_new, v_new):
    k_cache = np.concatenate([k_cache, k_new], axis=-2)
    v_cache = np.concatenate([v_cache, v_new], axis=-2)
    return attend(q_new, k_cache, v_cache), k_cache, v_cache


def kv_wrong_axis(k_cache, v_cache, q_new, k_new, v_new):
    k_cache, v_cache = np.concatenate([k_cache, k_new], axis=0), np.concatenate([v_cache, v_new], axis=0)
    return attend(q_new, k_cache, v_cache), k_cache, v_cache


def kv_feature_axis(k_cache, v_cache, q_new, k_new, v_new):
    k_cache, v_cache = np.concatenate([k_cache, k_new], axis=-1), np.concatenate([v_cache, v_new], axis=-1)
    return q_new, k_cache, v_cache


def kv_prepend(k_cache, v_cache, q_new, k_new, v_new):
    k_cache, v_cache = np.concatenate([k_new, k_cache], axis=-2), np.concatenate([v_new, v_cache], axis=-2)
    return attend(q_new, k_cache, v_cache), k_cache, v_cache


def kv_attend_before_append(k_cache, v_cache, q_new, k_new, v_new):
    context = attend(q_new, k_cache, v_cache) if k_cache.shape[-2] else v_new
    return context, np.concatenate([k_cache, k_new], axis=-2), np.concatenate([v_cache, v_new], axis=-2)


def kv_no_sqrt(k_cache, v_cache, q_new, k_new, v_new):
    context, k_cache, v_cache = kv_right(k_cache, v_cache, q_new * np.sqrt(q_new.shape[-1]), k_new, v_new)
    return context, k_cache, v_cache


def test_kv_stub_is_not_solved(capsys):
    assert_not_solved(check_kv_step, capsys)


def test_kv_right_answer_passes(capsys):
    assert check_kv_step(kv_right).passed
    assert capsys.readouterr().out.startswith("✅")


@pytest.mark.parametrize("wrong, hint", [
    (kv_wrong_axis, "axis=-2"),
    (kv_feature_axis, "axis=-2"),
    (kv_prepend, "в начало"),
    (lambda k, v, q, kn, vn: (kv_right(k, v, q, kn, vn)[0], k, v), "новая строка"),   # вернули старый кэш
    (kv_attend_before_append, "не видит сам себя"),
    (kv_no_sqrt, "√d_k"),
    (lambda *a: (a[2], a[0]), "три значения"),
    (lambda *a: None, "return"),
])
def test_kv_mistakes_get_specific_hints(wrong, hint, capsys):
    assert_hint(check_kv_step, wrong, hint)
    assert capsys.readouterr().out.startswith("❌")

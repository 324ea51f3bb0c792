"""Урок 03: scaled dot-product attention и слой самовнимания — неверные ответы (с куском подсказки) и верные (None)."""

import numpy as np

import course_lib as nt
from course_lib.exercises._softmax import naive_softmax as unstable
from course_lib.exercises._softmax import stable_softmax as softmax_rows
from course_lib.exercises.self_attention import check_attention, check_self_attention


def attention(Q, K, V):
    weights = softmax_rows(Q @ K.T / np.sqrt(K.shape[-1]))
    return weights @ V, weights


def attention_loops(Q, K, V):
    """Запрос за запросом, как в уроке 02."""
    d_k = Q.shape[1]
    weights = np.zeros((Q.shape[0], K.shape[0]))
    for i, q in enumerate(Q):
        scores = np.array([q @ k for k in K]) / np.sqrt(d_k)
        e = np.exp(scores - scores.max())
        weights[i] = e / e.sum()
    return weights @ V, weights


def attention_einsum32(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    weights = nt.softmax(np.einsum("qd,kd->qk", Q, K) / np.float32(np.sqrt(Q.shape[-1])))
    return np.einsum("qk,kv->qv", weights, V), weights


def attention_float32_loops(Q, K, V):
    """Во float32 и в другом порядке: строка за строкой, сумма exp — циклом, ответ — списком."""
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    rows = []
    for q in Q:
        scores = K @ q / np.float32(np.sqrt(Q.shape[1]))
        e = np.exp(scores - scores.max())
        total = np.float32(0)
        for value in e[::-1]:
            total += value
        rows.append(e / total)
    weights = np.array(rows)
    return [list(weights @ V), weights]


def with_weights(make_weights):
    """Решение, у которого context честно равен weights @ V, а ошибка только в весах."""
    def solution(Q, K, V):
        weights = make_weights(Q, K)
        return weights @ V, weights
    return solution


def self_attention(X, W_q, W_k, W_v):
    return attention(X @ W_q, X @ W_k, X @ W_v)[0]


def layer(make_weights):
    """Слой самовнимания, у которого ошибка только в весах: make_weights(Q, K, X)."""
    def solution(X, W_q, W_k, W_v):
        return make_weights(X @ W_q, X @ W_k, X) @ (X @ W_v)
    return solution


def attention_in_place(Q, K, V):
    Q /= np.sqrt(Q.shape[-1])
    s = Q @ K.T
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w


def attention_not_divided(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return w @ V, w


CASES = [
    # ---- scaled dot-product attention: неверные
    (check_attention, lambda Q, K, V: attention(Q, K, V)[0], "верните пару", "context-only"),
    (check_attention, lambda Q, K, V: attention(Q, K, V)[::-1], "перепутаны местами", "swapped-pair"),
    (check_attention, lambda Q, K, V: (attention(Q, K, V)[0], attention(Q, K, V)[1].T), "транспонированы", "weights-T"),
    (check_attention, with_weights(lambda Q, K: unstable(Q @ K.T / np.sqrt(K.shape[-1]), axis=0)), "столбцы", "axis0"),
    (check_attention, with_weights(lambda Q, K: np.exp(Q @ K.T / np.sqrt(K.shape[-1]))), "строки весов не дают в сумме 1",
     "not-normalized"),
    (check_attention, with_weights(lambda Q, K: softmax_rows(Q @ K.T)), "забыли поделить оценки на √d_k", "no-sqrt"),
    (check_attention, with_weights(lambda Q, K: softmax_rows(Q @ K.T / K.shape[-1])), "а нужно на √d_k = 4", "by-d_k"),
    (check_attention, with_weights(lambda Q, K: softmax_rows(Q @ K.T / np.sqrt(len(K)))), "√T_k", "by-sqrt-T"),
    (check_attention, with_weights(lambda Q, K: softmax_rows(K @ Q.T / np.sqrt(K.shape[-1]))),
     "оценки Q @ K.T — (T_q, T_k) = (3, 4)", "K-at-QT"),
    (check_attention, with_weights(lambda Q, K: unstable(Q @ K.T / np.sqrt(K.shape[-1]))), "вычтите из каждой строки",
     "unstable"),
    (check_attention, lambda Q, K, V: (attention(Q, K, V)[1] @ V + 1, attention(Q, K, V)[1]), "weights @ V",
     "context-offset"),
    (check_attention, lambda Q, K, V: (attention(Q, K, V)[0][:, :2], attention(Q, K, V)[1]), "context: ожидалась форма",
     "context-shape"),
    (check_attention, lambda Q, K, V: None, "return", "no-return"),
    (check_attention, lambda Q, K, V: (Q @ K @ V, Q), "в умножении матриц", "crash-matmul"),
    (check_attention, lambda Q, K, V: list(attention(Q, K, V))[::-1], "перепутаны местами", "swapped-list"),
    (check_attention, lambda Q, K, V: [attention(Q, K, V)[0]], "верните пару", "list-of-one"),
    (check_attention, lambda Q, K, V: with_weights(lambda Q, K: nt.softmax(Q @ K.T / np.sqrt(K.shape[-1]), dim=-1))(Q, K, V),
     "axis", "torch-dim"),
    (check_attention, lambda Q, K, V: with_weights(lambda Q, K: nt.softmax(Q @ K.T / np.sqrt(d_k)))(Q, K, V),
     "имя d_k не определено", "undefined-d_k"),
    (check_attention, lambda Q, K, V: with_weights(lambda Q, K: softmax_rows(Q @ K.T / K.shape[-1] ** 0.5).T)(Q, K, V)
     if len(Q) != len(K) else attention(Q, K, V), "(T_q, T_k)", "weights-T-crash"),
    (check_attention, lambda Q, K, V: {"context": attention(Q, K, V)[0], "weights": attention(Q, K, V)[1]},
     "верните пару", "dict"),
    # ---- scaled dot-product attention: верные
    (check_attention, lambda Q, K, V: (softmax_rows(K @ Q.T / 4).T @ V, softmax_rows(K @ Q.T / 4).T), "столбцы",
     "K-at-QT-then-T"),
    (check_attention, attention, None, "numpy"),
    (check_attention, attention_loops, None, "loops"),
    (check_attention, attention_einsum32, None, "einsum-float32"),
    (check_attention, nt.scaled_dot_product_attention, None, "library"),
    (check_attention, lambda Q, K, V: list(attention(Q, K, V)), None, "pair-as-list"),
    (check_attention, attention_float32_loops, None, "float32-loops-list"),
    (check_attention, lambda Q, K, V: nt.scaled_dot_product_attention(nt.tensor(Q), nt.tensor(K), nt.tensor(V)), None,
     "library-tensors"),
    (check_attention, lambda Q, K, V: tuple(np.asarray(x).tolist() for x in attention(Q, K, V)), None, "nested-lists"),
    (check_attention, lambda Q, K, V: (np.matmul(softmax_rows(np.dot(Q, K.swapaxes(0, 1)) / np.sqrt(Q.shape[-1])), V),
                                       softmax_rows(np.dot(Q, K.swapaxes(0, 1)) / np.sqrt(Q.shape[-1]))), None,
     "dot-swapaxes"),

    # ---- слой самовнимания: неверные
    (check_self_attention, lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_k, X @ W_v), "только context", "pair"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_k, X)[0], "вы смешали строки X", "V-is-X"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_k, X @ W_v)[1], "это веса", "weights"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_k, X @ W_k)[0], "через W_k", "V-from-W_k"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention(X @ W_k, X @ W_q, X @ W_v)[0], "запросы и ключи перепутаны",
     "QK-swapped"),
    (check_self_attention, layer(lambda Q, K, X: softmax_rows(Q @ K.T)), "забыли поделить", "no-sqrt"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention(X @ W_q, X @ W_q, X @ W_v)[0], "ключи посчитаны через W_q",
     "K-from-W_q"),
    (check_self_attention, layer(lambda Q, K, X: softmax_rows(Q @ K.T / np.sqrt(X.shape[1]))), "√d_model",
     "by-sqrt-d_model"),
    (check_self_attention, layer(lambda Q, K, X: softmax_rows(Q @ K.T / np.sqrt(len(X)))), "√T", "by-sqrt-T"),
    (check_self_attention, layer(lambda Q, K, X: unstable(Q @ K.T / 2, axis=0)), "столбцы", "axis0"),
    (check_self_attention, layer(lambda Q, K, X: unstable(Q @ K.T / np.sqrt(K.shape[1]))), "переполняется", "unstable"),
    (check_self_attention, lambda X, W_q, W_k, W_v: self_attention(X, W_q, W_k, W_v) * 2, "context неверный", "doubled"),
    (check_self_attention, lambda X, W_q, W_k, W_v: self_attention(X, W_q, W_k, W_v)[:, :2], "ожидалась форма (5, 3)",
     "shape"),
    (check_self_attention, lambda X, W_q, W_k, W_v: W_q @ X, "в умножении матриц", "crash-matmul"),
    (check_self_attention, lambda X, W_q, W_k, W_v: list(attention(X @ W_q, X @ W_k, X @ W_v)), "только context",
     "pair-as-list"),
    (check_self_attention, layer(lambda Q, K, X: softmax_rows(Q @ K.T / np.sqrt(K.shape))), "поэлементная операция",
     "sqrt-of-shape"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention(X.dot(W_q), X.dot(W_k), X.dot(W_v))[0].tolist,
     "без скобок", "tolist-without-call"),
    # ---- слой самовнимания: верные
    (check_self_attention, self_attention, None, "numpy"),
    (check_self_attention, lambda X, W_q, W_k, W_v: nt.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)[0],
     None, "library"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention_einsum32(X @ W_q, X @ W_k, X @ W_v)[0], None, "float32"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention_loops(np.dot(X, W_q), np.dot(X, W_k), np.dot(X, W_v))[0],
     None, "loops-dot"),
    (check_self_attention, lambda X, W_q, W_k, W_v: attention_float32_loops(X @ W_q, X @ W_k, X @ W_v)[0], None,
     "float32-list"),
    (check_self_attention, lambda X, W_q, W_k, W_v: nt.scaled_dot_product_attention(*(nt.tensor(X) @ nt.tensor(W)
                                                                                       for W in (W_q, W_k, W_v)))[0],
     None, "tensors"),
    (check_self_attention, lambda X, W_q, W_k, W_v: [list(row) for row in self_attention(X, W_q, W_k, W_v)], None,
     "list-of-rows"),
    (check_attention, attention_in_place, "изменила свой вход Q на месте", "in-place"),
    (check_attention, attention_not_divided, "не поделены на сумму", "exp-shifted-no-sum"),
]

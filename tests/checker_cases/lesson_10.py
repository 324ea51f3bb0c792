"""Урок 10: вероятности следующего символа (температура, top-k) и потери биграмм — неверные ответы (с куском
подсказки) и верные (None)."""

from collections import Counter

import numpy as np

import course_lib as nt
from course_lib.exercises.gpt import check_bigram_loss, check_next_token_probs


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def probs(scale=lambda l, t: l / t, keep=lambda k: k, outside=-np.inf, renormalize=True, stable=True):
    """Вероятности следующего символа; аргументы — где ошибиться (по умолчанию верно)."""
    def my_next_token_probs(logits, temperature, top_k):
        scaled = scale(np.asarray(logits, dtype=float), temperature)
        if top_k is not None:
            kth = np.sort(scaled)[-keep(top_k)]
            kept = scaled >= kth
        else:
            kept = np.ones(len(scaled), dtype=bool)
        if not renormalize:
            return softmax(scaled) * kept
        masked = np.where(kept, scaled, outside)
        e = np.exp(masked - (masked.max() if stable else 0))
        return e / e.sum()
    return my_next_token_probs


def probs_smallest(logits, temperature, top_k):
    """Порог с другого конца: np.sort(...)[k - 1] и «<=» оставляют k самых маленьких."""
    scaled = np.asarray(logits, dtype=float) / temperature
    if top_k is not None:
        scaled = np.where(scaled <= np.sort(scaled)[top_k - 1], scaled, -np.inf)
    return softmax(scaled)


def probs_loop(logits, temperature, top_k):
    """Циклом: порог — k-й по величине, exp со сдвигом на максимум, потом деление на сумму."""
    values = [float(l) / temperature for l in logits]
    threshold = sorted(values, reverse=True)[top_k - 1] if top_k else -float("inf")
    top = max(values)
    e = [np.exp(v - top) if v >= threshold else 0.0 for v in values]
    return [x / sum(e) for x in e]


def probs_power(logits, temperature, top_k):
    """softmax, потом степень 1/τ и деление на сумму — то же, что softmax(logits / τ)."""
    p = softmax(np.asarray(logits, dtype=float)) ** (1 / temperature)
    if top_k is not None:
        p[np.argsort(p)[:-top_k]] = 0.0
    return p / p.sum()


def probs_float32(logits, temperature, top_k):
    scaled = (np.asarray(logits, dtype=np.float32) / np.float32(temperature)).astype(np.float32)
    if top_k is not None:
        scaled[np.argsort(scaled)[:-top_k]] = -np.inf
    return nt.softmax(scaled)


def probs_argpartition(logits, temperature, top_k):
    scaled = np.asarray(logits, dtype=float) / temperature
    keep = np.arange(len(scaled)) if top_k is None else np.argpartition(scaled, -top_k)[-top_k:]
    out = np.zeros(len(scaled))
    out[keep] = softmax(scaled[keep])
    return out


def probs_in_place(logits, temperature, top_k):
    """Делит и маскирует сами логиты вызывающего: `/=` и присваивание в срез."""
    logits /= temperature
    if top_k is not None:
        logits[logits < np.sort(logits)[-top_k]] = -np.inf
    return softmax(logits)


def probs_on_copy(logits, temperature, top_k):
    """То же, но на копии: так можно."""
    scaled = logits.astype(float)
    scaled /= temperature
    if top_k is not None:
        scaled[scaled < np.sort(scaled)[-top_k]] = -np.inf
    return softmax(scaled)


def probs_distinct(logits, temperature, top_k):
    scaled = np.asarray(logits, dtype=float) / temperature
    if top_k is not None:
        scaled = np.where(scaled < np.unique(scaled)[-top_k], -np.inf, scaled)
    return softmax(scaled)


def probs_set(logits, temperature, top_k):
    """Порог через set: тоже k-й среди разных значений."""
    scaled = [float(l) / temperature for l in logits]
    kth = sorted(set(scaled))[-top_k] if top_k else -np.inf
    return softmax(np.array([v if v >= kth else -np.inf for v in scaled]))


def probs_masked_logits(logits, temperature, top_k):
    scaled = np.asarray(logits, dtype=float) / temperature
    if top_k is not None:
        scaled = np.where(scaled < np.sort(scaled)[-top_k], -np.inf, scaled)
    return scaled


def probs_not_divided(logits, temperature, top_k):
    scaled = np.asarray(logits, dtype=float) / temperature
    if top_k is not None:
        scaled = np.where(scaled < np.sort(scaled)[-top_k], -np.inf, scaled)
    return np.exp(scaled - scaled.max())


def probs_none_unchecked(logits, temperature, top_k):
    scaled = np.asarray(logits, dtype=float) / temperature
    return softmax(np.where(scaled < np.sort(scaled)[-top_k], -np.inf, scaled))


def probs_topk_argsort(logits, temperature, top_k):
    """Номера k самых больших через argsort: ровно k, повторы внутри top-k не мешают."""
    scaled = np.asarray(logits, dtype=float) / temperature
    keep = np.argsort(scaled)[::-1][:top_k] if top_k else np.arange(len(scaled))
    masked = np.full(len(scaled), -np.inf)
    masked[keep] = scaled[keep]
    return softmax(masked)


def probs_partition(logits, temperature, top_k):
    scaled = np.asarray(logits, dtype=float) / temperature
    if top_k is not None:
        scaled[scaled < np.partition(scaled, -top_k)[-top_k]] = -np.inf
    return np.exp(scaled - scaled.max()) / np.exp(scaled - scaled.max()).sum()


def bigram_fancy_plus_one(train_ids, val_ids, V):
    """Урок сам предупреждает: counts[a, b] += 1 с массивами номеров считает повторы по разу."""
    counts = np.ones((V, V))
    counts[train_ids[:-1], train_ids[1:]] += 1
    p = counts / counts.sum(axis=1, keepdims=True)
    return -np.log(p[val_ids[:-1], val_ids[1:]]).mean()


def bigram_no_keepdims(train_ids, val_ids, V):
    counts = np.ones((V, V))
    np.add.at(counts, (train_ids[:-1], train_ids[1:]), 1)
    return -np.log((counts / counts.sum(axis=1))[val_ids[:-1], val_ids[1:]]).mean()


def bigram_swapped_counts(train_ids, val_ids, V):
    counts = np.ones((V, V))
    np.add.at(counts, (train_ids[1:], train_ids[:-1]), 1)
    p = counts / counts.sum(axis=1, keepdims=True)
    return -np.log(p[val_ids[:-1], val_ids[1:]]).mean()


def bigram_roll(train_ids, val_ids, V):
    counts = np.ones((V, V))
    np.add.at(counts, (train_ids[:-1], train_ids[1:]), 1)
    p = counts / counts.sum(axis=1, keepdims=True)
    return -np.log(p[val_ids, np.roll(val_ids, -1)]).mean()


def bigram_in_place(train_ids, val_ids, V):
    """Сдвигает номера обучения на месте (чтобы «посчитать» пары через один массив) и не возвращает как было."""
    train_ids[:-1] *= V
    counts = np.bincount(train_ids[:-1] + train_ids[1:] % V, minlength=V * V).reshape(V, V) + 1.0
    p = counts / counts.sum(axis=1, keepdims=True)
    return -np.log(p[val_ids[:-1], val_ids[1:]]).mean()


def bigram_keepdims_int(train_ids, val_ids, V):
    """Счёт в целых, p через log разности: записано иначе, но верно."""
    counts = np.ones((V, V), dtype=np.int64)
    for a, b in zip(train_ids[:-1], train_ids[1:]):
        counts[a][b] += 1
    log_p = np.log(counts) - np.log(counts.sum(axis=-1, keepdims=True))
    return -sum(log_p[a, b] for a, b in zip(val_ids[:-1], val_ids[1:])) / (len(val_ids) - 1)


def bigram(alpha=1.0, axis=1, log=np.log, sign=-1, reduce="mean", on=lambda t, v: v, swap=False, row_plus=0):
    """Loss биграмм; аргументы — где ошибиться (по умолчанию верно)."""
    def my_bigram_loss(train_ids, val_ids, V):
        counts = np.zeros((V, V)) + alpha
        np.add.at(counts, (train_ids[:-1], train_ids[1:]), 1)
        if row_plus:
            counts = counts - alpha
            p = (counts + 1) / (counts.sum(axis=1, keepdims=True) + row_plus)
        elif axis is None:
            p = counts / counts.sum()
        else:
            p = counts / counts.sum(axis=axis, keepdims=True)
        ids = on(train_ids, val_ids)
        prev, nxt = (ids[1:], ids[:-1]) if swap else (ids[:-1], ids[1:])
        return getattr(sign * log(p[prev, nxt]), reduce)()
    return my_bigram_loss


def bigram_counter(train_ids, val_ids, V):
    """Счёт пар Counter, вероятности — циклом."""
    pairs = Counter(zip(train_ids[:-1].tolist(), train_ids[1:].tolist()))
    row = Counter(train_ids[:-1].tolist())
    total = 0.0
    for a, b in zip(val_ids[:-1], val_ids[1:]):
        total -= np.log((pairs[(a, b)] + 1) / (row[a] + V))
    return total / (len(val_ids) - 1)


def bigram_bincount(train_ids, val_ids, V):
    counts = np.bincount(train_ids[:-1] * V + train_ids[1:], minlength=V * V).reshape(V, V) + 1
    log_p = np.log(counts) - np.log(counts.sum(axis=1))[:, None]
    return float(-log_p[val_ids[:-1], val_ids[1:]].mean())


def bigram_float32_list(train_ids, val_ids, V):
    counts = np.ones((V, V), dtype=np.float32)
    for a, b in zip(train_ids[:-1], train_ids[1:]):
        counts[a, b] += 1
    p = counts / counts.sum(axis=1, keepdims=True)
    return [-np.log(p[val_ids[:-1], val_ids[1:]]).mean()]


def bigram_histogram(train_ids, val_ids, V):
    counts, _, _ = np.histogram2d(train_ids[:-1], train_ids[1:], bins=V, range=[[0, V], [0, V]])
    p = (counts + 1) / (counts + 1).sum(axis=1, keepdims=True)
    return np.mean([-np.log(p[a, b]) for a, b in zip(val_ids[:-1], val_ids[1:])])


CASES = [
    # check_next_token_probs: неверные
    (check_next_token_probs, probs(scale=lambda l, t: l * t), "умножены на температуру", "times-temperature"),
    (check_next_token_probs, probs(scale=lambda l, t: l), "температура не учтена", "no-temperature"),
    (check_next_token_probs, lambda l, t, k: probs()(l, t, None), "top_k не учтён", "no-top-k"),
    (check_next_token_probs, probs(renormalize=False), "не пересчитаны", "no-renormalize"),
    (check_next_token_probs, probs(outside=0.0), "заменены на 0", "zero-logits"),
    (check_next_token_probs, probs(keep=lambda k: min(k + 1, 5)), "k + 1", "k-plus-one"),
    (check_next_token_probs, probs(keep=lambda k: max(k - 1, 1)), "k − 1", "k-minus-one"),
    (check_next_token_probs, lambda l, t, k: softmax(np.asarray(l, float)) ** (1 / t), "не пересчитаны: разделите",
     "power-no-sum"),
    (check_next_token_probs, probs(stable=False), "вычтите из логитов их максимум", "overflow"),
    (check_next_token_probs, lambda l, t, k: np.log(probs()(l, t, k)), "логарифмы вероятностей", "log-probs"),
    (check_next_token_probs, probs_smallest, "самые маленькие", "smallest"),
    (check_next_token_probs, lambda l, t, k: probs()(l, t, k)[:-1], "ожидалась форма", "shape"),
    (check_next_token_probs, probs_in_place, "изменила свой вход logits на месте", "in-place"),
    (check_next_token_probs, probs_distinct, "среди разных значений", "distinct-kth-unique"),
    (check_next_token_probs, probs_set, "среди разных значений", "distinct-kth-set"),
    (check_next_token_probs, probs_masked_logits, "вернулись логиты", "masked-logits"),
    (check_next_token_probs, lambda l, t, k: np.asarray(l, float) / t, "вернулись логиты", "scaled-logits"),
    (check_next_token_probs, probs_not_divided, "не поделён на сумму", "not-divided"),
    (check_next_token_probs, lambda l, t, k: probs(scale=lambda l, t: l)(l, t, k) / t, "поделены вероятности",
     "softmax-over-temperature"),
    (check_next_token_probs, probs_none_unchecked, "top_k = None значит", "none-unchecked"),
    # check_next_token_probs: верные, записанные по-разному
    (check_next_token_probs, probs(), None, "numpy"),
    (check_next_token_probs, probs_loop, None, "loop-list"),
    (check_next_token_probs, probs_power, None, "power-renormalized"),
    (check_next_token_probs, probs_float32, None, "float32-nt-softmax"),
    (check_next_token_probs, probs_argpartition, None, "argpartition"),
    (check_next_token_probs, lambda l, t, k: tuple(probs()(l, t, k)), None, "tuple"),
    (check_next_token_probs, probs_on_copy, None, "in-place-on-copy"),
    (check_next_token_probs, probs_topk_argsort, None, "argsort-exactly-k"),
    (check_next_token_probs, probs_partition, None, "partition-float-copy"),
    # check_bigram_loss: неверные
    (check_bigram_loss, bigram(alpha=0.0), "сглаживание Лапласа", "no-smoothing"),
    (check_bigram_loss, bigram(axis=0), "axis=0", "columns"),
    (check_bigram_loss, bigram(swap=True), "пара перевёрнута", "swapped"),
    (check_bigram_loss, bigram(log=np.log2), "биты (log2)", "log2"),
    (check_bigram_loss, bigram(sign=1), "потерян минус", "no-minus"),
    (check_bigram_loss, bigram(reduce="sum"), "сумма по парам", "sum"),
    (check_bigram_loss, bigram(on=lambda t, v: t), "на обучающей части", "on-train"),
    (check_bigram_loss, bigram(axis=None), "число всех пар", "joint"),
    (check_bigram_loss, bigram(row_plus=1), "к сумме строки прибавлена 1", "row-plus-one"),
    (check_bigram_loss, lambda t, v, V: bigram()(t, v, V) * np.ones(3), "нужно одно число", "array"),
    (check_bigram_loss, bigram_fancy_plus_one, "np.add.at", "fancy-index-plus-one"),
    (check_bigram_loss, bigram_no_keepdims, "без keepdims=True", "no-keepdims"),
    (check_bigram_loss, bigram_swapped_counts, "пары посчитаны наоборот", "swapped-counts"),
    (check_bigram_loss, bigram_roll, "np.roll", "roll"),
    (check_bigram_loss, bigram_in_place, "изменила свой вход train_ids на месте", "in-place"),
    # check_bigram_loss: верные
    (check_bigram_loss, bigram(), None, "add-at"),
    (check_bigram_loss, bigram_counter, None, "counter-loop"),
    (check_bigram_loss, bigram_bincount, None, "bincount"),
    (check_bigram_loss, bigram_float32_list, None, "float32-list"),
    (check_bigram_loss, bigram_histogram, None, "histogram2d"),
    (check_bigram_loss, bigram_keepdims_int, None, "int-counts-log-difference"),
]

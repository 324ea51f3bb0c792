"""Урок 09: совпадение префикса, голова предыдущего токена, LayerNorm — неверные ответы (с куском подсказки) и верные (None)."""

import numpy as np

import course_lib as nt
from course_lib.exercises.induction import check_layer_norm, check_prefix_matching, check_previous_token_head


def second_copy(weights):
    """L и запросы второй копии q = L+1…2L для весов (h, T, T), T = 1 + 2L."""
    L = (weights.shape[-1] - 1) // 2
    return L, np.arange(L + 1, 2 * L + 1)


def prefix(key_shift, queries=lambda L, q: q, reduce="mean"):
    """Prefix-matching с ключом q − L + key_shift(L) (верно при key_shift = 1) — для неверных вариантов."""
    def my_prefix_matching(weights):
        L, q = second_copy(weights)
        q = queries(L, q)
        picked = weights[:, q, q - L + key_shift(L)]
        return getattr(picked, reduce)(-1)
    return my_prefix_matching


def prefix_right(weights):
    L, q = second_copy(weights)
    return weights[:, q, q - L + 1].mean(axis=-1)


def prefix_loop(weights):
    h, T, _ = weights.shape
    L = (T - 1) // 2
    out = []
    for head in range(h):
        total = 0.0
        for i in range(1, L + 1):                 # запрос L + i — тот же токен, что позиция i
            total += weights[head, L + i, i + 1]
        out.append(total / L)
    return out


def prefix_diagonal(weights):
    L = (weights.shape[-1] - 1) // 2
    block = weights[:, L + 1:, 2:L + 2].astype(np.float32)          # (h, L, L): на диагонали — нужные пары
    return np.diagonal(block, axis1=1, axis2=2).mean(axis=-1)


def prefix_float_L(weights):
    L = (weights.shape[-1] - 1) / 2                                 # float: индексы не целые
    q = np.arange(L + 1, 2 * L + 1)
    return weights[:, q, q - L + 1].mean(axis=-1)


def prefix_range(weights):
    L = (weights.shape[-1] - 1) // 2
    q = range(L + 1, 2 * L + 1)
    return weights[:, q, q - L + 1].mean(axis=-1)


def prefix_float32_list(weights):
    """Голова за головой, во float32, ответ — списком."""
    L = (weights.shape[-1] - 1) // 2
    w = weights.astype(np.float32)
    return [float(np.mean([w[head, q, q - L + 1] for q in range(2 * L, L, -1)])) for head in range(len(w))]


def previous_score(weights):
    t = np.arange(1, weights.shape[-1])
    return weights[..., t, t - 1].mean(axis=-1)                     # (layers, h)


def best(score, pick=np.argmax):
    layer, head = np.unravel_index(pick(score), score.shape)
    return int(layer), int(head)


def previous_loops(weights):
    layers, h, T, _ = weights.shape
    best_score, best_pair = -1.0, None
    for layer in range(layers):
        for head in range(h):
            score = sum(weights[layer, head, t, t - 1] for t in range(1, T)) / (T - 1)
            if score > best_score:
                best_score, best_pair = score, (layer, head)
    return best_pair


def previous_diagonal(weights):
    score = np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)   # диагональ под главной
    return tuple(np.argwhere(score == score.max())[0])


def previous_divmod(weights):
    score = previous_score(weights)
    return list(divmod(int(np.argmax(score)), score.shape[1]))


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) * weight + bias


def layer_norm_loop(x, weight, bias, eps=1e-5):
    out = np.empty(x.shape)
    for index in np.ndindex(x.shape[:-1]):
        row = x[index]
        d = len(row)
        mean = sum(row) / d
        var = sum((r - mean) ** 2 for r in row) / d
        out[index] = [(r - mean) / (var + eps) ** 0.5 * w + b for r, w, b in zip(row, weight, bias)]
    return out


def layer_norm_library(x, weight, bias, eps=1e-5):
    norm = nt.nn.LayerNorm(x.shape[-1], eps=eps)
    norm.weight.data[:], norm.bias.data[:] = weight, bias
    return norm(nt.tensor(x.astype(float)))


def layer_norm_float32(x, weight, bias, eps=1e-5):
    x = x.astype(np.float32)
    centered = x - np.mean(x, axis=-1, keepdims=True)
    return centered / np.sqrt(np.mean(centered**2, axis=-1, keepdims=True) + eps) * weight + bias


def layer_norm_std(x, weight, bias, eps=1e-5):
    """Через np.std, во float32 и с другим порядком действий: (x − mean) · w / σ + b."""
    x = np.asarray(x, dtype=np.float32)
    sigma = np.sqrt(np.std(x, axis=-1, keepdims=True) ** 2 + np.float32(eps))
    return (x - x.mean(axis=-1)[..., None]) * weight.astype(np.float32) / sigma + bias.astype(np.float32)


def norm_with(center=True, var=lambda x: x.var(-1, keepdims=True), root=lambda v, eps: np.sqrt(v + eps),
              affine=lambda y, w, b: y * w + b):
    """LayerNorm с подменённой частью — для неверных вариантов."""
    def my_layer_norm(x, weight, bias, eps=1e-5):
        centered = x - x.mean(-1, keepdims=True) if center else x
        return affine(centered / root(var(x), eps), weight, bias)
    return my_layer_norm


def layer_norm_in_place(x, weight, bias, eps=1e-5):
    x -= x.mean(axis=-1, keepdims=True)
    x /= np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps)
    return x * weight + bias


CASES = [
    # ---- совпадение префикса: неверные
    (check_prefix_matching, prefix(lambda L: 0), "прошлое появление того же токена (q − L)", "duplicate-token"),
    (check_prefix_matching, prefix(lambda L: L - 1), "вес на предыдущий токен", "вес на предыдущий токен"),
    (check_prefix_matching, lambda w: w[:, second_copy(w)[1] - second_copy(w)[0] + 1, second_copy(w)[1]].mean(-1),
     "перепутаны строка и столбец", "row-column"),
    (check_prefix_matching, prefix(lambda L: 1, reduce="sum"), "сумма, а нужно среднее", "sum"),
    (check_prefix_matching, prefix(lambda L: 1, queries=lambda L, q: q - 1), "запросы сдвинуты на один", "queries-from-L"),
    (check_prefix_matching, prefix(lambda L: 1, queries=lambda L, q: q[:-1]), "пропущен последний запрос", "no-last"),
    (check_prefix_matching, lambda w: prefix_right(w).mean(), "по числу на каждую голову", "scalar"),
    (check_prefix_matching, prefix(lambda L: 1, reduce="max"), "это максимум", "max"),
    (check_prefix_matching, prefix_float_L, "L = (T − 1) // 2", "float-L"),
    (check_prefix_matching, lambda w: prefix_right(w)[:1], "ожидалась форма", "shape"),
    (check_prefix_matching, prefix_range, "np.arange", "range-minus"),
    (check_prefix_matching, lambda w: prefix_right(w)[:, None], "out.reshape(3)", "extra-axis"),
    (check_prefix_matching, lambda w: max(prefix_right(w), prefix_right(w)), "встроенных max", "builtin-max"),
    (check_prefix_matching, lambda w: prefix_right(w).tolist, "без скобок", "tolist-without-call"),
    # ---- совпадение префикса: верные
    (check_prefix_matching, prefix_right, None, "fancy-index"),
    (check_prefix_matching, prefix_loop, None, "loops"),
    (check_prefix_matching, prefix_diagonal, None, "diagonal-float32"),
    (check_prefix_matching, prefix_float32_list, None, "float32-list"),
    (check_prefix_matching, lambda w: tuple(prefix_right(w)), None, "tuple"),

    # ---- голова предыдущего токена: неверные
    (check_previous_token_head, lambda w: best(previous_score(w))[::-1], "пара перевёрнута", "swapped"),
    (check_previous_token_head, lambda w: tuple(n + 1 for n in best(previous_score(w))), "номера с единицы", "one-based"),
    (check_previous_token_head, lambda w: best(np.diagonal(w, axis1=-2, axis2=-1)[..., 1:].mean(-1)),
     "смотрит на себя", "self"),
    (check_previous_token_head, lambda w: best(w[..., np.arange(T := w.shape[-1])[:-1], np.arange(T)[1:]].mean(-1)),
     "перепутаны строка и столбец", "row-column"),
    (check_previous_token_head, lambda w: best(previous_score(w), pick=np.argmin), "argmax, а не argmin", "argmin"),
    (check_previous_token_head, lambda w: best(w[..., 1:, 0].mean(-1)), "на первый токен", "first-token-head"),
    (check_previous_token_head, lambda w: int(np.argmax(previous_score(w))), "np.unravel_index", "flat-index"),
    (check_previous_token_head, previous_score, "оценки всех голов", "scores"),
    (check_previous_token_head, lambda w: best(previous_score(w)[:1]), "больше всех на предыдущий токен", "layer-0-only"),
    (check_previous_token_head, lambda w: np.unravel_index(np.argmax(previous_score(w))), "не хватает 'shape'",
     "unravel-without-shape"),
    (check_previous_token_head, lambda w: "слой %d, голова %d" % best(previous_score(w)), "нужна пара целых", "string"),
    (check_previous_token_head, lambda w: (best(previous_score(w)), previous_score(w).max()), "несколько значений",
     "pair-and-score"),
    # ---- голова предыдущего токена: верные
    (check_previous_token_head, lambda w: best(w[..., -1, -2]), "только последняя строка", "last-row-only"),
    (check_previous_token_head, lambda w: best(w[..., np.arange(1, w.shape[-1]), np.arange(w.shape[-1] - 1)].sum(-1)),
     None, "sum-over-rows"),
    (check_previous_token_head, lambda w: best(previous_score(w)), None, "argmax-unravel"),
    (check_previous_token_head, previous_loops, None, "loops"),
    (check_previous_token_head, previous_diagonal, None, "np-diagonal"),
    (check_previous_token_head, previous_divmod, None, "divmod-list"),
    (check_previous_token_head, lambda w: np.array(best(previous_score(w))), None, "array"),
    (check_previous_token_head, lambda w: np.unravel_index(np.argmax(previous_score(w)), previous_score(w).shape), None,
     "unravel-index-tuple"),

    # ---- LayerNorm: неверные
    (check_layer_norm, norm_with(var=lambda x: x.var(-1, ddof=1, keepdims=True)), "несмещённая", "ddof-1"),
    (check_layer_norm, lambda x, w, b, eps=1e-5: (x - x.mean(0)) / np.sqrt(x.var(0) + eps) * w + b, "axis=-1", "axis-0"),
    (check_layer_norm, norm_with(affine=lambda y, w, b: y), "масштаб и сдвиг", "no-affine"),
    (check_layer_norm, norm_with(affine=lambda y, w, b: y * w), "забыли сдвиг", "no-bias"),
    (check_layer_norm, norm_with(affine=lambda y, w, b: y * b + w), "перепутаны", "weight-bias-swapped"),
    (check_layer_norm, norm_with(center=False), "не вычли среднее", "no-center"),
    (check_layer_norm, norm_with(root=lambda v, eps: np.sqrt(v) + eps), "под корнем", "eps-outside"),
    (check_layer_norm, norm_with(root=lambda v, eps: np.sqrt(v)), "без eps", "no-eps"),
    (check_layer_norm, norm_with(root=lambda v, eps: v + eps), "корень", "no-sqrt"),
    (check_layer_norm, lambda x, w, b, eps=1e-5: (x - x.mean(-1)) / np.sqrt(x.var(-1) + eps) * w + b,
     "keepdims=True", "no-keepdims"),
    (check_layer_norm, lambda x, w, b, eps=1e-5: (x - x.mean(-1, keepdim=True)) / np.sqrt(x.var(-1) + eps) * w + b,
     "keepdims", "torch-keepdim"),
    (check_layer_norm, lambda x, w, b, eps=1e-5: (x - x.mean(dim=-1)) * w + b, "axis", "torch-dim"),
    (check_layer_norm, lambda x, w, b, eps=1e-5: (x - np.mean(x)) / np.sqrt(np.var(x) + eps) * w + b,
     "по последней оси", "whole-array"),
    # ---- LayerNorm: верные
    (check_layer_norm, layer_norm, None, "numpy"),
    (check_layer_norm, layer_norm_loop, None, "loops"),
    (check_layer_norm, layer_norm_library, None, "library"),
    (check_layer_norm, layer_norm_float32, None, "float32"),
    (check_layer_norm, layer_norm_std, None, "std-float32-other-order"),
    (check_layer_norm, lambda x, w, b, eps=1e-5: layer_norm(x, w, b, eps).tolist(), None, "tolist"),
    (check_layer_norm, layer_norm_in_place, "изменила свой вход x на месте", "in-place"),
]

"""Упражнения урока 09: совпадение префикса, поиск головы предыдущего токена и LayerNorm своими руками."""

import numpy as np

from course_lib.exercises._checker import (Crashed, Wrong, call, checker, expect_close, expect_numbers, expect_shape,
                                           recognize, tolerance)
from course_lib.exercises._errors import describe
from course_lib.functional import causal_mask, softmax
from course_lib.nn import LayerNorm
from course_lib.props.induction_training import prefix_matching_scores, previous_token_scores


def _causal_weights(rng, shape):
    """Случайные веса с причинной маской: строки в сумме 1, над диагональю нули. shape = (..., T, T)."""
    scores = np.where(causal_mask(shape[-1]), rng.normal(scale=2.0, size=shape), -np.inf)
    return softmax(scores)


def _diagonal(weights, queries, keys):
    if len(queries) == 0:
        raise ValueError("нет запросов")            # у такой ошибки на этом входе ответа нет — recognize пропустит
    return weights[..., queries, keys].mean(axis=-1)


@checker
def check_prefix_matching(candidate):
    """candidate(weights (h, T, T), T = 1 + 2L) -> (h,): средний weights[q, q − L + 1] по q = L+1…2L."""
    rng = np.random.default_rng(9)
    for h, L in [(3, 6), (2, 9), (1, 12), (2, 1)]:
        T = 1 + 2 * L
        weights = _causal_weights(rng, (h, T, T))
        where = f"при h = {h}, L = {L} (T = {T}): "
        try:
            out = call(candidate, weights.copy())
        except Crashed as crash:
            if crash.kind == "integer":
                raise Wrong(f"{where}{crash}. Здесь это L = (T − 1) // 2, а не (T − 1) / 2") from None
            raise
        right = prefix_matching_scores(weights)
        q = L + 1 + np.arange(L)                     # запросы второй копии L+1…2L
        expect_numbers(out, where.rstrip(": "), (h,))
        if out.shape == ():
            raise Wrong(f"{where}нужно по числу на каждую голову, форма (h,) = ({h},): усредняйте по запросам (axis=-1)")
        expect_shape(out, (h,), where.rstrip(": "))
        recognize(out, right, [
            (lambda: _diagonal(weights, q, q - L), "это вес на прошлое появление того же токена (q − L), а нужен "
                                                   "токен после него: q − L + 1"),
            (lambda: _diagonal(weights, q, q - 1), "это вес на предыдущий токен (q − 1), а нужен "
                                                   "токен после прошлого появления: q − L + 1"),
            (lambda: _diagonal(weights, q - L + 1, q), "перепутаны строка и столбец: строка — кто смотрит (запрос q), "
                                                       "столбец — на кого. Нужен weights[:, q, q - L + 1]"),
            (lambda: weights[:, q, q - L + 1].sum(-1), "это сумма, а нужно среднее по запросам: .mean(axis=-1)"),
            (lambda: weights[:, q, q - L + 1].max(-1), "это максимум, а нужно среднее по запросам: .mean(axis=-1)"),
            (lambda: _diagonal(weights, q - 1, q - L), "запросы сдвинуты на один: вторая копия — позиции L+1…2L "
                                                       "(позиция L — последний токен первой копии)"),
            (lambda: _diagonal(weights, q[:-1], q[:-1] - L + 1), "пропущен последний запрос: q = L+1…2L включительно, "
                                                                 "np.arange(L + 1, 2 * L + 1)"),
        ], where)
        expect_close(out, right, f"{where}ответ неверный: средний по q = L+1…2L вес weights[:, q, q - L + 1]")
    return "это и есть совпадение префикса: у индукционной головы он близок к 1"


def _pattern(kind, T):
    """Веса одной головы (T, T) с причинной маской: «prev» — на t − 1, «bos» — на 0, «self» — 0.9 на себя
    и 0.1 на t − 1, «half» — поровну на себя и на t − 1, «two_back» — на t − 2 (при t = 1 — на себя), «mostly_prev» —
    0.9 на t − 1, «bos_soft» — 0.95 на 0, «spike» и «last_prev» — поровну, кроме одной строки; иначе — поровну
    на все разрешённые."""
    t = np.arange(T)
    if kind == "uniform":
        return causal_mask(T) / np.arange(1, T + 1)[:, None]
    weights = np.zeros((T, T))
    if kind in ("self", "half"):
        on_self = 0.9 if kind == "self" else 0.5
        weights[t, t] = on_self
        weights[t[1:], t[1:] - 1] = 1 - on_self
        weights[0, 0] = 1.0
        return weights
    if kind in ("spike", "last_prev"):             # поровну на разрешённые, но одна строка — на t − 1
        weights = causal_mask(T) / np.arange(1, T + 1)[:, None]
        row, on_previous = (3, 1.0) if kind == "spike" else (T - 1, 0.97)
        weights[row] = 0.0
        weights[row, row - 1], weights[row, row] = on_previous, 1 - on_previous
        return weights
    if kind in ("mostly_prev", "bos_soft"):        # 0.9 на t − 1 (или 0.95 на первый токен), остальное — на себя
        key, share = (t - 1, 0.9) if kind == "mostly_prev" else (0 * t, 0.95)
        weights[t[1:], key[1:]] = share
        weights[t[1:], t[1:]] += 1 - share
        weights[0, 0] = 1.0
        return weights
    key = {"prev": t - 1, "bos": 0 * t, "two_back": np.where(t == 1, 1, t - 2)}[kind]
    weights[t, np.maximum(key, 0)] = 1.0
    return weights


# (layers, h, T, какая голова какая); голова предыдущего токена — «prev», остальные — ловушки для ошибок:
# argmin найдёт «two_back», веса на себя — «self», на первый токен — «bos», перепутанные строка и столбец (там нули)
# — голову (0, 0), и она у всех «uniform»; лучшая в слое 0 — «half»: так ни одна ловушка не совпадает с другой.
HEAD_CASES = [
    (2, 3, 9, {(1, 2): "prev", (1, 0): "bos", (0, 2): "self", (1, 1): "two_back", (0, 1): "half"}),
    (3, 2, 12, {(0, 1): "prev", (2, 0): "bos", (2, 1): "self", (1, 1): "two_back"}),
    (1, 5, 6, {(0, 3): "prev", (0, 4): "bos", (0, 1): "self", (0, 2): "two_back"}),
    # голова 0.9 на t − 1 во всех строках; у ловушек больше на t − 1 только в одной строке: в последней
    # («last_prev», 0.97) — её найдёт оценка по последней строке, в строке 3 («spike», 1.0) — максимум по строкам
    # (в первом случае максимум по строкам находит голову «bos» — ответ тот же, что у ошибки «столбец 0»)
    (2, 3, 7, {(1, 1): "mostly_prev", (0, 0): "spike", (0, 1): "last_prev", (0, 2): "bos_soft"}),
]


@checker
def check_previous_token_head(candidate):
    """candidate(weights (layers, h, T, T)) -> (layer, head) головы с наибольшим средним weights[t, t − 1]."""
    for layers, h, T, kinds in HEAD_CASES:
        weights = np.stack([np.stack([_pattern(kinds.get((layer, head), "uniform"), T) for head in range(h)])
                            for layer in range(layers)])                     # (layers, h, T, T)
        target = next(where for where, kind in kinds.items() if kind in ("prev", "mostly_prev"))
        where = f"при весах формы {weights.shape}: "
        out = call(candidate, weights.copy())
        expect_numbers(out, f"{where}нужна пара целых (layer, head)", (2,))
        if out.shape == (layers, h):
            raise Wrong(f"{where}вернулись оценки всех голов {out.shape}, а нужна пара (layer, head) — "
                        "номера самой большой: np.unravel_index(np.argmax(score), score.shape)")
        if out.size == 1:
            raise Wrong(f"{where}вернулось одно число, а нужна пара (layer, head). Если это номер в сплющенном "
                        "массиве — переведите его в пару: np.unravel_index(i, score.shape)")
        if out.shape != (2,) or not np.all(out == np.round(out)):
            raise Wrong(f"{where}нужна пара целых (layer, head), а пришло {describe(out)}")
        answer = tuple(int(n) for n in out)
        if answer == target:
            continue
        t = np.arange(1, T)
        recognize(answer, target, [
            (lambda: target[::-1], "пара перевёрнута: сначала слой, потом голова — (layer, head)"),
            (lambda: tuple(n + 1 for n in target), "номера с единицы, а нужны с нуля, как индексы массива"),
            (lambda: _best(weights[..., t, t]), "вы нашли голову, которая смотрит на себя (t -> t), а нужна t -> t − 1: "
                                                "weights[..., t, t - 1]"),
            (lambda: _best(weights[..., t, 0]), "это голова, которая смотрит на первый токен (столбец 0), а нужна "
                                                "t -> t − 1: weights[..., t, t - 1]"),
            (lambda: _best(weights[..., t - 1, t]), "перепутаны строка и столбец: строка — кто смотрит (t), столбец — "
                                                    "на кого (t − 1); weights[..., t - 1, t] над диагональю — там нули"),
            (lambda: _best(-previous_token_scores(weights)), "это голова с наименьшим весом на предыдущий токен: "
                                                             "нужен argmax, а не argmin"),
            (lambda: _best(weights[..., -1, -2]), "оценена только последняя строка (t = T − 1): у головы, которая лишь "
                                                  "там смотрит на соседа слева, вес вышел больше. Нужно среднее по всем "
                                                  "t ≥ 1: weights[..., t, t - 1].mean(axis=-1)"),
        ], where)
        raise Wrong(f"{where}ответ {answer}, а больше всех на предыдущий токен смотрит голова {target}: "
                    "средний weights[layer, head, t, t - 1] по t ≥ 1")
    return "голова предыдущего токена найдена по измерению, а не на глаз"


def _best(per_row):
    """(layer, head) с наибольшим средним по последней оси; per_row (layers, h, n)."""
    score = per_row.mean(axis=-1) if per_row.ndim == 3 else per_row
    return tuple(int(n) for n in np.unravel_index(np.argmax(score), score.shape))


@checker
def check_layer_norm(candidate):
    """candidate(x (..., d), weight (d,), bias (d,), eps=1e-5) -> (..., d), как nn.LayerNorm."""
    rng = np.random.default_rng(11)
    cases = [
        ("3 токена разного масштаба, d = 4", rng.normal(size=(3, 4)) * np.array([[1e-3], [1.0], [1e3]]) + 5.0, 4),
        ("батч (2, 5, 6)", rng.normal(size=(2, 5, 6)), 6),
        ("токен, все числа которого равны", np.full((1, 8), 3.0), 8),
        ("float32, (4, 16)", rng.normal(size=(4, 16)).astype(np.float32), 16),
    ]
    for what, x, d in cases:
        weight, bias = rng.normal(size=d), rng.normal(size=d)
        norm = LayerNorm(d)
        norm.weight.data[:], norm.bias.data[:] = weight, bias
        right = norm(x.astype(float)).data
        out = call(candidate, x.copy(), weight.copy(), bias.copy(), 1e-5)
        where = f"{what}: "
        expect_shape(out, x.shape, where.rstrip(": "))
        x = x.astype(float)
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        # x − mean теряет eps · |x|, а деление на √(var + eps) это усиливает: у токена 5 ± 0.001 — в тысячу раз
        tol = tolerance(scale=np.abs(x) / np.sqrt(var + 1e-5) * np.abs(weight) + np.abs(bias) + 1)
        recognize(out, right, [
            (lambda: (x - mean) / np.sqrt(x.var(-1, ddof=1, keepdims=True) + 1e-5) * weight + bias,
             "дисперсия несмещённая (ddof=1, деление на d − 1), а в LayerNorm — смещённая: деление на d"),
            (lambda: (x - x.mean(0, keepdims=True)) / np.sqrt(x.var(0, keepdims=True) + 1e-5) * weight + bias,
             "нормировка по оси 0 (по токенам), а нужна по последней оси — по числам одного токена: axis=-1"),
            (lambda: (x - mean) / np.sqrt(var + 1e-5), "забыли масштаб и сдвиг: в конце * weight + bias"),
            (lambda: (x - mean) / np.sqrt(var + 1e-5) * bias + weight, "weight и bias перепутаны: на weight "
                                                                       "умножают (масштаб), bias прибавляют (сдвиг)"),
            (lambda: (x - mean) / np.sqrt(var + 1e-5) * weight, "забыли сдвиг: в конце + bias"),
            (lambda: x / np.sqrt(var + 1e-5) * weight + bias, "не вычли среднее: сначала x − mean"),
            (lambda: (x - mean) / (np.sqrt(var) + 1e-5) * weight + bias,
             "eps прибавлен к корню, а в LayerNorm он под корнем: np.sqrt(var + eps)"),
            (lambda: (x - mean) / np.sqrt(var) * weight + bias,
             "без eps: у токена из одинаковых чисел дисперсия 0 — деление на ноль, а у мелких токенов ответ "
             "заметно другой. eps — под корнем: np.sqrt(var + eps)"),
            (lambda: (x - mean) / (var + 1e-5) * weight + bias, "поделили на дисперсию, а нужно на корень из неё"),
            (lambda: (x - x.mean()) / np.sqrt(x.var() + 1e-5) * weight + bias,
             "среднее и дисперсия взяты по всему массиву сразу, а нужны по последней оси — по числам одного токена: "
             "x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)"),
        ], where, tol)
        if not np.isfinite(out).all():
            raise Wrong(f"{where}в ответе nan или inf: у токена из одинаковых чисел дисперсия 0 — eps под корнем спасает")
        expect_close(out, right, f"{where}ответ не совпал с nn.LayerNorm", tol)
    return "совпало с nn.LayerNorm — и на векторах в тысячу раз больше и меньше, и на одинаковых числах"

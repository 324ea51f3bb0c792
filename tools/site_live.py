"""Живой счёт в проигрывателях сайта (tools/build_site.py): данные, из которых страница сама считает внимание.

Кадры проигрывателя нарисованы при сборке, но не на каждом шаге длинного ползунка и не при всех сочетаниях
(Budget). Для виджетов уроков 02–06 страница досчитывает остальные положения сама: tools/site/attention.js —
копия softmax и scaled_dot_product_attention из course_lib (сверена с numpy до 1e-6 в
tests/test_site_attention_js.py), tools/site/live.js — что из этого показать (таблица весов с цветом и числа).

`live_data(explorer, start)` — словарь для страницы (вид и входные числа виджета) или None, если этот
виджет страница сама не посчитает (start — положения ползунков при показе). Входные числа берутся из
тех же функций, что у виджета в Jupyter (вид, random_model, embed_words): случайные матрицы и векторы слов
numpy строит при сборке — генератор numpy в странице не повторить, — а оценки, маски, softmax, энтропию и
выбор строки страница считает сама. Матрицы идут в base64 (float64): так числа те же до последнего бита.
"""

import base64

import numpy as np

# Сколько чисел float64 живой счёт одного проигрывателя может положить в страницу (≈ 11 байт на число):
# матрицы Q и K для (d_model, зерно) кладутся по очереди — начальные, число голов, все зёрна, d_k — пока влезают.
LIVE_NUMBERS = 80_000


def live_data(explorer, start):
    """Что нужно странице, чтобы считать этот виджет самой: {"kind": …, …} или None."""
    view = explorer.view(**start)
    maker = MAKERS.get(type(view).__name__)
    return maker(explorer, dict(start), view) if maker else None


def _pack(array):
    """Массив float64 -> base64 (порядок байтов little-endian, как у Float64Array в браузере)."""
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f8").tobytes()).decode("ascii")


def _agrees(packed, T_all, heads, view, scale=None):
    """Веса, посчитанные по положенным в страницу Q и K так же, как их считает live.js (разрез на головы, первые T
    строк, маска вида), — те же, что у вида при показе? Сверка при сборке: разойдутся — живого счёта не будет."""
    from course_lib.functional import scaled_dot_product_attention
    flat = np.frombuffer(base64.b64decode(packed), dtype="<f8").reshape(2, T_all, -1)
    T = view.weights.shape[-1]
    Q, K = (m[:T].reshape(T, heads, -1).swapaxes(0, 1) for m in flat)     # (T, d_model) -> (h, T, d_head)
    mask = getattr(view, "mask", None)
    weights = scaled_dot_product_attention(Q, K, K, mask, scale)[1]
    return weights.shape == view.weights.shape and bool(np.allclose(weights, view.weights, rtol=0, atol=1e-12))


def _softmax(explorer, start, view):
    """Урок 02: оценки и подписи; веса softmax(оценки / τ) и энтропию считает страница."""
    return {"kind": "softmax", "labels": list(view.labels), "scores": view.scores.tolist()}


def _soft_search(explorer, start, view):
    """Урок 02: ключи и значения каталога; q·k, веса, смесь и лучшую книгу считает страница."""
    return {"kind": "soft_search", "labels": list(view.labels), "keys": view.keys.tolist(),
            "values": view.values.tolist()}


def _attention(explorer, start, view):
    """Уроки 03 и 06, главный исследователь со случайным слоем: Q и K (T, d_model) всего предложения для пар
    (d_model, зерно). Головы (разрез по столбцам), T (первые строки), маску, деление на √d_k, softmax, строку
    запроса и энтропию считает страница. Обученный слой (model=…, урок 07) — не сюда: его страница не считает."""
    if explorer.controls["d_k"].disabled:                 # model=…: веса обученного слоя, не random_model
        return None
    from course_lib.widgets.common import embed_words, random_model, sentence_tokens
    tokens = sentence_tokens(start["sentence"])[0]
    heads, d_k, seed = start["heads"], start["d_k"], start["seed"]
    wanted = [(heads * d_k, seed)] + [(h * d_k, seed) for h in range(1, 9)] + \
             [(heads * d_k, s) for s in range(100)] + [(heads * d, seed) for d in range(1, 65)]
    pairs, numbers = {}, 0
    for d_model, s in wanted:
        key = f"{d_model}/{s}"
        if key in pairs or numbers + 2 * len(tokens) * d_model > LIVE_NUMBERS:
            continue
        h = next(h for h in range(min(8, d_model), 0, -1) if d_model % h == 0)
        model = random_model(h, d_model // h, s)           # W_q, W_k одни при любом разрезе d_model на головы
        X = embed_words(tokens, d_model, s)
        Q, K = model.W_q(X).data, model.W_k(X).data          # (T, d_model) каждая
        pairs[key] = _pack(np.concatenate([Q, K]))
        numbers += Q.size + K.size
    if not _agrees(pairs[f"{heads * d_k}/{seed}"], len(tokens), heads, view, scale=None if start["scaled"] else 1.0):
        return None                                       # вид считает не так, как здесь думают: не выдумывать
    one = explorer.view(**{**start, "T": 1}).message
    single = explorer.view(**{**start, "d_k": 1}).message
    covered = {"d_k": [d for d in range(1, 65) if f"{heads * d}/{seed}" in pairs],
               "heads": [h for h in range(1, 9) if f"{h * d_k}/{seed}" in pairs],
               "seed": [s for s in range(100) if f"{heads * d_k}/{s}" in pairs]}
    return {"kind": "attention", "tokens": tokens, "pairs": pairs, "free": ["T", "causal", "scaled", "query", "head"],
            "covered": covered, "notes": {"one": one, "d_k_1": single}}


def _permutation(explorer, start, view):
    """Урок 04: векторы слов X, позиционные кодировки P и W_q, W_k слоя (случайные — от numpy при сборке) и порядок
    токенов каждого «перемешать» (из вида). Q = (X[порядок] + P) W_q + b, K — так же, веса до и после перестановки
    и «переехали ли строки и столбцы вместе» считает страница."""
    from course_lib.nn.positional import sinusoidal_encoding
    from course_lib.widgets.common import embed_words, random_model
    from course_lib.widgets.permutation import D_K, HEADS
    model = random_model(HEADS, D_K, 0)                  # зерно вида по умолчанию: виджет его не меняет
    tokens = list(view.tokens)
    X = embed_words(tokens, model.d_model, 0)
    P = sinusoidal_encoding(len(tokens), model.d_model)
    shuffle = explorer.controls["shuffle"]
    orders = [explorer.view(**{**start, "shuffle": s}).order.tolist() for s in range(shuffle.min, shuffle.max + 1)]
    data = {"kind": "permutation", "tokens": tokens, "first": shuffle.min, "orders": orders,
            "X": _pack(X), "P": _pack(P), "W_q": _pack(model.W_q.weight.data), "W_k": _pack(model.W_k.weight.data),
            "b_q": _pack(model.W_q.bias.data), "b_k": _pack(model.W_k.bias.data), "d": model.d_model,
            "free": ["shuffle", "positional"]}
    return data


def _causal(explorer, start, view):
    """Урок 05: Q и K всего предложения одной головы (d_k = 8, зерно 0 — как у causal_view; случайные — от numpy
    при сборке). T, маску, веса, спрятанные клетки и строку запроса считает страница."""
    from course_lib.widgets.common import embed_words, random_model
    longest = explorer.controls["T"].max
    full = explorer.view(**{**start, "T": longest, "query": longest - 1})     # все слова предложения
    tokens = list(full.tokens)
    model = random_model(1, 8, 0)                        # d_k и зерно causal_view: виджет их не меняет
    X = embed_words(tokens, model.d_model, 0)
    Q, K = model.W_q(X).data, model.W_k(X).data
    from course_lib.functional import scaled_dot_product_attention
    check = scaled_dot_product_attention(Q[None], K[None], K[None], full.mask)[1][0]
    if not np.allclose(check, full.weights, rtol=0, atol=1e-12):
        return None                                      # вид считает не так, как здесь думают: не выдумывать
    return {"kind": "causal", "tokens": tokens, "pairs": {"8/0": _pack(np.concatenate([Q, K]))},
            "notes": {"one": explorer.view(**{**start, "T": 1, "query": 0}).message}, "free": ["T", "causal", "query"]}


def _heads(explorer, start, view):
    """Урок 06, «сколько голов при той же ширине»: для каждого зерна Q и K (T, d_model) слоя — W_q и W_k одни при
    любом h (случайные — от numpy при сборке). Ближайший делитель d_model, разрез на головы, softmax — в странице."""
    from course_lib.widgets.common import embed_words, random_model
    from course_lib.widgets.heads import WORD_SCALE
    tokens, d_model = list(view.tokens), view.d_model
    seeds, pairs = explorer.controls["seed"], {}
    for s in range(seeds.min, seeds.max + 1):
        model = random_model(1, d_model, s)                       # d_model · d_model: разрез на головы — в странице
        X = WORD_SCALE * embed_words(tokens, d_model, s)         # (T, d_model), как в heads_view
        pairs[f"{d_model}/{s}"] = _pack(np.concatenate([model.W_q(X).data, model.W_k(X).data]))
    if not _agrees(pairs[f"{d_model}/{start['seed']}"], len(tokens), view.heads, view):
        return None
    requested = explorer.controls["heads"]
    messages = {str(h): explorer.view(**{**start, "heads": h}).message for h in range(requested.min, requested.max + 1)}
    return {"kind": "heads", "tokens": tokens, "d_model": d_model, "pairs": pairs, "params": view.params,
            "messages": messages, "free": ["heads", "seed"]}


# Урок 03, «зачем делить на √d_k» (ScalingView), — не здесь: у каждого d_k свои 4000 случайных пар q, k
# (d_k чисел в каждом) из генератора numpy, а нарисованы все сочетания каждого 8-го d_k с флажком.
MAKERS = {"SoftmaxView": _softmax, "SoftSearchView": _soft_search, "AttentionView": _attention,
          "PermutationView": _permutation, "CausalView": _causal, "HeadsView": _heads}


def live_note(live):
    """Строка для страницы над проигрывателем: что считает сама страница (и при каких положениях остальных)."""
    covered = "; ".join(f"«{LABELS.get(name, name)}» — {_spans(values)}" for name, values in live.get("covered", {}).items())
    return LIVE_NOTES[live["kind"]] + (f" Входные числа в странице есть для: {covered} (по одному, остальные — "
                                       "в начальном положении)." if covered else "")


LABELS = {"d_k": "d_k", "heads": "голов", "seed": "зерно"}


def _spans(values):
    """[1, 2, 3, 5, 7, 8] -> «1–3, 5, 7–8»."""
    spans, values = [], sorted(values)
    for value in values:
        if spans and value == spans[-1][1] + 1:
            spans[-1][1] = value
        else:
            spans.append([value, value])
    return ", ".join(f"{a}–{b}" if b > a else f"{a}" for a, b in spans)


LIVE_NOTES = {
    "softmax": "Положения без кадра страница считает сама: softmax(оценки / τ) на JavaScript — те же формулы, что в course_lib.",
    "soft_search": "Любое сочетание q₁, q₂ и τ без кадра страница считает сама (q·k, softmax, смесь цветов — на JavaScript, "
                   "те же формулы, что в course_lib): кадр там заменяет таблица весов.",
    "attention": "Без кадра страница считает сама (JavaScript, те же формулы, что в course_lib) любое сочетание T, маски, "
                 "деления на √d_k, запроса и головы: случайные Q и K слоя numpy строит при сборке и кладёт в страницу, "
                 "а оценки, маску, softmax и энтропию считает страница.",
    "permutation": "Положения без кадра страница считает сама (JavaScript, те же формулы, что в course_lib): векторы слов "
                   "и матрицы слоя — случайные, от numpy при сборке, порядок — тот же, что в Jupyter; сложение с позициями, "
                   "Q и K, softmax и сравнение весов — в странице.",
    "causal": "Любое сочетание T, маски и запроса без кадра страница считает сама (JavaScript, те же формулы, что "
              "в course_lib): случайные Q и K слоя numpy строит при сборке, маску, softmax и строку запроса — страница.",
    "heads": "Любое сочетание h и зерна без кадра страница считает сама (JavaScript, те же формулы, что в course_lib): "
             "Q и K слоя для каждого зерна numpy строит при сборке, разрез на головы и softmax — страница.",
}

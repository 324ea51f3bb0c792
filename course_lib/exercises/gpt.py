"""Упражнения урока 10: вероятности следующего символа с температурой и top-k; потери биграммной модели."""

import numpy as np

from course_lib.exercises._checker import (Crashed, Wrong, call, checker, expect_close, expect_finite, expect_numbers,
                                           expect_shape, recognize, tolerance)
from course_lib.exercises._softmax import naive_softmax, stable_softmax
from course_lib.nn.sampling import next_token_probs          # эталон: то же распределение, что у generate
from course_lib.props.gpt_reading import bigram_counts, bigram_loss, unigram_loss


def _top_k(logits, k, keep=None, sort=np.sort):
    """Оставить k самых больших логитов (keep — сколько на самом деле оставить), остальным −inf. sort=np.unique —
    порог k-й среди разных значений (так ошибаются, когда логиты повторяются)."""
    if k is None:
        return logits
    kth = sort(logits)[-(keep or k)]
    return np.where(logits < kth, -np.inf, logits)


NOT_NORMALIZED = "exp посчитан, но не поделён на сумму: вероятности должны давать в сумме 1 — e / e.sum()"


@checker
def check_next_token_probs(candidate):
    """candidate(logits (V,), temperature, top_k) -> вероятности (V,): делим на температуру, оставляем top_k."""
    rng = np.random.default_rng(10)
    cases = [
        ("V = 8, температура 1, top_k = None", rng.normal(scale=2.0, size=8), 1.0, None),
        ("V = 10, температура 0.5, top_k = 3", rng.normal(scale=2.0, size=10), 0.5, 3),
        ("V = 6, температура 2, top_k = 4", rng.normal(scale=2.0, size=6), 2.0, 4),
        ("V = 5, большие логиты, температура 0.7, top_k = 2", rng.normal(scale=3.0, size=5) + 1000.0, 0.7, 2),
        ("V = 7, float32, температура 1.5, top_k = 1", rng.normal(scale=2.0, size=7).astype(np.float32), 1.5, 1),
        # повторы среди логитов: порог — k-й по величине с повторами (3-й из 3, 2, 2, 1, … — это 2, а не 1)
        ("V = 7 с повторами (3, 2, 2, 1, …), температура 1, top_k = 3", np.array([2.0, 0.5, 3.0, 1.0, 2.0, -1.0, 0.5]),
         1.0, 3),
        ("V = 6 с повторами (1.5, 1.5, 0, 0, …), температура 0.5, top_k = 4",
         np.array([0.0, 1.5, -2.0, 0.0, 1.5, -0.5]), 0.5, 4),
        ("V = 1, температура 1, top_k = 1", np.array([0.3]), 1.0, 1),
        ("V = 5, температура 1, top_k = 5 (все)", rng.normal(scale=2.0, size=5), 1.0, 5),
    ]
    for what, logits, tau, k in cases:
        where = f"при {what}: "
        try:
            out = call(candidate, logits.copy(), tau, k)
        except Crashed as crash:
            if k is None and crash.kind not in ("name", "attribute"):
                raise crash.retold("top_k = None значит «оставить все логиты»: сначала проверьте, не None ли "
                                   "он, и только для числа берите порог np.sort(logits)[-top_k]") from None
            raise
        right = next_token_probs(logits, tau, k)
        expect_shape(out, right.shape, where.rstrip(": "))
        scaled = logits.astype(float) / tau
        recognize(out, right, [
            (lambda: stable_softmax(_top_k(logits * tau, k)), "логиты умножены на температуру, а их нужно делить: "
                                                               "logits / temperature"),
            (lambda: stable_softmax(_top_k(logits.astype(float), k)) / tau,
             "на температуру поделены вероятности после softmax, а делить нужно логиты до него: "
             "softmax(logits / temperature) — тогда и сумма остаётся 1"),
            (lambda: stable_softmax(_top_k(scaled, k, sort=np.unique)) if k else None,
             "порог — k-й среди разных значений (np.unique или set): когда логиты повторяются, так остаётся больше "
             "k логитов. Порог — k-й по величине с повторами: np.sort(logits)[-k]"),
            (lambda: _top_k(scaled, k), f"вернулись логиты{' (вне top-k — -inf)' if k else ''}, а нужны "
                                        "вероятности: осталось взять от них softmax"),
            (lambda: scaled if k else None, "вернулись логиты, поделённые на температуру, а нужны вероятности: "
                                            "ещё top-k и softmax"),
            (lambda: np.exp(_top_k(scaled, k) - scaled.max()), NOT_NORMALIZED),
            (lambda: np.exp(_top_k(scaled, k)), NOT_NORMALIZED),
            (lambda: stable_softmax(_top_k(logits.astype(float), k)), "температура не учтена: logits / temperature"),
            (lambda: stable_softmax(scaled), "top_k не учтён: оставьте k самых больших логитов, остальным — -np.inf"),
            (lambda: stable_softmax(np.where(scaled > np.sort(scaled)[k - 1], -np.inf, scaled)) if k else None,
             "оставлены самые маленькие логиты, а нужны k самых больших"),
            (lambda: stable_softmax(scaled) * (_top_k(scaled, k) > -np.inf), "вероятности вне top-k обнулены, но "
                                                                            "оставшиеся не пересчитаны: их сумма меньше 1"),
            (lambda: stable_softmax(np.where(_top_k(scaled, k) > -np.inf, scaled, 0.0)), "логиты вне top-k заменены "
                                                                                         "на 0, а нужен -np.inf: "
                                                                                         "у нуля вероятность не нулевая"),
            (lambda: stable_softmax(_top_k(scaled, k, keep=k + 1)) if k and k < len(logits) else None,
             "оставлено k + 1 логитов: порог — k-й по величине, np.sort(logits)[-k]"),
            (lambda: stable_softmax(_top_k(scaled, k, keep=k - 1)) if k and k > 1 else None,
             "оставлено k − 1 логитов: порог — k-й по величине, np.sort(logits)[-k]"),
            (lambda: stable_softmax(logits.astype(float)) ** (1 / tau), "вероятности в степени 1/температура не "
                                                                        "пересчитаны: разделите на их сумму"),
            (lambda: naive_softmax(_top_k(scaled, k)), "exp переполнился: вычтите из логитов их максимум перед exp"),
            (lambda: np.log(right), "это логарифмы вероятностей, а нужны сами вероятности"),
        ], where, tol=tolerance(1 + np.abs(scaled).max()))
        if not np.isfinite(out).all():
            expect_finite(out, f"{where}вне top-k вероятность 0, а не nan: exp(-inf) = 0; вычтите максимум перед exp")
        expect_close(out, right, f"{where}вероятности неверные: softmax(logits / temperature) среди k самых больших",
                     tol=tolerance(1 + np.abs(scaled).max()))   # float32 округляет логиты ~1000 до 1e-4
    return "так выбирает следующий символ model.generate: температура, потом top-k, потом softmax"


@checker
def check_bigram_loss(candidate):
    """candidate(train_ids, val_ids, V) -> потери (наты) биграммной модели со счётом пар + 1 на проверке."""
    rng = np.random.default_rng(12)
    cases = []
    for V, n in [(4, 60), (7, 200), (3, 40)]:
        train = rng.integers(0, V - 1, size=n)                         # последнего символа в обучении нет,
        val = rng.integers(0, V, size=n // 3)                          # а в проверке он есть: пар с ним не видели
        val[1] = V - 1
        cases.append((V, train, val))
    cases.append((2, np.array([0, 1, 1, 0, 1]), np.array([1, 0])))     # одна пара в проверке, V = 2
    for V, train, val in cases:
        where = f"при V = {V}, {len(train)} символах обучения и {len(val)} проверки: "
        out = call(candidate, train.copy(), val.copy(), V)
        expect_numbers(out, where.rstrip(": "), ())
        if out.ndim:
            if out.size == 1:
                out = out.reshape(())
            else:
                raise Wrong(f"{where}нужно одно число — средние потери, а пришёл массив формы {out.shape}: .mean()")
        right = bigram_loss(train, val, V)
        counts = bigram_counts(train, V)
        pairs = (val[:-1], val[1:])
        plain = np.zeros((V, V))
        np.add.at(plain, (train[:-1], train[1:]), 1)
        once = np.ones((V, V))
        once[train[:-1], train[1:]] += 1                               # повторы одной пары — по разу
        swapped = counts.T / counts.T.sum(axis=1, keepdims=True)
        recognize(out, right, [
            (lambda: -np.log(once / once.sum(axis=1, keepdims=True))[pairs].mean(),
             "каждая пара посчитана один раз, сколько бы раз она ни встретилась: counts[a, b] += 1 с массивами "
             "номеров прибавляет 1 к клетке один раз, даже если пара (a, b) в них повторяется. Считайте "
             "np.add.at(counts, (a, b), 1) — или циклом по парам"),
            (lambda: -np.log(counts / counts.sum(axis=1))[pairs].mean(),
             "counts.sum(axis=1) без keepdims=True — форма (V,), и NumPy растягивает её по столбцам: клетка (a, b) "
             "поделена на сумму строки b, а не a. Нужно counts.sum(axis=1, keepdims=True) — форма (V, 1)"),
            (lambda: -np.log(swapped)[pairs].mean(),
             "пары посчитаны наоборот: в строке a должен быть счёт символов, которые шли за a — "
             "counts[train_ids[:-1], train_ids[1:]]"),
            (lambda: -np.log(counts / counts.sum(axis=1, keepdims=True))[val, np.roll(val, -1)].mean(),
             "лишняя пара: последний символ проверки соединён с первым (np.roll). Пары соседей — val_ids[:-1] "
             "и val_ids[1:]"),
            (lambda: -np.log(counts / counts.sum(axis=0, keepdims=True))[pairs].mean(),
             "счёт поделён на сумму столбца (axis=0), а строка — текущий символ: counts.sum(axis=1, keepdims=True)"),
            (lambda: -np.log(counts / counts.sum(axis=1, keepdims=True))[pairs[::-1]].mean(),
             "пара перевёрнута: строка — текущий символ val[:-1], столбец — следующий val[1:]"),
            (lambda: -np.log2(counts / counts.sum(axis=1, keepdims=True))[pairs].mean(),
             "это биты (log2), а потери — в натах: np.log"),
            (lambda: np.log(counts / counts.sum(axis=1, keepdims=True))[pairs].mean(),
             "потерян минус: потери = −среднее логарифма вероятности"),
            (lambda: -np.log(counts / counts.sum(axis=1, keepdims=True))[pairs].sum(),
             "это сумма по парам, а нужно среднее: .mean()"),
            (lambda: bigram_loss(train, train, V), "loss посчитан на обучающей части, а нужен на проверочной: val_ids"),
            (lambda: unigram_loss(train, val[1:], V), "это униграммная модель (частота символа), а нужна частота "
                                                      "следующего после текущего: таблица пар (V, V)"),
            (lambda: -np.log(counts / counts.sum())[pairs].mean(), "счёт поделён на число всех пар, а нужно на "
                                                                    "сумму своей строки: вероятность следующего "
                                                                    "при этом текущем"),
            (lambda: -np.log((counts / counts.sum(axis=1, keepdims=True))[pairs].mean()),
             "логарифм от средней вероятности, а нужно среднее логарифмов: -np.log(p).mean()"),
            (lambda: -np.log((plain + 1) / (plain.sum(axis=1, keepdims=True) + 1))[pairs].mean(),
             "к сумме строки прибавлена 1, а к каждой из V клеток прибавили по 1: делите на сумму новой строки"),
        ], where, tol=tolerance(10))
        if not np.isfinite(out):
            raise Wrong(f"{where}потери бесконечны: в проверке есть пара, которой не было в обучении, у неё "
                        "вероятность 0. Прибавьте 1 к счёту каждой пары (сглаживание Лапласа)")
        expect_close(out, right, f"{where}потери неверны: −среднее log p(следующий | текущий), p — из счёта пар + 1",
                     tol=tolerance(10))
    return "потери биграмм — точка отсчёта: GPT, чтобы быть полезной, должна опуститься ниже"

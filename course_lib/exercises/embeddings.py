"""Упражнения урока 01: косинусное сходство, эмбеддинг как one-hot @ таблица, ближайшие соседи."""

import contextlib
import re

import numpy as np

from course_lib.exercises._checker import (Crashed, Wrong, call, checker, expect_close, expect_numbers, expect_shape,
                                           matches, recognize, tolerance)
from course_lib.exercises._errors import describe


def _cosine(a, b):
    # длины — корни из a·a и b·b (так их считает и np.linalg.norm): строк решения урока здесь нет
    length_a, length_b = np.sqrt(np.dot(a, a)), np.sqrt(np.dot(b, b))
    return float(np.dot(a, b) / (length_a * length_b))


PARENTHESES = ("знаменатель без скобок: a @ b / ‖a‖ * ‖b‖ делит на одну длину и умножает на другую. "
               "Возьмите произведение длин в скобки: a @ b / (‖a‖ * ‖b‖)")


def _lengths(vectors):
    """Длины строк (V, 1): корень из суммы квадратов — то же, что np.linalg.norm(axis=1), бит в бит."""
    return np.sqrt((vectors * vectors).sum(axis=1))[:, None]


def _cosine_mistakes(a, b):
    norm_a, norm_b = np.linalg.norm(a), np.linalg.norm(b)
    return [
        (lambda: a @ b, "это скалярное произведение a @ b, а не косинус: поделите его на длины ‖a‖·‖b‖ (np.linalg.norm)"),
        (lambda: a @ b / norm_a, "поделили на длину только одного вектора: нужно на произведение ‖a‖·‖b‖"),
        (lambda: a @ b / norm_b, "поделили на длину только одного вектора: нужно на произведение ‖a‖·‖b‖"),
        (lambda: a @ b / (a @ a * (b @ b)), "поделили на квадраты длин: ‖a‖ = √(a·a), не забудьте корень "
                                            "(или np.linalg.norm)"),
        (lambda: a @ b / (norm_a + norm_b), "поделили на сумму длин, а нужно на произведение ‖a‖·‖b‖"),
        (lambda: a @ b / norm_a * norm_b, PARENTHESES),
        (lambda: a @ b / norm_b * norm_a, PARENTHESES),
        (lambda: abs(a @ b) / (norm_a * norm_b), "взят модуль: у противоположных векторов косинус −1, а не 1 — "
                                                 "уберите abs"),
        (lambda: 1 - a @ b / (norm_a * norm_b), "это 1 − cos, «косинусное расстояние»: у одинаковых векторов оно 0. "
                                                "Нужно само сходство, cos = a·b / (‖a‖·‖b‖)"),
        (lambda: np.linalg.norm(a - b), "это евклидово расстояние ‖a − b‖, а нужен косинус угла: "
                                        "a·b / (‖a‖·‖b‖) — он не зависит от длин векторов"),
    ]


@checker
def check_cosine(candidate):
    """candidate(a, b) -> число: косинус угла между векторами a и b (dim,)."""
    a, b = np.array([1.0, 2.0, 2.0]), np.array([2.0, 0.0, 1.0])
    rng = np.random.default_rng(1)
    examples = [(a, b, "для [1, 2, 2] и [2, 0, 1]"), (a, a, "вектора с самим собой (нужно 1)"),
                (a, -a, "противоположных векторов (нужно −1)"),
                (np.array([1.0, 0.0]), np.array([0.0, 3.0]), "перпендикулярных векторов (нужно 0)"),
                (1000 * a, 0.001 * b, "для 1000·a и 0.001·b: косинус не зависит от длин"),
                (*rng.normal(size=(2, 50)).astype(np.float32), "для векторов длины 50 во float32")]
    for x, y, where in examples:
        out = call(candidate, x.copy(), y.copy())
        expect_numbers(out, where, ())
        if out.shape != ():
            if out.size == 1:
                out = out.reshape(())
            else:
                raise Wrong(f"{where}: ожидалось одно число, а пришёл массив формы {out.shape}: "
                            "сложите покоординатные произведения (a @ b или np.sum(a * b))")
        expect_shape(out, (), where)
        right = _cosine(x.astype(float), y.astype(float))
        recognize(out, right, _cosine_mistakes(x.astype(float), y.astype(float)), f"{where}: ")
        expect_close(out, right, f"{where}: косинус неверный — cos = a·b / (‖a‖·‖b‖)")
    return "косинус верный: 1 — одно направление, 0 — перпендикулярны, −1 — противоположны"


def _one_hot_crash(crash, T, V, dim):
    """Упала на умножении или индексе — почти всегда это длина one-hot: она должна быть V."""
    sizes = {int(n) for n in re.findall(r"\d+", str(crash.error))}
    if T in sizes and T != V:
        why = (f"а у вас, похоже, ось длины T = len(ids) = {T}: one-hot длины T (столько токенов, а не строк таблицы) "
               "или one-hot транспонирован — его строки должны быть токенами, (T, V)")
    elif dim in sizes and dim != V:
        why = f"а у вас, похоже, dim = weight.shape[1] = {dim}"
    else:
        why = "проверьте np.eye(...)"
    return Wrong(f"{crash}. Длина one-hot — V = weight.shape[0] = {V} (строк в таблице, по одной на слово "
                 f"словаря), {why}: one_hot = np.eye(weight.shape[0])[ids]")


class _Table(np.ndarray):
    """Таблица weight, которая замечает, что из неё выбрали строки по номерам — weight[ids], weight[i] в цикле,
    np.take: ответ тот же, но упражнение — получить его умножением one-hot @ weight."""

    def __getitem__(self, index):
        first = index[0] if isinstance(index, tuple) and index else index
        if getattr(self, "watched", False) and _row_numbers(first):
            self.looked_up = True
        return super().__getitem__(index)

    def take(self, *args, **kwargs):
        if getattr(self, "watched", False):
            self.looked_up = True
        return super().take(*args, **kwargs)


def _row_numbers(index):
    """Номер или номера строк (а не срез, маска или многоточие)."""
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        return True
    if isinstance(index, (list, tuple, np.ndarray)):
        kind = np.asarray(index).dtype.kind
        return kind in "iu" or (kind == "O" and len(index) > 0)
    return False


def _watched(weight):
    table = weight.copy().view(_Table)
    table.watched, table.looked_up = True, False
    return table


LOOKUP = ("ответ верный, но строки выбраны из таблицы напрямую, по номерам (weight[ids], weight[i] в цикле или "
          "np.take) — а упражнение в том, чтобы получить их умножением: one_hot = np.eye(weight.shape[0])[ids], "
          "потом one_hot @ weight. Так видно, что слой эмбеддингов — это матричное умножение на one-hot")


@checker
def check_one_hot_lookup(candidate):
    """candidate(ids, weight) -> (T, dim): one_hot(ids) (T, V) @ weight (V, dim) — то же, что weight[ids]."""
    table = np.arange(5 * 3, dtype=float).reshape(5, 3) / 10
    examples = [(np.array([3, 0, 3, 1]), table),                           # T = 4, V = 5, dim = 3: все разные
                (np.array([4, 1]), table[:, :2]),                          # T = 2, V = 5, dim = 2
                (np.array([0, 1, 0, 1, 2, 2, 1]), table[:3]),              # T = 7 больше V = 3
                (np.array([2]), table.astype(np.float32))]                 # один токен, float32
    for ids, weight in examples:
        (V, dim), T = weight.shape, len(ids)
        where = f"для ids = {ids.tolist()} и таблицы {weight.shape}"
        table = _watched(weight)
        try:
            out = call(candidate, ids.copy(), table)
        except Crashed as crash:
            if crash.kind in ("matmul", "index"):
                raise _one_hot_crash(crash, T, V, dim) from None
            raise
        if table.looked_up and matches(out, weight[ids], tolerance(1 + np.abs(weight).max())):
            raise Wrong(LOOKUP)
        expect_numbers(out, where, (T, dim))
        if out.shape == (T, V) and dim != V:
            raise Wrong(f"{where}: вышла форма {out.shape} — это сама матрица one-hot (T, V); "
                        "умножьте её на таблицу: one_hot @ weight")
        if out.shape in ((V, T), (dim, T)) and out.shape != (T, dim):
            raise Wrong(f"{where}: вышла форма {out.shape}: что-то транспонировано. Строки one-hot — токены (T, V), "
                        "умножаем слева: one_hot @ weight -> (T, dim)")
        expect_shape(out, (T, dim), where)
        right = weight[ids].astype(float)
        recognize(out, right, [
            (lambda: weight[ids[::-1]], "строки в обратном порядке: строка i результата — вектор токена ids[i]"),
            (lambda: weight[:T], "вышли первые T строк таблицы: в строке i one-hot единица стоит в столбце ids[i], "
                                 "а не в столбце i"),
        ], f"{where}: ")
        expect_close(out, right, f"{where}: строки не совпадают с weight[ids] — в строке i one-hot единица стоит "
                                 "в столбце ids[i]")
    return "one-hot @ таблица выбирает строки таблицы: это и есть поиск эмбеддинга, только дороже"


def _as_words(out, vocab):
    """Ответ ученика: список (кортеж, массив) слов или пар (слово, косинус) -> список слов."""
    if isinstance(out, tuple) or out.ndim > 2 or out.dtype == object:
        raw = out.item() if isinstance(out, np.ndarray) and out.ndim == 0 else out
        raise Wrong(f"верните список слов, а пришло {describe(raw)}")
    if out.ndim == 2 and out.shape[1] == 2:                 # [(слово, косинус), ...] или [(косинус, слово), ...]
        out = out[:, 1] if np.isin(out[:, 1], vocab).all() else out[:, 0]
    words = [str(word) for word in out.ravel()]
    if words and all(word not in vocab for word in words):
        if out.dtype.kind in "iu":
            raise Wrong(f"вернулись номера {words}, а нужны слова: vocab[i] для каждого номера i")
        raise Wrong(f"вернулось {words} — это не слова словаря. Верните список слов: [vocab[i] for i in ...]")
    return words


def _ranked(scores, word, vocab, k, best_first=True):
    order = np.argsort(-scores if best_first else scores, kind="stable")
    return [vocab[i] for i in order if vocab[i] != word][:k]


def _nearest_mistakes(word, vocab, vectors, k):
    unit = vectors / _lengths(vectors)
    own = vectors[vocab.index(word)]
    cosines, dots, distances = unit @ unit[vocab.index(word)], vectors @ own, np.linalg.norm(vectors - own, axis=1)
    return [
        (lambda: [vocab[i] for i in np.argsort(-cosines, kind="stable")][:k],
         "первым соседом оказалось само слово (косинус с собой = 1): исключите его из ответа"),
        (lambda: _ranked(dots, word, vocab, k), "порядок как у скалярного произведения: длинный вектор обогнал "
                                                "близкий по углу. Сравнивайте косинусы — нормируйте векторы на их длину"),
        (lambda: _ranked(distances, word, vocab, k, best_first=False),
         "это соседи по евклидову расстоянию ‖a − b‖: длинный вектор «деньги» оказался далеко, хотя смотрит почти "
         "туда же. Нужен косинус — он сравнивает направления, а не длины"),
        (lambda: _ranked(cosines, word, vocab, k, best_first=False),
         "это самые далёкие слова: сортируйте косинусы по убыванию (np.argsort(-cosines))"),
    ]


# Словарь 1: «кредит» — короткий вектор почти по «банку»: по скалярному произведению его обгоняет и «река».
VOCAB = ["банк", "деньги", "кредит", "река", "лодка"]
VECTORS = np.array([[1.0, 1.0], [9.0, 6.0], [0.45, 0.5], [-1.0, 2.0], [-2.0, 1.0]])
# Словарь 2: 12 слов на плоскости (угол в градусах, длины 1–3). «счёт» смотрит туда же, что «банк»: у них равные
# косинусы с любым словом, и годится любой их порядок. Пять соседей «моста» из двенадцати np.argpartition
# на обычном процессоре отдаёт вразнобой.
VOCAB_12 = ["банк", "деньги", "кредит", "река", "лодка", "вклад", "берег", "вода", "процент", "мост", "рыба", "касса",
            "счёт"]
_ANGLES = np.radians([12, 27, 3, 123, 151, 0, 101, 137, 44, 80, 169, 58, 12])
VECTORS_12 = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1) * (1 + np.arange(13) % 3)[:, None]

NEAREST_EXAMPLES = [  # (словарь, векторы, слово, k)
    (VOCAB, VECTORS, "банк", 3),            # у «деньги» длинный вектор, но угол чуть больше
    (VOCAB, VECTORS, "река", 1),
    (VOCAB, VECTORS, "кредит", 4),          # все остальные слова, слово не первое в словаре
    (VOCAB_12, VECTORS_12, "мост", 5),
    (VOCAB_12, VECTORS_12, "вклад", 2),     # второй сосед — «банк» или «счёт»: косинусы равны
]


def _cosines(vocab, vectors, word):
    unit = vectors / _lengths(vectors)
    return unit @ unit[vocab.index(word)]


def _right_neighbours(out, word, vocab, vectors, k):
    """Верно, если это k разных слов без самого word, а их косинусы — k наибольших по убыванию (при равных
    косинусах годится любой порядок и любое из равных слов)."""
    if len(out) != k or word in out or len(set(out)) != k or not set(out) <= set(vocab):
        return False
    cosines = _cosines(vocab, vectors, word)
    best = np.sort([c for w, c in zip(vocab, cosines) if w != word])[::-1][:k]
    return bool(np.allclose([cosines[vocab.index(w)] for w in out], best, rtol=0, atol=1e-9))


UNSORTED = ("слова те, но порядок не тот: {out}. Ближайший — первым, по убыванию косинуса. Если брали "
            "np.argpartition — он только отделяет k лучших от остальных, но между собой их не сортирует: "
            "упорядочьте эти k по косинусу или возьмите np.argsort")


@contextlib.contextmanager
def _partitions_in_any_order():
    """np.argpartition и np.partition на время проверки — в любом допустимом порядке внутри частей.

    NumPy обещает только, что k-й элемент стоит на своём месте, меньшие — левее, большие — правее, а порядок
    внутри частей «не определён». С AVX-512 NumPy отдаёт первые k уже отсортированными, на других процессорах —
    вразнобой: ответ через np.argpartition без сортировки прошёл бы здесь и не прошёл бы у соседа. Поэтому
    проверка переворачивает каждую часть — это тоже порядок, который NumPy вправе вернуть, на любой машине.
    """
    originals = np.argpartition, np.partition

    def any_order(original):
        def partition(a, kth, axis=-1, **kwargs):
            out = original(a, kth, axis=axis, **kwargs)
            if axis is None or np.ndim(out) == 0:
                return out
            axis = axis % out.ndim
            n = out.shape[axis]
            cuts = sorted({int(k) % n for k in np.atleast_1d(kth)})
            pieces, start = [], 0
            for cut in cuts:
                pieces += [np.flip(np.take(out, range(start, cut), axis=axis), axis=axis), np.take(out, [cut], axis=axis)]
                start = cut + 1
            pieces.append(np.flip(np.take(out, range(start, n), axis=axis), axis=axis))
            return np.concatenate(pieces, axis=axis)
        return partition

    np.argpartition, np.partition = any_order(originals[0]), any_order(originals[1])
    try:
        yield
    finally:
        np.argpartition, np.partition = originals


@checker
def check_nearest(candidate):
    """candidate(word, vocab, vectors, k) -> k ближайших к word слов по косинусу, без самого word."""
    for vocab, vectors, word, k in NEAREST_EXAMPLES:
        where = f"для «{word}» и k = {k}" + ("" if vocab is VOCAB else f" (словарь из {len(vocab)} слов)")
        with _partitions_in_any_order():
            answer = call(candidate, word, list(vocab), vectors.copy(), k)
        out = _as_words(answer, vocab)
        if _right_neighbours(out, word, vocab, vectors, k):
            continue
        right = _ranked(_cosines(vocab, vectors, word), word, vocab, k)
        recognize(out, right, _nearest_mistakes(word, vocab, vectors, k), f"{where}: ")
        if len(out) != k:
            raise Wrong(f"{where}: нужно ровно k = {k} слов(а), а пришло {len(out)}: {out}")
        if word not in out and sorted(out) == sorted(right):
            raise Wrong(f"{where}: {UNSORTED.format(out=out)}")
        raise Wrong(f"{where}: ожидались {right}, а пришло {out}")
    return "соседи найдены: косинус, по убыванию, без самого слова"

"""Упражнения урока 01: косинусное сходство, эмбеддинг как one-hot @ таблица, ближайшие соседи."""

import numpy as np

from course_lib.exercises._checker import Wrong, call, checker, expect_close, expect_shape


def _cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@checker
def check_cosine(candidate):
    """candidate(a, b) -> число: косинус угла между векторами a и b (dim,)."""
    a, b = np.array([1.0, 2.0, 2.0]), np.array([2.0, 0.0, 1.0])
    out = call(candidate, a, b)
    if out.shape != ():
        raise Wrong(f"ожидалось одно число, а пришёл массив формы {out.shape}: "
                    "сложите покоординатные произведения (a @ b или np.sum(a * b))")
    if np.isclose(out, a @ b):
        raise Wrong("это скалярное произведение a @ b, а не косинус: поделите его на длины ‖a‖·‖b‖ (np.linalg.norm)")
    if np.isclose(out, a @ b / np.linalg.norm(a)) or np.isclose(out, a @ b / np.linalg.norm(b)):
        raise Wrong("поделили на длину только одного вектора: нужно на произведение ‖a‖·‖b‖")
    if np.isclose(out, a @ b / (a @ a * (b @ b))):
        raise Wrong("поделили на квадраты длин: ‖a‖ = √(a·a), не забудьте корень (или np.linalg.norm)")
    expect_close(out, _cosine(a, b), "косинус для [1, 2, 2] и [2, 0, 1] неверный: cos = a·b / (‖a‖·‖b‖)")

    for x, y, expected, what in [(a, a, 1.0, "вектора с самим собой"), (a, -a, -1.0, "противоположных векторов"),
                                 (np.array([1.0, 0.0]), np.array([0.0, 3.0]), 0.0, "перпендикулярных векторов")]:
        expect_close(call(candidate, x, y), expected, f"косинус {what} должен быть {expected:g}")
    expect_close(call(candidate, 10 * a, b), _cosine(a, b),
                 "косинус не должен зависеть от длины: cos(10·a, b) = cos(a, b)")
    return "косинус верный: 1 — одно направление, 0 — перпендикулярны, −1 — противоположны"


@checker
def check_one_hot_lookup(candidate):
    """candidate(ids, weight) -> (T, dim): one_hot(ids) (T, V) @ weight (V, dim) — то же, что weight[ids]."""
    V, dim = 5, 3
    weight = np.arange(V * dim, dtype=float).reshape(V, dim) / 10
    ids = np.array([3, 0, 3, 1])
    out = call(candidate, ids, weight)
    if out.shape == (len(ids), V):
        raise Wrong(f"вышла форма {out.shape} — это сама матрица one-hot (T, V); "
                    "умножьте её на таблицу: one_hot @ weight")
    if out.shape == (V, len(ids)) or out.shape == (dim, len(ids)):
        raise Wrong(f"вышла форма {out.shape}: что-то транспонировано. Строки one-hot — токены (T, V), "
                    "умножаем слева: one_hot @ weight -> (T, dim)")
    expect_shape(out, (len(ids), dim), "для ids=[3, 0, 3, 1] и таблицы (5, 3)")
    if np.allclose(out, weight[ids[::-1]]) and not np.allclose(out, weight[ids]):
        raise Wrong("строки в обратном порядке: строка i результата — вектор токена ids[i]")
    expect_close(out, weight[ids],
                 "строки не совпадают с weight[ids]: в строке i one-hot единица стоит в столбце ids[i]")

    ids = np.array([4, 1])
    out = call(candidate, ids, weight[:, :2])
    expect_shape(out, (2, 2), "для ids=[4, 1] и таблицы (5, 2)")
    expect_close(out, weight[ids, :2], "для ids=[4, 1] строки неверные: длина one-hot — V (строк таблицы), а не dim")
    return "one-hot @ таблица выбирает строки таблицы: это и есть поиск эмбеддинга, только дороже"


def _as_words(out):
    """Ответ ученика: список слов или список пар (слово, косинус) -> список слов."""
    out = np.asarray(out)
    if out.ndim == 2 and out.shape[1] == 2:                 # [(слово, косинус), ...]
        out = out[:, 0]
    return [str(word) for word in out.ravel()]


@checker
def check_nearest(candidate):
    """candidate(word, vocab, vectors, k) -> k ближайших к word слов по косинусу, без самого word."""
    vocab = ["банк", "деньги", "кредит", "река", "лодка"]
    vectors = np.array([[1.0, 1.0], [9.0, 6.0], [0.9, 1.0], [-1.0, 2.0], [-2.0, 1.0]])
    by_cosine = ["кредит", "деньги", "река"]                # у «деньги» длинный вектор, но угол чуть больше
    out = _as_words(call(candidate, "банк", vocab, vectors, 3))
    if len(out) != 3:
        raise Wrong(f"для k=3 ожидалось 3 слова, а пришло {len(out)}: {out}")
    if out[0] == "банк":
        raise Wrong("первым соседом оказалось само слово (косинус с собой = 1): исключите его из ответа")
    if out == ["деньги", "кредит", "река"]:
        raise Wrong("порядок как у скалярного произведения: длинный вектор «деньги» обогнал «кредит». "
                    "Сравнивайте косинусы — нормируйте векторы на их длину")
    if out == ["лодка", "река", "деньги"] or out[0] == "лодка":
        raise Wrong("это самые далёкие слова: сортируйте косинусы по убыванию (np.argsort(-cosines))")
    if out != by_cosine:
        raise Wrong(f"для «банк» ожидались {by_cosine}, а пришло {out}")
    out = _as_words(call(candidate, "река", vocab, vectors, 1))
    if out != ["лодка"]:
        raise Wrong(f"для «река» и k=1 ожидалось ['лодка'], а пришло {out}")
    return "соседи найдены: косинус, по убыванию, без самого слова"

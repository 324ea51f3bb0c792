"""Код урока-образца (shared/seeds/000, «Self-Attention и Multi-Head Attention») на course_lib.

Ячейки скопированы из урока как есть; поменяны только импорты
(`import vis` -> `from course_lib import vis`, `import nanotorch as nt` -> `import course_lib as nt`).
Каждая ячейка исполняется как в Jupyter: значение последнего выражения возвращается.
Тесты проверяют то, что утверждает текст урока.
"""

import ast
import inspect

import matplotlib.figure
import numpy as np
import pytest

import course_lib as nt

CELL_SELF_ATTENTION = '''
import numpy as np
from course_lib import vis

rng = np.random.default_rng(0)
tokens = ["кот", "сел", "на", "тёплый", "коврик"]
T, d, dk = len(tokens), 8, 4
X = rng.normal(size=(T, d))                         # эмбеддинги (пока случайные)
Wq, Wk, Wv = (rng.normal(size=(d, dk)) for _ in range(3))

Q, K, V = X @ Wq, X @ Wk, X @ Wv
scores = Q @ K.T / np.sqrt(dk)
weights = np.exp(scores - scores.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)
out = weights @ V
print("Q, K, V:", Q.shape, K.shape, V.shape, " веса:", weights.shape, " выход:", out.shape)
vis.heatmap(weights, xlabels=tokens, ylabels=tokens, title="Веса самовнимания (случайные матрицы)")
'''

CELL_PERMUTATION = '''
import numpy as np
import course_lib as nt

rng = np.random.default_rng(0)
X = rng.normal(size=(1, 5, 8))                      # (батч, T, d)
nt.manual_seed(0)
mha = nt.MultiHeadAttention(d_model=8, num_heads=1)
out = mha(nt.tensor(X)).data[0]

perm = [3, 0, 4, 1, 2]
out_perm = mha(nt.tensor(X[:, perm])).data[0]
print("выход для переставленного входа == переставленный выход:", np.allclose(out_perm, out[perm]))
'''

CELL_MULTI_HEAD = '''
import inspect
import numpy as np
import course_lib as nt

nt.manual_seed(0)
mha = nt.MultiHeadAttention(d_model=16, num_heads=4)
x = nt.tensor(np.random.default_rng(0).normal(size=(2, 6, 16)))    # батч из 2 последовательностей по 6 токенов
out = mha(x)
print(mha)
print("вход:", x.shape, " выход:", out.shape)
print("веса внимания (батч, головы, T, T):", mha.attn.shape)
print("параметров:", mha.num_params(), "= 4 · (16·16 + 16)")
print()
print(inspect.getsource(nt.MultiHeadAttention.forward))
print(inspect.getsource(nt.MultiHeadAttention._split))
'''


def run_cell(source, namespace):
    """Исполняет ячейку как Jupyter: всё по порядку, значение последнего выражения — результат."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<ячейка урока>", "exec"), namespace)
    if last is not None:
        return eval(compile(ast.Expression(last.value), "<ячейка урока>", "eval"), namespace)
    return None


def test_self_attention_cell(capsys):
    ns = {}
    fig = run_cell(CELL_SELF_ATTENTION, ns)
    printed = capsys.readouterr().out
    assert "Q, K, V: (5, 4) (5, 4) (5, 4)  веса: (5, 5)  выход: (5, 4)" in printed, f"ячейка напечатала: {printed!r}"
    assert np.allclose(ns["weights"].sum(axis=1), 1.0), "строки весов самовнимания должны давать в сумме 1"

    assert isinstance(fig, matplotlib.figure.Figure), f"vis.heatmap должна вернуть Figure, а вернула {type(fig).__name__}"
    (image_ax,) = fig.axes                                 # карта; шкала цвета — вставка у её края
    (colorbar_ax,) = image_ax.child_axes
    assert colorbar_ax.get_ylabel() == "вес", "у шкалы цвета должна быть подпись «вес»"
    assert image_ax.get_title() == "Веса самовнимания (случайные матрицы)"
    assert image_ax.get_xlabel() and image_ax.get_ylabel(), "у осей тепловой карты должны быть подписи"
    assert [t.get_text() for t in image_ax.get_xticklabels()] == ns["tokens"], "по оси x — токены-ключи"
    assert [t.get_text() for t in image_ax.get_yticklabels()] == ns["tokens"], "по оси y — токены-запросы"
    assert np.array_equal(image_ax.images[0].get_array(), ns["weights"]), "на карте должны быть именно веса"
    assert image_ax.images[0].get_clim() == (0.0, 1.0), "шкала весов внимания — от 0 до 1"


def test_heatmap_draws_on_a_given_axes():
    import matplotlib.pyplot as plt
    from course_lib import vis

    fig, (left, right) = plt.subplots(1, 2)
    returned = vis.heatmap(np.eye(3), ax=right)
    assert returned is fig, "heatmap с данным ax должна вернуть фигуру этого ax"
    assert right.images and not left.images, "рисовать нужно на переданном ax, а не на соседнем"


def test_permutation_cell(capsys):
    ns = {}
    run_cell(CELL_PERMUTATION, ns)
    printed = capsys.readouterr().out
    assert printed.strip() == "выход для переставленного входа == переставленный выход: True", f"ячейка напечатала: {printed!r}"
    assert not np.allclose(ns["out_perm"], ns["out"]), "переставленный выход должен отличаться от исходного — иначе проверка пустая"


@pytest.fixture
def multi_head_cell(capsys):
    ns = {}
    run_cell(CELL_MULTI_HEAD, ns)
    return ns, capsys.readouterr().out


def test_multi_head_cell_prints_shapes_and_parameters(multi_head_cell):
    ns, printed = multi_head_cell
    assert "вход: (2, 6, 16)  выход: (2, 6, 16)" in printed, f"ячейка напечатала: {printed!r}"
    assert "веса внимания (батч, головы, T, T): (2, 4, 6, 6)" in printed
    assert "параметров: 1088 = 4 · (16·16 + 16)" in printed
    assert ns["mha"].num_params() == 4 * (16 * 16 + 16)
    assert ns["mha"].attn.shape == (2, 4, 6, 6)
    assert np.allclose(ns["mha"].attn.sum(axis=-1), 1.0), "веса каждой головы — распределения по ключам"
    assert "MultiHeadAttention(" in printed and "d_model=16, num_heads=4, d_head=4" in printed, "print(mha) должен показать устройство слоя"
    for layer in ("W_q", "W_k", "W_v", "W_o"):
        assert f"({layer}): Linear(d_in=16, d_out=16, bias=True)" in printed, f"print(mha) должен показать {layer}"


def test_cell_prints_the_library_code_of_forward_and_split(multi_head_cell):
    _, printed = multi_head_cell
    for method in (nt.MultiHeadAttention.forward, nt.MultiHeadAttention._split):
        assert inspect.getsource(method) in printed, f"урок печатает исходный код {method.__name__}"


def test_split_does_what_its_comment_says():
    nt.manual_seed(0)
    mha = nt.MultiHeadAttention(d_model=6, num_heads=3)
    x = nt.tensor(np.arange(2 * 4 * 6, dtype=float).reshape(2, 4, 6))
    heads = mha._split(x)
    assert heads.shape == (2, 3, 4, 2), f"_split: (N, T, D) = (2, 4, 6) -> (N, h, T, d_head) = (2, 3, 4, 2), а вышло {heads.shape}"
    assert np.array_equal(heads.data[:, 1], x.data[:, :, 2:4]), "голова 1 должна получить столбцы 2:4 — свой срез d_head"
    assert np.array_equal(mha._merge(heads).data, x.data), "_merge должен склеить головы обратно в исходный x"

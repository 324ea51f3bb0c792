"""tests/referee.py: эталон сам верен (совпадает с книгой), и при расхождении путей называет неверный."""

import numpy as np

import course_lib as nt
import referee
from course_lib import functional
from gradcheck import upstream_weights
from strategies import rng


def test_the_reference_attention_and_its_differences_match_the_book():
    q, k, v = (rng(i).normal(size=(2, 3, 4)) for i in range(3))
    mask = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1]], dtype=bool)          # средняя строка закрыта целиком
    tensors = [nt.tensor(a, requires_grad=True) for a in (q, k, v)]
    context, weights = nt.scaled_dot_product_attention(*tensors, mask, 0.7)
    ups = [upstream_weights(context.shape, 0), upstream_weights(weights.shape, 7)]
    ((context * ups[0]).sum() + (weights * ups[1]).sum()).backward()
    exact = referee.attention(q, k, v, mask, 0.7)
    assert np.abs(exact[0] - context.data).max() < 1e-12 and np.abs(exact[1] - weights.data).max() < 1e-12
    grads = referee.numeric_grads(lambda *a: referee.attention(*a, mask, 0.7), [q, k, v], ups)
    assert all(np.abs(g - t.grad).max() < 1e-6 for g, t in zip(grads, tensors))


def test_a_wrong_fast_path_is_named_and_the_book_is_not(monkeypatch):
    x = rng(3).normal(size=(3, 4))
    book = np.asarray(nt.gelu(x))
    monkeypatch.setattr(functional, "fast_gelu", lambda t: nt.tensor(referee.gelu(t.data) * (1 + 1e-6)))
    with nt.fast():
        fast = np.asarray(nt.gelu(x))
    said = referee.verdict("GELU: выход", book, fast, lambda: referee.gelu(x), "формула во float64")
    assert said is not None and said.endswith("неверно машинное отделение (nt.fast())"), said
    said = referee.verdict("GELU: выход", fast, book, lambda: referee.gelu(x), "формула во float64")
    assert said.endswith("неверно книга"), said
    assert referee.verdict("GELU: выход", book, book.copy(), lambda: 1 / 0, "не считается") is None

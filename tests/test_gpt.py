"""GPT урока 10: равенство PyTorch (логиты и все градиенты), градиенты против конечных разностей,
причинность, генерация с KV-кэшем == пересчёт всего окна, выбор токена и русские ошибки.

Эталон PyTorch — tests/data/torch_gpt.npz (его пишет tests/make_torch_reference.py в отдельном
окружении с torch); тест кладёт в модель те же веса, что видел PyTorch, по порядку named_parameters.
"""

import pathlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import course_lib as nt
from course_lib.functional import cross_entropy
from course_lib.nn.sampling import sample_next_token
from gradcheck import assert_grads_match

REFERENCE = np.load(pathlib.Path(__file__).parent / "data" / "torch_gpt.npz")
V, MAX_LEN = 13, 8


def tiny_gpt(seed=0, vocab_size=V, max_len=MAX_LEN, d_model=8, num_heads=2, num_layers=2):
    nt.manual_seed(seed)
    return nt.GPT(vocab_size, max_len, d_model, num_heads, num_layers)


def random_ids(seed, N=2, T=MAX_LEN, vocab_size=V):
    return np.random.default_rng(seed).integers(0, vocab_size, size=(N, T))


def next_token_loss(model, ids):
    logits = model(ids)                                   # (N, T, V)
    return cross_entropy(logits[:, :-1], ids[:, 1:])


# ---- равенство PyTorch -----------------------------------------------------------------

# Эталон PyTorch (tests/make_torch_reference.py) умножает сумму эмбеддингов на 0.1 в forward; у GPT этот
# множитель — в начальных весах таблиц (EMBEDDING_STD). Та же функция: таблицы эталона ×0.1, а их градиенты
# у GPT — в 10 раз больше (d/dW для W·0.1).
TABLES = ("tokens.weight", "positions.weight")


def reference_model():
    V_ref, L, D, H, layers = (int(n) for n in REFERENCE["config"])
    model = nt.GPT(V_ref, L, D, H, layers)
    named = list(model.named_parameters())
    assert len(named) == len(REFERENCE["names"]), "у GPT и у эталона разное число параметров"
    for i, (name, p) in enumerate(named):
        value = REFERENCE[f"param.{i:03d}"]
        assert value.shape == p.shape, f"{name}: форма {p.shape}, а в эталоне {REFERENCE['names'][i]} — {value.shape}"
        p.data = value * 0.1 if name in TABLES else value.copy()
    return model


def test_logits_equal_torch():
    model = reference_model()
    gap = np.abs(model(REFERENCE["ids"]).data - REFERENCE["logits"]).max()
    assert gap < 1e-12, f"логиты GPT расходятся с PyTorch до {gap:.1e}"


def test_every_gradient_equals_torch():
    model = reference_model()
    loss = next_token_loss(model, REFERENCE["ids"])
    assert abs(loss.item() - float(REFERENCE["loss"])) < 1e-12
    loss.backward()
    for i, (name, p) in enumerate(model.named_parameters()):
        expected = REFERENCE[f"grad.{i:03d}"] * (10 if name in TABLES else 1)
        gap = np.abs(p.grad - expected).max()
        assert gap < 1e-12, f"градиент {name} расходится с PyTorch ({REFERENCE['names'][i]}) до {gap:.1e}"
    unused = REFERENCE["ids"].shape[1]                    # позиция, которой во входе не было
    assert not model.positions.weight.grad[unused:].any(), "у неиспользованных позиций градиент должен быть 0"


# ---- градиенты против конечных разностей ------------------------------------------------

def set_param(model, name, value):
    """Кладёт value на место параметра name ('blocks.0.ln1.weight': номер — индекс в списке блоков)."""
    *path, attr = name.split(".")
    owner = model
    for part in path:
        owner = owner[int(part)] if part.isdigit() else getattr(owner, part)
    setattr(owner, attr, value)


def test_gradients_of_a_tiny_gpt_match_finite_differences():
    model = tiny_gpt(1, vocab_size=5, max_len=4, d_model=4, num_heads=2, num_layers=1)
    ids = random_ids(2, N=2, T=4, vocab_size=5)
    named = list(model.named_parameters())

    def logits(*params):
        for (name, _), value in zip(named, params):
            set_param(model, name, value)
        return model(ids)

    assert_grads_match(logits, [p.data for _, p in named], names=[n for n, _ in named], rtol=1e-4, atol=1e-6)


# ---- свойства ---------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), t=st.integers(0, MAX_LEN - 2))
def test_changing_later_tokens_leaves_earlier_logits_unchanged(seed, t):
    model = tiny_gpt()
    ids = random_ids(seed)
    changed = ids.copy()
    changed[:, t + 1:] = random_ids(seed + 1)[:, t + 1:]
    before, after = model(ids).data, model(changed).data
    assert np.abs(before[:, :t + 1] - after[:, :t + 1]).max() < 1e-12, "логиты позиций ≤ t зависят от токенов после t"
    if (changed[:, t + 1:] != ids[:, t + 1:]).any():
        assert not np.allclose(before[:, t + 1:], after[:, t + 1:]), "будущие токены ни на что не влияют — модель не смотрит на вход?"


def test_without_the_mask_earlier_logits_see_later_tokens():
    nt.manual_seed(0)
    model = nt.GPT(V, MAX_LEN, 8, 2, 2, causal=False)
    ids = random_ids(3)
    changed = ids.copy()
    changed[:, -1] = (ids[:, -1] + 1) % V
    assert not np.allclose(model(ids).data[:, 0], model(changed).data[:, 0]), "без маски первый токен не видит последний"
    assert "causal=False" in repr(model)


def test_generation_without_the_mask_recomputes_the_window():
    nt.manual_seed(2)
    model = nt.GPT(V, MAX_LEN, 8, 2, 2, causal=False)
    prompt = random_ids(4, T=3)
    got = model.generate(prompt, MAX_LEN + 3, 0.8, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(got, recompute(model, prompt, MAX_LEN + 3, 0.8, rng=np.random.default_rng(1)))


def test_causal_must_be_a_bool():
    with pytest.raises(TypeError, match="causal"):
        nt.GPT(V, MAX_LEN, 8, 2, 1, causal="нет")


def test_parameter_count_matches_the_formula():
    V_, L, D, layers = 175, 64, 64, 4
    model = nt.GPT(V_, L, D, 4, layers)
    assert model.num_params() == (V_ + L) * D + layers * (12 * D * D + 13 * D) + 2 * D + D * V_ + V_ == 226_735


# ---- генерация --------------------------------------------------------------------------

def recompute(model, ids, max_new_tokens, temperature=1.0, top_k=None, rng=None):
    """Генерация без кэша: каждый шаг — forward на последних max_len токенах."""
    for _ in range(max_new_tokens):
        with nt.no_grad():
            logits = model(ids[:, -model.max_len:]).data[:, -1]
        ids = np.concatenate([ids, sample_next_token(logits, temperature, top_k, rng)[:, None]], axis=1)
    return ids


@pytest.mark.parametrize("prompt_len, new", [(1, 5), (3, 12), (MAX_LEN + 2, 4)])   # и внутри max_len, и за ним
def test_greedy_generation_with_cache_equals_recompute(prompt_len, new):
    model = tiny_gpt(3)
    prompt = random_ids(4, T=prompt_len) if prompt_len <= MAX_LEN else np.tile(random_ids(4), 2)[:, :prompt_len]
    got = model.generate(prompt, new, top_k=1, rng=np.random.default_rng(0))
    expected = recompute(model, prompt, new, top_k=1, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(got, expected)
    assert got.shape == (2, prompt_len + new)
    np.testing.assert_array_equal(got[:, :prompt_len], prompt)


@pytest.mark.parametrize("temperature, top_k", [(1.0, None), (0.7, 5), (2.0, 3)])
def test_sampled_generation_with_cache_equals_recompute(temperature, top_k):
    model = tiny_gpt(5)
    prompt = random_ids(6, T=2)
    got = model.generate(prompt, 14, temperature, top_k, rng=np.random.default_rng(7))
    expected = recompute(model, prompt, 14, temperature, top_k, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(got, expected)
    assert len(np.unique(got[:, 2:])) > 1, "выборка дала один токен — случайность не работает?"


def test_generation_without_rng_follows_manual_seed():
    model = tiny_gpt(5)
    prompt = random_ids(6, T=2)
    nt.manual_seed(11)
    first = model.generate(prompt, 10)
    nt.manual_seed(11)
    np.testing.assert_array_equal(model.generate(prompt, 10), first)


def test_zero_new_tokens_returns_the_prompt():
    prompt = random_ids(8, T=3)
    np.testing.assert_array_equal(tiny_gpt().generate(prompt, 0), prompt)


def test_top_k_one_is_argmax_and_top_k_limits_the_choice():
    logits = np.random.default_rng(0).normal(size=(4, 9))
    rng = np.random.default_rng(1)
    np.testing.assert_array_equal(sample_next_token(logits, 1.0, 1, rng), logits.argmax(axis=1))
    top3 = np.argsort(logits, axis=1)[:, -3:]
    draws = np.stack([sample_next_token(logits, 1.0, 3, rng) for _ in range(200)], axis=1)   # (4, 200)
    assert all(set(row) <= set(allowed) for row, allowed in zip(draws, top3))
    assert all(len(set(row)) == 3 for row in draws), "из трёх допустимых токенов за 200 раз выпали не все"


def test_sampling_follows_softmax_and_temperature_sharpens():
    logits = np.log(np.array([[0.5, 0.3, 0.2]]))
    rng = np.random.default_rng(2)
    draws = np.array([sample_next_token(logits, 1.0, None, rng)[0] for _ in range(4000)])
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / 4000, [0.5, 0.3, 0.2], atol=0.03)
    cold = np.array([sample_next_token(logits, 0.25, None, rng)[0] for _ in range(4000)])
    assert (cold == 0).mean() > 0.8, "при температуре 0.25 самый вероятный токен должен выпадать почти всегда"


# ---- ошибки -----------------------------------------------------------------------------

@pytest.mark.parametrize("ids, error, match", [
    (np.zeros((1, 3)), TypeError, "целые номера токенов"),
    (np.array([1, 2, 3]), ValueError, r"ids\[None\]"),
    (np.zeros((1, 0), dtype=int), ValueError, "T ≥ 1"),
    (np.array([[1, V]]), ValueError, f"от 0 до {V - 1}"),
    (np.array([[-1, 2]]), ValueError, f"от 0 до {V - 1}"),
    (np.zeros((1, MAX_LEN + 1), dtype=int), ValueError, f"знает {MAX_LEN} позиций"),
])
def test_forward_rejects_bad_ids(ids, error, match):
    with pytest.raises(error, match=match):
        tiny_gpt()(ids)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(max_new_tokens=-1), ValueError, "max_new_tokens"),
    (dict(max_new_tokens=2.0), TypeError, "max_new_tokens"),
    (dict(temperature=0), ValueError, "temperature — число > 0"),
    (dict(temperature=-1.0), ValueError, "temperature — число > 0"),
    (dict(temperature="hot"), TypeError, "temperature — число > 0"),
    (dict(top_k=0), ValueError, "top_k"),
    (dict(top_k=V + 1), ValueError, f"top_k — целое число от 1 до {V}"),
    (dict(top_k=2.5), TypeError, "top_k"),
    (dict(rng=42), TypeError, "default_rng"),
])
def test_generate_rejects_bad_arguments(kwargs, error, match):
    kwargs = {"max_new_tokens": 3, **kwargs}
    with pytest.raises(error, match=match):
        tiny_gpt().generate(random_ids(0, T=2), **kwargs)


def test_generate_rejects_bad_prompt():
    with pytest.raises(TypeError, match="целые номера"):
        tiny_gpt().generate(np.array([[0.5, 1.5]]), 3)
    with pytest.raises(ValueError, match=f"от 0 до {V - 1}"):
        tiny_gpt().generate(np.array([[V + 3]]), 3)


@pytest.mark.parametrize("args, match", [
    ((0, 8, 8, 2, 2), "vocab_size"),
    ((V, 0, 8, 2, 2), "max_len"),
    ((V, 8, 8, 3, 2), "не делится на num_heads=3"),
    ((V, 8, 8, 2, 0), "num_layers"),
])
def test_constructor_rejects_bad_sizes(args, match):
    with pytest.raises(ValueError, match=match):
        nt.GPT(*args)

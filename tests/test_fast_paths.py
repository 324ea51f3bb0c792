"""Книга и машинное отделение считают одно и то же: `with nt.fast():` меняет путь, а не ответ.

Каждый случай считается публичными вызовами дважды — по книге (три шага урока 05 в
`scaled_dot_product_attention`) и под `nt.fast()` (слитая операция engine_room/attention.py), — и вперёд,
и назад совпадает до 1e-12 во float64, в том числе когда кусков и полос слитой операции несколько
(CHUNK и ROWS уменьшены), батч растянут, T_q ≠ T_k, а строки закрыты целиком. То же для слоёв
(Linear, GELU, TransformerBlock) и для проверок самой слитой операции: конечные разности, тип, полосы.
"""

import contextlib
import gc
import inspect
import os
import pathlib
import platform
import subprocess
import sys
import threading
import warnings

import nbformat
from nbclient import NotebookClient

import numpy as np
import pytest

import course_lib as nt
from course_lib.engine_room import attention as attention_module
from course_lib.autograd.switch import UnusedSwitchWarning
from course_lib.engine_room import enabled
from course_lib.engine_room.attention import fused_attention
import referee
from gradcheck import assert_grads_match, upstream_weights
from strategies import rng


CASES = {
    "без маски": ((2, 3, 4), (2, 5, 4), (2, 5, 3), None),
    "причинная, головы": ((2, 2, 4, 3), (2, 2, 4, 3), (2, 2, 4, 2), np.tril(np.ones((4, 4), dtype=bool))),
    "паддинг (N, 1, 1, T_k)": ((2, 2, 3, 3), (2, 2, 4, 3), (2, 2, 4, 3),
                               np.array([True, True, False, False, True, True, True, False]).reshape(2, 1, 1, 4)),
    "закрытые строки": ((2, 3, 2), (2, 4, 2), (2, 4, 2),
                        np.array([[[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]], [[0] * 4, [0, 1, 0, 0], [1, 0, 1, 0]]], dtype=bool)),
    "k и v одни на батч": ((3, 2, 4), (2, 4), (2, 5), None),
    "одна матрица (T, d)": ((4, 3), (5, 3), (5, 2), np.tril(np.ones((4, 5), dtype=bool), 1)),
}


def both_paths(fn, arrays):
    """fn(*тензоры) -> тензор или кортеж тензоров; [(значения..., градиенты входов...)] по книге и под nt.fast()."""
    results = []
    for fast in (False, True):
        tensors = [nt.tensor(a, requires_grad=True) for a in arrays]
        with nt.fast(fast):
            outs = fn(*tensors)
            outs = outs if isinstance(outs, tuple) else (outs,)
            loss = sum((out * upstream_weights(out.shape, 7 * i)).sum() for i, out in enumerate(outs))
            loss.backward()
        results.append([out.data for out in outs] + [t.grad for t in tensors])
    return results


@pytest.mark.parametrize("chunk, rows", [(2**18, 64), (7, 1), (7, 3)])   # 7 чисел: по одной матрице за кусок
@pytest.mark.parametrize("case", CASES)
def test_plain_and_fast_attention_agree_forward_and_backward(case, chunk, rows, monkeypatch):
    monkeypatch.setattr(attention_module, "CHUNK", chunk)
    monkeypatch.setattr(attention_module, "ROWS", rows)
    *shapes, mask = CASES[case]
    arrays = [rng(i).normal(size=shape) for i, shape in enumerate(shapes)]
    plain, fast = both_paths(lambda q, k, v: nt.scaled_dot_product_attention(q, k, v, mask, 0.7), arrays)
    exact = lambda q, k, v: referee.attention(q, k, v, mask, 0.7)                      # noqa: E731
    forward = exact(*arrays)
    ups = [upstream_weights(out.shape, 7 * i) for i, out in enumerate(forward)]
    references = [lambda i=i: forward[i] for i in range(2)]
    references += [lambda i=i: referee.numeric_grads(exact, arrays, ups)[i] for i in range(3)]
    for name, p, f, reference in zip(["context", "weights", "dq", "dk", "dv"], plain, fast, references):
        problem = referee.verdict(f"{case}: {name}", p, f, reference, "формула урока 05 во float64 и её разности")
        assert problem is None, problem


LAYER_REFERENCES = {"MultiHeadAttention": referee.multi_head_attention, "TransformerBlock": referee.transformer_block}


def _layer_case(layer, causal):
    """Слой (зерно 0), вход x (3, 7, 8), маска паддинга (третья фраза пустая) и эталон: f(x, *параметры) на NumPy."""
    x = rng(5).normal(size=(3, 7, 8))
    padding = np.arange(7) < np.array([7, 4, 0])[:, None, None, None]      # (N, 1, 1, T): третья фраза пустая
    nt.manual_seed(0)
    module = getattr(nt, layer)(8, 2, causal=causal)
    names = [name for name, _ in module.named_parameters()]

    def exact(x, *params):
        return LAYER_REFERENCES[layer](x, dict(zip(names, params)), 2, causal, padding)

    return module, x, padding, names, exact


def _layer_results(layer, causal, fast):
    """[выход, dx, градиенты параметров…] слоя по книге (fast=False) или под nt.fast()."""
    module, x, padding, _, _ = _layer_case(layer, causal)
    xt = nt.tensor(x, requires_grad=True)
    with nt.fast(fast):
        out = module(xt, padding)
        (out * upstream_weights(out.shape)).sum().backward()
    return [out.data, xt.grad] + [p.grad for p in module.parameters()]


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layer", ["MultiHeadAttention", "TransformerBlock"])
def test_plain_and_fast_layers_agree(layer, causal):
    """Разошлись — судья (referee: слой на NumPy во float64 и его центральные разности) говорит, какой путь неверен."""
    module, x, _, names, exact = _layer_case(layer, causal)
    arrays = [x] + [p.data for p in module.parameters()]
    upstream = [upstream_weights(exact(*arrays).shape)]
    references = [lambda: exact(*arrays)] + [lambda i=i: referee.numeric_grads(exact, arrays, upstream)[i]
                                             for i in range(len(arrays))]
    plain, fast = _layer_results(layer, causal, False), _layer_results(layer, causal, True)
    for i, (p, f, reference) in enumerate(zip(plain, fast, references)):
        what = ["выход", "dx"][i] if i < 2 else f"градиент {names[i - 2]}"
        problem = referee.verdict(f"{layer}: {what}", p, f, reference, "слой на NumPy во float64 и его разности")
        assert problem is None, problem


@pytest.mark.parametrize("layer", ["MultiHeadAttention", "TransformerBlock"])
def test_layer_referee_agrees_with_the_book(layer):
    """Судья сам по себе верен: его слой совпадает с книгой и вперёд (до 1e-12), и назад (разности — до 1e-6).
    Иначе его «неверно — книга» ничего бы не значило."""
    module, x, _, names, exact = _layer_case(layer, True)
    arrays = [x] + [p.data for p in module.parameters()]
    book = _layer_results(layer, True, False)
    assert np.abs(exact(*arrays) - book[0]).max() < 1e-12, f"{layer}: судья вперёд расходится с книгой"
    numeric = referee.numeric_grads(exact, arrays, [upstream_weights(book[0].shape)])
    for i, (ours, theirs) in enumerate(zip(book[1:], numeric)):
        what = "dx" if i == 0 else f"градиент {names[i - 1]}"
        gap = np.abs(ours - theirs).max()
        assert gap < 1e-6 * (1 + np.abs(theirs).max()), f"{layer}: {what} книги и разности судьи разошлись на {gap:.1e}"


def test_layer_referee_names_the_wrong_path(monkeypatch):
    """Испорченный быстрый GELU (на 1 % больше): судья называет неверным машинное отделение, а не книгу."""
    import course_lib.functional as functional
    real = functional.fast_gelu

    def broken(x):
        out = real(x)
        out.data *= 1.01
        return out

    monkeypatch.setattr(functional, "fast_gelu", broken)
    module, x, _, names, exact = _layer_case("TransformerBlock", True)
    arrays = [x] + [p.data for p in module.parameters()]
    plain, fast = _layer_results("TransformerBlock", True, False), _layer_results("TransformerBlock", True, True)
    problem = referee.verdict("TransformerBlock: выход", plain[0], fast[0], lambda: exact(*arrays), "слой на NumPy")
    assert problem is not None and problem.endswith("неверно машинное отделение (nt.fast())"), problem


def _layer_norm(d, seed):
    """LayerNorm(d) с неединичным масштабом и ненулевым сдвигом: иначе их вклад в формулы не виден."""
    norm = nt.LayerNorm(d)
    norm.weight.data, norm.bias.data = rng(seed).normal(size=d), rng(seed + 1).normal(size=d)
    return norm


@pytest.mark.parametrize("shape", [(2, 5, 4), (4,), (3, 4)])
def test_plain_and_fast_gelu_linear_and_layer_norm_agree(shape):
    x = rng(6).normal(size=shape) * 3
    nt.manual_seed(0)
    linear, norm = nt.Linear(4, 6), _layer_norm(4, 8)
    exact = {"GELU": referee.gelu,
             "Linear": lambda x: referee.linear(x, linear.weight.data, linear.bias.data),
             "LayerNorm": lambda x: referee.layer_norm(x, norm.weight.data, norm.bias.data, norm.eps)}
    for (name, formula), fn in zip(exact.items(), (nt.gelu, linear, norm)):
        plain, fast = both_paths(fn, [x])
        references = [lambda: formula(x), lambda: referee.numeric_grads(formula, [x], [upstream_weights(x.shape)])[0]]
        for what, p, f, reference in zip(["выход", "dx"], plain, fast, references):
            problem = referee.verdict(f"{name}: {what}", p, f, reference, "формула во float64 и её разности")
            assert problem is None, problem
    plain, fast = [], []
    for on, grads in ((False, plain), (True, fast)):
        norm.weight.grad = norm.bias.grad = None
        xt = nt.tensor(x, requires_grad=True)
        with nt.fast(on):
            (norm(xt) * upstream_weights(x.shape)).sum().backward()
        grads += [norm.weight.grad, norm.bias.grad]
    def by_parameters(weight, bias):
        return referee.layer_norm(x, weight, bias, norm.eps)

    for i, (what, p, f) in enumerate(zip(["d weight", "d bias"], plain, fast)):
        reference = lambda i=i: referee.numeric_grads(by_parameters, [norm.weight.data, norm.bias.data],  # noqa: E731
                                                      [upstream_weights(x.shape)])[i]
        problem = referee.verdict(f"LayerNorm: {what}", p, f, reference, "разности формулы во float64")
        assert problem is None, problem


def test_fast_gelu_and_layer_norm_gradients_match_finite_differences():
    x = rng(12).normal(size=(2, 3, 5)) * 2
    norm = _layer_norm(5, 14)
    with nt.fast():
        assert_grads_match(nt.gelu, [x], names=["x (GELU)"])
        assert_grads_match(norm, [x], names=["x (LayerNorm)"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_gelu_and_layer_norm_keep_dtype(dtype):
    x = nt.tensor(rng(16).normal(size=(2, 3, 4)).astype(dtype), requires_grad=True)
    norm = _layer_norm(4, 17).to(dtype)
    with nt.fast():
        out = norm(nt.gelu(x))
        out.sum().backward()
    assert out.dtype == x.grad.dtype == dtype
    assert norm.weight.grad.dtype == norm.bias.grad.dtype == dtype


@pytest.mark.parametrize("case", CASES)
def test_fused_gradients_match_finite_differences(case, monkeypatch):
    monkeypatch.setattr(attention_module, "CHUNK", 7)
    monkeypatch.setattr(attention_module, "ROWS", 2)
    *shapes, mask = CASES[case]
    arrays = [rng(10 + i).normal(size=shape) for i, shape in enumerate(shapes)]
    assert_grads_match(lambda q, k, v: fused_attention(q, k, v, mask, 0.5)[0], arrays, names=["q", "k", "v"])
    assert_grads_match(lambda q, k: fused_attention(q, k, nt.tensor(arrays[2]), mask, 0.5)[1], arrays[:2],
                       names=["q (через веса)", "k (через веса)"])


def test_fully_masked_rows_are_zero_and_gradients_finite():
    q, k, v = (nt.tensor(rng(20 + i).normal(size=(1, 3, 2)), requires_grad=True) for i in range(3))
    mask = np.array([[True, False, False], [False, False, False], [True, True, True]])
    context, weights = fused_attention(q, k, v, mask, 1.0)
    (context.sum() + weights.sum()).backward()
    assert (weights.data[0, 1] == 0).all() and (context.data[0, 1] == 0).all()
    assert np.allclose(weights.data[0, [0, 2]].sum(axis=-1), 1)
    assert all(np.isfinite(t.grad).all() for t in (q, k, v))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_keeps_dtype(dtype):
    q, k, v = (nt.tensor(rng(30 + i).normal(size=(2, 4, 3)).astype(dtype), requires_grad=True) for i in range(3))
    context, weights = fused_attention(q, k, v, np.tril(np.ones((4, 4), dtype=bool)), 1 / np.sqrt(3))
    context.sum().backward()
    assert context.dtype == weights.dtype == dtype
    assert q.grad.dtype == k.grad.dtype == v.grad.dtype == dtype


def test_no_graph_without_requires_grad():
    q, k, v = (nt.tensor(rng(40 + i).normal(size=(3, 2))) for i in range(3))
    context, weights = fused_attention(q, k, v, None, 1.0)
    assert not context.requires_grad and not weights.requires_grad and context._parents == ()


def test_bands_skip_the_keys_the_mask_closes_for_every_row(monkeypatch):
    monkeypatch.setattr(attention_module, "ROWS", 4)
    causal = ~np.tril(np.ones((8, 8), dtype=bool))[None]
    assert attention_module._bands(causal, 8, 8) == [(slice(0, 4), 4), (slice(4, 8), 8)]
    padding = np.ones((2, 6, 5), dtype=bool)          # закрыто всё, кроме ключей 0..2 первой матрицы
    padding[0, :, :3] = False
    assert attention_module._bands(padding, 6, 5) == [(slice(0, 6), 3)]   # у обеих полос c = 3: одна полоса
    padding[0, 4:] = True                             # вторая полоса закрыта целиком
    assert attention_module._bands(padding, 6, 5) == [(slice(0, 4), 3), (slice(4, 6), 0)]
    assert attention_module._bands(None, 6, 5) == [(slice(0, 6), 5)]


# ---- выключатель ----------------------------------------------------------------------------

def test_switch_nests_and_restores_even_after_an_error():
    assert not enabled(), "сама библиотека быстрый путь не включает"
    with nt.fast():
        assert enabled()
        with nt.fast(False):
            assert not enabled()
        assert enabled(), "выход из вложенного блока возвращает внешнее состояние"
        with pytest.raises(ZeroDivisionError), nt.fast(False):
            1 / 0
        assert enabled(), "ошибка внутри блока не оставляет выключатель в чужом положении"
    assert not enabled()


def test_switch_belongs_to_the_thread_that_entered_it():
    seen = {}

    def background():                                  # как фоновый поток виджета
        seen["before"] = enabled()
        with nt.fast():
            seen["inside"] = enabled()

    with nt.fast():
        worker = threading.Thread(target=background)
        worker.start()
        worker.join()
        assert enabled(), "блок в другом потоке не выключил быстрый путь в этом"
    assert seen == {"before": False, "inside": True}


def test_one_block_can_be_entered_again_and_inside_itself():
    """b = nt.fast(): with b: дважды подряд и вложенно — как torch.no_grad(); раньше второй вход давал английское
    «generator didn't yield»."""
    block = nt.fast()
    with block:
        assert enabled()
        with block:
            assert enabled()
            with nt.fast(False):
                assert not enabled()
            assert enabled()
        assert enabled(), "выход из внутреннего входа того же блока вернул прежнее, а не выключил"
    assert not enabled()
    with block:
        assert enabled(), "второй вход в тот же блок включает быстрый путь снова"
    assert not enabled()


def test_one_block_in_two_threads_keeps_each_threads_own_state():
    block, seen = nt.fast(), {}

    def background():
        with block:
            seen["inside"] = enabled()
        seen["after"] = enabled()

    with block:
        worker = threading.Thread(target=background)
        worker.start()
        worker.join()
        assert enabled(), "выход фонового потока из того же блока не выключил быстрый путь здесь"
    assert seen == {"inside": True, "after": False} and not enabled()


def test_fast_decorates_a_function_and_restores_after_each_call_and_error():
    @nt.fast()
    def inside():
        return enabled()

    @nt.fast()
    def failing():
        raise ZeroDivisionError

    assert inside() and inside() and not enabled()
    with pytest.raises(ZeroDivisionError):
        failing()
    assert not enabled() and inside.__name__ == "inside"


def test_fast_called_without_with_warns_in_russian_pointing_at_the_call():
    with pytest.warns(UnusedSwitchWarning, match="вызван без with и ничего не изменил") as caught:
        nt.fast(); line = inspect.currentframe().f_lineno            # noqa: E702 — строка вызова и есть ответ
        gc.collect()
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)], "предупреждение указывает не на вызов"
    assert "with nt.fast():" in str(caught[0].message)
    with pytest.warns(UnusedSwitchWarning) as twice:
        for _ in range(2):
            nt.fast(False)                                       # та же строка дважды — и сказано дважды
    assert len(twice) == 2 and "with nt.fast(False):" in str(twice[0].message)


def test_correct_use_of_fast_never_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with nt.fast():
            pass
        block = nt.fast(False)
        with block:
            pass
        del block

        @nt.fast()
        def step():
            pass

        del step
        with contextlib.ExitStack() as stack:
            stack.enter_context(nt.fast())
        gpt = nt.GPT(10, 8, 8, 2, 1)
        gpt.generate(np.zeros((1, 2), np.int64), 3, rng=np.random.default_rng(0))
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, UnusedSwitchWarning)], [str(w.message) for w in caught]


def test_the_switch_and_a_block_say_what_they_are():
    assert "with nt.fast():" in repr(nt.fast)
    assert str(inspect.signature(nt.fast)) == "(on=True)", "подсказка Jupyter (Shift+Tab) — аргументы блока"
    block = nt.fast()
    assert "ничего не включает" in repr(block) and "with nt.fast():" in repr(block)
    with block:
        pass


NOTEBOOK_CELLS = ["import course_lib as nt\nnt.fast()\nx = 1", "nt.fast()", "with nt.fast():\n    y = 2",
                  "with nt.fast:\n    pass"]


def test_a_notebook_learner_sees_each_misuse_of_the_switch(tmp_path):
    """В ядре Jupyter: nt.fast() среди строк ячейки — предупреждение в выводе ячейки; последней строкой — его repr;
    верный блок — без вывода; with nt.fast: — русская ошибка."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS])
    root = str(pathlib.Path(__file__).resolve().parent.parent)
    env_path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", env_path)
        NotebookClient(notebook, kernel_name="python3", timeout=120, allow_errors=True,
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    warned, shown, quiet, refused = (cell.outputs for cell in notebook.cells)
    assert [o.get("name") for o in warned] == ["stderr"] and "nt.fast() вызван без with" in warned[0]["text"], warned
    assert "ничего не включает" in shown[-1]["data"]["text/plain"], shown
    assert quiet == [], quiet
    assert refused[0]["ename"] == "TypeError" and "пишите with nt.fast():" in refused[0]["evalue"], refused


FAULTS = """
import resource
import numpy as np
import course_lib as nt

def page_faults():
    # 50 раз выражение с несколькими временными массивами по 1 МБ, как в шаге обучения:
    # сколько раз процесс получал новые страницы памяти у системы
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    x = np.ones(2**18, dtype=np.float32)
    for _ in range(50):
        y = (x * 0.5 + 1) * (x * x - 1) * (x + 2)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

page_faults()
plain = page_faults()
with nt.fast():
    pass
page_faults()
print(plain, page_faults())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="настройка памяти есть только у glibc (Linux)")
def test_the_first_fast_block_keeps_freed_memory_for_the_next_arrays():
    """engine_room/memory.py: после первого `with nt.fast():` новые большие массивы не ждут страниц у системы."""
    out = subprocess.run([sys.executable, "-c", FAULTS], capture_output=True, text=True, check=True).stdout
    plain, kept = map(int, out.split())
    assert plain > 50 * 256 // 2, f"без настройки страниц должно быть много (каждый массив — 256 новых), а их {plain}"
    assert kept < plain / 4, f"после nt.fast() страниц почти столько же: {kept} против {plain}"


def test_a_generator_leaving_its_block_while_another_is_open_restores_its_own_state():
    """Генератор с with внутри выходит из блока, пока снаружи открыт другой: каждый возвращает своё."""
    def inside_fast():
        with nt.fast():
            yield enabled()
        yield enabled()

    steps = inside_fast()
    assert next(steps) is True
    with nt.fast(False):
        assert next(steps) is False, "генератор вышел из своего блока и вернул своё прежнее состояние (выкл.)"
        assert not enabled()
    assert not enabled()

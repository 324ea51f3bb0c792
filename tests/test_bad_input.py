"""Плохой вход в каждую публичную точку входа: ошибка по-русски — что ожидалось и что пришло.

Одна таблица на всю библиотеку: `Tensor` и его операторы, functional, слои nn, KVCache, оптимизаторы,
efficient, measure, nt.fast и публичные функции машинного отделения (engine_room: их можно позвать и напрямую). Строка таблицы — вызов с плохим входом, тип ошибки и два куска сообщения:
что ожидалось и что пришло. Каждая строка идёт по книге и в машинном отделении (`path`), ответ один.
`issue=True` — пример из задачи 20 (или из задачи 36, часть 5: выключатель и машинное отделение); остальные найдены пробой каждой точки входа (None, строка, bool,
отрицательный и нулевой размер, не тот dtype, не та форма, nan и inf).
"""

import re

import numpy as np
import pytest
from refusal_rows import Row

import course_lib as nt
from course_lib import measure, optim
from course_lib.engine_room import fast_gelu, fast_layer_norm, fast_linear, fused_attention
from course_lib.efficient import block_attention, online_softmax_step
from course_lib.functional import allowed_cells, entropy, local_mask
from course_lib.nn import KVCache
from course_lib.nn.positional import sinusoidal_encoding
from course_lib.props.generation import TinyDecoder, generate_with_cache
from course_lib.props.induction import ablate, attention_only, copy_accuracy, repeated_blocks
from course_lib.props.induction_training import phase_change_step, previous_token_scores, smooth
from course_lib.props.training import train

pytestmark = pytest.mark.usefixtures("path")

CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
ENGLISH = ("could not", "operands", "unsupported operand", "not understood", "out of bounds", "object is not",
           "cannot be interpreted", "negative dimensions", "argument must be", "not supported between", "inhomogeneous")




def t():
    return nt.tensor(np.arange(6.0).reshape(2, 3))


def leaf():
    return nt.tensor(np.ones(3), requires_grad=True)


def mha(**kwargs):
    nt.manual_seed(0)
    return nt.MultiHeadAttention(8, 2, **kwargs)


def linear():
    nt.manual_seed(0)
    return nt.Linear(3, 2)


def gpt():
    nt.manual_seed(0)
    return nt.GPT(vocab_size=10, max_len=8, d_model=8, num_heads=2, num_layers=1)


def decoder():
    nt.manual_seed(0)
    return TinyDecoder(vocab_size=10, d_model=8, num_heads=2, max_len=16)


def two_heads():
    nt.manual_seed(0)
    return attention_only(num_layers=1, d_model=8, num_heads=2)


def qkv():
    return np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4))


def ft(*shape, dtype=np.float64):
    """Tensor из единиц: вход машинного отделения."""
    return nt.tensor(np.ones(shape, dtype=dtype))


def attend(q=None, k=None, v=None, mask=None, scale=0.5):
    """fused_attention на (2, 3, 4) с подменой одного входа."""
    return fused_attention(ft(2, 3, 4) if q is None else q, ft(2, 3, 4) if k is None else k,
                           ft(2, 3, 4) if v is None else v, mask, scale)


def norm_fast(x=None, weight=None, bias=None, eps=1e-5):
    return fast_layer_norm(ft(2, 4) if x is None else x, ft(4) if weight is None else weight,
                           ft(4) if bias is None else bias, eps)


def with_fast_without_parentheses():
    with nt.fast:
        pass


def fast_decorator_without_parentheses():
    @nt.fast
    def step():
        pass


def with_no_grad_without_parentheses():
    with nt.no_grad:
        pass


def norm_with_eps(eps):
    norm = nt.LayerNorm(4)
    norm.eps = eps                                          # поменяли после создания: слой проверяет и в forward
    return norm(np.ones((2, 4)))


def with_scale(scale):
    layer = mha()
    layer.scale = scale
    return layer(np.ones((1, 3, 8)))


def backward_after_step():
    layer = linear()
    loss = (layer(np.ones((2, 3))) ** 2).sum()
    layer.weight.data -= 0.1                          # шаг раньше backward(), как p.data -= lr * grad: числа сменились
    loss.backward()


def second_backward():
    loss = (leaf() * 2).sum()
    loss.backward()
    loss.backward()


ONE = np.ones(3)
ROWS = [
    # ---- Tensor: создание --------------------------------------------------------------------
    Row("tensor рваный список", lambda: nt.tensor([[1, 2], [3]]), ValueError, "прямоугольный массив", r"\[\[1, 2\], \[3\]\]", True),
    Row("tensor(None)", lambda: nt.tensor(None), TypeError, "число, массив NumPy или Tensor", "пришло None"),
    Row("tensor из комплексных", lambda: nt.tensor([1 + 2j]), TypeError, "вещественные", "комплексные", True),
    Row("tensor requires_grad='yes'", lambda: nt.tensor([1.0], requires_grad="yes"), TypeError, "True или False", "'yes'"),
    Row("Tensor(None)", lambda: nt.Tensor(None), TypeError, "число, массив NumPy", "None"),
    Row("Tensor('a')", lambda: nt.Tensor("a"), TypeError, "число, массив NumPy", "'a'"),
    Row("Tensor(комплексные)", lambda: nt.Tensor(np.array([1j])), TypeError, "вещественные", "комплексные", True),
    # ---- Tensor: операторы ------------------------------------------------------------------
    Row("t + None", lambda: t() + None, TypeError, "a \\+ b: b — число, массив", "пришло None", True),
    Row("None + t", lambda: None + t(), TypeError, "число, массив", "пришло None"),
    Row("t - None", lambda: t() - None, TypeError, "a - b: b — число", "None"),
    Row("None - t", lambda: None - t(), TypeError, "a - b", "None"),
    Row("t / None", lambda: t() / None, TypeError, "a / b: b — число", "None"),
    Row("t * '2'", lambda: t() * "2", TypeError, "a \\* b: b — число", "'2'", True),
    Row("t + 'a'", lambda: t() + "a", TypeError, "число, массив", "'a'"),
    Row("t @ 'a'", lambda: t() @ "a", TypeError, "A @ B: b — число", "'a'"),
    Row("t @ None", lambda: t() @ None, TypeError, "A @ B", "None"),
    Row("t * рваный список", lambda: t() * [1, [2]], ValueError, "прямоугольный массив", r"\[1, \[2\]\]"),
    Row("t * 1j", lambda: t() * 1j, TypeError, "вещественные", "комплексные", True),
    Row("t ** '2'", lambda: t() ** "2", TypeError, "степень должна быть числом", "str"),
    Row("float(t) из 6 чисел", lambda: float(t()), ValueError, "из одного числа", r"\(2, 3\)", True),
    Row("int(t) из 6 чисел", lambda: int(t()), ValueError, "из одного числа", "6 чисел"),
    Row("bool(t) из 6 чисел", lambda: bool(t()), ValueError, "из одного числа", r"\(2, 3\)"),
    Row("t.item() из 6 чисел", lambda: t().item(), ValueError, "из одного числа", r"\(2, 3\)"),
    Row("np.exp(t)", lambda: np.exp(t()), TypeError, r"t\.exp\(\)", "np.exp", True),
    Row("np.sqrt(t)", lambda: np.sqrt(t()), TypeError, "операции тензора", "np.sqrt"),
    Row("np.maximum(t, 0)", lambda: np.maximum(t(), 0), TypeError, "операции тензора", "np.maximum"),
    # ---- Tensor: методы ---------------------------------------------------------------------
    Row("t.mean(axis=5)", lambda: t().mean(axis=5), ValueError, "целое число от -2 до 1", "пришло 5", True),
    Row("t.mean(axis='a')", lambda: t().mean(axis="a"), TypeError, "целое число от -2 до 1", "'a'"),
    Row("t.max(axis=1.0)", lambda: t().max(axis=1.0), TypeError, "целое число", "1.0"),
    Row("t.softmax(axis=5)", lambda: t().softmax(axis=5), ValueError, "softmax: axis — целое число", "пришло 5"),
    Row("t.log_softmax(axis=-3)", lambda: t().log_softmax(axis=-3), ValueError, "log_softmax: axis — целое", "пришло -3"),
    Row("t.reshape('a')", lambda: t().reshape("a"), TypeError, "целые числа", "'a'", True),
    Row("t.reshape(None)", lambda: t().reshape(None), TypeError, "целые числа", "None"),
    Row("t.reshape(2.0, 3)", lambda: t().reshape(2.0, 3), TypeError, "целые числа", "2.0"),
    Row("t.transpose('a')", lambda: t().transpose("a"), TypeError, "целое число", "'a'"),
    Row("t.swapaxes(0, 3)", lambda: t().swapaxes(0, 3), ValueError, "целое число от -2 до 1", "пришло 3"),
    Row("t[5]", lambda: t()[5], IndexError, "номера от 0 до n − 1", "5"),
    Row("t.astype('abc')", lambda: t().astype("abc"), TypeError, "числовой тип", "'abc'"),
    Row("t.astype(complex)", lambda: t().astype(complex), TypeError, "числовой тип", "complex"),
    Row("masked_fill маска не той формы", lambda: t().masked_fill(np.ones(4, bool), 0.0), ValueError,
        "не растягивается", r"\(4,\)"),
    Row("masked_fill(value='a')", lambda: t().masked_fill(np.ones((2, 3), bool), "a"), TypeError, "число", "'a'"),
    Row("masked_fill(маска int)", lambda: t().masked_fill(np.ones((2, 3), int), 0.0), TypeError, "булевой", "int64"),
    Row("backward(grad='a')", lambda: (leaf() * 2).backward("a"), TypeError, "число, массив", "'a'"),
    Row("backward(retain_graph='yes')", lambda: (leaf() * 2).sum().backward(retain_graph="yes"), TypeError,
        "True или False", "'yes'"),
    Row("второй backward()", second_backward, ValueError, "новый прямой проход", "уже пройден", True),
    Row("backward() после того, как веса сменились", backward_after_step, ValueError,
        "тех чисел, по которым считали loss", r"\(3, 2\)", True),
    Row("concatenate(None)", lambda: nt.concatenate(None), TypeError, "список тензоров", "NoneType"),
    Row("concatenate([None])", lambda: nt.concatenate([None]), TypeError, "число, массив", "None"),
    Row("concatenate чисел", lambda: nt.concatenate([1.0, 2.0]), ValueError, "хотя бы с одной осью", r"\(\), \(\)"),
    # ---- functional ---------------------------------------------------------------------------
    Row("softmax(None)", lambda: nt.softmax(None), TypeError, "softmax: x — число, массив", "пришло None", True),
    Row("softmax(3.0)", lambda: nt.softmax(3.0), ValueError, "хотя бы с одной осью", "3.0", True),
    Row("softmax('abc')", lambda: nt.softmax("abc"), TypeError, "число, массив", "'abc'"),
    Row("softmax(целые)", lambda: nt.softmax(np.arange(3)), TypeError, "дробные числа", "int64"),
    Row("softmax(bool)", lambda: nt.softmax(np.ones(3, bool)), TypeError, "дробные числа", "bool"),
    Row("softmax(axis='a')", lambda: nt.softmax(ONE, axis="a"), TypeError, "целое число", "'a'"),
    Row("softmax(nan)", lambda: nt.softmax(np.array([1.0, np.nan])), ValueError, "конечные оценки", "nan или \\+inf"),
    Row("gelu(None)", lambda: nt.gelu(None), TypeError, "gelu: x — число", "None"),
    Row("gelu(целые)", lambda: nt.gelu(np.arange(3)), TypeError, "дробные числа", "int64"),
    Row("causal_mask(None)", lambda: nt.causal_mask(None), TypeError, "целое число ≥ 1", "None"),
    Row("causal_mask(0)", lambda: nt.causal_mask(0), ValueError, "целое число ≥ 1", "пришло 0"),
    Row("local_mask(4, 0)", lambda: local_mask(4, 0), ValueError, "window — целое число ≥ 1", "пришло 0"),
    Row("local_mask(4, 2.0)", lambda: local_mask(4, 2.0), TypeError, "window — целое", "2.0"),
    Row("allowed_cells(-1, 2)", lambda: allowed_cells(-1, 2), ValueError, "T — целое число ≥ 1", "-1"),
    Row("entropy(None)", lambda: entropy(None), TypeError, "число, массив", "None"),
    Row("entropy(axis=5)", lambda: entropy(ONE / 3, axis=5), ValueError, "целое число от -1 до 0", "пришло 5"),
    Row("attention(None, None, None)", lambda: nt.scaled_dot_product_attention(None, None, None), TypeError,
        "q — число, массив", "None"),
    Row("attention(вектор)", lambda: nt.scaled_dot_product_attention(ONE, ONE, ONE), ValueError, "хотя бы две оси", r"\(3,\)"),
    Row("attention(scale=nan)", lambda: nt.scaled_dot_product_attention(*qkv(), scale=np.nan), ValueError,
        "scale — число > 0", "nan", True),
    Row("attention(scale=inf)", lambda: nt.scaled_dot_product_attention(*qkv(), scale=np.inf), ValueError,
        "scale — число > 0", "inf"),
    Row("attention(scale='1')", lambda: nt.scaled_dot_product_attention(*qkv(), scale="1"), TypeError,
        "scale — число > 0", "'1'"),
    Row("attention(causal='no')", lambda: nt.scaled_dot_product_attention(*qkv(), causal="no"), TypeError,
        "True или False", "'no'"),
    Row("attention(mask='a')", lambda: nt.scaled_dot_product_attention(*qkv(), mask="a"), TypeError, "булевой", "<U1"),
    Row("attention(комплексные)", lambda: nt.scaled_dot_product_attention(np.ones((2, 2)) * 1j, np.ones((2, 2)), np.ones((2, 2))),
        TypeError, "вещественные", "комплексные", True),
    Row("cross_entropy пустой батч", lambda: nt.cross_entropy(np.ones((0, 3)), np.zeros(0, int)), ValueError,
        "хотя бы одна позиция", r"\(0, 3\)", True),
    Row("cross_entropy(None, None)", lambda: nt.cross_entropy(None, None), TypeError, "logits — число", "None"),
    Row("cross_entropy(targets=None)", lambda: nt.cross_entropy(np.ones((2, 3)), None), TypeError, "targets — число", "None"),
    Row("cross_entropy(одно число)", lambda: nt.cross_entropy(1.0, 0), ValueError, "хотя бы одного класса", r"\(\)"),
    Row("cross_entropy(C = 0)", lambda: nt.cross_entropy(np.ones((2, 0)), [0, 1]), ValueError, "хотя бы одного класса", r"\(2, 0\)"),
    Row("cross_entropy(reduction=None)", lambda: nt.cross_entropy(np.ones((2, 3)), [0, 1], reduction=None), ValueError,
        '"mean"', "None"),
    Row("cross_entropy(targets bool)", lambda: nt.cross_entropy(np.ones((2, 3)), np.array([True, False])), TypeError,
        "целые номера классов", "bool"),
    # ---- слои -----------------------------------------------------------------------------------
    Row("MultiHeadAttention(causal='no')", lambda: mha(causal="no"), TypeError, "True или False", "'no'", True),
    Row("MultiHeadAttention(causal=None)", lambda: mha(causal=None), TypeError, "True или False", "None"),
    Row("mha(None)", lambda: mha()(None), TypeError, "число, массив", "None"),
    Row("mha(комплексные)", lambda: mha()(np.ones((1, 2, 8)) * 1j), TypeError, "вещественные", "комплексные", True),
    Row("mha.scale = nan", lambda: with_scale(np.nan), ValueError, "scale — число > 0", "nan", True),
    Row("mha.scale = 'a'", lambda: with_scale("a"), TypeError, "scale — число > 0", "'a'"),
    Row("mha.scores(scale='a')", lambda: mha().scores(np.ones((1, 3, 8)), scale="a"), TypeError, "scale — число > 0", "'a'"),
    Row("mha.new_cache(1, -5)", lambda: mha().new_cache(1, -5), ValueError, "max_len — целое число ≥ 1", "пришло -5", True),
    Row("mha.new_cache(None, 5)", lambda: mha().new_cache(None, 5), TypeError, "N — целое число ≥ 1", "None"),
    Row("mha.new_cache(1, 5, 'abc')", lambda: mha().new_cache(1, 5, "abc"), TypeError, "дробный тип", "'abc'"),
    Row("mha.new_cache(1, 5, int)", lambda: mha().new_cache(1, 5, np.int64), TypeError, "дробный тип", "int64"),
    Row("KVCache(-1, …)", lambda: KVCache(-1, 2, 4, 5), ValueError, "N — целое число ≥ 1", "-1"),
    Row("KVCache.append(None, None)", lambda: KVCache(1, 2, 4, 5).append(None, None), TypeError, "массивы NumPy формы", "NoneType"),
    Row("mha.step(x, None)", lambda: mha().step(np.ones((1, 1, 8)), None), TypeError, "KVCache", "NoneType"),
    Row("Linear(None, 3)", lambda: nt.Linear(None, 3), TypeError, "d_in — целое число", "None"),
    Row("Linear(3, 2, bias='no')", lambda: nt.Linear(3, 2, bias="no"), TypeError, "True или False", "'no'"),
    Row("linear(None)", lambda: linear()(None), TypeError, "число, массив", "None"),
    Row("linear(комплексные)", lambda: linear()(np.ones(3) * 1j), TypeError, "вещественные", "комплексные"),
    Row("linear(одно число)", lambda: linear()(1.0), ValueError, "последняя ось входа должна быть 3", r"\(\)"),
    Row("Embedding(None)", lambda: nt.Embedding(5, 3)(None), TypeError, "число, массив", "None"),
    Row("Embedding(bool)", lambda: nt.Embedding(5, 3)(np.array([True])), TypeError, "целые номера", "bool"),
    Row("LayerNorm(eps=nan)", lambda: nt.LayerNorm(3, eps=np.nan), ValueError, "eps — число > 0", "nan"),
    Row("LayerNorm(eps='a')", lambda: nt.LayerNorm(3, eps="a"), TypeError, "eps — число > 0", "'a'"),
    Row("layer_norm(None)", lambda: nt.LayerNorm(3)(None), TypeError, "число, массив", "None"),
    Row("FeedForward(4, 0)", lambda: nt.FeedForward(4, 0), ValueError, "d_ff — целое число ≥ 1", "пришло 0"),
    Row("TransformerBlock(None, 2)", lambda: nt.TransformerBlock(None, 2), TypeError, "d_model — целое число", "None"),
    Row("TransformerBlock(causal='yes')", lambda: nt.TransformerBlock(8, 2, causal="yes"), TypeError, "True или False", "'yes'"),
    Row("GPT(d_model='8')", lambda: nt.GPT(10, 8, "8", 2, 1), TypeError, "целое число", "'8'"),
    Row("gpt(None)", lambda: gpt()(None), TypeError, "число, массив", "None"),
    Row("gpt.step(None, None)", lambda: gpt().step(None, None), TypeError, "число, массив", "None"),
    Row("gpt.step(ids, None)", lambda: gpt().step(np.zeros((1, 2), int), None), TypeError, "new_cache", "NoneType"),
    Row("gpt.new_cache(-1)", lambda: gpt().new_cache(-1), ValueError, "N — целое число ≥ 1", "-1"),
    Row("gpt.new_cache(0)", lambda: gpt().new_cache(0), ValueError, "N — целое число ≥ 1", "пришло 0"),
    Row("generate(temperature=inf)", lambda: gpt().generate(np.zeros((1, 2), int), 2, temperature=np.inf), ValueError,
        "temperature — число > 0", "inf"),
    Row("Module.to('abc')", lambda: linear().to("abc"), TypeError, "дробный тип", "'abc'"),
    Row("Module.to(int)", lambda: linear().to(np.int64), TypeError, "дробный тип", "int64"),
    Row("sinusoidal_encoding(base=0)", lambda: sinusoidal_encoding(4, 4, base=0), ValueError, "base — число > 0", "пришло 0"),
    Row("sinusoidal_encoding(base='a')", lambda: sinusoidal_encoding(4, 4, base="a"), TypeError, "base — число > 0", "'a'"),
    # ---- оптимизаторы -------------------------------------------------------------------------
    Row("Adam(lr='0.01')", lambda: optim.Adam(linear().parameters(), lr="0.01"), TypeError, "lr — число > 0", "'0.01'", True),
    Row("Adam(model)", lambda: optim.Adam(linear()), TypeError, r"model\.parameters\(\)", "Linear", True),
    Row("Adam(None)", lambda: optim.Adam(None), TypeError, "список параметров", "NoneType"),
    Row("Adam(lr=inf)", lambda: optim.Adam(linear().parameters(), lr=np.inf), ValueError, "lr — число > 0", "inf"),
    Row("Adam(lr=True)", lambda: optim.Adam(linear().parameters(), lr=True), TypeError, "lr — число > 0", "True"),
    Row("Adam(lr=-1)", lambda: optim.Adam(linear().parameters(), lr=-1.0), ValueError, "lr — число > 0", "-1.0"),
    Row("Adam(betas=(1.5, 0.9))", lambda: optim.Adam(linear().parameters(), betas=(1.5, 0.9)), ValueError,
        "от 0 до 1", "1.5"),
    Row("Adam(betas='ab')", lambda: optim.Adam(linear().parameters(), betas="ab"), TypeError, "пара чисел", "'ab'"),
    Row("Adam(betas=(0.9,))", lambda: optim.Adam(linear().parameters(), betas=(0.9,)), TypeError, "пара чисел", r"\(0\.9,\)"),
    Row("Adam(eps=-1)", lambda: optim.Adam(linear().parameters(), eps=-1.0), ValueError, "eps — число > 0", "-1.0"),
    Row("Adam([массив])", lambda: optim.Adam([np.ones(3)]), TypeError, "requires_grad=True", "ndarray"),
    Row("Adam([tensor без grad])", lambda: optim.Adam([nt.tensor([1.0])]), TypeError, "requires_grad=True",
        "Tensor без requires_grad"),
    Row("SGD(momentum=-1)", lambda: optim.SGD(linear().parameters(), momentum=-1.0), ValueError, "от 0 до 1", "-1.0"),
    Row("SGD(momentum='a')", lambda: optim.SGD(linear().parameters(), momentum="a"), TypeError, "momentum", "'a'"),
    Row("SGD(lr=None)", lambda: optim.SGD(linear().parameters(), lr=None), TypeError, "lr — число > 0", "None"),
    # ---- efficient, measure, выключатель --------------------------------------------------------
    Row("block_attention(causal='no')", lambda: block_attention(*qkv(), causal="no"), TypeError, "True или False", "'no'"),
    Row("block_attention(None, …)", lambda: block_attention(None, None, None), TypeError, "q — число, массив", "None"),
    Row("online_softmax_step(None, …)", lambda: online_softmax_step(None, None, None, None, None), TypeError,
        "m — число, массив", "None"),
    Row("measure.seconds(None)", lambda: measure.seconds(None), TypeError, "функция без аргументов", "None"),
    Row("measure.seconds(repeats=0)", lambda: measure.seconds(lambda: 1, repeats=0), ValueError, "repeats — целое число ≥ 1", "0"),
    Row("measure.peak_bytes(None)", lambda: measure.peak_bytes(None), TypeError, "функция без аргументов", "None"),
    Row("measure.slope(nan)", lambda: measure.slope([1, 2, np.nan], [1, 2, 3]), ValueError, "конечные числа", "nan"),
    Row("measure.slope('ab', 'cd')", lambda: measure.slope("ab", "cd"), TypeError, "число, массив", "'ab'"),
    Row("nt.fast('yes')", lambda: nt.fast("yes").__enter__(), TypeError, "True или False", "'yes'"),
    Row("with nt.fast: без скобок", with_fast_without_parentheses, TypeError, r"пишите with nt\.fast\(\):", "без скобок", True),
    Row("@nt.fast без скобок", fast_decorator_without_parentheses, TypeError, r"@nt\.fast\(\) над def", "без скобок над step"),
    Row("with nt.no_grad: без скобок", with_no_grad_without_parentheses, TypeError, r"пишите with nt\.no_grad\(\):",
        "без скобок"),
    Row("nt.no_grad(5)", lambda: nt.no_grad(5), TypeError, "без аргументов", r"nt\.no_grad\(5\)"),
    Row("@nt.no_grad без скобок", lambda: nt.no_grad(print), TypeError, r"@nt\.no_grad\(\) над def", "без скобок над print"),
    # ---- машинное отделение напрямую: engine_room.fused_attention, fast_linear, fast_gelu, fast_layer_norm ---------
    Row("fused_attention(ndarray, …)", lambda: attend(q=np.ones((2, 3, 4))), TypeError, r"q — Tensor формы \(…, T_q, d_k\)",
        "пришёл ndarray", True),
    Row("fused_attention(список, …)", lambda: attend(k=[[1.0, 2.0]]), TypeError, r"k — Tensor", "пришёл list"),
    Row("fused_attention(целые)", lambda: attend(v=ft(2, 3, 4, dtype=np.int64)), TypeError, "дробных чисел", "int64"),
    Row("fused_attention(вектор)", lambda: attend(q=ft(4)), ValueError, "хотя бы 2 оси", r"\(4,\)"),
    Row("fused_attention(d_k не совпадает)", lambda: attend(k=ft(2, 3, 5)), ValueError, "одна длина d_k", r"T_k, 5\)", True),
    Row("fused_attention(T_k у k и v разные)", lambda: attend(v=ft(2, 6, 4)), ValueError, "поровну", r"v \(2, 6, 4\)"),
    Row("fused_attention(батч не согласуется)", lambda: attend(k=ft(3, 3, 4), v=ft(3, 3, 4)), ValueError, "батчевые",
        r"k \(3, 3, 4\)"),
    Row("fused_attention(маска не булева)", lambda: attend(mask=np.ones((3, 3))), TypeError, "булевой", "float64"),
    Row("fused_attention(маска не той формы)", lambda: attend(mask=np.ones((4, 4), bool)), ValueError, "не растягивается",
        r"\(4, 4\)"),
    Row("fused_attention(scale=-1)", lambda: attend(scale=-1.0), ValueError, "scale — число > 0", "-1.0"),
    Row("fused_attention(scale=None)", lambda: attend(scale=None), TypeError, "scale — число > 0", "None"),
    Row("fast_linear(ndarray, W)", lambda: fast_linear(np.ones((2, 3)), ft(3, 2)), TypeError, r"x — Tensor формы \(…, d_in\)",
        "ndarray", True),
    Row("fast_linear(x, ndarray)", lambda: fast_linear(ft(2, 3), np.ones((3, 2))), TypeError, r"weight — Tensor", "ndarray"),
    Row("fast_linear(d_in не совпадает)", lambda: fast_linear(ft(2, 3), ft(4, 2)), ValueError, "первая ось равна",
        r"x \(2, 3\) и weight \(4, 2\)", True),
    Row("fast_linear(W — вектор)", lambda: fast_linear(ft(2, 3), ft(3)), ValueError, "weight матрица", r"weight \(3,\)"),
    Row("fast_linear(число)", lambda: fast_linear(nt.tensor(2.0), ft(3, 2)), ValueError, "хотя бы 1 оси", r"\(\)"),
    Row("fast_gelu(ndarray)", lambda: fast_gelu(np.ones(3)), TypeError, r"Tensor.*nt\.gelu\(x\)", "ndarray", True),
    Row("fast_gelu(список)", lambda: fast_gelu([1.0, 2.0]), TypeError, "Tensor", "list"),
    Row("fast_gelu(целые)", lambda: fast_gelu(nt.tensor([1, 2])), TypeError, "дробных чисел", "int64"),
    Row("fast_layer_norm(eps=-1e-5)", lambda: norm_fast(eps=-1e-5), ValueError, "eps — число > 0", "-1e-05", True),
    Row("fast_layer_norm(eps=nan)", lambda: norm_fast(eps=np.nan), ValueError, "eps — число > 0", "nan"),
    Row("fast_layer_norm(eps='1e-5')", lambda: norm_fast(eps="1e-5"), TypeError, "eps — число > 0", "'1e-5'"),
    Row("fast_layer_norm(ndarray)", lambda: norm_fast(x=np.ones((2, 4))), TypeError, r"nt\.nn\.LayerNorm", "ndarray", True),
    Row("fast_layer_norm(weight не той длины)", lambda: norm_fast(weight=ft(5)), ValueError, r"weight — .*D = 4", r"\(5,\)"),
    Row("fast_layer_norm(bias — ndarray)", lambda: norm_fast(bias=np.zeros(4)), TypeError, r"bias — Tensor формы \(D,\)", "ndarray"),
    Row("LayerNorm.eps = -1 после создания", lambda: norm_with_eps(-1.0), ValueError, "eps — число > 0", "-1.0"),
    Row("manual_seed(None)", lambda: nt.manual_seed(None), TypeError, "целое число ≥ 0", "None"),
    # ---- реквизит уроков 07–09 --------------------------------------------------------------
    Row("generate_with_cache(None, …)", lambda: generate_with_cache(None, np.zeros((1, 2), int), 3), TypeError,
        "модель с new_cache и step", "NoneType"),
    Row("generate_with_cache(prompt=None)", lambda: generate_with_cache(decoder(), None, 3), TypeError, "prompt — число", "None"),
    Row("generate_with_cache(дробный prompt)", lambda: generate_with_cache(decoder(), np.ones((1, 2)), 3), ValueError,
        "целые номера токенов", "float64"),
    Row("generate_with_cache(steps=-1)", lambda: generate_with_cache(decoder(), np.zeros((1, 2), int), -1), ValueError,
        "steps — целое число", "-1"),
    Row("repeated_blocks(rng=None)", lambda: repeated_blocks(2, 3, None), TypeError, "default_rng", "NoneType"),
    Row("repeated_blocks(N=0)", lambda: repeated_blocks(0, 3, np.random.default_rng(0)), ValueError, "N — целое число ≥ 1", "0"),
    Row("copy_accuracy(N=-1)", lambda: copy_accuracy(two_heads(), -1, 3, 0), ValueError, "N — целое число ≥ 1", "-1"),
    Row("copy_accuracy(seed='a')", lambda: copy_accuracy(two_heads(), 2, 3, "a"), TypeError, "seed — целое число ≥ 0", "'a'"),
    Row("ablate(heads='ab')", lambda: ablate(two_heads(), "ab"), TypeError, r"список пар \(слой, голова\)", "'ab'"),
    Row("ablate(слоя нет)", lambda: ablate(two_heads(), [(5, 0)]), ValueError, "слой — целое число от 0 до 0", "5"),
    Row("smooth(None)", lambda: smooth(None), TypeError, "values — число", "None"),
    Row("smooth(window=0)", lambda: smooth([1.0, 2.0], window=0), ValueError, "window — целое число ≥ 1", "0"),
    Row("smooth('abc')", lambda: smooth("abc"), TypeError, "число, массив", "'abc'"),
    Row("phase_change_step(None)", lambda: phase_change_step(None), TypeError, "число, массив", "None"),
    Row("previous_token_scores(None)", lambda: previous_token_scores(None), TypeError, "число, массив", "None"),
    Row("previous_token_scores(вектор)", lambda: previous_token_scores(np.ones(3)), ValueError, r"\(\.\.\., T, T\)", r"\(3,\)"),
    Row("train(loss_fn=None)", lambda: train(two_heads(), None, 1), TypeError, "loss_fn", "None"),
    Row("train(lr='a')", lambda: train(two_heads(), lambda m: None, 1, lr="a"), TypeError, "lr — число > 0", "'a'"),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_bad_input_gets_a_russian_answer_naming_expected_and_arrived(row):
    with np.errstate(all="raise"), pytest.raises(row.error) as caught:
        row.call()
    message = str(caught.value).split("NumPy:")[0]             # хвост «NumPy: …» — только дополнение
    assert CYRILLIC.search(message), f"{row.name}: ответ не по-русски: {message}"
    assert re.search(row.expected, message), f"{row.name}: не сказано, что ожидалось ({row.expected}): {message}"
    assert re.search(row.arrived, message), f"{row.name}: не сказано, что пришло ({row.arrived}): {message}"
    assert not any(english in message for english in ENGLISH), f"{row.name}: английский текст NumPy: {message}"


def test_wrong_advice_is_gone():
    """softmax(None) не советует np.asarray(softmax(x), …), softmax(3.0) не спрашивает про «T = 0»."""
    with pytest.raises(TypeError) as none:
        nt.softmax(None)
    with pytest.raises(ValueError) as number:
        nt.softmax(3.0)
    assert "np.asarray" not in str(none.value), str(none.value)
    assert "T = 0" not in str(number.value) and "пустая" not in str(number.value).lower(), str(number.value)
    with pytest.raises(TypeError) as integers:
        nt.softmax(np.arange(3))
    assert "np.asarray(x, dtype=np.float64)" in str(integers.value), "для целых — подсказка про переменную x, не про softmax(x)"


def test_the_table_covers_every_public_name():
    """Каждое имя из nt.__all__, nn.__all__ и оптимизаторы встречаются в таблице хотя бы раз."""
    names = " ".join(row.name for row in ROWS)
    public = set(nt.__all__) - {"functional", "nn", "optim", "doctor"} | {"Adam", "SGD", "KVCache"}
    aliases = {"scaled_dot_product_attention": "attention", "tensor": "tensor", "Module": "Module.to",
               "LayerNorm": "LayerNorm", "Tensor": "Tensor", "fast": "nt.fast", "GPT": "GPT", "no_grad": "nt.no_grad"}
    missing = [name for name in public if aliases.get(name, name) not in names]
    assert not missing, f"нет строк для {missing}"


# ---- правильное поведение, которое раньше было ошибкой ---------------------------------------

def test_float_of_a_one_number_tensor_is_its_number_as_in_pytorch():
    loss = nt.cross_entropy(nt.tensor([[2.0, 0.0]], requires_grad=True), [0])
    losses = [float(loss)]                                      # цикл обучения урока 07
    assert losses == [pytest.approx(np.log1p(np.exp(-2.0)))] and isinstance(losses[0], float)
    assert int(nt.tensor([[3.0]])) == 3 and bool(nt.tensor(1.0)) is True


def test_numpy_sees_the_numbers_of_a_tensor():
    x = nt.tensor(np.arange(3.0), requires_grad=True)
    assert np.array_equal(np.asarray(x), [0.0, 1.0, 2.0])
    assert np.array_equal(np.array([x, x]), [[0.0, 1.0, 2.0]] * 2)
    y = np.float32(2) * x + np.ones(3)                          # число и массив NumPy слева: наши операции, с графом
    assert isinstance(y, nt.Tensor) and y.requires_grad

"""Урок 10 на плохом входе: каждая точка входа отказывает по-русски, говорит, что ожидалось и что пришло, — и не виснет.

Таблица ROWS — пробы всей поверхности урока 10: nt.GPT (forward, step, generate), nn.sampling,
CharTokenizer, load_text, train_gpt, save_gpt/load_gpt, оценки props/gpt_reading.py и Tensor API, которым
они пользуются. `issue=True` — пример из текста задачи 27 (часть 3) или 36 (часть 5); остальные найдены пробой каждой точки.
Отказ «не поместится» или «это часы» приходит до работы: каждая строка идёт под будильником (HANG_SECONDS) —
зависшая проба падает с сообщением, а не съедает прогон.
Ниже таблицы — поведение, которое отказом не проверить: свой текст учится, чекпойнт кладётся по именам,
подложенный pickle не выполняется, крошечная температура — жадный выбор.
"""

import _thread
import contextlib
import pickle
import re
import signal
import threading
import zipfile

import numpy as np
import pytest
from refusal_rows import Row
from threadpoolctl import threadpool_info

import course_lib as nt
from course_lib._checks import MemoryLimitError, WorkLimitError
from course_lib.blas import one_blas_thread
from course_lib.nn.gpt import num_params
from course_lib.nn.sampling import next_token_probs, sample_next_token
from course_lib.props import gpt_training
from course_lib.props.gpt_checkpoint import lesson_checkpoint_path, load_gpt, save_gpt
from course_lib.props.gpt_reading import (ablation_costs, bigram_loss, head_scores, known_word_share, longest_run,
                                          unigram_loss)
from course_lib.props.gpt_settings import PHRASES, PROMPT
from course_lib.props.gpt_training import evaluate, fixed_windows, forget_runs, random_windows, split_ids, train_gpt
from course_lib.props.text_file import load_text
from course_lib.props.tokenizer import CharTokenizer
from course_lib.russian import number, plural
from course_lib.widgets.gpt import gpt_heads_explorer, gpt_heads_view, samples_explorer, sampling_explorer, sampling_view

CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
ENGLISH = ("allow_pickle", "unsafe", "could not", "Unable to allocate", "out of bounds", "object is not", "has no attribute",
           "cannot be interpreted", "not iterable", "duplicate value", "zero-size array", "only integers", "must be")
HANG_SECONDS = 20

TEXT = "кот сел на тёплый коврик. мама мыла раму. " * 30              # 1260 символов, 19 разных
V = 19
TINY = dict(T=8, d_model=16, num_heads=2, num_layers=1, batch=8, lr=1e-2, eval_every=10, sample_len=12)
LESSON = dict(T=64, d_model=64, num_heads=4, num_layers=2, batch=16)   # размеры урока 10




def gpt(**kwargs):
    nt.manual_seed(0)
    return nt.GPT(**{"vocab_size": 10, "max_len": 8, "d_model": 8, "num_heads": 2, "num_layers": 1, **kwargs})


def tiny_tokenizer():
    return CharTokenizer.from_text(TEXT)                             # V = 19 символов


def ids(N=1, T=3):
    return np.zeros((N, T), dtype=np.int64)


def quiet(*args):
    pass


def two_arguments(step, steps):
    pass


def train(text=TEXT, steps=4, **kwargs):
    return train_gpt(text, steps, **{**TINY, "progress": quiet, **kwargs})


def lesson_train(steps=1200, **kwargs):
    return train_gpt(TEXT * 10, steps, **{**LESSON, "progress": quiet, **kwargs})


def huge_ids():
    """(10⁸, 8) номеров без выделения памяти: одна строка, растянутая видом."""
    return np.broadcast_to(ids(1, 8), (10**8, 8))


def sparse_file(tmp_path, size):
    path = tmp_path / "огромный.txt"
    with open(path, "wb") as file:
        file.truncate(size)                 # разреженный файл: на диске — ноль байт
    return path


def tiny_checkpoint(tmp_path, name="gpt.npz"):
    tokenizer = CharTokenizer.from_text(TEXT)
    nt.manual_seed(0)
    model = nt.GPT(tokenizer.vocab_size, 8, 8, 2, 2)
    return save_gpt(tmp_path / name, model, tokenizer), model, tokenizer


def rewritten(path, drop=(), **changes):
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files if name not in drop}
    arrays.update(changes)
    np.savez(path, **arrays)
    return path


def checkpoint_with_config(tmp_path, config):
    """Чекпойнт из одних config и словаря (меньше килобайта), config — какой угодно."""
    path, _, tokenizer = tiny_checkpoint(tmp_path)
    names = [n for n, _ in nt.GPT(V, 8, 8, 2, 2).named_parameters()]
    rewritten(path, drop=names, config=np.array(config, dtype=np.int64))
    assert path.stat().st_size < 1024, "проба должна быть крошечным файлом"
    return load_gpt(path)


def checkpoint_with_promise(tmp_path):
    """Настоящий чекпойнт, в котором заголовок tokens.weight обещает (10¹², 8) float32, а данных нет."""
    path, _, _ = tiny_checkpoint(tmp_path)
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files if name != "tokens.weight"}
    np.savez(path, **arrays)
    with zipfile.ZipFile(path, "a") as archive, archive.open("tokens.weight.npy", "w") as member:
        np.lib.format.write_array_header_1_0(member, {"descr": "<f4", "fortran_order": False, "shape": (10**12, 8)})
    return load_gpt(path)


def nan_checkpoint(tmp_path):
    path, model, _ = tiny_checkpoint(tmp_path)
    broken = model.state_dict()["blocks.1.ffn.W_up.weight"]
    broken[0, 0] = np.nan
    rewritten(path, **{"blocks.1.ffn.W_up.weight": broken})
    return load_gpt(path)


def nan_model_saved(tmp_path):
    path, model, tokenizer = tiny_checkpoint(tmp_path)
    model.unembed.bias.data[3] = np.inf
    save_gpt(path, model, tokenizer)


def swapped_shapes(tmp_path):
    path, model, _ = tiny_checkpoint(tmp_path)
    return rewritten(path, **{"blocks.0.ln1.bias": np.zeros((3, 3), np.float32)}), load_gpt


ROWS = [
    # ---- зависания и память: оценка до работы ----------------------------------------------------
    Row("generate(ids, 10**12)", lambda: gpt().generate(ids(), 10**12), MemoryLimitError, "меньше max_new_tokens", "7.3 ТиБ", True),
    Row("generate(ids, 10**9)", lambda: gpt().generate(ids(), 10**9), WorkLimitError, "меньше max_new_tokens",
        "1 000 000 000 новых токенов"),
    Row("generate(ids (10**5, 3), 10**5)", lambda: gpt().generate(ids(10**5), 10**5), MemoryLimitError, "меньше max_new_tokens",
        r"\(100000, 100003\)"),
    Row("train_gpt(sample_len=10**12)", lambda: train(sample_len=10**12, snapshot_steps=(4,)), MemoryLimitError,
        "меньше steps, batch", "образец 1000000000000 символов", True),
    Row("train_gpt(sample_len=10**9)", lambda: train(sample_len=10**9, snapshot_steps=(0, 4)), WorkLimitError,
        "меньше steps, batch", "4 шагов обучения"),
    Row("train_gpt(steps=10**12)", lambda: train(steps=10**12), MemoryLimitError, "меньше steps", "потери 1000000000000 шагов"),
    Row("train_gpt(steps=10**7) на размерах урока", lambda: lesson_train(steps=10**7), WorkLimitError, "меньше steps",
        "10000000 шагов обучения по 16 окон из 64 символов"),
    Row("train_gpt(batch=10**9)", lambda: train(batch=10**9), MemoryLimitError, "меньше steps, batch", r"батч \(1000000000, 8\)", True),
    Row("train_gpt(num_layers=1000) на размерах урока", lambda: lesson_train(num_layers=1000), MemoryLimitError,
        "num_layers", "ГиБ", True),
    Row("train_gpt(num_layers=300) на размерах урока", lambda: lesson_train(num_layers=300), WorkLimitError,
        "num_layers", "1200 шагов обучения"),
    Row("GPT(num_layers=10**7)", lambda: gpt(num_layers=10**7), MemoryLimitError, "меньше num_layers", "веса GPT", True),
    Row("GPT(d_model=10**5)", lambda: gpt(d_model=10**5), MemoryLimitError, "меньше num_layers, d_model", "894.1 ГиБ"),
    Row("GPT(max_len=10**10)", lambda: gpt(max_len=10**10), MemoryLimitError, "max_len", "ГиБ"),
    Row("model(ids (10**8, 8))", lambda: gpt()(huge_ids()), MemoryLimitError, "по частям", r"\(100000000, 8\)", True),
    Row("model.attention_weights(ids (10**8, 8))", lambda: gpt().attention_weights(huge_ids()), MemoryLimitError,
        "по частям", r"\(100000000, 8\)"),
    Row("evaluate(model, окна (10**8, 9))", lambda: evaluate(gpt(), np.broadcast_to(ids(1, 9), (10**8, 9)), chunk=10**8),
        MemoryLimitError, "по частям", r"\(100000000, 8\)"),
    Row("load_text(файл 30 ГБ)", lambda tmp_path: load_text(sparse_file(tmp_path, 30 * 2**30)), MemoryLimitError,
        "файл поменьше", "30.0 ГиБ", True),
    Row("load_text('/dev/zero')", lambda: load_text("/dev/zero"), ValueError, "нужен текстовый файл", "не обычный файл"),
    Row("load_gpt(1 КБ, config на терабайт)", lambda tmp_path: checkpoint_with_config(tmp_path, [V, 8, 2**18, 2, 1000]),
        ValueError, "весов в файле только 0", r"описывает GPT из 824 637 141 286 931 чисел", True),
    Row("load_gpt(заголовок обещает 10**12 строк)", checkpoint_with_promise, ValueError, "испорчен или подделан",
        r"обещает форму \(1000000000000, 8\)"),
    Row("bigram_loss(vocab_size=10**6)", lambda: bigram_loss(np.arange(3), np.arange(3), 10**6), MemoryLimitError,
        "словарь поменьше", "21.8 ТиБ"),
    # ---- nn.sampling --------------------------------------------------------------------------------
    Row("next_token_probs(temperature=-1)", lambda: next_token_probs(np.ones(5), -1.0, None), ValueError,
        "temperature — число > 0", "-1.0", True),
    Row("next_token_probs(temperature=0)", lambda: next_token_probs(np.ones(5), 0, None), ValueError, "число > 0", "пришло 0"),
    Row("next_token_probs(temperature=nan)", lambda: next_token_probs(np.ones(5), np.nan, None), ValueError, "число > 0", "nan"),
    Row("next_token_probs(temperature='hot')", lambda: next_token_probs(np.ones(5), "hot", None), TypeError, "число > 0", "'hot'"),
    Row("next_token_probs(top_k=0)", lambda: next_token_probs(np.ones(5), 1.0, 0), ValueError, "top_k — целое число от 1 до 5",
        "пришло 0", True),
    Row("next_token_probs(top_k=-1)", lambda: next_token_probs(np.ones(5), 1.0, -1), ValueError, "от 1 до 5", "-1", True),
    Row("next_token_probs(top_k > V)", lambda: next_token_probs(np.ones(5), 1.0, 9), ValueError, "от 1 до 5", "пришло 9", True),
    Row("next_token_probs(top_k=2.5)", lambda: next_token_probs(np.ones(5), 1.0, 2.5), TypeError, "целое число", "2.5", True),
    Row("next_token_probs(top_k=True)", lambda: next_token_probs(np.ones(5), 1.0, True), TypeError, "целое число", "True"),
    Row("next_token_probs(None)", lambda: next_token_probs(None, 1.0, None), TypeError, "logits — число, массив", "None"),
    Row("next_token_probs('ab')", lambda: next_token_probs("ab", 1.0, None), TypeError, "массив NumPy", "'ab'"),
    Row("next_token_probs(целые логиты)", lambda: next_token_probs(np.arange(5), 1.0, None), TypeError, "дробные числа", "int64"),
    Row("next_token_probs(nan)", lambda: next_token_probs(np.array([0.0, np.nan]), 1.0, None), ValueError,
        r"числа или −inf", "nan или \\+inf"),
    Row("next_token_probs(+inf)", lambda: next_token_probs(np.array([0.0, np.inf]), 1.0, None), ValueError,
        r"числа или −inf", "nan или \\+inf"),
    Row("next_token_probs(все −inf)", lambda: next_token_probs(np.full(3, -np.inf), 1.0, None), ValueError,
        "выбирать не из чего", "все токены закрыты"),
    Row("next_token_probs(одно число)", lambda: next_token_probs(2.0, 1.0, None), ValueError, r"\(\.\.\., V\)", r"\(\)"),
    Row("next_token_probs(V = 0)", lambda: next_token_probs(np.ones((2, 0)), 1.0, None), ValueError, "хотя бы одного токена",
        r"\(2, 0\)"),
    Row("sample_next_token(rng=None)", lambda: sample_next_token(np.ones((1, 5)), 1.0, None, None), TypeError,
        "default_rng", "NoneType"),
    Row("sample_next_token(rng=42)", lambda: sample_next_token(np.ones((1, 5)), 1.0, None, 42), TypeError, "default_rng", "int"),
    Row("sample_next_token(логиты (V,))", lambda: sample_next_token(np.ones(5), 1.0, None, np.random.default_rng(0)),
        ValueError, r"logits\[None\]", r"\(5,\)"),
    Row("sample_next_token(N = 0)", lambda: sample_next_token(np.ones((0, 5)), 1.0, None, np.random.default_rng(0)),
        ValueError, "N ≥ 1", r"\(0, 5\)", True),
    # ---- GPT: N = 0 и прочее ---------------------------------------------------------------------------
    Row("model(ids (0, 3))", lambda: gpt()(ids(0)), ValueError, "N ≥ 1", r"\(0, 3\)", True),
    Row("generate(ids (0, 3))", lambda: gpt().generate(ids(0), 2), ValueError, "N ≥ 1", r"\(0, 3\)", True),
    Row("model.step(ids (0, 1), caches)", lambda: gpt().step(ids(0, 1), gpt().new_cache(1)), ValueError, "N ≥ 1", r"\(0, 1\)"),
    Row("model.step(ids, [None])", lambda: gpt().step(ids(1, 1), [None]), TypeError, "KVCache", "NoneType"),
    Row("GPT(num_heads=3)", lambda: gpt(num_heads=3), ValueError, "не делится на num_heads=3", "d_model=8"),
    Row("GPT(d_model=True)", lambda: gpt(d_model=True), TypeError, "d_model — целое число", "True"),
    # ---- train_gpt: аргументы ----------------------------------------------------------------------------
    Row("train_gpt(lr_final=nan)", lambda: train(lr_final=np.nan), ValueError, "lr_final — конечное число ≥ 0", "nan", True),
    Row("train_gpt(lr_final=-1)", lambda: train(lr_final=-1.0), ValueError, "конечное число ≥ 0", "-1.0", True),
    Row("train_gpt(lr_final='0.1')", lambda: train(lr_final="0.1"), TypeError, "конечное число ≥ 0", "'0.1'", True),
    Row("train_gpt(lr_final > lr)", lambda: train(lr_final=3e3), ValueError, "не больше его", "3000.0"),
    Row("train_gpt(lr=0)", lambda: train(lr=0), ValueError, "lr — число > 0", "пришло 0"),
    Row("train_gpt(lr='3e-3')", lambda: train(lr="3e-3"), TypeError, "lr — число > 0", "'3e-3'"),
    Row("train_gpt(snapshot_steps=5)", lambda: train(snapshot_steps=5), TypeError, "список шагов", r"пришло 5 .*\(5,\)", True),
    Row("train_gpt(snapshot_steps='10')", lambda: train(snapshot_steps="10"), TypeError, "список шагов", "'10'"),
    Row("train_gpt(snapshot_steps=(2.5,))", lambda: train(snapshot_steps=(2.5,)), TypeError, "целое число от 0 до 4", "2.5"),
    Row("train_gpt(snapshot_steps=(-1,))", lambda: train(snapshot_steps=(-1,)), ValueError, "от 0 до 4", "-1"),
    Row("train_gpt(phrases='кот сел')", lambda: train(phrases="кот сел"), TypeError, r"список фраз, например \('кот сел',\)",
        "пришла строка 'кот сел'", True),
    Row("train_gpt(phrases=())", lambda: train(phrases=()), ValueError, "хотя бы одна фраза", "пустой список"),
    Row("train_gpt(phrases=[''])", lambda: train(phrases=[""]), ValueError, "непустая строка", "пустая строка"),
    Row("train_gpt(phrases=[5])", lambda: train(phrases=[5]), TypeError, "phrases — строка", "5 \\(int\\)"),
    Row("train_gpt(phrases=5)", lambda: train(phrases=5), TypeError, "список фраз", "5 \\(int\\)"),
    Row("train_gpt(фраза длиннее T)", lambda: train(phrases=("кот сел на коврик",)), ValueError, "до 8 символов",
        "17 символов"),
    Row("train_gpt(фраза со знаком не из текста)", lambda: train(phrases=("кот Ж",)), ValueError, "из символов текста",
        "«Ж» нет в обучающем тексте"),
    Row("train_gpt(prompt='')", lambda: train(prompt=""), ValueError, "непустая строка", "пустая строка"),
    Row("train_gpt(prompt=5)", lambda: train(prompt=5), TypeError, "prompt — строка", "5 \\(int\\)"),
    Row("train_gpt(prompt не из текста)", lambda: train(prompt="Кот"), ValueError, "не задавайте его", "«К» нет в обучающем"),
    Row("train_gpt(causal='no')", lambda: train(causal="no"), TypeError, "True или False", "'no'"),
    Row("train_gpt(dtype=int)", lambda: train(dtype=np.int64), TypeError, "дробный тип", "int64"),
    Row("train_gpt(progress=5)", lambda: train(progress=5), TypeError, r"progress\(step, steps, loss\)", "5 \\(int\\)"),
    Row("train_gpt(progress=lambda step: …)", lambda: train(progress=lambda step: None), TypeError,
        r"progress\(step, steps, loss\)", r"<lambda>\(step\): её позовут как progress\(0, 4, nan\)", True),
    Row("train_gpt(progress=def p(step, steps))", lambda: train(progress=two_arguments), TypeError,
        r"progress\(step, steps, loss\)", r"two_arguments\(step, steps\)"),
    Row("train_gpt(progress с лишним обязательным)", lambda: train(progress=lambda step, steps, loss, bar: None), TypeError,
        r"progress\(step, steps, loss\)", r"\(step, steps, loss, bar\)"),
    Row("train_gpt(num_heads=3)", lambda: train(num_heads=3), ValueError, "не делится на num_heads=3", "d_model=16"),
    Row("train_gpt(d_model='16')", lambda: train(d_model="16"), TypeError, "d_model — целое число", "'16'"),
    Row("train_gpt(text=None)", lambda: train(text=None), TypeError, "текст строкой", "NoneType"),
    # ---- чекпойнт ---------------------------------------------------------------------------------------
    Row("load_gpt(NaN в весах)", nan_checkpoint, ValueError, "blocks.1.ffn.W_up.weight", "nan или ±inf", True),
    Row("save_gpt(модель с inf)", nan_model_saved, ValueError, "учите заново", "unembed.bias есть nan или ±inf"),
    Row("load_gpt(параметр не той формы)", lambda tmp_path: load_gpt(swapped_shapes(tmp_path)[0]), ValueError,
        r"blocks\.0\.ln1\.bias — формы \(8,\)", r"в state — формы \(3, 3\)"),
    Row("load_gpt(нет параметра)", lambda tmp_path: load_gpt(rewritten(tiny_checkpoint(tmp_path)[0], drop=("unembed.bias",))),
        ValueError, "имена параметров не совпадают", "нет unembed.bias"),
    Row("load_gpt(лишний параметр)", lambda tmp_path: load_gpt(rewritten(tiny_checkpoint(tmp_path)[0], **{"extra.w": np.ones(2)})),
        ValueError, "имена параметров не совпадают", "лишние extra.w"),
    Row("load_gpt(config с num_heads=3)", lambda tmp_path: load_gpt(rewritten(tiny_checkpoint(tmp_path)[0],
                                                                             config=np.array([V, 8, 8, 3, 2]))),
        ValueError, "не описывает GPT", "не делится на num_heads=3"),
    Row("load_gpt(config с нулём)", lambda tmp_path: checkpoint_with_config(tmp_path, [V, 0, 8, 2, 2]), ValueError,
        "целых ≥ 1", r"\[19, 0, 8, 2, 2\]"),
    Row("load_gpt('my_model') без файла", lambda tmp_path: load_gpt(tmp_path / "my_model"), ValueError, "save_gpt",
        "файла «.*my_model» нет", True),
    Row("load_gpt(None)", lambda: load_gpt(None), TypeError, "путь к файлу", "NoneType"),
    Row("load_gpt(path, tokenizer='абв')", lambda tmp_path: load_gpt(tiny_checkpoint(tmp_path)[0], tokenizer="абв"), TypeError,
        r"tokenizer — CharTokenizer .* или None", r"'абв' \(str\)", True),
    Row("load_gpt(path, tokenizer=['а', 'б'])", lambda tmp_path: load_gpt(tiny_checkpoint(tmp_path)[0], tokenizer=["а", "б"]),
        TypeError, "CharTokenizer", r"\['а', 'б'\] \(list\)"),
    Row("load_gpt(path, tokenizer=model)", lambda tmp_path: load_gpt(*tiny_checkpoint(tmp_path)[:2]), TypeError,
        r"model, tokenizer = load_gpt\(путь\)", r"\(GPT\)"),
    Row("save_gpt(в папку)", lambda tmp_path: save_gpt(tmp_path, *tiny_checkpoint(tmp_path)[1:]), ValueError,
        "путь к файлу", "папка"),
    Row("save_gpt(в несуществующую папку)", lambda tmp_path: save_gpt(tmp_path / "нет" / "m.npz", *tiny_checkpoint(tmp_path)[1:]),
        ValueError, "создайте её", "папки «.*нет» нет"),
    Row("Module.load_state_dict(None)", lambda: gpt().load_state_dict(None), TypeError, r"model\.state_dict\(\)", "NoneType"),
    Row("Module.load_state_dict(целые)", lambda: gpt().load_state_dict({**gpt().state_dict(), "unembed.bias": np.zeros(10, int)}),
        TypeError, "unembed.bias — дробные числа", "int64"),
    # ---- виджеты урока 10 (задача 36, часть 5): модель, словарь, прогон и начальные значения ----------------------
    Row("samples_explorer(None)", lambda: samples_explorer(None), TypeError, r"итог train_gpt\(", "NoneType"),
    Row("sampling_explorer(None, tokenizer)", lambda: sampling_explorer(None, tiny_tokenizer()), TypeError,
        r"model — GPT", "NoneType"),
    Row("sampling_explorer(model, 'абв')", lambda: sampling_explorer(gpt(vocab_size=V), "абв"), TypeError,
        "tokenizer — CharTokenizer", r"'абв' \(str\)"),
    Row("sampling_explorer(словарь от другой модели)", lambda: sampling_explorer(gpt(), tiny_tokenizer()), ValueError,
        "из одного прогона", "модель знает 10"),
    Row("sampling_explorer(temperature=5)", lambda: sampling_explorer(gpt(vocab_size=V), tiny_tokenizer(), temperature=5.0),
        ValueError, "от 0.1 до 2.0", "5.0"),
    Row("sampling_explorer(top_k=2.5)", lambda: sampling_explorer(gpt(vocab_size=V), tiny_tokenizer(), top_k=2.5),
        TypeError, r"top_k — целое число от 0 до 19", "2.5"),
    Row("sampling_explorer(prompt=None)", lambda: sampling_explorer(gpt(vocab_size=V), tiny_tokenizer(), prompt=None),
        TypeError, "prompt — строка", "None"),
    Row("sampling_view(model, None)", lambda: sampling_view(gpt(vocab_size=V), None), TypeError, "CharTokenizer", "None"),
    Row("gpt_heads_explorer(phrases='кот')", lambda: gpt_heads_explorer(gpt(vocab_size=V), tiny_tokenizer(), "кот"),
        TypeError, "список фраз", r"'кот' \(str\)"),
    Row("gpt_heads_explorer(phrases=[])", lambda: gpt_heads_explorer(gpt(vocab_size=V), tiny_tokenizer(), []),
        ValueError, "хотя бы одна фраза", "пустой список"),
    Row("gpt_heads_explorer(phrases=[None])", lambda: gpt_heads_explorer(gpt(vocab_size=V), tiny_tokenizer(), [None]),
        TypeError, "phrases — строка", "None"),
    Row("gpt_heads_view(None, …)", lambda: gpt_heads_view(None, tiny_tokenizer(), "кот"), TypeError, "model — GPT", "NoneType"),
    Row("with nt.no_grad: без скобок", lambda: exec("with nt.no_grad:\n    pass", {"nt": nt}), TypeError,
        r"пишите with nt\.no_grad\(\):", "без скобок"),
    # ---- токенизатор, текст, оценки урока 10 ------------------------------------------------------------------
    Row("CharTokenizer(None)", lambda: CharTokenizer(None), TypeError, "список символов", "NoneType"),
    Row("decode(None)", lambda: CharTokenizer.from_text("аб").decode(None), TypeError, "массив NumPy", "None"),
    Row("decode(дробные)", lambda: CharTokenizer.from_text("аб").decode(np.array([0.5])), ValueError, r"целые номера формы \(T,\)",
        "float64"),
    Row("unigram_loss(None, …)", lambda: unigram_loss(None, np.arange(2), 5), TypeError, "train_ids — число, массив", "None"),
    Row("unigram_loss(номер ≥ V)", lambda: unigram_loss(np.array([7]), np.array([0]), 5), ValueError, "от 0 до 4", "7…7"),
    Row("unigram_loss(alpha=0)", lambda: unigram_loss(np.arange(3), np.arange(3), 5, alpha=0), ValueError, "alpha — число > 0",
        "пришло 0"),
    Row("bigram_loss(alpha=-1)", lambda: bigram_loss(np.arange(3), np.arange(3), 3, alpha=-1), ValueError, "число > 0", "-1"),
    Row("known_word_share(None, …)", lambda: known_word_share(None, "кот"), TypeError, "sample — строка", "None"),
    Row("longest_run(None)", lambda: longest_run(None), TypeError, "sample — строка", "None"),
    Row("head_scores(L > T)", lambda: head_scores(gpt(), ids(2, 8), 0, L=100), ValueError, "L — целое число от 2 до 4", "100"),
    Row("head_scores(space_id=99)", lambda: head_scores(gpt(), ids(2, 8), 99, L=4), ValueError, "от 0 до 9", "99"),
    Row("head_scores(без пробелов)", lambda: head_scores(gpt(), np.ones((2, 8), np.int64), 0, L=4), ValueError,
        r"tokenizer\.encode\(' '\)", "нет ни одного пробела"),
    Row("head_scores(модель None)", lambda: head_scores(None, ids(2, 8), 0), TypeError, "GPT", "NoneType"),
    Row("evaluate(model, None)", lambda: evaluate(gpt(), None), TypeError, "windows — число, массив", "None"),
    Row("split_ids(None, …)", lambda: split_ids(None, 8, 0.1), TypeError, "ids — число, массив", "None"),
    Row("split_ids(5 номеров, T = 8)", lambda: split_ids(np.arange(5), 8, 0.1), ValueError, "хотя бы с 90 номерами", r"\(5,\)"),
    Row("fixed_windows(count=0)", lambda: fixed_windows(np.arange(50), 8, count=0), ValueError, "count — целое число ≥ 1", "0"),
    Row("fixed_windows(короче окна)", lambda: fixed_windows(np.arange(5), 8), ValueError, "хотя бы с 9 номерами", r"\(5,\)"),
    Row("random_windows(rng=None)", lambda: random_windows(np.arange(50), 2, 8, None), TypeError, "default_rng", "NoneType"),
    Row("ablation_costs(model, None, …)", lambda: ablation_costs(gpt(), None, [(0, 0)]), TypeError, "windows — число", "None"),
    Row("evaluate(0 окон)", lambda: evaluate(gpt(), ids(0, 9)), ValueError, "хотя бы одной строкой", r"\(0, 9\)"),
    # ---- библиотека ---------------------------------------------------------------------------------------
    Row("sdpa(scale=-1)", lambda: nt.scaled_dot_product_attention(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4)), scale=-1),
        ValueError, "scale — число > 0", "-1", True),
    Row("sdpa(scale=0)", lambda: nt.scaled_dot_product_attention(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4)), scale=0),
        ValueError, "scale — число > 0", "пришло 0"),
    Row("sdpa(d_k = 0)", lambda: nt.scaled_dot_product_attention(np.ones((2, 0)), np.ones((2, 0)), np.ones((2, 4))),
        ValueError, "d_k ≥ 1", r"\(2, 0\)", True),
    Row("sdpa(d_v = 0)", lambda: nt.scaled_dot_product_attention(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 0))),
        ValueError, "d_v ≥ 1", r"\(2, 0\)"),
    Row("mha.scale = -1", lambda: setattr(m := nt.MultiHeadAttention(8, 2), "scale", -1.0) or m(np.ones((1, 3, 8))),
        ValueError, "scale — число > 0", "-1.0"),
    Row("mha.scores(scale=-1)", lambda: nt.MultiHeadAttention(8, 2).scores(np.ones((1, 3, 8)), scale=-1.0), ValueError,
        "scale — число > 0", "-1.0"),
    Row("tensor.sum(axis=(0, 0))", lambda: nt.tensor(np.ones((2, 3))).sum(axis=(0, 0)), ValueError, "сворачивают один раз",
        "названа дважды", True),
    Row("tensor.sum(axis=(0, -2))", lambda: nt.tensor(np.ones((2, 3))).sum(axis=(0, -2)), ValueError, "один раз",
        r"\(0 и -2"),
    Row("tensor.mean(axis=(1, 1))", lambda: nt.tensor(np.ones((2, 3))).mean(axis=(1, 1)), ValueError, "mean: .*один раз", "дважды"),
    Row("tensor.max(axis=(0, 0))", lambda: nt.tensor(np.ones((2, 3))).max(axis=(0, 0)), ValueError, "max: .*один раз", "дважды"),
    Row("tensor.sum(axis=[0])", lambda: nt.tensor(np.ones((2, 3))).sum(axis=[0]), TypeError, r"axis=\(0, 1\)", r"list \[0\]"),
    Row("tensor.sum(keepdims='a')", lambda: nt.tensor(np.ones((2, 3))).sum(axis=0, keepdims="a"), TypeError, "True или False",
        "'a'"),
    Row("entropy(axis=(0, 0))", lambda: nt.functional.entropy(np.full((2, 2), 0.5), axis=(0, 0)), ValueError, "один раз", "дважды"),
]


@contextlib.contextmanager
def alarm(name):
    """Проба дольше HANG_SECONDS — зависание: падаем с именем пробы, а не ждём часами."""
    said = f"{name}: нет ответа за {HANG_SECONDS} с — отказ должен прийти до работы"
    if not hasattr(signal, "SIGALRM"):
        # Windows: будильника-сигнала нет — таймер в другом потоке прерывает главный (KeyboardInterrupt),
        # как SIGALRM, между строками Python; сама проверка отказа та же, что на Linux.
        timer = threading.Timer(HANG_SECONDS, _thread.interrupt_main)
        timer.start()
        try:
            yield
        except KeyboardInterrupt:
            raise TimeoutError(said) from None
        finally:
            timer.cancel()
        return

    def hang(*_):
        raise TimeoutError(said)
    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def fresh_runs():
    forget_runs()
    yield
    forget_runs()


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_bad_input_of_lesson_10_gets_a_russian_refusal_in_time(row, tmp_path):
    call = (lambda: row.call(tmp_path)) if row.call.__code__.co_argcount else row.call
    with alarm(row.name), np.errstate(all="raise"), pytest.raises(row.error) as caught:
        call()
    message = str(caught.value)
    assert CYRILLIC.search(message), f"{row.name}: ответ не по-русски: {message}"
    assert re.search(row.expected, message), f"{row.name}: не сказано, что ожидалось ({row.expected}): {message}"
    assert re.search(row.arrived, message), f"{row.name}: не сказано, что пришло ({row.arrived}): {message}"
    assert not any(english in message for english in ENGLISH), f"{row.name}: английский текст NumPy или Python: {message}"


def test_the_table_goes_beyond_the_issue():
    beyond = sum(not row.issue for row in ROWS)
    assert beyond >= 2 * sum(row.issue for row in ROWS), "проб сверх примеров задачи должно быть больше, чем самих примеров"


# ---- свой текст: умолчания курса не мешают ----------------------------------------------------------------

OWN_TEXTS = {
    "без «ё»": TEXT.replace("ё", "е"),
    "строчными": TEXT.lower(),
    "по-английски": "the cat sat on the warm mat. mother washed the frame. " * 25,
    "одна буква и пробел": "а а " * 400,
}


@pytest.mark.parametrize("name", OWN_TEXTS)
def test_own_text_trains_with_the_default_prompt_and_phrases(name):
    text = OWN_TEXTS[name]
    run = train_gpt(text, 4, seed=0, **{**TINY, "progress": quiet}, snapshot_steps=(0, 4))
    prompt = PROMPT if set(PROMPT) <= set(text) else text[:len(PROMPT)]
    assert [s.step for s in run.snapshots] == [0, 4]
    for snapshot in run.snapshots:
        assert snapshot.sample.startswith(prompt) and len(snapshot.sample) == len(prompt) + TINY["sample_len"], snapshot.sample
        (weights,) = snapshot.attention                               # одна фраза: начало текста в окне T
        assert weights.shape == (1, 2, TINY["T"], TINY["T"]), weights.shape
    key = dict(next(iter(gpt_training._RUNS._runs)))
    assert key["phrases"] == (text[:TINY["T"]],) and key["prompt"] == prompt


def test_the_lesson_corpus_keeps_the_course_defaults():
    """Русский текст с «ё» и заглавными — умолчания урока, как раньше: «Внимание» и «кот сел на тёплый коврик»."""
    text = TEXT.replace("кот", "Внимание кот", 1)
    run = train_gpt(text, 2, seed=0, **{**TINY, "T": 32, "progress": quiet}, snapshot_steps=(2,))
    assert run.snapshots[0].sample.startswith(PROMPT)
    assert run.snapshots[0].attention[0].shape[-1] == len(PHRASES[0])


def test_own_prompt_with_a_foreign_letter_names_the_argument_not_the_text():
    with pytest.raises(ValueError) as caught:
        train(text=TEXT.lower(), prompt="Кот")
    message = str(caught.value)
    assert "prompt='Кот'" in message and "Уберите или замените" not in message and "постройте словарь" not in message, message


def test_an_english_file_trains_from_load_text(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text(OWN_TEXTS["по-английски"], encoding="utf-8")
    run = train_gpt(load_text(path, T=8), 3, seed=0, **{**TINY, "progress": quiet})
    assert run.losses.shape == (3,) and np.isfinite(run.losses).all()


# ---- чекпойнт по именам ----------------------------------------------------------------------------------

def test_state_dict_is_a_snapshot_keyed_by_name():
    model = gpt(num_layers=2)
    state = model.state_dict()
    assert list(state) == [name for name, _ in model.named_parameters()]
    model.unembed.bias.data += 1.0                                    # модель учится дальше…
    assert not np.array_equal(state["unembed.bias"], model.unembed.bias.data)   # …снимок прежний


def test_load_state_dict_puts_same_shaped_parameters_by_name_not_by_position():
    source, target = gpt(num_layers=2), gpt(num_layers=2)
    for p in source.parameters():
        p.data = np.random.default_rng(p.data.size).normal(size=p.shape)
    shuffled = dict(reversed(list(source.state_dict().items())))      # W_q, W_k, W_v, W_o одной формы — в обратном порядке
    target.load_state_dict(shuffled)
    for (name, p), (_, q) in zip(source.named_parameters(), target.named_parameters()):
        np.testing.assert_array_equal(q.data, p.data, err_msg=f"{name} взят не по имени")


def test_a_refused_state_changes_nothing():
    model = gpt()
    before = model.state_dict()
    bad = {**model.state_dict(), "unembed.weight": np.full((8, 10), np.nan)}
    bad["tokens.weight"] = bad["tokens.weight"] + 1.0                 # до ошибки в словаре — годный параметр
    with pytest.raises(ValueError, match="unembed.weight"):
        model.load_state_dict(bad)
    for name, value in model.state_dict().items():
        np.testing.assert_array_equal(value, before[name], err_msg=f"{name} изменился, хотя state отвергнут")


def test_a_checkpoint_file_with_its_arrays_in_another_order_loads_the_same_model(tmp_path):
    path, model, tokenizer = tiny_checkpoint(tmp_path)
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in reversed(data.files)}
    np.savez(tmp_path / "reversed.npz", **arrays)
    loaded, _ = load_gpt(tmp_path / "reversed.npz")
    ids_ = tokenizer.encode("кот сел")[None]
    np.testing.assert_array_equal(loaded(ids_).data, model(ids_).data)


def test_a_checkpoint_saved_as_my_model_is_found_as_my_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, model, tokenizer = tiny_checkpoint(tmp_path)
    assert save_gpt("my_model", model, tokenizer) == tmp_path.joinpath("my_model").relative_to(tmp_path)
    loaded, _ = load_gpt("my_model")
    np.testing.assert_array_equal(loaded.unembed.weight.data, model.unembed.weight.data)
    np.savez("numpy_style", config=np.zeros(5, np.int64))             # np.savez сам дописал .npz
    with pytest.raises(ValueError, match="Рядом есть «numpy_style.npz»"):
        load_gpt("numpy_style")


def test_a_checkpoint_of_the_previous_numbered_layout_loads_by_its_names(tmp_path):
    path, model, tokenizer = tiny_checkpoint(tmp_path)
    named = list(model.named_parameters())
    order = list(range(len(named)))[::-1]                             # номера — в другом порядке, имена — рядом
    np.savez(tmp_path / "old.npz", config=np.array([V, 8, 8, 2, 2]), vocab=np.array(tokenizer.vocab),
             names=np.array([named[i][0] for i in order]), **{f"param.{j:03d}": named[i][1].data for j, i in enumerate(order)})
    loaded, _ = load_gpt(tmp_path / "old.npz")
    for (name, p), (_, q) in zip(named, loaded.named_parameters()):
        np.testing.assert_array_equal(q.data, p.data, err_msg=name)


def test_the_shipped_checkpoint_is_keyed_by_name():
    model, _ = load_gpt(lesson_checkpoint_path())
    with zipfile.ZipFile(lesson_checkpoint_path()) as archive:
        members = {info.filename.removesuffix(".npy") for info in archive.infolist()}
    assert members == {"config", "vocab"} | {name for name, _ in model.named_parameters()}, sorted(members)
    assert model.num_params() == num_params(model.vocab_size, model.max_len, model.d_model, model.num_layers) == 126_767
    assert {p.dtype for p in model.parameters()} == {np.dtype(np.float32)}


# ---- pickle не читается ------------------------------------------------------------------------------------

class Planted:
    """Объект, который при распаковке pickle создал бы файл-метку: так видно, выполнился ли чужой код."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_planted_pickle_in_a_checkpoint_never_runs(tmp_path):
    marker = tmp_path / "выполнено"
    path, _, _ = tiny_checkpoint(tmp_path)
    planted = np.empty(1, dtype=object)
    planted[0] = Planted(marker)
    rewritten_path = tmp_path / "planted.npz"
    with np.load(path, allow_pickle=False) as data:
        np.savez(rewritten_path, **{**{name: data[name] for name in data.files}, "unembed.bias": planted})
    raw = tmp_path / "raw.npz"
    raw.write_bytes(pickle.dumps(Planted(marker)))                   # pickle под именем .npz
    for bad in (rewritten_path, raw):
        with pytest.raises(ValueError) as caught:
            load_gpt(bad)
        assert not any(english in str(caught.value) for english in ENGLISH), str(caught.value)
        assert CYRILLIC.search(str(caught.value)), str(caught.value)
    assert not marker.exists(), "загрузка чекпойнта выполнила код из файла"


# ---- поведение вместо отказа ------------------------------------------------------------------------------

def test_a_tiny_temperature_is_greedy_not_an_overflow():
    logits = np.array([[1.0, 3.0, 2.0, -np.inf]])
    with np.errstate(over="raise", invalid="raise"):
        probs = next_token_probs(logits, 1e-308, None)
        token = sample_next_token(logits, 1e-308, None, np.random.default_rng(0))
    np.testing.assert_array_equal(probs, [[0.0, 1.0, 0.0, 0.0]])
    assert token.tolist() == [1]


def test_a_big_but_fitting_generation_still_runs():
    """Оценка не отказывает тому, что по силам: 200 символов, как у виджета урока."""
    assert gpt().generate(ids(), 200, rng=np.random.default_rng(0)).shape == (1, 203)


def test_one_blas_thread_limits_blas_inside_and_restores_after():
    before = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    with one_blas_thread():
        inside = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    after = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    assert inside and set(inside) == {1}, inside
    assert after == before


@pytest.mark.parametrize("progress", [quiet, lambda step, steps, loss, extra=None: None, lambda step, *rest: None,
                                      gpt_training.TrainingProgress(delay=60), print],
                         ids=["*args", "лишний с умолчанием", "step, *rest", "TrainingProgress()", "print"])
def test_progress_of_a_fitting_signature_is_accepted(progress, capsys):
    """Проверка подписи не отвергает годное: умолчания, *args, вызываемый объект, встроенная функция."""
    run = train(progress=progress, steps=2)
    assert run.losses.shape == (2,)


def test_load_gpt_with_its_own_tokenizer_still_loads(tmp_path):
    path, model, tokenizer = tiny_checkpoint(tmp_path)
    loaded, same = load_gpt(path, tokenizer=tokenizer)
    assert same.vocab == tokenizer.vocab and np.array_equal(loaded.unembed.weight.data, model.unembed.weight.data)


def test_the_run_key_is_built_from_named_arguments():
    train(steps=2)
    (key,) = gpt_training._RUNS._runs
    settings = dict(key)
    assert len(settings) == len(key), "имена в ключе повторяются"
    assert (settings["steps"], settings["T"], settings["batch"], settings["dtype"]) == (2, 8, 8, "float32")
    assert set(settings) == set(train_gpt.__code__.co_varnames[:train_gpt.__code__.co_argcount]) - {"progress"}


def test_encode_and_load_text_refuse_what_does_not_fit_before_allocating(tmp_path, monkeypatch):
    """Под пределом памяти в 1 МиБ: текст в мегабайт не кодируется и не читается, а отказ называет размер."""
    import course_lib._checks as checks
    monkeypatch.setattr(checks, "memory_limit", lambda: 2**20)
    text = "кот сел. " * 2**17                                         # 1 179 648 символов
    with pytest.raises(MemoryLimitError, match=r"encode: номера 1179648 символов .* займут 18\.0 МиБ"):
        CharTokenizer.from_text("кот сел. ").encode(text)
    path = tmp_path / "мой.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MemoryLimitError, match="load_text: текст из файла .* займут"):
        load_text(path)


def _lesson_size():
    """Размеры урока 10 из самого урока: STEPS — из lessons/10_gpt.py, остальное — умолчания train_gpt, которыми он учит."""
    import inspect
    import pathlib

    from course_lib.props.text_file import lessons_text

    source = (pathlib.Path(__file__).resolve().parent.parent / "lessons" / "10_gpt.py").read_text(encoding="utf-8")
    steps = int(re.search(r"^STEPS = (\d+)$", source, re.M).group(1))
    assert re.search(r"^run = train_gpt\(text, STEPS, seed=0, snapshot_steps=", source, re.M), \
        "урок 10 учит не умолчаниями train_gpt — поправьте этот тест вместе с уроком"
    defaults = {name: p.default for name, p in inspect.signature(train_gpt).parameters.items()}
    params = num_params(len(set(lessons_text())), defaults["T"], defaults["d_model"], defaults["num_layers"])
    return steps, defaults, params


def test_advice_in_the_refusals_tells_the_lessons_real_size():
    """Совет «меньше …» называет размеры урока 10 числами; урок и умолчания меняются — совет не должен отстать
    (так однажды отстало «1100 шагов»)."""
    steps, d, params = _lesson_size()
    blocks = plural(d["num_layers"], "блок", "блока", "блоков")
    with pytest.raises(WorkLimitError) as training:
        lesson_train(steps=10**7)
    assert f"урок 10 учит {steps} шагов по {d['batch']} окон, T = {d['T']}, {blocks} по {d['d_model']}" \
        in str(training.value), str(training.value)
    with pytest.raises(MemoryLimitError) as model:
        nt.GPT(175, 64, 64, 4, 10**7)
    counted = number(params)
    assert f"у урока 10 — {blocks} по d_model = {d['d_model']}: {counted} чисел" in str(model.value), str(model.value)

# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Урок 09. От внимания к трансформеру: блок и индукционная голова
#
# Статья «Attention: как токены разговаривают друг с другом», из которой вырос этот курс, кончается так:
# «attention — это только половина блока трансформера. После него идёт обычная feed-forward сеть,
# нормализация, residual connection. И таких блоков в стопке десятки или сотни». В этом уроке мы
# соберём блок целиком и измерим, что добавляет каждая его часть. А потом увидим самое
# известное, чему учится внимание, когда слоёв два: **индукционную голову** — пару голов, которая
# находит в тексте «где я это уже видел» и копирует продолжение. Она сложится у нас на глазах,
# на процессоре, за несколько секунд.
#
# Термины — в [глоссарии](glossary.md), формы массивов — в [шпаргалке по формам](shapes.md).
#
# **В этом уроке:**
# - блок трансформера: остаточная связь, нормализация слоя (LayerNorm), сеть прямого распространения (FFN) —
#   каждая часть с измерением; параметры блока, сверенные с GPT-2;
# - задача «блок, повторённый дважды» и двухслойная модель, которая учится её решать;
# - обрыв потерь: момент, когда складывается индукционная голова;
# - какая голова что делает — по измерениям, по картинкам и по выключению голов;
# - ловушка: задача с одной длиной блока, где модель находит обходной путь;
# - модель копирует последовательность, которую видит впервые, — генерацией с KV-кэшем;
# - та же задача для полных блоков с LayerNorm и FFN; ползунки, упражнения.

# %%
# @title Colab и Kaggle: поставить курс (в JupyterLab у себя эта ячейка ничего не делает)
def _course_setup(modules, environ, run, version, python):
    """Colab и Kaggle: курс из репозитория и то, чего нет из его зависимостей; IPython и ipykernel не трогаем."""
    where = "colab" if "google.colab" in modules else "kaggle" if "KAGGLE_KERNEL_RUN_TYPE" in environ else None
    if where is None:
        return []

    def have(name):
        try:
            return version(name)
        except ImportError:                 # importlib.metadata.PackageNotFoundError
            return None

    pip = [python, "-m", "pip", "install", "-q"]
    course = "git+https://github.com/attention-bez-magii/attention-bez-magii"
    commands = [] if have("attention-bez-magii") else [[*pip, "--no-deps", course]]
    needs = ["numpy>=1.24", "matplotlib>=3.7", "ipywidgets>=7.7", "ipython>=7.34", "ipykernel>=6.5",
             "pillow>=9.3", "threadpoolctl>=3.1", "tqdm>=4.64.1"]
    missing = [r for r in needs if not have(r.split(">=")[0])]
    if missing:
        commands.append([*pip, *missing, *(f"{n}=={have(n)}" for n in ("ipython", "ipykernel") if have(n))])
    for command in commands:
        try:
            run(command)
        except Exception as error:
            raise RuntimeError(f"не удалось поставить курс ({' '.join(command[3:])}): {error}. Нужен интернет "
                               "(Kaggle: Settings → Internet on); выполните эту ячейку снова") from None
    if where == "colab":
        from google.colab import output
        output.enable_custom_widget_manager()       # ползунки курса — сторонние виджеты для Colab
    print(f"Курс готов ({where}): можно выполнять ячейки дальше. Файлы среды исчезают с её концом.")
    return commands


import importlib.metadata, os, subprocess, sys  # noqa: E401,E402
_course_setup(sys.modules, os.environ, subprocess.check_call, importlib.metadata.version, sys.executable)
del _course_setup

# %%
import inspect

import matplotlib.pyplot as plt
import numpy as np

import course_lib as nt
from course_lib import vis
from course_lib.russian import number     # 126 767, а не 126,767: по-русски запятая — дробная часть

# %% [markdown]
# ## Блок трансформера целиком
#
# В уроке 08 у `TinyDecoder` была строчка `x = x + self.attention(x)`: внимание не заменяет
# вектор токена, а **прибавляет** к нему поправку. Блок трансформера — это две такие прибавки:
# сначала внимание (токены обмениваются сведениями), потом сеть прямого распространения
# (feed-forward network, FFN: каждый токен «думает» сам). Перед каждой — нормализация слоя
# (LayerNorm). Вот весь `forward` блока из `course_lib` — так устроен каждый слой GPT-2:

# %%
nt.manual_seed(0)
block = nt.nn.TransformerBlock(d_model=32, num_heads=2)
print(block)
print(inspect.getsource(nt.nn.TransformerBlock.forward))

# %% [markdown]
# ## Остаточная связь: блок поправляет вектор, а не заменяет его
#
# Вектор токена, к которому каждый слой прибавляет свою поправку, называют **остаточным потоком**
# (residual stream), а саму прибавку `x + …` — **остаточной связью** (residual connection).
# Измерим, насколько блок сдвигает вектор токена: косинус между входом и выходом
# (1 — направление то же, 0 — совсем другой вектор). Для сравнения — тот же блок без
# остаточной связи: выход — только то, что посчитали внимание и FFN.

# %%
def without_residual(block, x):
    """Тот же блок, но без «x +»: выход — только то, что посчитали внимание и FFN."""
    return block.ffn(block.ln2(block.attention(block.ln1(x))))


def cosine(a, b):
    return float((np.sum(a * b, -1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)).mean())


x = nt.tensor(np.random.default_rng(0).normal(size=(4, 10, 32)))     # (N, T, D): 4 фразы по 10 токенов
with nt.no_grad():
    with_res, without_res = block(x).data, without_residual(block, x).data
print(f"косинус вход-выход с остаточной связью: {cosine(x.data, with_res):.1f};  "
      f"без неё около нуля (|косинус| < 0.2): {abs(cosine(x.data, without_res)) < 0.2}")
assert cosine(x.data, with_res) > 0.7 and abs(cosine(x.data, without_res)) < 0.2, (
    f"косинус вход-выход с остаточной связью {cosine(x.data, with_res):.3f} (нужно > 0.7), "
    f"без неё {cosine(x.data, without_res):.3f} (нужно |косинус| < 0.2)")

# %% [markdown]
# С остаточной связью вектор токена после блока почти того же направления: блок дописал поправку.
# Без неё выход ничем не похож на вход — всё, что было в векторе, блоку пришлось бы пересобрать
# заново. В стопке из 12 блоков разница становится решающей:

# %%
nt.manual_seed(0)
stack = [nt.nn.TransformerBlock(32, 2) for _ in range(12)]
h_res, h_plain = x, x
with nt.no_grad():
    for layer in stack:
        h_res, h_plain = layer(h_res), without_residual(layer, h_plain)
print(f"после 12 блоков косинус с входом: с остаточной связью {cosine(x.data, h_res.data):.1f};  "
      f"без неё около нуля (|косинус| < 0.2): {abs(cosine(x.data, h_plain.data)) < 0.2}")
assert cosine(x.data, h_res.data) > 0.5 and abs(cosine(x.data, h_plain.data)) < 0.2, (
    f"после 12 блоков косинус с входом: с остаточной связью {cosine(x.data, h_res.data):.3f} (нужно > 0.5), "
    f"без неё {cosine(x.data, h_plain.data):.3f} (нужно |косинус| < 0.2)")

# %% [markdown]
# Остаточный поток — общая «шина»: эмбеддинг токена кладёт на неё исходный вектор, каждый слой
# читает шину и дописывает своё, а следующие слои видят всё написанное раньше. Через неё и
# общаются слои — это понадобится во второй половине урока.
#
# ## LayerNorm: масштаб больше не важен
#
# **Нормализация слоя** (LayerNorm) берёт вектор одного токена, вычитает из его $d_\text{model}$
# чисел их среднее и делит на стандартное отклонение: $\hat x = (x - \mu)/\sqrt{\sigma^2 + \varepsilon}$.
# Потом — обучаемые масштаб и сдвиг: $\hat x \cdot w + b$ (сначала $w = 1$, $b = 0$). Возьмём
# три токена очень разного масштаба:

# %%
norm = nt.nn.LayerNorm(32)
tokens3 = np.random.default_rng(1).normal(size=(3, 32)) * np.array([[0.1], [1.0], [100.0]])    # (3, D)
out = norm(nt.tensor(tokens3)).data
for scale, row_in, row_out in zip([0.1, 1, 100], tokens3, out):
    print(f"масштаб {scale:>5}: до — среднее {row_in.mean():+7.2f}, ст. откл. {row_in.std():6.2f};  "
          f"после — среднее {abs(row_out.mean()):.1f}, ст. откл. {row_out.std():.1f}")
assert np.allclose(out.mean(-1), 0) and np.allclose(out.std(-1), 1, atol=1e-3), (
    f"после LayerNorm наибольшее |среднее| строки {np.abs(out.mean(-1)).max():.2e} (нужно 0), "
    f"наибольшее |ст. откл. − 1| {np.abs(out.std(-1) - 1).max():.2e} (нужно ≤ 1e-3)")

# %% [markdown]
# После LayerNorm у каждого токена среднее 0 и разброс 1, каким бы он ни пришёл. Зачем это
# вниманию, мы видели в уроке 03: оценки $q \cdot k$ растут с квадратом масштаба векторов, и softmax
# «замерзает» в один пик. Блок с LayerNorm читает вход одинаково при любом масштабе — проверим:
# умножим вход на 10 и сравним веса внимания.

# %%
weights = {}
with nt.no_grad():
    for scale in [1, 10]:
        block(x * scale)
        with_norm = block.attention.attn.copy()               # (N, h, T, T): внутри блока, после ln1
        block.attention(x * scale)
        weights[scale] = with_norm, block.attention.attn.copy()    # то же внимание, но без LayerNorm перед ним
print("с LayerNorm веса при x и при 10·x одинаковы:", np.allclose(weights[1][0], weights[10][0], atol=1e-6))
print(f"без LayerNorm наибольший вес строки в среднем: {weights[1][1].max(-1).mean():.1f} при x, "
      f"{weights[10][1].max(-1).mean():.1f} при 10·x")
assert np.allclose(weights[1][0], weights[10][0], atol=1e-6), (
    f"с LayerNorm веса при x и при 10·x отличаются на {np.abs(weights[1][0] - weights[10][0]).max():.2e}")
assert weights[10][1].max(-1).mean() > weights[1][1].max(-1).mean() + 0.3, (
    f"без LayerNorm наибольший вес строки в среднем {weights[1][1].max(-1).mean():.3f} при x "
    f"и {weights[10][1].max(-1).mean():.3f} при 10·x, а при 10·x нужно больше на 0.3")

# %% [markdown]
# **Почему перед, а не после.** В первом трансформере (Vaswani et al., 2017) LayerNorm стоял после прибавки:
# `x = LayerNorm(x + attention(x))` (post-norm). Тогда остаточный поток сам проходит через нормировку
# в каждом блоке, и всё, что написали прежние слои, каждый раз пережимается заново. В GPT-2 (Radford et al., 2019)
# нормировку перенесли внутрь ветки: `x = x + attention(LayerNorm(x))` (pre-norm). Каждая ветка читает
# нормированную копию, а сам поток — чистая сумма: эмбеддинг плюс поправки всех блоков. По такому
# прямому пути градиент доходит до первых слоёв напрямую. Что глубокие стопки pre-norm от этого учатся
# устойчивее (обходятся без долгого «разогрева» скорости обучения), измерили Xiong et al. (2020, «On Layer
# Normalization in the Transformer Architecture») на настоящих моделях; наши стопки для такого замера
# малы, это — их результат. Сами же проверим то, что видно и тут: поток pre-norm — действительно сумма
# поправок, а post-norm прижимает длину каждого вектора к $\sqrt{d_\text{model}}$:

# %%
def post_norm(layer, x):
    """Тот же блок, но LayerNorm после прибавки — как в Transformer 2017 года."""
    x = layer.ln1(x + layer.attention(x))
    return layer.ln2(x + layer.ffn(x))


h_pre, h_post, added = x, x, 0
with nt.no_grad():
    for layer in stack:
        h_next = layer(h_pre)
        added, h_pre, h_post = added + (h_next - h_pre).data, h_next, post_norm(layer, h_post)
print("pre-norm: выход = вход + сумма поправок 12 блоков:", np.allclose(h_pre.data, x.data + added))
print(f"post-norm: длины векторов после 12 блоков — от {np.linalg.norm(h_post.data, axis=-1).min():.2f} "
      f"до {np.linalg.norm(h_post.data, axis=-1).max():.2f}, √32 = {np.sqrt(32):.2f}")
assert np.allclose(np.linalg.norm(h_post.data, axis=-1), np.sqrt(32), atol=0.01), (
    f"post-norm: длины векторов от {np.linalg.norm(h_post.data, axis=-1).min():.3f} "
    f"до {np.linalg.norm(h_post.data, axis=-1).max():.3f}, а нужны √32 = {np.sqrt(32):.3f}")

# %% [markdown]
# ## Сеть прямого распространения: каждый токен сам по себе
#
# FFN — два линейных слоя с нелинейностью между ними: вектор токена расширяется в 4 раза
# ($d_\text{ff} = 4 d_\text{model}$), проходит через GELU и сжимается обратно. GELU — гладкий вариант
# **ReLU** (rectified linear unit, $\max(0, x)$: отрицательное обнуляет, положительное пропускает как есть);
# GELU отрицательное почти гасит, положительное пропускает — сравните их на нескольких числах: Внимание смешивает токены,
# а FFN к соседям не смотрит вовсе. Проверим: переставим токены — выход FFN переставится так же.

# %%
points = np.array([-3.0, -1.0, 0.0, 1.0, 3.0])
print("x:   ", points)
print("ReLU:", np.maximum(points, 0))
print("GELU:", np.round(nt.functional.gelu(nt.tensor(points)).data, 2) + 0.0)
print(inspect.getsource(nt.nn.FeedForward.forward))
perm = np.random.default_rng(2).permutation(10)
with nt.no_grad():
    ffn_out = block.ffn(x).data                          # (N, T, D)
    ffn_perm = block.ffn(x.data[:, perm]).data
    attn_out, attn_perm = block.attention(x).data, block.attention(x.data[:, perm]).data
print("FFN: выход для переставленных токенов == переставленный выход:", np.allclose(ffn_perm, ffn_out[:, perm]))
print("внимание с причинной маской:", np.allclose(attn_perm, attn_out[:, perm]))
assert np.allclose(ffn_perm, ffn_out[:, perm]) and not np.allclose(attn_perm, attn_out[:, perm]), (
    f"после перестановки выход FFN отличается от переставленного на {np.abs(ffn_perm - ffn_out[:, perm]).max():.2e} "
    f"(нужно 0), внимания — на {np.abs(attn_perm - attn_out[:, perm]).max():.2e} (нужно заметно больше 0)")

# %% [markdown]
# У причинного внимания перестановка меняет, кто кого видит, а FFN всё равно: он работает
# с каждым вектором отдельно. Зато у него больше всего параметров в блоке.
#
# ## Сколько параметров в блоке
#
# Внимание: $W_Q, W_K, W_V, W_O$ — $4d^2 + 4d$ (урок 06). FFN: $d \times 4d$ и $4d \times d$ плюс
# смещения — $8d^2 + 5d$. Два LayerNorm — по $2d$. Всего $12d^2 + 13d$:

# %%
for d in [32, 768]:
    counted = nt.nn.TransformerBlock(d, num_heads=2).num_params()
    print(f"d_model = {d:>3}: блок курса — {number(counted):>9} параметров, 12·d² + 13·d = {number(12 * d * d + 13 * d):>9}")
    assert counted == 12 * d * d + 13 * d, (
        f"d_model = {d}: параметров {number(counted)}, а по формуле 12·d² + 13·d = {number(12 * d * d + 13 * d)}")
ffn_share = (8 * 768**2 + 5 * 768) / (12 * 768**2 + 13 * 768)
print(f"при d = 768 доля FFN в параметрах блока — {ffn_share:.2f}, внимания — {(4 * 768**2 + 4 * 768) / (12 * 768**2 + 13 * 768):.2f}")

# %% [markdown]
# Теперь таблица настоящих моделей из урока 06. У GPT в каждом блоке один слой внимания, а кроме
# блоков есть только эмбеддинги (словарь GPT-2 и GPT-3 — 50 257 токенов; позиций 1024 у GPT-2 и 2048
# у GPT-3) и последний LayerNorm. Размеры и полные числа параметров — из источников: GPT-2 — веса,
# опубликованные OpenAI (репозиторий `openai/gpt-2`, модели 124M и 1558M; в статье Radford et al., 2019
# те же модели названы 117M и 1542M), GPT-3 — статья Brown et al. (2020), таблица 2.1:

# %%
models = [  # имя, d_model, голов, блоков, всего параметров по источнику, позиций
    ("GPT-2 small", 768, 12, 12, 124e6, 1024),
    ("GPT-2 XL", 1600, 25, 48, 1558e6, 1024),
    ("GPT-3", 12288, 96, 96, 175e9, 2048),
]
for name, d, heads_count, layers, total, positions in models:
    blocks_params = layers * (12 * d * d + 13 * d)
    counted = blocks_params + (50257 + positions) * d + 2 * d
    print(f"{name:<12} блоки {number(blocks_params):>17} + эмбеддинги и LayerNorm = {number(counted):>17}  (по источнику ≈ {number(round(total))})")
    assert abs(counted / total - 1) < 0.01, (
        f"{name}: насчитали {number(counted)}, по источнику ≈ {number(round(total))}; "
        f"расхождение {counted / total - 1:+.1%}, а нужно меньше 1%")
gpt2 = {"n_embd": 768, "n_layer": 12, "vocab_size": 50257, "n_positions": 1024}   # config.json модели gpt2
d = gpt2["n_embd"]
from_config = gpt2["n_layer"] * (12 * d * d + 13 * d) + (gpt2["vocab_size"] + gpt2["n_positions"]) * d + 2 * d
print(f"GPT-2 small по config.json: {number(from_config)} параметров;  как у опубликованных весов:", from_config == 124_439_808)
assert from_config == 124_439_808, f"по config.json {number(from_config)} параметров, а у опубликованных весов 124 439 808"

# %% [markdown]
# Формула $12d^2 + 13d$ на блок сходится с опубликованными размерами до процента. А у GPT-2 small — до
# параметра: 124 439 808 насчитывает `num_parameters()` у модели `gpt2` из Hugging Face Transformers
# (веса OpenAI; её `config.json` — те четыре числа в ячейке выше; матрица unembedding у GPT-2 — та же
# таблица эмбеддингов, отдельно не считается). Две трети каждого блока — FFN, треть — внимание.

# %% [markdown]
# ## Индукционная голова: задача
#
# Теперь посмотрим, чему учатся два слоя внимания вместе. Задача такая: последовательность
# начинается с особого токена BOS (beginning of sequence, «начало»), потом идёт **блок** случайных
# токенов из словаря $V = 32$, потом тот же блок ещё раз. Длина блока — случайная, от 6 до 12.
# Модель учится предсказывать следующий токен в каждой позиции.

# %%
from course_lib.props.induction import BOS, LENGTHS, VOCAB, repeated_blocks


def labels(ids):
    return ["BOS" if t == BOS else str(t) for t in ids]


example = repeated_blocks(1, 8, np.random.default_rng(3))[0]          # (1 + 2·8,)
print(" ".join(labels(example)))
print(f"словарь: {VOCAB} токенов + BOS; длина блока от {LENGTHS[0]} до {LENGTHS[1]}; ln V = {np.log(VOCAB):.2f}")

# %% [markdown]
# Первую копию угадать нельзя: токены случайные, и лучшее, что можно сделать, — раздать
# вероятность поровну, $1/32$. Потери (значение функции потерь, урок 07) тогда $\ln 32 \approx 3.47$ ната
# (**нат** — единица потерь, когда логарифм натуральный, как в `cross_entropy`; с $\log_2$ вышли бы биты). Вторую копию можно угадать
# почти целиком по правилу «найди, где текущий токен уже был, и возьми тот, что шёл за ним».
# Кроме её первого токена: где кончился блок, модель не знает, — поэтому потери второй копии мы
# считаем со второго её токена.
#
# ## Модель: два слоя внимания и ничего больше
#
# Эмбеддинги токена и позиции (урок 04), два слоя `x = x + MHA(x)` с причинной маской,
# по 2 головы в слое, и **unembedding** — линейный слой, который переводит вектор в оценки
# всех 33 токенов. Ни LayerNorm, ни FFN: так проще разглядеть, что делают головы.

# %%
from course_lib.props.induction import AttentionOnly, TinyLM, attention_only

nt.manual_seed(0)
model = attention_only(num_layers=2, d_model=32, num_heads=2)
print(model)
print("параметров:", model.num_params())
print(inspect.getsource(AttentionOnly.forward))
print(inspect.getsource(TinyLM.forward))

# %% [markdown]
# ## Обучение: 1000 шагов
#
# Каждый шаг — новый батч из 32 последовательностей, Adam, скорость обучения `lr` = 0.01, функция потерь —
# кросс-энтропия следующего токена во всех позициях. По дороге запоминаем потери на первой и на второй копии и
# каждые 10 шагов — веса всех четырёх голов на одной пробной последовательности (для ползунка).
# Обучение идёт в один поток BLAS (библиотеки, которая умножает матрицы для NumPy): на матрицах
# 32 × 32 второй поток не ускоряет, а только тратит процессор — это измеряет `benchmarks/training.py`.
# Шаги идут внутри `with nt.fast():` — те же формулы, слитые (урок 08 показывает, как). Тысяча шагов — несколько секунд.
# `train_induction` помнит прогоны: та же модель (те же начальные веса) с теми же аргументами второй раз не
# учится — перезапуск ячейки отдаёт те же веса и ту же историю сразу, а `history.seconds` — время настоящего обучения.

# %%
from course_lib.props.induction_training import evaluate, train_induction

probe = repeated_blocks(1, 10, np.random.default_rng(4))[0]                 # (21,): пробная последовательность
nt.manual_seed(0)
model = attention_only(num_layers=2)
history = train_induction(model, steps=1000, seed=0, lr=1e-2, probe=probe, snapshot_every=10)
main_seconds = history.seconds                             # процессорное время обучения
report = evaluate(model)                                   # 224 новые последовательности, длины 6…12
print(f"потери второй копии < 1.0 нат: {report.second < 1.0};  первой копии близко к ln V (±0.4): "
      f"{abs(report.first - np.log(VOCAB)) < 0.4}")
assert report.second < 1.0 and abs(report.first - np.log(VOCAB)) < 0.4, (
    f"потери второй копии {report.second:.3f} (нужно < 1.0), первой {report.first:.3f} "
    f"(нужно ln V = {np.log(VOCAB):.3f} ± 0.4)")

# %% tags=["nbval-ignore-output"]
print(f"1000 шагов: {main_seconds:.1f} с процессорного времени; на новых последовательностях потери "
      f"первой копии {report.first:.2f}, второй — {report.second:.2f} нат")

# %% [markdown]
# ## Обрыв
#
# Нарисуем потери обеих копий по шагам (скользящее среднее по 25 шагам: каждый батч — своя длина блока,
# и кривая шумит). Вертикальная линия — **фазовый переход**: шаг, где потери второй копии впервые
# опускаются ниже половины $\ln V$.

# %%
from course_lib.props.induction_training import phase_change_step, smooth

phase = phase_change_step(history.second)
steps = np.arange(1, len(history.losses) + 1)
fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
ax.plot(steps, smooth(history.first), label="первая копия", color="#e8384f")
ax.plot(steps, smooth(history.second), label="вторая копия (со второго токена)", color=vis.BAR_COLOR)
ax.axhline(np.log(VOCAB), color="grey", ls="--", lw=1, label="ln V: наугад")
ax.axvline(phase, color="black", lw=1, ls=":", label="фазовый переход")
ax.set(xlabel="шаг обучения", ylabel="потери, наты", title="Индукционная голова складывается скачком")
ax.legend()
plt.show()
print("фазовый переход — в первой половине обучения:", phase < 500)
assert phase < 500, f"фазовый переход на шаге {phase}, а нужно в первой половине обучения, до шага 500"

# %% [markdown]
# Красная кривая всё время около $\ln V$ (чуть выше: модель тратит немного вероятности на
# «а вдруг блок кончился и сейчас начнётся повтор»). Синяя первые полсотни шагов лежит там же — модель
# не умеет копировать, — потом понемногу сползает (часть второй копии можно угадать и без копирования:
# токены блока, которые уже были, вероятнее прочих), а около перехода за сотню шагов обрывается вниз.
# В числах:

# %%
blue, ln_V = smooth(history.second), np.log(VOCAB)
print("шаг 50: синяя у ln V (±10 %):", abs(blue[49] / ln_V - 1) < 0.1)
print("за 25 шагов до перехода: ниже ln V, но выше 0.6·ln V:", 0.6 < blue[phase - 26] / ln_V < 0.95)
print("через 75 шагов после перехода: ниже 0.2·ln V:", blue[phase + 74] / ln_V < 0.2)
assert (abs(blue[49] / ln_V - 1) < 0.1 and 0.6 < blue[phase - 26] / ln_V < 0.95
        and blue[phase + 74] / ln_V < 0.2), (
    f"синяя / ln V: на шаге 50 — {blue[49] / ln_V:.3f} (нужно 1 ± 0.1), за 25 шагов до перехода — "
    f"{blue[phase - 26] / ln_V:.3f} (нужно от 0.6 до 0.95), через 75 шагов после — {blue[phase + 74] / ln_V:.3f} "
    f"(нужно < 0.2)")

# %% [markdown]
# Плавно учиться тут нечему: пока
# один слой не научился своей половине работы, второй не получает от неё пользы. Когда обе
# половины встают на место, потери падают скачком.
#
# ## Кто что делает: два числа на голову
#
# Назовём головы по измерениям. Для каждой головы — среднее по 224 новым последовательностям:
#
# - **вес на предыдущий токен** (в статьях — previous-token score): средний вес от позиции $t$ на позицию $t-1$,
#   по всем $t \ge 1$; у головы предыдущего токена он высокий;
# - **совпадение префикса** (prefix matching): средний вес от токена второй копии на токен, который
#   шёл **после** его первого появления. Для позиции $q = L + i$ во второй копии (тот же токен, что
#   в позиции $i$) это позиция $i + 1 = q - L + 1$.
#
# Слои и головы нумеруем с нуля, как в коде: слой 0 — нижний.

# %%
fig, axes = plt.subplots(1, 2, figsize=(8, 2.8), layout="constrained", sharey=True)
names = [f"слой {layer}\nголова {head}" for layer in range(2) for head in range(2)]
for ax, scores, title in zip(axes, [report.previous, report.prefix], ["вес на предыдущий токен", "совпадение префикса"]):
    ax.bar(range(4), scores.ravel(), color=vis.BAR_COLOR)
    ax.set_xticks(range(4), labels=names)
    ax.set(title=f"{title}: средний вес", ylim=(0, 1), ylabel="вес")
plt.show()
previous_head, induction_head = report.previous_head(), report.induction_head()
print(f"в слое 0 есть голова с весом на предыдущий токен ≥ 0.5: {report.previous[previous_head] >= 0.5}")
print(f"в слое 1 есть голова с совпадением префикса ≥ 0.6: {report.prefix[induction_head] >= 0.6}")
assert report.previous[previous_head] >= 0.5 and report.prefix[induction_head] >= 0.6, (
    f"вес на предыдущий токен у головы {previous_head} {report.previous[previous_head]:.2f} (нужно ≥ 0.5), "
    f"совпадение префикса у головы {induction_head} {report.prefix[induction_head]:.2f} (нужно ≥ 0.6)")

# %% [markdown]
# Одна голова слоя 0 отдаёт предыдущему токену больше половины веса (черта 0.5 — в проверке выше), а у
# головы слоя 1 высокое совпадение префикса —
# это и есть **индукционная голова** (induction head). Бывает, что индукционными становятся обе головы
# слоя 1, — посмотрите на столбики. Вот как все четыре смотрят на пробную последовательность:

# %%
tokens = labels(probe)
fig = vis.heads(history.snapshots[-1].reshape(4, len(probe), len(probe)), tokens, ncols=2)
for ax, name in zip(fig.axes, names):
    ax.set_title(name.replace("\n", ", "))
fig.suptitle("Веса всех голов после обучения\n(пробная последовательность, L = 10)")
plt.show()
layer, head = induction_head
on_bos = history.snapshots[-1][layer, head, 1:11, 0].mean()          # строки первой копии, столбец BOS
print("индукционная голова в первой копии отдаёт BOS больше половины веса:", on_bos > 0.5)
assert on_bos > 0.5, f"индукционная голова отдаёт BOS в первой копии {on_bos:.2f} веса, а нужно больше половины"

# %% [markdown]
# У головы предыдущего токена — диагональ прямо под главной: каждый смотрит на соседа слева.
# У индукционной головы во второй копии — диагональ, сдвинутая на $L - 1 = 9$ влево: токен второй
# копии смотрит на токен **после** своего первого появления. А в первой копии ей смотреть не на что,
# и большую часть веса она отдаёт BOS — это её «место для отдыха».
#
# Как это работает вместе. Голова слоя 0 кладёт в вектор каждого токена сведения «передо мной
# стоял токен A» — через остаточный поток. Голова слоя 1 ищет запросом «я — токен A» ключ
# «передо мной стоял A» — и находит токен, шедший сразу после прошлого A. Его значение (сам
# токен) она и копирует в ответ. Одному слою так не суметь: ключ «передо мной стоял A» появляется
# только после слоя 0.
#
# Когда появились эти две головы? Посчитаем обе оценки на пробной последовательности по снимкам,
# сделанным во время обучения, и положим рядом потери второй копии:

# %%
from course_lib.props.induction_training import prefix_matching_scores, previous_token_scores

snap_previous = previous_token_scores(history.snapshots)[:, 0].max(axis=-1)     # (S,): лучшая голова слоя 0
snap_prefix = prefix_matching_scores(history.snapshots)[:, 1].max(axis=-1)      # (S,): лучшая голова слоя 1
fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
ax.plot(history.snapshot_steps, snap_previous, color="#e8384f", label="вес на предыдущий токен, слой 0")
ax.plot(history.snapshot_steps, snap_prefix, color="#21918c", label="совпадение префикса, слой 1")
ax.plot(steps, smooth(history.second) / np.log(VOCAB), color=vis.BAR_COLOR, lw=1, label="потери второй копии / ln V")
ax.axvline(phase, color="black", lw=1, ls=":", label="фазовый переход")
ax.set(xlabel="шаг обучения", ylabel="оценка (вес)", title="Обе половины механизма появляются вместе", xlim=(0, 500))
fig.legend(loc="outside lower center", ncol=2, fontsize=8)   # под осями: кривые идут по всей высоте
plt.show()
before, after = history.snapshot_steps <= phase - 50, history.snapshot_steps >= phase + 100
early = bool((snap_previous[before] < 0.4).all() and (snap_prefix[before] < 0.4).all())
late = bool((snap_previous[after] >= 0.4).all() and (snap_prefix[after] >= 0.4).all())
print(f"за 50 шагов до перехода обе оценки < 0.4: {early};  через 100 шагов после и до конца — обе ≥ 0.4: {late}")
assert early and late, (
    f"до перехода (шаги ≤ {phase - 50}) оценки доходят до {snap_previous[before].max(initial=0):.2f} и "
    f"{snap_prefix[before].max(initial=0):.2f} (нужно < 0.4); после (шаги ≥ {phase + 100}) опускаются до "
    f"{snap_previous[after].min(initial=1):.2f} и {snap_prefix[after].min(initial=1):.2f} (нужно ≥ 0.4)")

# %% [markdown]
# Обе оценки вырастают вокруг фазового перехода, за одни и те же полторы сотни шагов: за 50 шагов до него
# обе ещё низкие, через 100 после — обе высокие. Совпадение префикса при этом чуть впереди:
# черту 0.4 оно переходит не позже, чем вес на предыдущий токен:

# %%
crossed_prefix = history.snapshot_steps[np.argmax(snap_prefix >= 0.4)]       # первый снимок, где ≥ 0.4
crossed_previous = history.snapshot_steps[np.argmax(snap_previous >= 0.4)]
print("совпадение префикса переходит 0.4 не позже веса на предыдущий токен:", crossed_prefix <= crossed_previous)
print("обе переходят 0.4 между «за 50 шагов до перехода» и «через 100 после»:",
      all(phase - 50 < step < phase + 100 for step in (crossed_prefix, crossed_previous)))

# %% [markdown]
# Пока нет головы предыдущего токена, индукционной нечего искать, а пока нет индукционной, голова
# предыдущего токена почти не уменьшает потери. Обеим хватает едва наметиться, чтобы начать подтягивать
# друг друга, — и потери обрываются, когда обе встают на место.
#
# ## Выключим голову
#
# Проверим роли не только картинкой. **Абляция** (ablation) головы: обнулим её строки в $W_O$ —
# её выход больше ничего не добавляет в поток. (Выход головы — её $d_\text{head}$ чисел в склеенном
# `context`, урок 06; в $W_O$ на них умножаются как раз $d_\text{head}$ строк.) Модель не переучиваем: `ablate` делает копию,
# исходная модель остаётся как была.

# %%
from course_lib.props.induction import ablate

print(inspect.getsource(ablate))
other_head = (0, 1 - previous_head[1])
ablations = {"ничего": [], "голову предыдущего токена": [previous_head], "другую голову слоя 0": [other_head],
             "обе головы слоя 1": [(1, 0), (1, 1)]}
second_loss = {name: evaluate(ablate(model, heads)).second for name, heads in ablations.items()}
print("выключили голову предыдущего токена -> потери второй копии ≥ 0.8·ln V:",
      second_loss["голову предыдущего токена"] >= 0.8 * np.log(VOCAB))
print("выключили другую голову слоя 0 -> потери второй копии почти как без абляции (разница < 0.3):",
      abs(second_loss["другую голову слоя 0"] - second_loss["ничего"]) < 0.3)
print("выключили обе головы слоя 1 -> потери второй копии ≥ 0.8·ln V:", second_loss["обе головы слоя 1"] >= 0.8 * np.log(VOCAB))
assert (second_loss["голову предыдущего токена"] >= 0.8 * np.log(VOCAB)
        and second_loss["обе головы слоя 1"] >= 0.8 * np.log(VOCAB)), (
    f"потери второй копии без головы предыдущего токена {second_loss['голову предыдущего токена']:.3f}, без обеих "
    f"голов слоя 1 {second_loss['обе головы слоя 1']:.3f}, а нужно обе ≥ 0.8·ln V = {0.8 * np.log(VOCAB):.3f}")
assert abs(second_loss["другую голову слоя 0"] - second_loss["ничего"]) < 0.3, (
    f"потери второй копии без другой головы слоя 0 {second_loss['другую голову слоя 0']:.3f}, "
    f"без абляции {second_loss['ничего']:.3f}: разница должна быть меньше 0.3")

# %%
fig, ax = plt.subplots(figsize=(7, 2.8), layout="constrained")
ax.barh(range(len(second_loss)), list(second_loss.values()), color=vis.BAR_COLOR)
ax.set_yticks(range(len(second_loss)), labels=["без абляции" if name == "ничего" else f"выключили {name}" for name in second_loss])
ax.axvline(np.log(VOCAB), color="grey", ls="--", lw=1, label="ln V: наугад")
ax.invert_yaxis()
ax.set(xlabel="потери второй копии, наты")
fig.suptitle("Абляция: какая голова нужна для копирования")
ax.legend()
plt.show()

# %% [markdown]
# Без головы предыдущего токена копирование ломается полностью: потери второй копии — почти
# как наугад. Другую голову слоя 0 модель почти не замечает. Выключить обе головы слоя 1 —
# тоже всё сломать. Значит, круг из двух голов — настоящий механизм, а не совпадение на картинке.
#
# ## Один слой не справится
#
# Проверим и обратное: однослойная модель с тем же числом шагов, тем же батчем и тем же lr.

# %%
nt.manual_seed(0)
one_layer = attention_only(num_layers=1)
one_history = train_induction(one_layer, steps=1000, seed=0, lr=1e-2)
one_seconds = one_history.seconds
one_report = evaluate(one_layer)
print("однослойная модель: потери второй копии ≥ 1.3 нат:", one_report.second >= 1.3)
assert one_report.second >= 1.3, f"у однослойной модели потери второй копии {one_report.second:.3f}, а нужно ≥ 1.3"

# %% tags=["nbval-ignore-output"]
print(f"1000 шагов за {one_seconds:.1f} с процессорного времени; потери второй копии {one_report.second:.2f} нат "
      f"(у двухслойной {report.second:.2f})")

# %%
fig, ax = plt.subplots(figsize=(7, 3.2), layout="constrained")
ax.plot(steps, smooth(history.second), color=vis.BAR_COLOR, label="2 слоя")
ax.plot(steps, smooth(one_history.second), color="#e8384f", label="1 слой")
ax.axhline(np.log(VOCAB), color="grey", ls="--", lw=1, label="ln V: наугад")
ax.set(xlabel="шаг обучения", ylabel="потери второй копии, наты", title="Один слой против двух")
ax.legend()
plt.show()

# %% [markdown]
# Однослойная модель тоже что-то выучила: потери второй копии у неё ниже $\ln V$. Но ключа «передо мной
# стоял A» у неё нет — в одном слое каждый ключ знает только свой токен и свою позицию. Остаётся
# угадывать по позициям и по тому, какие токены уже были, и потери застревают выше 1.3 ната. Черта
# «потери второй копии < 1.0» отделяет копирование от такого угадывания.
#
# ## Ловушка: одна длина блока
#
# Почему длина блока у нас случайная? Сделаем её всегда равной 8 и обучим ту же однослойную модель:

# %%
nt.manual_seed(0)
fixed = attention_only(num_layers=1)
fixed_seconds = train_induction(fixed, steps=500, seed=0, lr=1e-2, lengths=(8, 8)).seconds
at_8 = evaluate(fixed, lengths=(8, 8)).second
others = [evaluate(fixed, lengths=(L, L)).second for L in range(6, 13) if L != 8]
print(f"блок длины 8: потери второй копии < 0.1 — {at_8 < 0.1};  другие длины: все хуже, чем наугад — "
      f"{min(others) > np.log(VOCAB)}")
assert at_8 < 0.1 and min(others) > np.log(VOCAB), (
    f"потери второй копии: у длины 8 — {at_8:.3f} (нужно < 0.1), у других длин не меньше {min(others):.3f} "
    f"(нужно хуже, чем наугад: > ln V = {np.log(VOCAB):.3f})")

# %% tags=["nbval-ignore-output"]
print(f"500 шагов за {fixed_seconds:.1f} с; потери второй копии при L = 8: {at_8:.3f}, "
      f"при других L: " + ", ".join(f"{x:.1f}" for x in others))

# %% [markdown]
# Один слой «решил» задачу идеально — но не копированием по содержимому, а по позиции: «токен
# на месте $9 + i$ — копия токена на месте $1 + i$». Это **обходной путь** (shortcut): он работает,
# пока длина та же, и уверенно ошибается при любой другой. Низкие потери ещё не значат, что модель
# выучила то, что мы задумали. Случайная длина блока закрывает этот путь.
#
# ## Копирование того, что модель видит впервые
#
# Обученная двухслойная модель, получив последовательность, которой не было в обучении, должна
# продолжить её, увидев один раз. Дадим ей BOS, блок из 9 токенов и первый токен повтора, и пусть
# она допишет остальное сама — жадно (каждый раз самый вероятный токен), с KV-кэшем из урока 08.

# %%
from course_lib.props.generation import generate_with_cache

block9 = np.random.default_rng(5).permutation(VOCAB)[:9]            # 9 разных токенов: их модель не видела
prompt = np.concatenate([[BOS], block9, block9[:1]])[None]          # (1, 11)
ids, _ = generate_with_cache(model, prompt, steps=8)                # дописать 8 токенов
print("промпт:       ", " ".join(labels(prompt[0])))
print("дописала:     ", " ".join(labels(ids[0, prompt.shape[1]:])))
print("скопировала блок верно:", np.array_equal(ids[0, prompt.shape[1]:], block9[1:]))
assert np.array_equal(ids[0, prompt.shape[1]:], block9[1:]), (
    f"дописала {' '.join(labels(ids[0, prompt.shape[1]:]))}, а нужно {' '.join(labels(block9[1:]))}")

# %% [markdown]
# И на многих таких последовательностях сразу — доля верно дописанных токенов. Токены внутри блока
# здесь разные: если токен встречается в блоке дважды, правило «возьми тот, что шёл за ним» неоднозначно,
# и модели приходится угадывать.

# %%
from course_lib.props.induction import copy_accuracy

accuracy = copy_accuracy(model, N=200, length=9, seed=6)
print("доля верно скопированных токенов ≥ 0.9:", accuracy >= 0.9)
assert accuracy >= 0.9, f"верно скопировано {accuracy:.1%} токенов, а нужно не меньше 90%"

# %% [markdown]
# ## Это и есть обучение в контексте
#
# Индукционные головы описали Elhage et al. (2021, «A Mathematical Framework for Transformer Circuits») —
# как раз в маленьких моделях из одного внимания, как наша. Olsson et al. (2022, «In-context Learning
# and Induction Heads») нашли их и в больших языковых моделях: в моделях самых разных размеров они
# складываются тем же скачком, и ровно тогда модель начинает лучше предсказывать поздние токены
# длинного текста по ранним — учиться «в контексте» (in-context learning), не меняя весов. Копирование
# из контекста — простейший вид такого обучения, и мы только что вырастили его сами.

# %% [markdown]
# ## Та же задача для полных блоков
#
# Теперь две настоящие `TransformerBlock` — с LayerNorm и FFN — вместо слоёв одного внимания.
# Параметров в 2.5 раза больше, и шаг дороже. Шаг обучения возьмём поменьше, lr = 0.003, и 600 шагов —
# так всё обучение урока укладывается в полминуты процессорного времени.

# %%
nt.manual_seed(0)
full = TinyLM([nt.nn.TransformerBlock(32, num_heads=2) for _ in range(2)], d_model=32)
full_history = train_induction(full, steps=600, seed=0, lr=3e-3)
full_seconds = full_history.seconds
full_report = evaluate(full)
print(f"параметров: {number(full.num_params())} (у модели из одного внимания {number(model.num_params())}, "
      f"в {full.num_params() / model.num_params():.1f} раза меньше)")
print("потери второй копии < 1.0 нат:", full_report.second < 1.0)
print(f"голова предыдущего токена в слое 0 (≥ 0.5): {full_report.previous[full_report.previous_head()] >= 0.5}; "
      f"индукционная в слое 1 (≥ 0.6): {full_report.prefix[full_report.induction_head()] >= 0.6}")
assert full_report.second < 1.0 and full_report.previous[full_report.previous_head()] >= 0.5, (
    f"потери второй копии {full_report.second:.3f} (нужно < 1.0), вес на предыдущий токен у лучшей головы слоя 0 "
    f"{full_report.previous[full_report.previous_head()]:.2f} (нужно ≥ 0.5)")
assert full_report.prefix[full_report.induction_head()] >= 0.6, (
    f"совпадение префикса у индукционной головы {full_report.prefix[full_report.induction_head()]:.2f}, а нужно ≥ 0.6")

# %% tags=["nbval-ignore-output"]
print(f"600 шагов за {full_seconds:.1f} с процессорного времени "
      f"({1000 * full_seconds / 600:.0f} мс на шаг против {1000 * main_seconds / 1000:.0f} мс у модели из одного внимания); "
      f"потери второй копии {full_report.second:.2f}; вес на предыдущий токен {np.round(full_report.previous, 2).tolist()}, "
      f"совпадение префикса {np.round(full_report.prefix, 2).tolist()}")
print(f"всё обучение урока: {main_seconds + one_seconds + fixed_seconds + full_seconds:.1f} с процессорного времени")

# %% [markdown]
# Полные блоки находят тот же механизм: голова предыдущего токена внизу, индукционная наверху.
# LayerNorm и FFN этой задаче не нужны — она целиком про внимание, — а шаг с ними заметно дороже
# (во сколько раз на вашей машине — в ячейке выше).

# %% [markdown]
# ## Поиграйте: как складывается индукционная голова
#
# Ползунок «шаг» листает снимки весов всех четырёх голов на пробной последовательности, снизу —
# потери обеих копий до этого шага. **Посмотрите**, что происходит около фазового перехода:
# диагональ под главной в слое 0 и сдвинутая диагональ во второй копии в слое 1 проступают вместе,
# и тогда же синяя кривая обрывается.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.induction import ablation_explorer, induction_explorer

induction_explorer(history, tokens)

# %% [markdown]
# Флажки выключают головы обученной модели (любые сочетания). Столбики — вероятность, которую
# модель даёт верному следующему токену в каждой позиции пробной последовательности (синие —
# вторая копия), в заголовке — потери второй копии на новых последовательностях, под флажками —
# что модель предсказывает. **Найдите**, какие головы можно выключить без вреда, а без каких
# копирование рушится. А если синий столбик проваливается и без абляции — не встречается ли этот
# токен в блоке дважды? Тогда у «что шло за ним в прошлый раз» два разных ответа.

# %% tags=["nbval-ignore-output"]
ablation_explorer(model, probe)

# %% [markdown]
# Потери второй копии в этом уроке встречаются трижды, и числа чуть разные — это разные выборки, а не
# ошибка: в ячейке после обучения — 224 новые последовательности (по 32 на каждую длину блока), в заголовке
# ползунка — скользящее среднее по последним 25 батчам обучения, у флажков — 112 новых последовательностей
# (по 16 на длину, чтобы флажки отвечали быстро). Все три — около 0.2:

# %%
second_copy = {"после обучения, 224 последовательности": report.second,
               "ползунок, среднее по 25 батчам": smooth(history.second)[-1],
               "флажки, 112 последовательностей": evaluate(model, per_length=16).second}
print("все три от 0.1 до 0.4 ната:", all(0.1 < value < 0.4 for value in second_copy.values()))
assert all(0.1 < value < 0.4 for value in second_copy.values()), (
    f"вне 0.1–0.4 ната: {[(name, round(float(v), 3)) for name, v in second_copy.items() if not 0.1 < v < 0.4]}")

# %% [markdown]
# ## Упражнения
#
# ### 1. Совпадение префикса своими руками
#
# Напишите `my_prefix_matching(weights)`: веса одной последовательности BOS + блок + блок формы
# $(h, T, T)$, $T = 1 + 2L$. Верните для каждой головы $(h,)$ средний вес от позиций второй копии
# $q = L+1 \dots 2L$ на позицию $q - L + 1$.

# %%
from course_lib.exercises.induction import check_layer_norm, check_prefix_matching, check_previous_token_head


def my_prefix_matching(weights):
    raise NotImplementedError  # ваш код здесь


_ = check_prefix_matching(my_prefix_matching)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение: L из T = 1 + 2L; q — позиции второй копии; q − L + 1 — «после прошлого раза».
def prefix_matching_solution(weights):
    L = (weights.shape[-1] - 1) // 2
    q = np.arange(L + 1, 2 * L + 1)
    return weights[:, q, q - L + 1].mean(axis=-1)


_ = check_prefix_matching(prefix_matching_solution)

# %% [markdown]
# ### 2. Найдите голову предыдущего токена
#
# Напишите `my_previous_token_head(weights)`: веса всех голов модели на одной последовательности,
# форма $(\text{layers}, h, T, T)$. Верните пару `(layer, head)` — номера (с нуля) головы, которая
# больше всех смотрит на предыдущий токен (средний вес `weights[layer, head, t, t - 1]` по $t \ge 1$).

# %%
def my_previous_token_head(weights):
    raise NotImplementedError  # ваш код здесь


_ = check_previous_token_head(my_previous_token_head)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение: score (layers, h) — средний вес на t − 1; самый большой — его номер в паре (слой, голова).
def previous_token_head_solution(weights):
    t = np.arange(1, weights.shape[-1])
    score = weights[..., t, t - 1].mean(axis=-1)                 # (layers, h)
    layer, head = np.unravel_index(np.argmax(score), score.shape)
    return int(layer), int(head)


_ = check_previous_token_head(previous_token_head_solution)
print("на пробной последовательности нашлась та же голова, что по 224 проверочным:",
      previous_token_head_solution(model.attention_weights(probe)) == report.previous_head())

# %% [markdown]
# ### 3. LayerNorm
#
# Напишите `my_layer_norm(x, weight, bias, eps=1e-5)` в NumPy: `x` формы $(\dots, d)$, нормировать
# каждый вектор по последней оси (среднее 0, дисперсия 1 — **смещённая**, деление на $d$), потом
# `* weight + bias`. Проверка сравнит с `nt.nn.LayerNorm` на векторах очень разного масштаба.

# %%
def my_layer_norm(x, weight, bias, eps=1e-5):
    raise NotImplementedError  # ваш код здесь


_ = check_layer_norm(my_layer_norm)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение: mean и var по последней оси с keepdims, eps — под корнем.
def layer_norm_solution(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)                           # смещённая: делим на d
    return (x - mean) / np.sqrt(var + eps) * weight + bias


_ = check_layer_norm(layer_norm_solution)

# %% [markdown]
# ## Итог
#
# - **Блок трансформера** (pre-norm, как в GPT-2): `x = x + attention(ln1(x))`, потом `x = x + ffn(ln2(x))`.
# - **Остаточная связь:** блок дописывает поправку в остаточный поток; с ней вектор после 12 блоков ещё
#   похож на исходный, без неё — нет. Поток — общая шина, через которую слои передают друг другу сведения.
# - **LayerNorm:** у каждого токена среднее 0 и разброс 1 — внимание читает вход одинаково при любом масштабе.
#   Перед веткой, а не после: поток остаётся чистой суммой поправок.
# - **FFN** работает с каждым токеном отдельно (перестановка токенов переставляет его выход) и держит
#   две трети параметров блока; всего в блоке $12d^2 + 13d$ — у GPT-2 small это сходится до параметра.
# - **Индукционная голова:** голова предыдущего токена в слое 0 + голова в слое 1, которая ищет «токен после
#   прошлого раза». Складывается скачком (фазовый переход); выключите голову предыдущего токена — копирование
#   пропадёт; одному слою это не под силу.
# - **Ловушка:** с одной длиной блока даже один слой «решает» задачу по позициям — и ломается на другой длине.
# - Обученная модель копирует последовательность, которую видит впервые, — простейшее обучение в контексте.
# - Два полных блока с LayerNorm и FFN на той же задаче складывают тот же механизм.
#
# ## Что добавляет настоящая GPT
#
# Ровно эти блоки, только их больше (12 у GPT-2 small, 96 у GPT-3), они шире ($d_\text{model}$ от 768
# до 12 288), словарь — 50 257 токенов, и учат их не на случайных блоках, а на сотнях миллиардов токенов
# текста. Статья, из которой вырос курс, обещала «соберём всё вместе и посмотрим, как из этих кубиков
# получается работающая GPT». Кубики теперь все в `course_lib`: внимание, которое мы строили с урока 02,
# причинная маска, головы, FFN, LayerNorm и остаточная связь. Остальное — масштаб: больше блоков,
# шире векторы, больше данных. И как мы видели, даже два слоя внимания на случайных токенах уже учатся
# тому, что делает большие модели полезными, — брать нужное из контекста.
#
# **Дальше:** урок 10 — соберём из этих блоков GPT, обучим её на русском тексте уроков курса,
# послушаем, что она пишет, и назовём её головы по тем же измерениям. Индукционную будем искать тоже —
# и измерение скажет, что на прозе курса она не сложилась: дословных повторов там мало.

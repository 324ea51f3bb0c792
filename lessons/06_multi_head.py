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
# # Урок 06. Многоголовое внимание
#
# Одна голова внимания даёт каждому токену одно распределение весов — один «взгляд» на фразу.
# Но связей в языке много сразу. Multi-head attention запускает $h$ голов параллельно, каждая
# смотрит по-своему, а потом их выводы склеиваются и смешиваются матрицей $W_O$.
#
# Термины — в [глоссарии](glossary.md), все формы этого урока на одной странице — в
# [шпаргалке по формам](shapes.md).
#
# **В этом уроке:**
# - зачем несколько голов: «The glass ball fell on the steel table, and it shattered»;
# - прочитаем `MultiHeadAttention.forward` и `_split` из `course_lib` и пройдём их с формами массивов;
# - докажем в ячейках: одна большая матрица + `reshape` — это ровно $h$ маленьких голов;
#   $W_O$ смешивает головы; параметров $4d_\text{model}^2 + 4d_\text{model}$ при любом $h$;
# - что головы дают даром, а что — нет: умножений столько же, а матрица весов и softmax — в $h$ раз больше;
# - почему одни случайные головы смотрят остро, а другие — почти поровну;
# - посчитаем головы и параметры внимания настоящих моделей: от Transformer 2017 года до GPT-3.

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

# %% [markdown]
# ## Одна голова — один взгляд
#
# Пример из 3Blue1Brown: «The glass ball fell on the steel table, and it shattered». Чтобы понять
# «shattered», слову нужно сразу несколько вещей: *что* разбилось (ball) и *почему* — оно
# стеклянное (glass). А «table» полезно знать, что он стальной (steel).
#
# У одной головы строка весов — одно распределение, в сумме 1. Если «shattered» отдаст 0.9 слову
# «glass», на «ball» останется не больше 0.1. Можно поделить поровну — но тогда оба значения
# смешаются в одно среднее. Сравним одну голову и две на игрушечных числах:

# %%
import inspect

import numpy as np

import course_lib as nt
from course_lib.russian import number     # 126 767, а не 126,767: по-русски запятая — дробная часть

# %%
words = "The glass ball fell on the steel table, and it shattered".split()
glass, ball = words.index("glass"), words.index("ball")
V = np.random.default_rng(0).normal(size=(len(words), 4))       # (T, d_v): что каждое слово может передать


def look_at(*targets, strength=8.0):
    """Строка весов запроса «shattered», которая выделяет слова targets."""
    scores = np.zeros(len(words))
    scores[list(targets)] = strength
    return nt.softmax(scores)                                     # (T,), в сумме 1


def cos(a, b):
    """Косинус угла между векторами: 1 — смотрят в одну сторону."""
    return a @ b / np.linalg.norm(a) / np.linalg.norm(b)


# %% [markdown]
# Одна голова, которая хочет и «glass», и «ball», может только поделить вес между ними. Две головы
# берут по слову. Насколько выход похож на значение нужного слова, мерим косинусом:

# %%
one = look_at(glass, ball) @ V                                    # одна голова пытается смотреть на оба слова
head_1, head_2 = look_at(ball) @ V, look_at(glass) @ V            # две головы: у каждой своё слово
print(f"одна голова:  вес glass {look_at(glass, ball)[glass]:.2f}, ball {look_at(glass, ball)[ball]:.2f};"
      f"  сходство выхода с v_glass {cos(one, V[glass]):.2f}, с v_ball {cos(one, V[ball]):.2f}")
print(f"две головы:   голова 1 ≈ v_ball ({cos(head_1, V[ball]):.2f}), голова 2 ≈ v_glass ({cos(head_2, V[glass]):.2f})")

# %% [markdown]
# Одна голова выдала среднее: оно похоже и на «glass», и на «ball» лишь отчасти (сходство 0.64 и 0.53),
# и где чьё значение — уже не разобрать. Две головы донесли оба значения без потерь (сходство 1.00),
# каждое в своей половине склеенного вектора. Дальше $W_O$ сможет
# использовать оба. В обученных моделях так и выходит: одни головы следят за синтаксисом,
# другие — за соседними словами, третьи — за тем, к чему относится «it». В уроке 07 мы увидим
# это сами: две головы крошечной модели при обучении разделят работу.

# %% [markdown]
# ## `forward` и `_split`: читаем код
#
# Вот слой из `course_lib` и его метод `forward` целиком:

# %%
nt.manual_seed(0)
mha = nt.MultiHeadAttention(d_model=16, num_heads=4)
print(mha)
print(inspect.getsource(nt.MultiHeadAttention.forward))

# %% [markdown]
# Весь фокус — в `_split` и `_merge`: последняя ось $d_\text{model}$ режется на $h$ кусков по
# $d_\text{head} = d_\text{model} / h$, и ось голов переезжает вперёд. Склейка — то же в обратную сторону.

# %%
print(inspect.getsource(nt.MultiHeadAttention._split))
print(inspect.getsource(nt.MultiHeadAttention._merge))

# %% [markdown]
# Пройдём `forward` руками на батче из $N = 2$ фраз по $T = 6$ токенов, $d_\text{model} = 16$, $h = 4$,
# печатая форму после каждого шага:

# %%
N, T, D, h = 2, 6, 16, 4
d_head = D // h                                                   # 16 / 4 = 4
x = np.random.default_rng(0).normal(size=(N, T, D))               # (N, T, d_model)

q_flat = mha.W_q(x)                                               # одна большая матрица (16, 16)
q_cut = q_flat.reshape(N, T, h, d_head)                           # вектор каждого токена — на 4 куска
q = q_cut.transpose(0, 2, 1, 3)                                   # ось голов вперёд
k, v = mha._split(mha.W_k(x)), mha._split(mha.W_v(x))
scores = (q @ k.swapaxes(-1, -2)) / np.sqrt(d_head)               # @ работает с последними двумя осями
for name, value in [("x", x), ("W_q(x)", q_flat), ("reshape", q_cut), ("transpose = q", q), ("scores", scores)]:
    print(f"{name:>14}: {value.shape}")
print("руками == _split:", np.allclose(q.data, mha._split(q_flat).data))
print("q — те же числа в той же памяти, что W_q(x):", np.shares_memory(q.data, q_flat.data))

# %% [markdown]
# `scores` имеет форму $(N, h, T, T)$: для каждой фразы и каждой головы — своя матрица $T \times T$.
# NumPy считает `@` по двум последним осям, а первые две — «батч»: все $N \cdot h = 8$ матриц
# за одно умножение. Доведём до конца и сравним с настоящим вызовом слоя:

# %%
weights = nt.softmax(scores)                                      # (N, h, T, T)
context = weights @ v                                             # (N, h, T, d_head)
merged = context.transpose(0, 2, 1, 3).reshape(N, T, D)           # (N, T, h, d_head) -> (N, T, D)
out = mha.W_o(merged)                                             # (N, T, D)
print("context:", context.shape, " merged:", merged.shape, " out:", out.shape)
print("руками == mha(x):", np.allclose(out.data, mha(x).data), "  веса == mha.attn:", np.allclose(weights.data, mha.attn))

# %% [markdown]
# ## Одна большая матрица = $h$ маленьких голов
#
# По определению у каждой головы свои маленькие $W_Q^{(i)}, W_K^{(i)}, W_V^{(i)}$ размера
# $d_\text{model} \times d_\text{head}$. Слой хранит их склеенными в одну $d_\text{model} \times d_\text{model}$:
# голова $i$ — это столбцы $i \cdot d_\text{head} \dots (i+1) \cdot d_\text{head} - 1$. Вырежем их
# и посчитаем каждую голову отдельно, своим `scaled_dot_product_attention`:

# %%
def head_params(linear, i):
    """Кусок большой матрицы и смещения, принадлежащий голове i: (D, d_head) и (d_head,)."""
    cols = slice(i * d_head, (i + 1) * d_head)
    return linear.weight.data[:, cols], linear.bias.data[cols]


heads = []
for i in range(h):
    q_i, k_i, v_i = (x @ W + b for W, b in (head_params(mha.W_q, i), head_params(mha.W_k, i), head_params(mha.W_v, i)))
    context_i, weights_i = nt.scaled_dot_product_attention(q_i, k_i, v_i)     # (N, T, d_head), (N, T, T)
    assert np.allclose(weights_i, mha.attn[:, i]), (                          # та же голова, что внутри слоя
        f"голова {i}: веса отличаются от mha.attn[:, {i}] на {np.abs(weights_i - mha.attn[:, i]).max():.2e}")
    heads.append(context_i)
concat = np.concatenate(heads, axis=-1)                                        # (N, T, h · d_head) = (N, T, D)
by_heads = concat @ mha.W_o.weight.data + mha.W_o.bias.data
print("4 маленькие головы + склейка + W_O == mha(x):", np.allclose(by_heads, mha(x).data))

# %% [markdown]
# Значит, разрез на головы сам по себе ничего не считает: вместо $h$ маленьких умножений —
# одно большое, а `reshape` и `transpose` только по-другому смотрят на те же числа (выше
# `np.shares_memory` показал: `q` лежит в той же памяти, что и `W_q(x)`). Но «ничего не считает»
# ещё не значит «ничего не стоит» — что растёт с $h$, посчитаем чуть ниже.

# %% [markdown]
# ## $W_O$ смешивает головы
#
# После склейки координаты $0 \dots 3$ выхода пришли от головы 1, $4 \dots 7$ — от головы 2 и так
# далее: головы лежат рядом, но не общаются. $W_O$ это меняет. Умножение склейки на $W_O$ — это
# сумма вкладов голов, каждая через свои $d_\text{head}$ строк $W_O$:
#
# $$\text{concat}(c_1, \dots, c_h)\,W_O = \sum_i c_i\, W_O^{[i]}.$$

# %%
W_O = mha.W_o.weight.data                                                     # (D, D)
as_sum = sum(heads[i] @ W_O[i * d_head:(i + 1) * d_head] for i in range(h)) + mha.W_o.bias.data
print("склейка @ W_O == сумма вкладов голов:", np.allclose(as_sum, by_heads))

changed = [c.copy() for c in heads]
changed[1] += 1.0                                                             # поменяем выход только головы 2
moved_concat = np.abs(np.concatenate(changed, axis=-1) - concat).max(axis=(0, 1)) > 0
moved_out = np.abs(np.concatenate(changed, axis=-1) @ W_O - concat @ W_O).max(axis=(0, 1)) > 0
print(f"поменяли голову 2 — сдвинулось координат: в склейке {moved_concat.sum()} из {D}, после W_O {moved_out.sum()} из {D}")

# %% [markdown]
# В склейке голова 2 трогает только свои 4 координаты, после $W_O$ — все 16: каждая координата
# выхода теперь собрана из всех голов.

# %% [markdown]
# ## Что головы дают даром, а что — нет
#
# У слоя четыре матрицы $d_\text{model} \times d_\text{model}$ ($W_Q, W_K, W_V, W_O$) и четыре
# смещения длины $d_\text{model}$: $4d_\text{model}^2 + 4d_\text{model}$. Число голов сюда не входит —
# головы делят ту же ширину, а не добавляют новую. Умножений тоже должно быть столько же: у $h$ матриц
# оценок $T \times T$ по $d_\text{head}$ умножений на клетку — $h \cdot T^2 \cdot d_\text{head} = T^2 \cdot d_\text{model}$
# при любом $h$, и столько же в `weights @ v`. Это мы не примем на веру, а сосчитаем ниже.
#
# А вот матриц весов $T \times T$ — по одной на голову: `.attn` имеет форму $(N, h, T, T)$, и каждую
# клетку softmax считает отдельно (одна экспонента на клетку). Это растёт в $h$ раз. Посчитаем
# для одной фразы из $T = 64$ токенов при $d_\text{model} = 64$: байты `.attn` — измеренные;
# умножения — сосчитанные: на время прогона слоя подменим оператор `@` тензора на такой же,
# но записывающий, сколько умножений он сделал (клетка результата — столько умножений, какова
# общая ось); экспоненты — по форме `.attn`.

# %%
def counted_multiplications(layer, x):
    """Прогоняет слой и складывает умножения всех `@`: у результата (..., m, n) с общей осью k их m·n·k."""
    counts, matmul = [], nt.Tensor.__matmul__

    def counting(a, b):
        out = matmul(a, b)
        counts.append(out.data.size * a.shape[-1])      # каждая клетка результата — k умножений
        return out

    nt.Tensor.__matmul__ = counting
    try:
        layer(x)
    finally:
        nt.Tensor.__matmul__ = matmul                   # оператор — снова обычный
    return sum(counts)


def layer_cost(h, N=1, T=64, D=64):
    """Слой с h головами на входе (N, T, D): параметры, умножения, экспоненты softmax, байты .attn."""
    nt.manual_seed(0)
    layer = nt.MultiHeadAttention(d_model=D, num_heads=h)
    multiplications = counted_multiplications(layer, np.random.default_rng(0).normal(size=(N, T, D)))
    return layer.num_params(), multiplications, layer.attn.size, layer.attn.nbytes


for heads_count in (1, 2, 4, 8, 16):
    params, mults, exps, attn_bytes = layer_cost(heads_count)
    print(f"h = {heads_count:>2}: параметров {number(params)}, умножений {number(mults)}, экспонент {number(exps):>6}, .attn {attn_bytes // 1024:>3} КиБ")
    assert params == 4 * 64**2 + 4 * 64 and mults == layer_cost(1)[1], (         # даром
        f"h = {heads_count}: параметров {number(params)} (нужно {number(4 * 64**2 + 4 * 64)}), "
        f"умножений {number(mults)} (нужно столько же, сколько при h = 1: {number(layer_cost(1)[1])})")
    assert mults == 4 * 64 * 64 * 64 + 2 * 64 * 64 * 64, (                        # W_q, W_k, W_v, W_o + Q Kᵀ и веса @ V
        f"h = {heads_count}: умножений {number(mults)}, а нужно {number(4 * 64 * 64 * 64 + 2 * 64 * 64 * 64)}")
    assert attn_bytes == heads_count * 64 * 64 * 8, (                               # (N, h, T, T) float64
        f"h = {heads_count}: .attn занимает {number(attn_bytes)} байт, а нужно h·T·T·8 = {number(heads_count * 64 * 64 * 8)}")
print(f"одна матрица T × T float64 при T = 100 000: {100_000**2 * 8 / 1e9:.0f} ГБ")

# %% [markdown]
# Даром — параметры и умножения. Не даром — память под веса и работа softmax: 32 КиБ при $h = 1$,
# 128 КиБ при $h = 4$, 512 КиБ при $h = 16$, и во столько же раз больше экспонент. Здесь это мелочь
# рядом с полутора миллионами умножений, но матрица $T \times T$ растёт как квадрат длины: при
# $T = 100\,000$ одна такая матрица весит 80 ГБ, и каждая голова хочет свою. Урок 08 целиком о том,
# как с этим жить. Настоящие модели и не режут ширину на как можно больше голов: голова у них
# шириной 64–128 (таблица ниже).

# %% [markdown]
# А если $d_\text{model}$ не делится на $h$, слой откажется — и скажет, какие $h$ подходят:

# %%
try:
    nt.MultiHeadAttention(d_model=10, num_heads=4)
except ValueError as error:
    print(error)

# %% [markdown]
# ## Головы настоящих моделей
#
# Теперь посчитаем то же для моделей, о которых все слышали. У всех $d_\text{head} = d_\text{model} / h$,
# а параметры внимания одного слоя — $4d_\text{model}^2 + 4d_\text{model}$ (со смещениями, как в `course_lib`).
# У исходного Transformer 6 блоков энкодера и 6 блоков декодера, и в каждом блоке декодера два
# слоя внимания (на себя и на энкодер) — всего 18. У GPT в каждом блоке один слой внимания.
# Полное число параметров моделей и их размеры — из источников: Transformer base — статья Vaswani et al.
# (2017, «Attention Is All You Need», таблица 3: 65 млн); GPT-2 — веса, опубликованные OpenAI
# (репозиторий `openai/gpt-2`: модели 124M и 1558M; в статье Radford et al., 2019 те же модели названы
# 117M и 1542M); GPT-3 — статья Brown et al. (2020, «Language Models are Few-Shot Learners»: 175 млрд).

# %%
models = [  # имя, d_model, голов, слоёв внимания, всего параметров в модели
    ("Transformer base (2017)", 512, 8, 18, 65e6),
    ("GPT-2 small", 768, 12, 12, 124e6),
    ("GPT-2 XL", 1600, 25, 48, 1558e6),
    ("GPT-3", 12288, 96, 96, 175e9),
]
print(f"{'модель':<24}{'d_model':>8}{'h':>4}{'d_head':>7}{'слоёв':>6}{'на слой':>14}{'все слои':>17}{'доля':>6}")
for name, d, heads_count, layers, total in models:
    per_layer = 4 * d * d + 4 * d
    print(f"{name:<24}{d:>8}{heads_count:>4}{d // heads_count:>7}{layers:>6}{number(per_layer):>14}{number(per_layer * layers):>17}"
          f"{per_layer * layers / total:>6.0%}")
    assert d % heads_count == 0, f"{name}: d_model = {d} не делится на h = {heads_count}"

# %% [markdown]
# Что видно из таблицы:
# - голова почти всегда шириной 64 (у GPT-3 — 128): модели растят число голов, а не их ширину;
# - у GPT-3 96 голов в каждом из 96 блоков — 9216 голов, и внимание — около 58 миллиардов параметров,
#   треть модели. Остальные две трети — другие части: сети прямого распространения (FFN, урок 09) в каждом блоке и таблица эмбеддингов.

# %%
print("голов у GPT-3 всего:", 96 * 96)
print(f"внимание GPT-3: {96 * (4 * 12288**2 + 4 * 12288) / 1e9:.1f} млрд параметров")

# %% [markdown]
# ## Поиграйте
#
# Ширина слоя здесь закреплена, $d_\text{model} = 24$. Ползунок `h` режет её на головы:
# $d_\text{head} = 24 / h$. Над каждой панелью подписано, какие столбцы $Q$ и $K$ достались голове.
# **Посмотрите:** при одном зерне матрицы $W_Q, W_K, W_V, W_O$ одни и те же при любом $h$ — меняется
# только разрез, и с ним узоры весов. Число параметров наверху не меняется никогда. Поставьте
# $h = 5$ или $7$ — 24 на них не делится, и виджет объяснит, что он показывает вместо этого.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.heads import heads_explorer, heads_view

heads_explorer(heads=4)

# %% [markdown]
# То, что показывает виджет, в числах:

# %%
from course_lib.widgets.heads import heads_view                 # чистая функция виджета: ползунок -> веса

for heads_count in range(1, 9):
    view = heads_view(heads_count)
    note = f"  ← {heads_count} не делит 24, показано h = {view.heads}" if view.message else ""
    print(f"h = {heads_count}: d_head = {view.d_head:>2}, панелей {len(view.weights)}, параметров {view.params}{note}")

# %% [markdown]
# А теперь исследователь внимания из уроков 03–05. Здесь у каждой головы своя ширина `d_k`, так что
# $d_\text{model} = h \cdot d_k$ растёт вместе с числом голов. Выберите голову ползунком
# «голова» и запрос — «запрос №»: столбики внизу покажут, куда смотрит именно она.
# **Посмотрите** на энтропию $H$ над панелями (урок 02: 0 бит — весь вес на одном слове,
# $\log_2 T$ — поровну на все): у этих случайных голов она близка к максимуму — веса почти
# поровну. А в первом виджете узоры острые, хотя веса там тоже случайные. Почему — ниже.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.explorer import attention_explorer, attention_view

attention_explorer(sentence=" ".join(words), heads=4)

# %% [markdown]
# Сначала убедимся в числах: средняя энтропия строк у обоих виджетов при $h = 4$ на той же фразе
# против максимума $\log_2 11$.

# %%
from course_lib.functional import entropy
from course_lib.widgets.explorer import attention_view
from course_lib.widgets.heads import WORD_SCALE

sharp = heads_view(4).weights                                                   # (h, T, T), первый виджет
flat = attention_view(" ".join(words), T=len(words), d_k=8, heads=4).weights    # (h, T, T), исследователь
print(f"первый виджет:         {float(entropy(sharp).mean()):.1f} бит")
print(f"исследователь:         {float(entropy(flat).mean()):.1f} бит")
print(f"максимум log2(T = 11): {np.log2(len(words)):.2f} бит")
print(f"векторы слов в первом виджете умножены на WORD_SCALE = {WORD_SCALE:g}")

# %% [markdown]
# Разница — в масштабе. Начальные веса `Linear` — равномерные в $\pm 1/\sqrt{d_\text{model}}$ (как в
# PyTorch: так начальные веса `torch.nn.Linear` описаны в его документации), поэтому у вектора слова
# с координатами порядка 1 каждая координата $q$ и $k$ — порядка
# $1/\sqrt 3$, а оценки $q \cdot k / \sqrt{d_\text{head}}$ разбросаны всего на $\approx 1/3$. Softmax таких близких
# оценок почти ровный. Первый виджет умножает векторы слов на 3: тогда $q$ и $k$ — тоже втрое
# больше, оценки — почти в 9 раз (точно в 9 мешают смещения), и softmax становится острым. Проверим
# на одном слое:

# %%
nt.manual_seed(0)
layer = nt.MultiHeadAttention(d_model=24, num_heads=4)
X_words = np.random.default_rng(0).normal(size=(1, len(words), 24))             # (N, T, D): «векторы слов»
for scale in (1, WORD_SCALE):
    with nt.no_grad():
        spread = layer.scores(scale * X_words).data.std()                       # разброс q·k / √d_head
        layer(scale * X_words)
    print(f"x × {scale:g}: разброс оценок {spread:.1f}, средняя энтропия {float(entropy(layer.attn).mean()):.1f} бит")

# %% [markdown]
# Острота случайной головы — дело масштаба, а не смысла: узоры первого виджета острые, но
# смотрят куда попало. Вес, сосредоточенный на *нужном* слове, появляется от обучения (урок 07).

# %% [markdown]
# ## Упражнение 1. Разрежьте на головы
#
# Напишите `split_heads(x, h)`: массив $(N, T, D)$ → $(N, h, T, d_\text{head})$, где голова $i$
# получает столбцы $i \cdot d_\text{head} \dots (i+1) \cdot d_\text{head} - 1$. Как `_split`, только
# $h$ передаётся аргументом.

# %%
from course_lib.exercises.multi_head import check_merge_heads, check_split_heads


def split_heads(x, h):
    raise NotImplementedError  # ваш код здесь


check_split_heads(split_heads)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение — под своим именем: ваша split_heads и её вердикт выше остаются вашими.
# Сначала режем вектор каждого токена (reshape), потом выносим ось голов вперёд (transpose).
def split_heads_solution(x, h):
    N, T, D = x.shape
    return x.reshape(N, T, h, D // h).transpose(0, 2, 1, 3)


check_split_heads(split_heads_solution)

# %% [markdown]
# ## Упражнение 2. Склейте обратно
#
# Напишите `merge_heads(x)`: $(N, h, T, d_\text{head})$ → $(N, T, h \cdot d_\text{head})$. Проверка
# подставит вашу функцию вместо `_merge` в настоящий слой и сравнит выходы.

# %%
def merge_heads(x):
    raise NotImplementedError  # ваш код здесь


check_merge_heads(merge_heads)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение — под своим именем: ваша merge_heads остаётся вашей.
# Ось голов обратно к d_head (transpose), потом склеить последние две оси (reshape).
def merge_heads_solution(x):
    N, h, T, d_head = x.shape
    return x.transpose(0, 2, 1, 3).reshape(N, T, h * d_head)


check_merge_heads(merge_heads_solution)

# %% [markdown]
# ## Итог
#
# - Одна голова — одно распределение на токен; несколько голов держат несколько связей сразу,
#   не смешивая их значения.
# - `_split`: $(N, T, D) \to (N, T, h, d_\text{head}) \to (N, h, T, d_\text{head})$; дальше `@` считает все
#   головы одним умножением; `_merge` — обратно.
# - Одна большая $W_Q$ и `reshape` — ровно $h$ маленьких голов со своими столбцами $W_Q$.
# - $W_O$ — это сумма вкладов голов: после неё каждая координата выхода зависит от всех голов.
# - Даром: параметров $4d_\text{model}^2 + 4d_\text{model}$ и умножений столько же при любом $h$ — головы делят
#   ширину, а не добавляют её. Не даром: веса `.attn` формы $(N, h, T, T)$ и экспоненты softmax — в $h$ раз больше.
# - Острота случайных голов — от масштаба входа: векторы втрое длиннее — оценки почти в 9 раз
#   разбросаннее, энтропия падает с ≈ 3.4 до ≈ 1.8 бит. Острота *по делу* — от обучения.
# - Настоящие модели: голова шириной 64–128, голов 8 (Transformer), 12–25 (GPT-2), 96 × 96 (GPT-3);
#   внимание — от четверти до трети всех параметров (23 % у GPT-2 small, 33 % у GPT-3).
#
# **Дальше:** урок 07 — до сих пор все веса были случайными. Обучим маленькие модели прямо на вашем
# процессоре и посмотрим, как внимание находит нужное слово, а две головы делят работу.

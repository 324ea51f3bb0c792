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
# # Урок 03. Self-attention
#
# В прошлом уроке запросы шли от одной последовательности (слова перевода), а ключи и
# значения — от другой (слова оригинала). В **самовнимании** (self-attention) всё берётся
# из одной последовательности: каждый токен одновременно
#
# - задаёт вопрос — свой запрос $q_i$: «какая информация мне нужна?»;
# - предлагает себя — свой ключ $k_i$: «вот что у меня есть»;
# - отдаёт содержимое — своё значение $v_i$: «вот что я передам тому, кто на меня посмотрит».
#
# **В этом уроке:**
# - пять шагов self-attention на фразе «Your journey starts with one step» — с формами массивов;
# - зачем три разные матрицы $W_Q, W_K, W_V$, а не просто $\text{softmax}(XX^\top)X$;
# - зачем делить на $\sqrt{d_k}$ — измерим;
# - как один шаг внимания сдвигает «банк» к «реке» в одном предложении и к «деньгам» в другом,
#   а английское «mole» — к кроту, к химии или к родинке;
# - сколько это стоит: матрица $T \times T$ — и что дают взамен: один шаг между любыми двумя токенами
#   (у рекуррентной сети их десять, и сигнал по дороге затухает — измерим);
# - два упражнения: scaled dot-product attention и слой самовнимания.
#
# Термины — в [глоссарии](glossary.md), формы массивов — в [шпаргалке по формам](shapes.md).

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

import matplotlib.pyplot as plt
import numpy as np

import course_lib as nt
from course_lib import vis
from course_lib.russian import number     # 126 767, а не 126,767: по-русски запятая — дробная часть

# %% [markdown]
# ## Пять шагов на одной фразе
#
# Возьмём пример из книги Себастьяна Рашки «Build a Large Language Model (From Scratch)»:
# фраза «Your journey starts with one step», шесть токенов, у каждого эмбеддинг из трёх чисел.
# Это матрица $X$ формы $(T, d_\text{model}) = (6, 3)$: строка — токен.

# %%
tokens = ["Your", "journey", "starts", "with", "one", "step"]
X = np.array([[0.43, 0.15, 0.89],    # Your
              [0.55, 0.87, 0.66],    # journey
              [0.57, 0.85, 0.64],    # starts
              [0.22, 0.58, 0.33],    # with
              [0.77, 0.25, 0.10],    # one
              [0.05, 0.80, 0.55]])   # step
T, d_model = X.shape
print("X:", X.shape, "= (T, d_model)")

# %% [markdown]
# **Шаг 1. Запросы, ключи, значения.** Три матрицы $W_Q, W_K, W_V$ формы $(d_\text{model}, d_k)$
# превращают каждый эмбеддинг в три вектора: $Q = XW_Q$, $K = XW_K$, $V = XW_V$.
# В обученной модели эти матрицы подобраны градиентным спуском; у нас пока случайные
# (как в книге, $d_k = 2$ и числа от 0 до 1, но из нашего генератора — поэтому другие).

# %%
d_k = 2
rng = np.random.default_rng(123)
W_q, W_k, W_v = (rng.uniform(size=(d_model, d_k)) for _ in range(3))   # каждая (3, 2)
Q, K, V = X @ W_q, X @ W_k, X @ W_v                                    # (6, 3) @ (3, 2) -> (6, 2)
print("W_q:", W_q.shape, " Q:", Q.shape, " K:", K.shape, " V:", V.shape)

# %% [markdown]
# **Шаг 2. Оценки.** Для каждой пары $(i, j)$ — скалярное произведение $q_i \cdot k_j$:
# насколько вопрос $i$-го токена совпадает с предложением $j$-го. Все пары разом — одно
# умножение матриц $QK^\top$.

# %%
scores = Q @ K.T                                   # (6, 2) @ (2, 6) -> (6, 6)
print("scores:", scores.shape, "= (T, T)")
print("оценки запроса «journey»:", np.round(scores[1], 3))
print("q_journey · k_step =", round(float(Q[1] @ K[5]), 3), "— это scores[1, 5]")

# %% [markdown]
# **Шаг 3. Масштаб.** Делим оценки на $\sqrt{d_k}$ — зачем, разберём ниже.
#
# **Шаг 4. Веса.** Softmax по каждой строке: строка $i$ — как токен $i$ распределяет
# внимание по всем токенам, в сумме 1.

# %%
scaled = scores / np.sqrt(d_k)                     # (6, 6)
weights = nt.softmax(scaled, axis=-1)              # (6, 6), softmax по строкам
print("weights:", weights.shape, " строки в сумме 1:", np.allclose(weights.sum(axis=1), 1))
print("веса запроса «journey»:", np.round(weights[1], 3))

# %% [markdown]
# **Шаг 5. Контекстные векторы.** Для каждого токена — взвешенная сумма значений:
# $z_i = \sum_j w_{ij} v_j$. Все токены разом — снова одно умножение.

# %%
context = weights @ V                              # (6, 6) @ (6, 2) -> (6, 2)
print("context:", context.shape, "= (T, d_k)")
print("z_journey =", np.round(context[1], 3))
print("== Σ_j w_journey,j · v_j:", np.allclose(context[1], sum(weights[1, j] * V[j] for j in range(T))))

# %% [markdown]
# Вот и всё самовнимание: $\text{softmax}\!\left(QK^\top / \sqrt{d_k}\right)V$. Библиотечная
# функция `nt.scaled_dot_product_attention` делает ровно эти шаги 2–5:

# %%
lib_context, lib_weights = nt.scaled_dot_product_attention(Q, K, V)
print("совпадает с библиотекой:", np.allclose(lib_context, context) and np.allclose(lib_weights, weights))
print(f"веса от {weights.min():.2f} до {weights.max():.2f}; поровну было бы 1/{T} = {1 / T:.2f}")
print("больше всех веса получают:", [tokens[j] for j in np.argsort(-weights.mean(axis=0))[:2]],
      " самые длинные ключи:", [tokens[j] for j in np.argsort(-np.linalg.norm(K, axis=1))[:2]])
vis.heatmap(weights, tokens, tokens, vmax=weights.max(), title="Веса самовнимания (случайные W_Q, W_K, W_V)")
plt.show()

# %% [markdown]
# Матрицы случайные, поэтому и веса бессмысленные — почти ровные: от 0.13 до 0.23 при ровных $1/6 \approx 0.17$. На обычной
# шкале от 0 до 1 такая картинка была бы сплошь одного тёмного цвета, поэтому здесь шкала
# растянута от 0 до самого большого веса. Видны светлые столбцы «journey» и «starts»: все
# запросы чуть больше смотрят на них — у этих двух слов самые длинные ключи (все числа в $X$ и $W_K$
# положительны, так что длинный ключ даёт большую оценку почти с любым запросом).
# В обученной модели $W_Q, W_K, W_V$ подбираются так, чтобы каждый токен смотрел туда, откуда
# ему полезно взять информацию.
#
# ## Зачем три разные матрицы
#
# Почему бы не сравнивать сами эмбеддинги: $\text{softmax}(XX^\top)X$? Посмотрим, что получится.
# Во-первых, оценки $XX^\top$ **симметричны**: «journey» оценивает «step» ровно так же,
# как «step» — «journey».

# %%
plain_scores = X @ X.T                             # (6, 6)
print("XXᵀ симметрична:", np.allclose(plain_scores, plain_scores.T))
plain_weights = nt.softmax(plain_scores)
print("веса softmax(XXᵀ) симметричны:", np.allclose(plain_weights, plain_weights.T),
      "— каждая строка нормируется отдельно, но оценки одни на двоих")

# %% [markdown]
# Во-вторых, токен склонен смотреть **на себя**: $x \cdot x = |x|^2$, а $x \cdot y = |x||y|\cos\theta$.
# Сам с собой токен выигрывает, если он не короче соседей. Для векторов Рашки это выполняется
# только у двух токенов из шести: остальные больше всего смотрят на длинные «journey» и «starts».

# %%
own = plain_scores.argmax(axis=1) == np.arange(T)
for token, is_own, target, length in zip(tokens, own, plain_scores.argmax(axis=1), np.linalg.norm(X, axis=1)):
    print(f"{token:>8} (|x| = {length:.2f}) больше всего смотрит на {tokens[target]:<8}{'← на себя' if is_own else ''}")
print(f"на себя смотрят {own.sum()} из {T}")

# %% [markdown]
# Если все векторы длины 1 (нормированы), то $x \cdot y = \cos\theta \le 1 = x \cdot x$: косинус
# не бывает больше единицы, и сам с собой каждый токен совпадает лучше всего. У трёхмерных векторов Рашки
# все координаты положительны, косинусы между ними близки, поэтому перевес небольшой.
# А в большой размерности случайные векторы почти перпендикулярны, и токен смотрит
# почти только на себя — выход $\text{softmax}(XX^\top)X$ просто повторяет вход:

# %%
X_unit = X / np.linalg.norm(X, axis=1, keepdims=True)       # (6, 3), строки длины 1
w_unit = nt.softmax(X_unit @ X_unit.T)
print(f"нормированные векторы Рашки: на себя смотрят {(w_unit.argmax(axis=1) == np.arange(T)).sum()} из {T},"
      f" вес на себя {w_unit.diagonal().min():.2f}…{w_unit.diagonal().max():.2f}")

X_big = np.random.default_rng(0).normal(size=(T, 64))       # (6, 64): случайные эмбеддинги
w_big = nt.softmax(X_big @ X_big.T)
print(f"случайные, d_model = 64: на себя смотрят {(w_big.argmax(axis=1) == np.arange(T)).sum()} из {T},"
      f" наименьший вес на себя {w_big.diagonal().min():.4f}")
print("softmax(XXᵀ)X ≈ X:", np.allclose(w_big @ X_big, X_big, atol=1e-3))

# %% [markdown]
# А нужно другое: глаголу полезно найти подлежащее, прилагательному — существительное.
# «Что я ищу» и «что я предлагаю» — разные вещи. Разные $W_Q \ne W_K$ ломают и симметрию,
# и тягу к себе. Проверим на 200 случайных «предложениях» по 6 токенов ($d_\text{model} = 64$):

# %%
rng = np.random.default_rng(1)
symmetric, looks_at_self = 0, 0
for _ in range(200):
    X_r = rng.normal(size=(T, 64))                                     # (6, 64)
    W_q_r, W_k_r = rng.normal(size=(2, 64, 64)) / 8                    # две разные (64, 64); / √64
    s = (X_r @ W_q_r) @ (X_r @ W_k_r).T                                # (6, 6)
    symmetric += np.allclose(s, s.T)
    looks_at_self += (s.argmax(axis=1) == np.arange(T)).sum()
print(f"симметричных матриц оценок: {symmetric} из 200")
print(f"строк, где максимум на диагонали: {looks_at_self / (200 * T):.0%} (случайно было бы 1/6 ≈ 17%)")

# %% [markdown]
# Тяга к себе исчезла: токен смотрит на себя не чаще, чем на любого другого. Теперь обучение
# может само решить, кто на кого смотрит. А $W_V$ отдельно решает, **что** передать: ключ
# отвечает «найди меня», значение — «вот что возьми».
#
# ## Зачем делить на $\sqrt{d_k}$
#
# Если компоненты $q$ и $k$ — независимые числа со средним 0 и дисперсией 1, то
# $q \cdot k = \sum_{i=1}^{d_k} q_i k_i$ — сумма $d_k$ слагаемых с дисперсией 1 каждое.
# Дисперсии складываются: $\operatorname{Var}(q \cdot k) = d_k$, разброс (стандартное
# отклонение) — $\sqrt{d_k}$. Измерим:

# %%
rng = np.random.default_rng(0)
print(" d_k   разброс q·k    √d_k   разброс q·k / √d_k")
for d in [4, 16, 64, 256, 1024]:
    q, k = rng.normal(size=(2000, d)), rng.normal(size=(2000, d))     # 2000 пар (q, k)
    dots = (q * k).sum(axis=1)                                        # (2000,)
    print(f"{d:>4} {dots.std():>12.2f} {np.sqrt(d):>7.2f} {(dots / np.sqrt(d)).std():>14.3f}")
    assert abs((dots / np.sqrt(d)).std() - 1) < 0.1, (
        f"при d_k = {d} разброс q·k / √d_k {(dots / np.sqrt(d)).std():.3f}, а нужен 1 ± 0.1")

# %% [markdown]
# Чем больше разброс оценок, тем острее softmax: при $d_k = 256$ разброс оценок — около 16
# (таблица выше), и почти весь вес уходит к одному ключу. Говорят, softmax **насыщается**.
# Это плохо дважды:
#
# - токен перестаёт смешивать — берёт значение одного ключа;
# - обучение застревает. $W_Q$ и $W_K$ учатся по градиенту (урок 00), а он доходит до них через
#   оценки. Если веса — почти one-hot, то от маленького сдвига оценок они почти не меняются,
#   и градиент, дошедший до оценок, почти нулевой: подправлять $W_Q$ и $W_K$ нечем.
#
# Деление на $\sqrt{d_k}$ возвращает разброс к 1 при любом $d_k$. Измерим на 1000 случайных
# запросах с 8 ключами три числа: наибольший вес в строке; энтропию строки (урок 02: 3 бита —
# вес поровну на 8 ключей, 0 — весь вес на одном); величину градиента по оценкам, когда обучение
# хочет сдвинуть веса в случайную сторону `push`.

# %%
from course_lib.functional import entropy

rng = np.random.default_rng(0)
print(" d_k   деление   max вес   энтропия, бит   градиент по оценкам")
for d in [4, 64, 512]:
    q, keys = rng.normal(size=(1000, d)), rng.normal(size=(1000, 8, d))
    raw = np.einsum("nkd,nd->nk", keys, q)                            # (1000, 8) оценки q·k
    push = rng.normal(size=(1000, 8))                                 # куда обучение хочет сдвинуть веса
    for divide in [False, True]:
        scores = nt.tensor(raw / np.sqrt(d) if divide else raw, requires_grad=True)
        w = nt.softmax(scores)                                        # (1000, 8), строки в сумме 1
        (w * push).sum().backward()                                   # градиент идёт к оценкам через softmax
        grad = np.linalg.norm(scores.grad, axis=1).mean()
        print(f"{d:>4} {'√d_k' if divide else 'нет':>9} {w.data.max(axis=1).mean():>9.2f}"
              f" {entropy(w).mean():>15.2f} {grad:>20.3f}")

# %% [markdown]
# Без деления с ростом $d_k$ самый большой вес стремится к 1, энтропия — к 0, а градиент
# по оценкам при $d_k = 512$ в шесть с лишним раз меньше, чем при $d_k = 4$. С делением на $\sqrt{d_k}$
# все три числа почти не зависят от $d_k$: softmax работает в одном и том же режиме, какой бы
# ширины ни были запросы и ключи.
#
# **Поиграйте:** двигайте $d_k$ с выключенной галочкой — гистограмма оценок расползается,
# столбики весов «впиваются» в один ключ. Включите деление на $\sqrt{d_k}$ — разброс
# возвращается к 1, веса снова смешивают.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.scaling import scaling_explorer

scaling_explorer(d_k=64, scaled=False)

# %% [markdown]
# ## Контекстные векторы: «банк» у реки и «банк» с деньгами
#
# В уроке 01 у слова «банк» был один статический вектор на все смыслы. Возьмём те же
# эмбеддинги и сделаем **один** шаг самовнимания без обученных матриц — честно, как есть:
# $Q = K = V = X$, где строки $X$ — статические векторы слов предложения.

# %%
from course_lib.props.embeddings import load_corpus, train_static_embeddings

emb = train_static_embeddings(load_corpus("ru"))
river = "лодка села на песчаный банк посреди реки".split()
money = "я положил деньги в банк под процент".split()
print(emb, " cos(банк, река) =", round(emb.cosine("банк", "река"), 3),
      " cos(банк, деньги) =", round(emb.cosine("банк", "деньги"), 3))


def sentence_matrix(embeddings, words):
    """Слова, которые есть в словаре (служебные эмбеддинги не получили), и их векторы (T, dim)."""
    known = [w for w in words if w in embeddings]
    return known, np.stack([embeddings.vector(w) for w in known])


# %% [markdown]
# Первая попытка — сырые векторы. Они длинные, оценки $x \cdot x$ — десятки, и срабатывают
# сразу обе беды из разделов выше: softmax насыщается, а лучше всех «банк» совпадает сам с собой.

# %%
words, X_river = sentence_matrix(emb, river)
_, raw_weights = nt.scaled_dot_product_attention(X_river, X_river, X_river)
bank = words.index("банк")
print("длины векторов:", ", ".join(f"{w} {np.linalg.norm(x):.1f}" for w, x in zip(words, X_river)))
print(f"оценка «банк»·«банк» / √d_k = {X_river[bank] @ X_river[bank] / np.sqrt(emb.dim):.1f};"
      f" «банк» смотрит на себя с весом {raw_weights[bank, bank]:.2f}")

# %% [markdown]
# Почти весь вес — на себя, и вектор почти не сдвинется. Сделаем все векторы длины 1: тогда
# оценка — косинус, и по длине никто не выигрывает. Один шаг внимания, и сравним косинусы
# «банка» с «рекой» и с «деньгами» до и после — в двух предложениях.

# %%
def attention_step(embeddings, words):
    """Один шаг self-attention на нормированных статических векторах: Q = K = V = X / |X|."""
    known, X_s = sentence_matrix(embeddings, words)
    X_s = X_s / np.linalg.norm(X_s, axis=1, keepdims=True)     # (T, dim), строки длины 1
    context, weights = nt.scaled_dot_product_attention(X_s, X_s, X_s)
    return known, context, weights


after = {}
for name, words in [("река", river), ("деньги", money)]:
    known, contextual, step_weights = attention_step(emb, words)
    bank = known.index("банк")
    after[name] = contextual[bank]
    print(" ".join(words))
    print("   веса «банка»:", ", ".join(f"{w} {x:.2f}" for w, x in zip(known, step_weights[bank])))
    for target in ["река", "деньги"]:
        print(f"   cos(банк, {target:<6}): {emb.cosine('банк', target):.3f} -> {emb.cosine(after[name], target):.3f}")

# %% [markdown]
# Веса почти ровные (косинусы лежат между −1 и 1, а функция ещё и делит их на $\sqrt{d_k}$),
# так что этот шаг — почти среднее по предложению. Но и его хватает: у реки «банк»
# приблизился к «реке» и отдалился от «денег», а в предложении про вклад — наоборот.
# Было одно слово с одним вектором, стало два разных вектора:

# %%
river_shift = emb.cosine(after["река"], "река") - emb.cosine("банк", "река")
money_shift = emb.cosine(after["деньги"], "деньги") - emb.cosine("банк", "деньги")
print(f"у реки: cos(банк, река) вырос на {river_shift:+.3f};  с вкладом: cos(банк, деньги) вырос на {money_shift:+.3f}")
print(f"косинус между двумя «банками» после шага: {emb.cosine(after['река'], after['деньги']):.3f} (до шага — 1)")
assert river_shift > 0 and money_shift > 0, (f"косинус со своим словом сдвинулся на {river_shift:+.3f} (река) "
                                             f"и {money_shift:+.3f} (деньги), а должен вырасти")
assert emb.cosine(after["река"], "деньги") < emb.cosine("банк", "деньги"), (
    f"у реки cos(банк, деньги) стал {emb.cosine(after['река'], 'деньги'):.3f}, "
    f"а до шага был {emb.cosine('банк', 'деньги'):.3f}: должен уменьшиться")
assert emb.cosine(after["деньги"], "река") < emb.cosine("банк", "река"), (
    f"с вкладом cos(банк, река) стал {emb.cosine(after['деньги'], 'река'):.3f}, "
    f"а до шага был {emb.cosine('банк', 'река'):.3f}: должен уменьшиться")

# %% [markdown]
# ### «mole»: три смысла — три вектора
#
# То же с английским *mole* из урока 01: крот («American shrew mole»), моль — единица количества
# вещества («one mole of carbon dioxide») и родинка («take a biopsy of the mole»). Статический
# вектор у него один, и он висит между смыслами. Центр смысла — как в уроке 01: среднее единичных
# векторов однозначных слов темы. Сделаем тот же шаг внимания в каждой из трёх фраз и посмотрим
# на косинусы «mole» с тремя центрами.

# %%
from course_lib.props.embeddings import load_sections, word_topics

emb_en = train_static_embeddings(load_corpus("mole_en"))
topic_of = word_topics(load_sections("mole_en"))                  # однозначные слова: {слово: тема}
centres = {topic: np.mean([emb_en.vector(w) / np.linalg.norm(emb_en.vector(w)) for w in emb_en.vocab
                           if topic_of.get(w) == topic], axis=0) for topic in ("animal", "chemistry", "medicine")}
phrases = {"animal": "american shrew mole", "chemistry": "one mole of carbon dioxide",
           "medicine": "take a biopsy of the mole"}

# %%
print(f"{'':>28}" + "".join(f"{topic:>11}" for topic in centres))
print(f"{'mole без контекста':>28}" + "".join(f"{emb_en.cosine('mole', c):>11.2f}" for c in centres.values()))
for sense, phrase in phrases.items():
    known, contextual, _ = attention_step(emb_en, phrase.split())
    mole = contextual[known.index("mole")]
    cosines = {topic: emb_en.cosine(mole, c) for topic, c in centres.items()}
    print(f"{' '.join(known):>28}" + "".join(f"{c:>11.2f}" for c in cosines.values()))   # слова со своим вектором
    assert max(cosines, key=cosines.get) == sense, (                  # ближе всего — к своему смыслу
        f"«{phrase}»: mole ближе всего к «{max(cosines, key=cosines.get)}», а нужно к «{sense}»")
    assert all(cosines[t] < emb_en.cosine("mole", centres[t]) for t in centres if t != sense), (
        f"«{phrase}»: косинус с чужим смыслом должен стать меньше, чем у mole без контекста, а не стал: "
        f"{[(t, round(c, 3)) for t, c in cosines.items() if t != sense and c >= emb_en.cosine('mole', centres[t])]}")

# %% [markdown]
# Без контекста *mole* почти одинаково близок к кроту и к родинке (0.74 и 0.72) и заметно
# ближе к ним, чем к химии. После одного шага в каждой фразе он ближе всего к своему смыслу,
# а к двум чужим — дальше, чем был. В строках таблицы — слова фразы, у которых есть вектор:
# служебные *a*, *of*, *the* его не получили, а *american* и *take* нет в словаре (в корпусе
# первое встретилось один раз, второго нет вовсе, а словарь урока 01 берёт слова от двух раз), так что
# «shrew» и «biopsy» сдвигают *mole* в одиночку — и этого хватает.
# Это и есть финал, обещанный в уроке 01: было одно слово с одним вектором — стало три вектора.
#
# Здесь нет ни одного обученного параметра — только скалярные произведения и softmax.
# Обученные $W_Q, W_K, W_V$ делают то же самое прицельно: «банк» ищет именно те слова,
# которые различают его смыслы, а не усредняет всё подряд.
#
# ## Цена: матрица $T \times T$
#
# Каждый токен сравнивается с каждым, поэтому весов $T^2$. Память под матрицу весов
# (float64, 8 байт на число) — ровно $8T^2$ байт. Проверим и подгоним прямую в логарифмах:
# наклон и есть показатель степени.

# %%
lengths = [64, 128, 256, 512, 1024, 2048]
rng = np.random.default_rng(0)
memory = []
for length in lengths:
    x = rng.normal(size=(length, 64))                                  # (T, d_k = 64)
    _, w = nt.scaled_dot_product_attention(x, x, x)                    # w: (T, T)
    assert w.nbytes == 8 * length**2, (
        f"при T = {length} веса занимают {number(w.nbytes)} байт, а нужно 8·T² = {number(8 * length**2)}")
    memory.append(w.nbytes)
    print(f"T = {length:>4}: матрица весов {w.shape}, {w.nbytes / 2**20:7.2f} МиБ")
memory_slope = np.polyfit(np.log(lengths), np.log(memory), 1)[0]
print(f"наклон log(память) от log(T): {memory_slope:.3f}")
print(f"а при T = 100 000 было бы {8 * 100_000**2 / 1e9:.0f} ГБ на одну матрицу весов")
assert np.isclose(memory_slope, 2), f"наклон log(память) от log(T) {memory_slope:.3f}, а нужен 2"

# %% [markdown]
# Время тоже растёт примерно как $T^2$: два умножения $(T, d_k) \times (d_k, T)$ и
# $(T, T) \times (T, d_v)$ плюс softmax по $T^2$ числам. Засечём его функцией `seconds` из
# `course_lib.measure` (подробно о ней — в уроке 08): она меряет **время процессора**, которое
# не идёт, пока процессор отдан соседним программам, и берёт лучший из пяти повторов.
# Сами миллисекунды у вас будут другими — они зависят от машины; важно, как они растут.
# При малых $T$ время съедают накладные расходы, так что прямую подгоняем по $T \ge 256$.

# %% tags=["nbval-ignore-output"]
from course_lib.measure import seconds, slope

inputs = {length: np.random.default_rng(length).normal(size=(length, 64)) for length in lengths}   # (T, d_k = 64)
times = np.array([seconds(lambda: nt.scaled_dot_product_attention(inputs[T], inputs[T], inputs[T])) for T in lengths])
long = np.array(lengths) >= 256
time_slope = slope(np.array(lengths)[long], times[long])
print("время, мс:", ", ".join(f"T={length}: {t * 1e3:.1f}" for length, t in zip(lengths, times)))
print(f"наклон log(время) от log(T) при T ≥ 256: {time_slope:.2f}")

# %% [markdown]
# Обе величины в логарифмическом масштабе, каждая на своём графике (у них разные единицы);
# пунктир — рост ровно как $T^2$. Наклон памяти — ровно 2, наклон времени — около 2.

# %% tags=["nbval-ignore-output"]
fig, (ax_memory, ax_time) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
square = (np.array(lengths) / lengths[-1]) ** 2                        # ∝ T², нормировано на последнюю точку
ax_memory.loglog(lengths, np.array(memory) / 2**20, "o-", label=f"наклон {memory_slope:.2f}")
ax_memory.loglog(lengths, memory[-1] / 2**20 * square, "k--", lw=0.8, label="∝ T²")
ax_memory.set(xlabel="длина последовательности T", ylabel="память весов, МиБ", title="Память матрицы весов")
ax_time.loglog(lengths, times * 1e3, "s-", color="C1", label=f"наклон {time_slope:.2f}")
ax_time.loglog(lengths, times[-1] * 1e3 * square, "k--", lw=0.8, label="∝ T²")
ax_time.set(xlabel="длина последовательности T", ylabel="время, мс", title="Время внимания")
for ax in (ax_memory, ax_time):
    ax.legend()
plt.show()

# %% [markdown]
# Удвоили текст — вчетверо больше памяти и (примерно) вчетверо больше времени. Для 100 000
# токенов одна матрица весов float64 заняла бы 80 ГБ — и это на одну **голову** одного слоя.
# (Голова — одно такое внимание со своими $W_Q, W_K, W_V$ и своей матрицей $T \times T$;
# в настоящих моделях их по нескольку в каждом слое — урок 06.) Это главное ограничение
# трансформеров; как с ним борются, разберём в уроке 08.
#
# ## Зато: один шаг между любыми двумя токенами
#
# До трансформеров текст читали **рекуррентные сети** (RNN). Они идут по словам слева направо
# и несут с собой один вектор-память: $h_t = \tanh(h_{t-1} W_h + x_t W_x)$. Чтобы первое слово
# повлияло на выход после десятого, сигнал должен пройти десять таких шагов, и на каждом он
# немного затухает. У внимания выход десятого токена — прямо взвешенная сумма $v_1, \dots, v_{10}$:
# от любого токена до любого — один шаг.
#
# Измерим градиентом (урок 00): насколько выход на позиции 10 откликается на сдвиг входа $x_j$
# каждой позиции. Веса обеих моделей случайные, с разбросом $1/\sqrt{d}$, как при обычной
# инициализации; фраза — 10 случайных векторов, одна и та же для обеих моделей.

# %%
def sensitivity(model, seed, T_seq=10, d=16):
    """Отклик выхода последней позиции на каждый вход: |градиент| по x_1 … x_T, массив (T_seq,)."""
    rng = np.random.default_rng(seed)
    x = nt.tensor(rng.normal(size=(T_seq, d)), requires_grad=True)              # (T, d): фраза
    W_h, W_x, W_q, W_k, W_v = rng.normal(size=(5, d, d)) / np.sqrt(d)
    if model == "RNN":
        h = nt.tensor(np.zeros(d))
        for t in range(T_seq):                                                   # T шагов памяти
            h = (h @ W_h + x[t] @ W_x).tanh()
        out = h                                                                  # (d,)
    else:
        out = nt.scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v)[0][-1]  # один шаг, (d,)
    (out * rng.normal(size=d)).sum().backward()                                  # случайная сторона выхода
    return np.linalg.norm(x.grad, axis=1)                                        # (T,)


# %% [markdown]
# Одна фраза — случайность, поэтому возьмём медиану по 100 фразам. Отклик на каждую позицию
# делим на отклик на позицию 9 — соседку последней:

# %%
print("позиция входа j: " + "".join(f"{j:>7}" for j in range(1, 11)))
relative = {}
for model in ("RNN", "внимание"):
    median = np.median([sensitivity(model, seed) for seed in range(100)], axis=0)   # (10,)
    relative[model] = median / median[8]
    print(f"{model:>15}: " + "".join(f"{r:>7.3f}" for r in relative[model]))
print(f"от позиции 1 до выхода: у RNN в {1 / relative['RNN'][0]:.0f} раз слабее, чем от позиции 9; "
      f"у внимания — {relative['внимание'][0]:.2f} от позиции 9")
assert relative["RNN"][0] < 0.05 and relative["внимание"][0] > 0.5, (
    f"от позиции 1 (в долях позиции 9): у RNN {relative['RNN'][0]:.3f}, а нужно < 0.05; "
    f"у внимания {relative['внимание'][0]:.3f}, а нужно > 0.5")

# %% [markdown]
# У RNN отклик тает с каждым шагом назад: первое слово для выхода почти не существует, и
# научиться связи «слово 1 → слово 10» такой сети трудно. У внимания отклик от расстояния не
# зависит: первое слово так же близко к выходу, как девятое. Выделяется только сама позиция 10 —
# она и запрос, и один из ключей. И все позиции внимание считает разом, двумя умножениями
# матриц, а RNN — по одной, шаг за шагом.
#
# ## Поиграйте: исследователь внимания
#
# Тот же механизм в полный рост: фраза, случайные $W_Q, W_K, W_V$. Сверху — панель весов на
# каждую голову (ползунок «голов»; голова — урок 06, здесь одна). Красная рамка — строка
# выбранного запроса (ползунок «запрос №»), снизу та же строка столбиками. Под ползунками —
# энтропия этой строки и её наибольший вес. Галочку «причинная маска» пока не трогайте — это урок 05.
#
# **На что смотреть:** случайные веса почти ровные, и на шкале 0–1 клетки почти одного цвета —
# следите за столбиками и энтропией. Уменьшайте $T$ — матрица $T \times T$ сжимается с двух
# сторон сразу. Поднимите $d_k$ до 64 и снимите галочку «делить на √d_k» — энтропия упадёт
# примерно втрое, наибольший вес вырастет до ~0.8, на панели проступят яркие клетки; верните
# галочку — веса снова смешивают. Поменяйте зерно (seed — число, из которого строятся «случайные»
# матрицы, [глоссарий](glossary.md)) — это другие случайные матрицы и другие веса.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.explorer import attention_explorer

attention_explorer(sentence=" ".join(tokens), d_k=8, heads=1)

# %% [markdown]
# То же в числах, для нашей фразы и зерна 0: средняя по строкам энтропия и наибольший вес.

# %%
from course_lib.widgets.explorer import attention_view

for d_k_demo, scaled in [(8, True), (64, True), (64, False)]:
    view = attention_view(" ".join(tokens), T=T, d_k=d_k_demo, heads=1, scaled=scaled, seed=0)
    print(f"d_k = {d_k_demo:>2}, делить на √d_k: {'да ' if scaled else 'нет'} — энтропия {float(entropy(view.weights).mean()):.1f} бит"
          f" (поровну: {np.log2(T):.1f}), наибольший вес {float(view.weights.max(axis=-1).mean()):.2f}")

# %% [markdown]
# ## Упражнения
#
# ### 1. Scaled dot-product attention
#
# Напишите `my_attention(Q, K, V)`: `Q` формы `(T_q, d_k)`, `K` — `(T_k, d_k)`, `V` — `(T_k, d_v)`.
# Верните пару `(context, weights)`: `weights = softmax(Q Kᵀ / √d_k)` по строкам, форма
# `(T_q, T_k)`; `context = weights @ V`, форма `(T_q, d_v)`. Пусть не боится больших оценок.

# %%
from course_lib.exercises.self_attention import check_attention, check_self_attention


def my_attention(Q, K, V):
    raise NotImplementedError  # ваш код здесь


_ = check_attention(my_attention)

# %% [markdown] tags=["solution"]
# Решение — под своим именем, чтобы ваша `my_attention` и её проверка выше остались вашими:

# %% jupyter={"source_hidden": true} tags=["solution"]
def attention_solution(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[-1])                            # (T_q, T_k)
    scores = scores - scores.max(axis=-1, keepdims=True)               # от переполнения exp
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    return weights @ V, weights                                        # (T_q, d_v), (T_q, T_k)


_ = check_attention(attention_solution)

# %% [markdown]
# ### 2. Слой самовнимания
#
# Напишите `self_attention(X, W_q, W_k, W_v)`: из одной последовательности `X` формы
# `(T, d_model)` получите `Q, K, V` и верните `context` формы `(T, d_v)`.
# Можно пользоваться своей `my_attention` или `nt.scaled_dot_product_attention`.

# %%
def self_attention(X, W_q, W_k, W_v):
    raise NotImplementedError  # ваш код здесь


_ = check_self_attention(self_attention)

# %% [markdown] tags=["solution"]
# Решение:

# %% jupyter={"source_hidden": true} tags=["solution"]
def self_attention_solution(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v       # (T, d_model) @ (d_model, d_k) -> (T, d_k); V: (T, d_v)
    context, _ = attention_solution(Q, K, V)  # (T, d_v)
    return context


_ = check_self_attention(self_attention_solution)

# %% [markdown]
# И на нашей фразе слой даёт те же контекстные векторы, что пять шагов в начале урока.
# Ячейка сверяет вашу `self_attention`, а пока она не написана (или падает) — тот же слой
# на библиотечной `nt.scaled_dot_product_attention`, и пишет, что сверила:

# %%
try:                                       # ваша self_attention, если она уже считает
    same, whose = np.allclose(self_attention(X, W_q, W_k, W_v), context), "ваша self_attention"
except Exception:                          # не написана или упала (её вердикт — выше): слой на библиотеке
    library_layer = nt.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)[0]   # (T, d_v)
    same, whose = np.allclose(library_layer, context), "слой на nt.scaled_dot_product_attention"
print(f"{whose} == context из пяти шагов:", same)

# %% [markdown]
# ## Итог
#
# - Self-attention: $Q = XW_Q$, $K = XW_K$, $V = XW_V$ из одной последовательности; оценки $QK^\top$,
#   деление на $\sqrt{d_k}$, softmax по строкам, контекст $= $ веса $\cdot V$. Выход — $T$ контекстных векторов.
# - Без проекций, $\text{softmax}(XX^\top)X$, оценки симметричны, а нормированный (или многомерный)
#   токен больше всего смотрит на себя. Разные $W_Q \ne W_K$ ломают и то и другое.
# - Разброс $q \cdot k$ растёт как $\sqrt{d_k}$ — без деления softmax насыщается: веса почти one-hot,
#   градиент по оценкам тает. С делением режим softmax не зависит от $d_k$.
# - Даже один шаг внимания без обучения делает векторы контекстными: «банк» у реки ближе к
#   «реке», «банк» с вкладом — к «деньгам»; *mole* в каждой из трёх фраз ближе всего к своему смыслу.
# - Цена — матрица $T \times T$: память ровно $8T^2$ байт (float64), время тоже $\approx T^2$.
# - Взамен — один шаг между любыми двумя токенами: отклик выхода на первое слово у внимания такой же,
#   как на девятое, а у RNN после десяти шагов памяти — в десятки раз слабее.
#
# **Дальше:** урок 04. Самовнимание не видит порядок слов: «собака кусает человека» и «человек
# кусает собаку» для него — одно и то же. Проверим это и добавим позиции.

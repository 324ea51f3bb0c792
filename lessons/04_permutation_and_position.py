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
# # Урок 04. Самовнимание не видит порядок
#
# В уроке 03 мы собрали самовнимание: $Q = XW_Q$, $K = XW_K$, $V = XW_V$ и
# $\text{softmax}(QK^\top/\sqrt{d_k})\,V$. Посмотрите на эту формулу внимательно: в ней нет
# ни одного номера позиции. Токен сравнивается с каждым другим, но никто не говорит ему,
# кто стоит рядом, а кто в конце предложения. Сегодня проверим, к чему это приводит, и починим.
#
# **В этом уроке:**
# - переставим слова и увидим: выход переставился ровно так же — и больше ничего не изменилось;
# - поймём почему — одной строчкой алгебры с матрицей перестановки $P$;
# - увидим, что для внимания «мать любит дочь» и «дочь любит мать» — одно и то же;
# - починим это позиционными кодировками: синусоидальными («Attention Is All You Need»)
#   и обучаемыми (как в GPT-2);
# - разберём, почему позицию *прибавляют* к вектору слова, а не приписывают сбоку, и проверим,
#   не портит ли сложение смысл слова;
# - наконец разведём два «the» из урока 02.
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

# %% [markdown]
# ## Переставим слова
#
# Возьмём слой `MultiHeadAttention` со случайными весами и маленькую таблицу эмбеддингов:
# у каждого слова свой вектор, как в уроке 01. Функция `embed` превращает слова в матрицу
# $X$ формы $(T, d_\text{model})$.
#
# `num_heads=2` значит, что внутри слоя два внимания урока 03 работают параллельно — две
# **головы**, у каждой свои $W_Q, W_K, W_V$ и своя матрица весов $(T, T)$. Поэтому веса слоя
# лежат в `mha.attn` формой $(h, T, T)$ (и ещё ось $N$ впереди — сколько фраз подали сразу, **батч**; подробно — в уроке 05) — по матрице на голову.
# Зачем голов несколько — урок 06; сегодня всё сказанное верно для каждой головы отдельно.

# %%
import matplotlib.pyplot as plt
import numpy as np

import course_lib as nt
from course_lib import vis
from course_lib.nn.positional import sinusoidal_encoding

# %%
vocab = sorted(set("кот сел на тёплый коврик мать любит дочь собака кусает человека человек собаку".split()))
d_model = 8
nt.manual_seed(0)
embedding = nt.Embedding(len(vocab), d_model)            # строка таблицы — вектор слова
mha = nt.MultiHeadAttention(d_model=d_model, num_heads=2)


def embed(words):
    """Слова -> X (T, d_model): строки таблицы эмбеддингов."""
    return embedding([vocab.index(w) for w in words]).data


def attend(X):
    """X (T, d_model) -> выход слоя (T, d_model); веса (h, T, T) остаются в mha.attn."""
    return mha(X[None]).data[0]                          # (T, D) -> (1, T, D) -> (1, T, D) -> (T, D)


# %% [markdown]
# Пропустим через слой «кот сел на тёплый коврик», а потом те же слова в другом порядке.
# Перестановка `perm = [3, 0, 4, 1, 2]` значит: на место 0 встаёт токен 3, на место 1 —
# токен 0 и так далее. `X[perm]` — это переставленные строки $X$.

# %%
tokens = "кот сел на тёплый коврик".split()
X = embed(tokens)                                        # (T, d_model) = (5, 8)
out = attend(X)
weights = mha.attn[0].copy()                             # (h, T, T); copy: следующий вызов перезапишет attn

perm = [3, 0, 4, 1, 2]
out_perm = attend(X[perm])
weights_perm = mha.attn[0].copy()
print("новый порядок:", " ".join(tokens[i] for i in perm))
print("выход для переставленного входа == переставленный выход:", np.allclose(out_perm, out[perm]))
assert np.allclose(out_perm, out[perm]), (
    f"выход для переставленного входа отличается от переставленного выхода на {np.abs(out_perm - out[perm]).max():.2e}")

# %% [markdown]
# Каждый токен получил ровно тот же вектор, что и раньше, — просто на другом месте.
# «тёплый» в начале предложения и «тёплый» в середине — для слоя одно и то же.
#
# С весами то же самое: матрица весов переставленного предложения — это старая матрица,
# у которой строки и столбцы переставлены одной и той же перестановкой. Слева — исходные
# веса первой головы, в середине — веса для нового порядка, справа — исходные веса,
# переставленные руками: `weights[perm][:, perm]`.

# %%
shuffled = [tokens[i] for i in perm]
top = weights[0].max()                                   # общая шкала трёх картинок: от 0 до наибольшего веса
print(f"веса головы 1 от {weights[0].min():.2f} до {top:.2f}; поровну было бы 1/{len(tokens)} = {1 / len(tokens):.2f}")
fig, axes = plt.subplots(1, 3, figsize=(12, 4.4), layout="constrained")
vis.heatmap(weights[0], tokens, tokens, title="исходный порядок", ax=axes[0], colorbar=False, vmax=top)
vis.heatmap(weights_perm[0], shuffled, shuffled, title="новый порядок", ax=axes[1], colorbar=False, vmax=top)
vis.heatmap(weights[0][perm][:, perm], shuffled, shuffled, title="исходные веса, переставленные", ax=axes[2], vmax=top)
fig.suptitle("Веса головы 1: перестановка только переносит клетки")
plt.show()
print("веса всех голов переехали вместе со словами:", np.allclose(weights_perm, weights[:, perm][:, :, perm]))
assert np.allclose(weights_perm, weights[:, perm][:, :, perm]), (
    f"веса не переехали со словами: наибольшее отличие {np.abs(weights_perm - weights[:, perm][:, :, perm]).max():.2e}")

# %% [markdown]
# Веса случайного слоя почти ровные, поэтому шкала цвета здесь — от 0 до самого большого веса,
# а не до 1: на шкале 0–1 все клетки были бы одного тёмного цвета. Сравнивайте узор клеток:
# средняя и правая картинки совпадают клетка в клетку — «кот» смотрит на «коврик» с тем же
# весом, где бы они ни стояли.

# %% [markdown]
# ## «Мать любит дочь» и «дочь любит мать»
#
# В русском языке роли часто видны по окончаниям: «собака кусает человека» и «человек
# кусает собаку» — это разные слова (*человека* и *человек*, *собака* и *собаку*), и внимание
# их различит даже без позиций. А «собака кусает человека» и «человека кусает собака» значат
# одно и то же — тут слепота к порядку не мешает.
#
# Но есть фразы, где окончания не помогают: «мать любит дочь» и «дочь любит мать». Слова те же,
# смысл противоположный, и различает их только порядок. Проверим, что видит слой:

# %%
def same_outputs(a, b):
    """Каждое слово фразы b получает тот же вектор, что и в фразе a? (b — перестановка a)"""
    order = [a.index(w) for w in b]                      # где в a стоит каждое слово из b
    return np.allclose(attend(embed(b)), attend(embed(a))[order])


pairs = [("мать любит дочь", "дочь любит мать"),
         ("собака кусает человека", "человека кусает собака"),
         ("собака кусает человека", "человек кусает собаку")]
for a, b in pairs:
    words_a, words_b = a.split(), b.split()
    same_words = sorted(words_a) == sorted(words_b)
    verdict = same_outputs(words_a, words_b) if same_words else "слова разные — и выходы разные"
    print(f"«{a}» / «{b}»: те же слова? {same_words}; те же выходы? {verdict}")

# %% [markdown]
# Для самовнимания «мать любит дочь» и «дочь любит мать» — одно и то же *множество* векторов.
# Кто кого любит, из него не узнать. То же с английскими «dog bites man» и «man bites dog».

# %% [markdown]
# ## Почему: одна строчка алгебры
#
# Перестановку строк можно записать матрицей. Матрица перестановки $P$ — это единичная
# матрица с переставленными строками: `P = np.eye(T)[perm]`, и тогда $PX$ = `X[perm]`.
# Обратно её отменяет транспонированная: $P^\top P = I$.
#
# Подставим $X' = PX$. Проекции — это умножение справа, перестановка — слева, они не мешают
# друг другу: $Q' = PXW_Q = PQ$, и так же $K' = PK$, $V' = PV$. Тогда
#
# $$\text{softmax}\Big(\frac{PQ\,(PK)^\top}{\sqrt{d_k}}\Big)\,PV
#   = \text{softmax}\Big(P\,\frac{QK^\top}{\sqrt{d_k}}\,P^\top\Big)\,PV
#   = P\,\text{softmax}\Big(\frac{QK^\top}{\sqrt{d_k}}\Big)\,P^\top P\,V
#   = P\,\text{softmax}\Big(\frac{QK^\top}{\sqrt{d_k}}\Big)\,V.$$
#
# Средний шаг — потому что softmax считается по каждой строке отдельно и ему всё равно,
# в каком порядке стоят числа внутри строки. Итог: выход для $PX$ равен $P$ · (выход для $X$).
# Такое свойство называют **эквивариантностью к перестановкам**. Проверим каждый шаг в числах:

# %%
rng = np.random.default_rng(0)
T, d_k = 5, 4
X = rng.normal(size=(T, d_model))
W_Q, W_K, W_V = rng.normal(size=(3, d_model, d_k))
P = np.eye(T)[perm]                                      # (T, T): строка i — единичный вектор e_perm[i]
S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(d_k)               # оценки (T, T)

print("P X == X[perm]:                      ", np.allclose(P @ X, X[perm]))
print("Pᵀ P == I:                           ", np.allclose(P.T @ P, np.eye(T)))
print("Q' = (PX) W_Q == P Q:                ", np.allclose((P @ X) @ W_Q, P @ (X @ W_Q)))
print("softmax(P S Pᵀ) == P softmax(S) Pᵀ:  ", np.allclose(nt.softmax(P @ S @ P.T), P @ nt.softmax(S) @ P.T))
context, _ = nt.scaled_dot_product_attention(X @ W_Q, X @ W_K, X @ W_V)
context_perm, _ = nt.scaled_dot_product_attention(P @ X @ W_Q, P @ X @ W_K, P @ X @ W_V)
print("attention(PX) == P attention(X):     ", np.allclose(context_perm, P @ context))

# %% [markdown]
# А смещения $b$ (bias, вектор, который линейный слой $XW + b$ прибавляет к каждой строке, урок 01) и финальная $W_O$? Они действуют на каждый токен отдельно: $(PX)W + b = P(XW + b)$,
# потому что $b$ прибавляется к каждой строке. Поэтому эквивариантен и весь слой — что мы и видели
# в самом начале.

# %% [markdown]
# ## Как сообщить вниманию порядок: позиционные кодировки
#
# Раз слой не видит, где стоит токен, скажем ему сами: прибавим к вектору слова вектор
# его позиции, $X + PE$. Строка $PE_t$ зависит только от номера места $t$. Теперь у «мать»
# на первом месте и у «мать» на третьем разные векторы.
#
# В «Attention Is All You Need» (Vaswani et al., 2017) позиции кодируют синусами и косинусами разных частот:
#
# $$PE_{t,\,2i} = \sin\big(t / 10000^{2i/d_\text{model}}\big), \qquad
#   PE_{t,\,2i+1} = \cos\big(t / 10000^{2i/d_\text{model}}\big).$$
#
# Как стрелки часов: левые столбцы — секундная стрелка (крутятся быстро), правые — часовая
# (едва сдвигаются). Вместе они дают каждой позиции свой узнаваемый узор.

# %%
PE = sinusoidal_encoding(50, 64)                         # (T, d_model) = (50, 64)
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), layout="constrained", width_ratios=[1.3, 1])
vis.heatmap(PE, title="Синусоидальные кодировки: строка — позиция", ax=left, cmap=vis.SIGNED_CMAP, vmin=-1, vmax=1)
left.set_xlabel("измерение (столбец PE)")
left.set_ylabel("позиция t")
for column in (2, 10, 24, 60):
    right.plot(PE[:, column], label=f"столбец {column}")
right.set_title("Чем правее столбец, тем медленнее он меняется")
right.set_xlabel("позиция t")
right.set_ylabel("значение")
right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncols=4)   # под графиком: не закрывает кривые
plt.show()

# %% [markdown]
# Три свойства этой таблицы, проверенные в числах:
# - все позиции разные — нет двух одинаковых строк;
# - длина каждой строки одна и та же, $\sqrt{d_\text{model}/2}$ (в каждой паре столбцов $\sin^2 + \cos^2 = 1$),
#   так что ни одна позиция не «громче» другой;
# - скалярное произведение $PE_t \cdot PE_{t+k}$ зависит только от расстояния $k$, а не от $t$ —
#   «на 3 слова правее» выглядит одинаково в любом месте предложения.

# %%
gaps = np.linalg.norm(PE[:, None] - PE[None], axis=-1)   # (50, 50) расстояния между позициями
print(f"самое маленькое расстояние между разными позициями: {gaps[~np.eye(50, dtype=bool)].min():.3f}")
print("длины строк:", np.unique(np.linalg.norm(PE, axis=1).round(6)), "= √(64/2) =", np.sqrt(32))
for k in (1, 3, 10):
    dots = (PE[:-k] * PE[k:]).sum(axis=1)                # PE_t · PE_{t+k} для всех t
    print(f"k = {k:>2}: PE_t · PE_(t+k) = {dots[0]:.3f}, одно и то же для всех t: {np.allclose(dots, dots[0])}")
    assert np.allclose(dots, dots[0]), (
        f"при k = {k} PE_t · PE_(t+k) меняется с t: от {dots.min():.3f} до {dots.max():.3f}, а должно быть одно число")

# %% [markdown]
# ## Почему прибавить, а не приписать сбоку?
#
# Можно было бы не складывать, а склеить: $[x;\, PE_t]$ — вектор слова, за ним вектор позиции
# (конкатенация). Тогда слово и позиция точно не смешаются. Но вектор станет длиннее, а с ним
# и все матрицы слоя. Сложение оставляет ширину $d_\text{model}$ — и при этом склейку не
# запрещает: склейка — это частный случай сложения, когда слово и позиция занимают разные координаты.

# %%
word = np.array([0.9, -0.3, 0.4, 0.1])                   # вектор слова, 4 числа
position = sinusoidal_encoding(8, 4)[5]                  # вектор позиции 5, тоже 4 числа
glued = np.concatenate([word, position])                 # склейка: (8,)
added = np.concatenate([word, np.zeros(4)]) + np.concatenate([np.zeros(4), position])
print("[слово; позиция] == [слово; 0] + [0; позиция]:", np.allclose(glued, added))

# %% [markdown]
# Так что сложение склейку не исключает: если модели выгодно держать слово и позицию порознь,
# обучение может отвести им разные направления внутри тех же $d_\text{model}$ чисел. Но пока
# они *не* разведены — не портит ли сумма смысл слова? Проверим на статических векторах
# урока 01 (русский корпус, 16 чисел на слово): прибавим к слову кодировку позиции и посмотрим
# на его пять ближайших соседей.

# %%
from course_lib.props.embeddings import load_corpus, load_sections, train_static_embeddings, word_topics

static = train_static_embeddings(load_corpus("ru"))                      # (V, 16), урок 01
PE_16 = sinusoidal_encoding(50, static.dim)                              # (50, 16)
print(f"длина вектора слова — обычно {np.median(np.linalg.norm(static.vectors, axis=1)):.1f},"
      f" вектора позиции — {np.linalg.norm(PE_16[0]):.1f}")
print("река:       ", ", ".join(w for w, _ in static.nearest("река", 5)))
print("река + PE_5:", ", ".join(w for w, _ in static.nearest(static.vector("река") + PE_16[5], 5, exclude=("река",))))

# %% [markdown]
# Соседи перетасовались, но четыре из пяти остались речными («много» — нет). Проверим это на всём словаре: для
# каждого однозначного слова (из одной темы корпуса, как в уроке 01) — сколько прежних соседей
# осталось и сколько новых из той же темы. И то же в 64 измерениях.

# %%
topic_of = word_topics(load_sections("ru"))                              # {однозначное слово: тема}


def neighbours_after_shift(emb, shift, k=5):
    """Доля прежних k соседей у «слово + shift» и доля соседей из темы слова (по однозначным словам)."""
    words = [w for w in emb.vocab if w in topic_of]
    kept = same = 0
    for word in words:
        before = {w for w, _ in emb.nearest(word, k)}
        after = [w for w, _ in emb.nearest(emb.vector(word) + shift, k, exclude=(word,))]
        kept += len(before & set(after))
        same += sum(topic_of.get(w) == topic_of[word] for w in after)
    return kept / (k * len(words)), same / (k * len(words))


# %%
words = [w for w in static.vocab if w in topic_of]
chance = sum(sum(topic_of[v] == topic_of[w] for v in words) - 1 for w in words) / (len(words) * (len(static) - 1))
print(f"случайное другое слово словаря было бы из той же темы в {chance:.0%} случаев")
for dim in (16, 64):
    emb = static if dim == 16 else train_static_embeddings(load_corpus("ru"), dim=dim)
    PE_dim = sinusoidal_encoding(50, dim)                                # (50, dim)
    print(f"dim = {dim}: без позиции соседей из той же темы {neighbours_after_shift(emb, np.zeros(dim))[1]:.0%}")
    for t in (1, 5, 20, 49):
        kept, same = neighbours_after_shift(emb, PE_dim[t])
        print(f"   + PE_{t:<2}: прежних соседей {kept:.0%}, из той же темы {same:.0%}")

# %% [markdown]
# Сложение перетасовывает соседей: в 16 измерениях остаётся чуть больше половины прежних,
# в 64 — около трёх четвертей (чем больше измерений, тем меньше вектор позиции мешает словам).
# Но смысл почти не теряется: из той же темы по-прежнему 83–89 % соседей против 89–92 % без
# позиции — а случайное слово попало бы в тему лишь в каждом пятом случае. Слово после
# сложения узнаваемо — и это без всякого обучения; в настоящей модели таблица эмбеддингов
# учится вместе с позициями.

# %% [markdown]
# ## С позициями перестановка ломается
#
# Прибавим кодировки и повторим опыт из начала урока. Слова переезжают, а кодировки остаются
# на своих местах: переставленный вход — это `X[perm] + PE`, а не `(X + PE)[perm]`.

# %%
X = embed(tokens)                                        # снова «кот сел на тёплый коврик», (5, 8)
PE = sinusoidal_encoding(len(tokens), d_model)           # (5, 8)
out = attend(X + PE)
out_perm = attend(X[perm] + PE)
print("выход для переставленного входа == переставленный выход:", np.allclose(out_perm, out[perm]))
print(f"наибольшее расхождение: {np.abs(out_perm - out[perm]).max():.3f}")
assert not np.allclose(out_perm, out[perm]), (
    f"с позициями выход лишь переставился: наибольшее расхождение {np.abs(out_perm - out[perm]).max():.2e}")

# %% [markdown]
# И «мать любит дочь» наконец отличается от «дочь любит мать»: слово «мать» в двух фразах
# получает разные векторы.

# %%
def attend_with_positions(words):
    X = embed(words)
    return attend(X + sinusoidal_encoding(len(words), d_model))


a, b = "мать любит дочь".split(), "дочь любит мать".split()
for word in a:
    diff = np.abs(attend_with_positions(a)[a.index(word)] - attend_with_positions(b)[b.index(word)]).max()
    print(f"«{word}»: выход в двух фразах отличается на {diff:.3f}")
    assert diff > 0.01, f"«{word}»: выход в двух фразах отличается на {diff:.3f}, а нужно больше 0.01"

# %% [markdown]
# ### Два «the» из урока 02
#
# В уроке 02 самовнимание на "the cat sat on the mat" дало двум "the" одинаковые веса и
# одинаковые выходы: слово одно, а где оно стоит, вниманию никто не сказал. Те же векторы слов,
# та же функция — только теперь с позициями:

# %%
english = ["the", "cat", "sat", "on", "the", "mat"]
meaning = {"cat": [1, 0, 0, 0], "sat": [0, 1, 0, 0], "on": [0, 0, 1, 0], "mat": [0, 0, 0, 1],
           "the": [0.5, 0, 0, 0.5]}                                      # как в уроке 02
X_en = np.array([meaning[w] for w in english], dtype=float)             # (T, d) = (6, 4)
PE_en = sinusoidal_encoding(6, 4)                                        # (T, d) = (6, 4)
for name, X_in in [("без позиций", X_en), ("с позициями", X_en + PE_en)]:
    context_en, weights_en = nt.scaled_dot_product_attention(X_in, X_in, X_in)
    print(f"{name}: выходы двух the одинаковы? {np.allclose(context_en[0], context_en[4])}")
    for i in (0, 4):
        print(f"   the на месте {i}:", ", ".join(f"{w} {x:.2f}" for w, x in zip(english, weights_en[i])))
assert weights_en[0, 1] > weights_en[0, 5] and weights_en[4, 5] > weights_en[4, 1], (
    f"the на месте 0: вес на cat {weights_en[0, 1]:.3f}, на mat {weights_en[0, 5]:.3f} (нужно больше на cat); "
    f"на месте 4: на mat {weights_en[4, 5]:.3f}, на cat {weights_en[4, 1]:.3f} (нужно больше на mat)")
print(f"PE_0·PE_1 = {PE_en[0] @ PE_en[1]:.2f} > PE_0·PE_5 = {PE_en[0] @ PE_en[5]:.2f};"
      f"  PE_4·PE_5 = {PE_en[4] @ PE_en[5]:.2f} > PE_4·PE_1 = {PE_en[4] @ PE_en[1]:.2f}")

# %% [markdown]
# С позициями два "the" наконец разные. И даже без обучения каждый чуть больше смотрит на своё
# существительное: первый — на "cat" больше, чем на "mat", второй — на "mat" намного больше, чем
# на "cat". Это заслуга соседства: вектор позиции соседа похож на свой больше, чем вектор
# дальнего слова (последняя строка). Чтобы артикль смотрел именно на своё существительное, нужны
# обученные $W_Q, W_K$ — но теперь у обучения есть за что зацепиться.

# %% [markdown]
# ## Обучаемые позиции
#
# Второй способ — не придумывать формулу, а завести ещё одну таблицу эмбеддингов, теперь
# для позиций: `Embedding(T_max, d_model)`, строка $t$ — вектор места $t$. Её учат вместе
# с моделью. Так сделано в GPT-2: 1024 позиции по 768 чисел (`n_positions` и `n_embd` в `config.json`
# модели `gpt2` на Hugging Face).

# %%
T_max = 16
nt.manual_seed(1)
positions = nt.Embedding(T_max, d_model)                 # (T_max, d_model): по вектору на место
X = embed(tokens)
learned = positions(np.arange(len(tokens))).data         # (T, d_model): места 0…T−1
out = attend(X + learned)
out_perm = attend(X[perm] + learned)
print("с обучаемыми позициями перестановка ничего не меняет?", np.allclose(out_perm, out[perm]))
assert not np.allclose(out_perm, out[perm]), (
    f"с обучаемыми позициями выход лишь переставился: наибольшее расхождение {np.abs(out_perm - out[perm]).max():.2e}")

# %% [markdown]
# Разница между способами — в длинных текстах. Таблица кончается на `T_max`: места 16 в ней
# просто нет — ошибка так и говорит.
# Синусоиды считаются для любого $t$, и первые строки не зависят от того, сколько их всего:

# %%
try:
    positions(np.arange(20))
except ValueError as error:
    print("обучаемые, T = 20:", error)
print("синусоидальные, T = 1000:", sinusoidal_encoding(1000, d_model).shape)
print("первые 5 строк те же, что при T = 5:",
      np.allclose(sinusoidal_encoding(1000, d_model)[:5], sinusoidal_encoding(5, d_model)))

# %% [markdown]
# ## Поиграйте
#
# Ползунок «перемешать» ставит слова в новом порядке (0 — исходный). Слева — веса исходной
# фразы, справа — переставленной. **Посмотрите:** без позиционных кодировок справа та же
# картинка, только строки и столбцы переехали вместе со словами. Поставьте галочку
# «позиционные кодировки» — надпись сверху сменится: теперь перестановка меняет сами веса.
# Впишите свою фразу в поле «текст».

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.permutation import permutation_explorer, permutation_view

permutation_explorer(sentence="кот сел на тёплый коврик")

# %% [markdown]
# То же в числах, для первых пяти перемешиваний:

# %%
for positional in (False, True):
    moved = [permutation_view("кот сел на тёплый коврик", shuffle, positional).moved_together for shuffle in range(1, 6)]
    print(f"позиционные кодировки {'вкл ' if positional else 'выкл'}: веса только переставились? {moved}")

# %% [markdown]
# ## Упражнение 1. Матрица перестановки
#
# Напишите `permutation_matrix(order)`: по перестановке длины $T$ верните матрицу $P$
# формы $(T, T)$ из нулей и единиц, такую что `P @ X == X[order]`.

# %%
from course_lib.exercises.permutation import check_equivariance_gap, check_permutation_matrix


def permutation_matrix(order):
    raise NotImplementedError  # ваш код здесь


check_permutation_matrix(permutation_matrix)

# %% [markdown] tags=["solution"]
# Решение — под своим именем, чтобы ваша `permutation_matrix` и её проверка остались вашими:

# %% jupyter={"source_hidden": true} tags=["solution"]
# Строка i матрицы P — единичный вектор e_order[i], он выбирает из X строку order[i].
def permutation_matrix_solution(order):
    return np.eye(len(order))[order]


check_permutation_matrix(permutation_matrix_solution)

# %% [markdown]
# ## Упражнение 2. Докажите эквивариантность числом
#
# Напишите `equivariance_gap(f, X, order)`: наибольшее по модулю расхождение между
# выходом для переставленного входа и переставленным выходом, $\max|f(X[\text{order}]) - f(X)[\text{order}]|$.
# Для самовнимания без позиций оно должно быть ≈ 0, а с позициями — заметным.

# %%
def equivariance_gap(f, X, order):
    raise NotImplementedError  # ваш код здесь


check_equivariance_gap(equivariance_gap)

# %% [markdown] tags=["solution"]
# Решение:

# %% jupyter={"source_hidden": true} tags=["solution"]
# f от переставленного входа против переставленного выхода f.
def equivariance_gap_solution(f, X, order):
    return np.abs(f(X[order]) - f(X)[order]).max()


check_equivariance_gap(equivariance_gap_solution)

# %% [markdown]
# С готовой функцией — оба случая этого урока одной строкой. Ячейка считает вашей
# `equivariance_gap`, а пока она не написана (или падает) — формулой из задания, и пишет, чем считала:

# %%
X = embed(tokens)
layers = (attend, lambda X: attend(X + sinusoidal_encoding(len(X), d_model)))   # без позиций, с позициями
try:                                       # ваша equivariance_gap, если она уже считает
    without, with_positions = [float(equivariance_gap(f, X, perm)) for f in layers]
    whose = "ваша equivariance_gap"
except Exception:                          # не написана или упала (её вердикт — выше): формула из задания
    without, with_positions = [float(np.abs(f(X[perm]) - f(X)[perm]).max()) for f in layers]
    whose = "формула из задания"
print(f"{whose} — без позиций: {'< 1e-12' if without < 1e-12 else without};  с позициями: {with_positions:.3f}")

# %% [markdown]
# ## Итог
#
# - Самовнимание эквивариантно к перестановкам: переставили входы — выходы переставились
#   так же, и больше ничего не изменилось. Веса переезжают строками и столбцами вместе.
# - Причина — одна строчка алгебры: $\text{softmax}(PSP^\top)PV = P\,\text{softmax}(S)\,V$,
#   потому что softmax считается по строкам, а $P^\top P = I$.
# - Поэтому «мать любит дочь» и «дочь любит мать» для голого внимания неразличимы.
# - Позиционные кодировки $X + PE$ сообщают место токена и ломают эту симметрию: два «the» из
#   урока 02 наконец получают разные выходы.
# - Позицию прибавляют, а не приписывают: ширина та же, а склейка — частный случай суммы.
#   Смысл слова сложение почти не портит: соседи перетасовываются, но остаются из той же темы.
#   Синусоидальные считаются формулой для любой длины; обучаемые — таблица `Embedding(T_max, d_model)`,
#   которая кончается на `T_max`.
#
# **Дальше:** урок 05 — причинная маска. Оказывается, для GPT важно не только *где* стоит токен,
# но и чтобы он не подглядывал в тех, кто стоит *после* него.

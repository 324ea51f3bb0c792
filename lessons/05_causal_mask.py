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
# # Урок 05. Причинная маска: GPT не видит будущее
#
# В уроке 04 самовнимание смотрело на все токены сразу — и вперёд, и назад. Для GPT это
# запрещено: токен может смотреть только на себя и на тех, кто стоит **до** него. Запрет
# устроен очень просто — это маска, треугольник из $-\infty$ в матрице оценок.
#
# **В этом уроке:**
# - зачем нужна маска: без неё предсказание следующего слова превращается в списывание;
# - соберём маскированное внимание за три шага, проверяя каждый шаг равенством с предыдущим;
# - разберём три записи маски, на которых все путаются, и докажем, что они дают одни и те же веса;
# - поймём, почему будущее прячут $-\infty$ *до* softmax, а не обнуляют *после*;
# - проверим «не подглядывает»: меняем будущее слово — прошлые выходы не меняются;
# - энкодер (BERT) и декодер (GPT); маска паддинга для батча фраз разной длины.
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
# ## Зачем: иначе модель списывает
#
# GPT учится предсказывать следующее слово. Берём фразу «Your journey starts with one step»:
# на месте «Your» правильный ответ — «journey», на месте «one» — «step». Все позиции
# учатся одновременно, за один проход по фразе.
#
# Но если на месте «one» внимание видит всю фразу, то видит и «step» — правильный ответ.
# Задача становится тривиальной: посмотри на соседа справа и повтори его. Модель ничему
# не научится, а при генерации соседа справа ещё нет — его-то и нужно предсказать.
# ([В уроке 10](10_gpt.ipynb) это проверено на настоящей GPT: без маски loss обучения падает почти до нуля, а текст — мешанина.)
# Посчитаем, на скольких позициях ответ лежит в поле зрения:

# %%
import inspect

import matplotlib.pyplot as plt
import numpy as np

import course_lib as nt
from course_lib import vis

tokens = "Your journey starts with one step".split()
T = len(tokens)
everything = np.ones((T, T), dtype=bool)                 # без маски: все видят всех
causal = nt.causal_mask(T)                               # (T, T) bool, True = можно смотреть
for i in range(T - 1):                                   # у последнего токена ответа во фразе нет
    print(f"{tokens[i]:>8} -> ответ «{tokens[i + 1]}»: виден без маски? {everything[i, i + 1]!s:5}  с маской? {causal[i, i + 1]}")

# %% [markdown]
# Без маски ответ виден на всех пяти позициях, с маской — ни на одной. `nt.causal_mask(T)` —
# нижний треугольник с диагональю: строка — кто смотрит, столбец — на кого; `True` значит «можно».

# %%
print(causal.astype(int))

# %% [markdown]
# ## Маскированное внимание за три шага
#
# Начнём с самого простого «внимания», которое уважает порядок: каждый токен берёт среднее
# векторов всех токенов до себя и себя самого. Потом перепишем это умножением на матрицу,
# потом — через softmax с $-\infty$. Каждый шаг проверим равенством с предыдущим.
#
# **Шаг 1.** Цикл: выход токена $t$ — среднее строк $X_0, \dots, X_t$.

# %%
rng = np.random.default_rng(0)
d_model = 8
X = rng.normal(size=(T, d_model))                        # (T, d_model): векторы шести токенов

average_loop = np.zeros_like(X)
for t in range(T):
    average_loop[t] = X[: t + 1].mean(axis=0)            # прошлое и сам токен, (d_model,)
print("выход первого токена — он сам:", np.allclose(average_loop[0], X[0]))

# %% [markdown]
# **Шаг 2.** То же одним умножением. Возьмём нижний треугольник из единиц и поделим каждую
# строку на её сумму: в строке $t$ окажется $t+1$ чисел по $\frac{1}{t+1}$. Умножение такой
# матрицы $A$ на $X$ — это и есть средние по прошлому.

# %%
A = np.tril(np.ones((T, T)))                             # (T, T): 1 — можно смотреть
A = A / A.sum(axis=1, keepdims=True)                     # строка t: t+1 раз по 1/(t+1)
average_matmul = A @ X                                   # (T, T) @ (T, d_model) -> (T, d_model)
print("шаг 2 == шаг 1:", np.allclose(average_matmul, average_loop))
print(A.round(2))

# %% [markdown]
# **Шаг 3.** Матрица $A$ — это веса внимания! Их можно получить softmax'ом: оценки всех
# разрешённых пар равны (пусть нулю), а в запрещённых клетках стоит $-\infty$. После softmax
# $e^{-\infty} = 0$, а остальные клетки строки делят единицу поровну.

# %%
scores = np.zeros((T, T))                                # все пары одинаково интересны
scores[~causal] = -np.inf                                # будущее: e^(−∞) = 0
weights = nt.softmax(scores)                             # по строкам
print("шаг 3 == шаг 2:", np.allclose(weights, A), "и", np.allclose(weights @ X, average_loop))

# %% [markdown]
# **Шаг 4 — настоящее внимание.** Равные нули заменяем настоящими оценками $QK^\top/\sqrt{d_k}$.
# Маска та же; веса больше не поровну, но будущее по-прежнему получает ровно 0. Ровно это и
# делает `scaled_dot_product_attention` из `course_lib`, если передать ему маску.

# %%
rng = np.random.default_rng(1)
W_Q, W_K, W_V = rng.normal(size=(3, d_model, 4)) / np.sqrt(d_model)   # случайные, разброс как при инициализации
Q, K, V = X @ W_Q, X @ W_K, X @ W_V                      # (T, d_k) каждая, d_k = 4
scores = Q @ K.T / np.sqrt(4)                            # (T, T)
weights = nt.softmax(np.where(causal, scores, -np.inf))
context, library_weights = nt.scaled_dot_product_attention(Q, K, V, mask=causal)
print("руками == course_lib:", np.allclose(weights, library_weights), np.allclose(weights @ V, context))
print("строки в сумме 1:", np.allclose(weights.sum(axis=1), 1), "  над диагональю ровно 0:", np.all(weights[~causal] == 0))
vis.heatmap(weights, tokens, tokens, mask=causal, title="Причинное внимание: серое — будущее, спрятано")
plt.show()
print("веса «Your»:", ", ".join(f"{t} {w:.2f}" for t, w in zip(tokens, weights[0])))
print("веса «step»:", ", ".join(f"{t} {w:.2f}" for t, w in zip(tokens, weights[-1])))

# %% [markdown]
# Первая строка — «Your» смотрит только на себя (вес 1): больше ему смотреть не на кого.
# Последней строке, «step», разрешено смотреть на всю фразу — в ней ни одной серой клетки, — и
# её вес разошёлся по всем шести словам, больше всего — к «journey». Серые клетки — будущее: их веса
# ровно нули. Маска решает, куда *можно* смотреть; куда токен смотрит на самом деле, решают оценки.
#
# А вот и сама `scaled_dot_product_attention` из `course_lib` — те же шаги, по строке на каждый:
# оценки, маска ($-\infty$ там, где смотреть нельзя), softmax, взвешенная сумма значений. Ветка
# `if fast_enabled()` ведёт в «машинное отделение» — ту же формулу, слитую ради скорости (урок 08);
# без `with nt.fast():` она не срабатывает.

# %%
print(inspect.getsource(nt.scaled_dot_product_attention))

# %% [markdown]
# ### Почему $-\infty$ до softmax, а не обнулить будущее после?
#
# Казалось бы, проще посчитать обычный softmax и занулить клетки будущего. Но softmax уже
# поделил единицу на **все** клетки строки, и доля будущего пропадёт вместе с ним: строки
# перестанут давать в сумме 1. А $-\infty$ до softmax выключает клетку ещё до деления:
# $e^{-\infty} = 0$, и единица делится только между разрешёнными.

# %%
zeroed_after = nt.softmax(scores) * causal                # обычный softmax, потом будущее := 0
print("суммы строк, −∞ до softmax:    ", np.round(weights.sum(axis=1), 2))
print("суммы строк, обнулили после:   ", np.round(zeroed_after.sum(axis=1), 2))
renormalised = zeroed_after / zeroed_after.sum(axis=1, keepdims=True)
print("обнулили и поделили на сумму строки == −∞ до softmax:", np.allclose(renormalised, weights))

# %% [markdown]
# После обнуления строки дают в сумме от 0.1 до 0.86: у «Your» пропало 90 % веса — столько
# softmax отдал будущему. Целой осталась только последняя строка, которой прятать нечего.
# Можно поделить на сумму строки заново — на этих оценках выйдет то же самое. Но это лишний проход, и он ломается на больших
# оценках: если будущее перетянуло на себя весь вес, прошлому после softmax остаются нули
# (столь малые $e^{s}$ не помещаются в число с плавающей точкой), и деление даёт $0/0$:

# %%
big = np.array([[0.0, 800.0]])                            # запрос 0: прошлое 0, будущее 800
allowed_2 = nt.causal_mask(2)[:1]                         # первая строка маски T = 2: [True, False]
with np.errstate(invalid="ignore"):
    after = nt.softmax(big) * allowed_2
    print("обнулили после и поделили:", after / after.sum(axis=-1, keepdims=True))
print("−∞ до softmax:             ", nt.softmax(np.where(allowed_2, big, -np.inf)))

# %% [markdown]
# ## Три записи одной маски
#
# В чужом коде маску записывают по-разному, и на этом спотыкаются все:
#
# - `np.tril(np.ones((T, T)))` — **1 = можно**; прячут клетки, где `== 0` (так в `model.py` репозитория nanoGPT Андрея Карпаты и во многих туториалах);
# - `np.triu(np.ones((T, T)), k=1)` — **1 (True) = спрятать**; так устроен булев `attn_mask`
#   в `torch.nn.MultiheadAttention`;
# - `nt.causal_mask(T)` — **True = можно смотреть**; так в `course_lib` и в булевом `attn_mask`
#   функции `torch.nn.functional.scaled_dot_product_attention` (обе записи PyTorch — по его документации).
#
# Четвёртая запись — маска-слагаемое: матрица из $0$ и $-\infty$, которую прибавляют к оценкам.
# Докажем, что все четыре дают одни и те же веса:

# %%
lower = np.tril(np.ones((T, T)))                         # 1 = можно
hidden = np.triu(np.ones((T, T)), k=1).astype(bool)      # True = спрятать
allowed = nt.causal_mask(T)                              # True = можно
additive = np.where(allowed, 0.0, -np.inf)               # 0 = можно, −∞ = спрятать

w_lower = nt.softmax(np.where(lower == 0, -np.inf, scores))
w_hidden = nt.softmax(np.where(hidden, -np.inf, scores))
w_allowed = nt.softmax(np.where(allowed, scores, -np.inf))
w_additive = nt.softmax(scores + additive)
print("tril == 0  ==  triu(k=1)  ==  causal_mask  ==  слагаемое:",
      np.allclose(w_lower, w_hidden) and np.allclose(w_hidden, w_allowed) and np.allclose(w_allowed, w_additive))
print("hidden — это ровно ~allowed:", np.array_equal(hidden, ~allowed))

# %% [markdown]
# А вот что бывает, если перепутать соглашения: взять `triu(k=1)` («спрятать») и отдать его
# туда, где ждут «можно смотреть». Модель смотрит **только** в будущее, а последнему токену
# смотреть некуда вовсе:

# %%
w_bug = nt.softmax(np.where(hidden, scores, -np.inf))    # ошибка: «спрятать» принято за «можно»
print(f"суммарный вес будущего по всем строкам: правильно {w_allowed[~allowed].sum():.1f}, с ошибкой {w_bug[~allowed].sum():.1f}")
print("сумма весов последней строки с ошибкой:", w_bug[-1].sum())

# %% [markdown]
# Последняя строка — целиком из $-\infty$. Честный softmax дал бы там $0/0$ = nan:

# %%
with np.errstate(invalid="ignore"):
    row = np.full(3, -np.inf)
    print("наивный softmax строки из −∞:", np.exp(row) / np.exp(row).sum())
print("nt.softmax той же строки:     ", nt.softmax(row))

# %% [markdown]
# `course_lib` договорился так: запрос, которому смотреть некуда, получает нулевые веса и нулевой
# context (это написано в `help(nt.scaled_dot_product_attention)`). Нам это пригодится для паддинга.

# %% [markdown]
# ## «Не подглядывает» — проверяем
#
# Главное обещание маски: выход токена $t$ зависит только от токенов $0 \dots t$. Проверим на слое
# `MultiHeadAttention`: заменим последнее слово «step» на «leap» и посмотрим, чьи выходы изменились.
# У слоя `num_heads=2` **головы** — два внимания с разными $W_Q, W_K, W_V$, работающие
# параллельно (подробно — урок 06); `causal=True` ставит одну и ту же маску в обеих.

# %%
vocab = sorted(set("<pad> Your journey starts with one step leap кот сел на коврик привет мир".split()))
nt.manual_seed(0)
embedding = nt.Embedding(len(vocab), d_model)


def embed(words):
    """Слова -> X (T, d_model): строки таблицы эмбеддингов."""
    return embedding([vocab.index(w) for w in words]).data


# %%
changed = tokens[:-1] + ["leap"]                         # Your journey starts with one leap
for is_causal in (True, False):
    nt.manual_seed(0)                                    # одни и те же веса в обоих слоях: разница только в маске
    mha = nt.MultiHeadAttention(d_model, num_heads=2, causal=is_causal)
    before, after = mha(embed(tokens)[None]).data[0], mha(embed(changed)[None]).data[0]   # (T, d_model)
    diffs = np.abs(after - before).max(axis=1)           # (T,): насколько изменился выход каждого токена
    shown = ["0" if d < 1e-12 else f"{d:.2f}" for d in diffs]
    print(f"{'с маской  ' if is_causal else 'без маски '}: изменение выходов по позициям {shown}")
    if is_causal:
        assert np.all(diffs[:-1] < 1e-12), (
            f"с маской изменились выходы прошлых позиций: наибольшее изменение {diffs[:-1].max():.2e}, а нужно 0")

# %% [markdown]
# С маской первые пять выходов не сдвинулись ни на йоту — изменился только выход самого «leap».
# Без маски поменялось всё: даже «Your» в начале фразы «знает», чем она кончится.

# %% [markdown]
# ## Энкодер и декодер
#
# Маска нужна не всегда. **Декодеры** (GPT — Radford et al., 2018; LLaMA — Touvron et al., 2023) генерируют
# текст слева направо — им маска обязательна. **Энкодеры** (BERT — Devlin et al., 2019) читают готовый
# текст целиком и учатся угадывать пропущенное слово: «кот [MASK] на коврике» — чтобы угадать «сел», полезно видеть и «кот», и «на коврике».
# Им маска только мешала бы. Разница — в числе разрешённых пар:

# %%
for T_demo in (6, 1000):
    pairs = nt.causal_mask(T_demo).sum()
    print(f"T = {T_demo:>4}: энкодер смотрит на {T_demo * T_demo:>7} пар, декодер — на {pairs:>6} = T(T+1)/2"
          f" ({pairs / T_demo**2:.0%})")

# %% [markdown]
# ## Маска паддинга: батч фраз разной длины
#
# Модель обрабатывает сразу батч из $N$ фраз — массив $(N, T, d_\text{model})$. Но фразы разной
# длины, поэтому короткие дополняют пустым токеном `<pad>` до общей длины. Этот мусор нельзя
# пускать во внимание: «кот» не должен смотреть на `<pad>`.
#
# Решение — ещё одна маска, по ключам: у фразы длины $L$ открыты ключи $0 \dots L-1$.
# Форма $(N, 1, 1, T)$: одна строка на фразу, растягивается на все головы и все запросы.

# %%
sentences = ["Your journey starts with one step", "кот сел на коврик", "привет мир"]
lengths = np.array([len(s.split()) for s in sentences])                  # (N,) = [6, 4, 2]
T_max = lengths.max()
padded = [s.split() + ["<pad>"] * (T_max - len(s.split())) for s in sentences]
X_batch = np.stack([embed(words) for words in padded])                  # (N, T, d_model) = (3, 6, 8)
key_mask = np.arange(T_max) < lengths[:, None]                          # (N, T): True — настоящий токен
mask = key_mask[:, None, None, :]                                       # (N, 1, 1, T): на все головы и запросы
print("форма маски:", mask.shape)
print(key_mask.astype(int))

# %% [markdown]
# Проверим главное: с маской каждая фраза в батче считается так, будто она одна, без паддинга.
# Без маски выходы коротких фраз искажены.

# %%
nt.manual_seed(1)
mha = nt.MultiHeadAttention(d_model, num_heads=2)
with_mask, without_mask = mha(X_batch, mask=mask).data, mha(X_batch).data      # (N, T, d_model)
for n, (words, L) in enumerate(zip(padded, lengths)):
    alone = mha(embed(words[:L])[None]).data[0]                                # та же фраза без паддинга
    print(f"«{sentences[n]}»: с маской как одна? {np.allclose(with_mask[n, :L], alone)!s:5}  "
          f"без маски? {np.allclose(without_mask[n, :L], alone)}")

# %% [markdown]
# Посмотрим на веса второй фразы в первой голове слоя (`mha.attn` формы $(N, h, T, T)$ —
# по матрице на фразу и голову; головы — урок 06). Столбцы `<pad>` серые: на них не смотрит никто.
# А строки `<pad>` — запросы-пустышки — смотрят на настоящие слова; их выходы потом просто
# выбрасывают: например, не учитывают в **функции потерь** (loss) — числе «насколько модель
# ошибается», которое уменьшает обучение (урок 07).

# %%
mha(X_batch, mask=mask)
vis.heatmap(mha.attn[1, 0], padded[1], padded[1], mask=np.broadcast_to(key_mask[1], (T_max, T_max)),
            title="«кот сел на коврик» + 2 × <pad>: голова 1")
plt.show()
print("вес, доставшийся <pad>:", mha.attn[1][..., ~key_mask[1]].sum())

# %% [markdown]
# Если заодно спрятать и запросы-пустышки (маска $(N, 1, T, T)$ — «ключ настоящий **и** запрос
# настоящий»), их строки станут целиком спрятанными. По договорённости `course_lib` у них нулевые
# веса и нулевой context — без nan. Для GPT паддинг складывают с причинной маской:
# слой с `causal=True` сам делает `mask & causal_mask(T)`.

# %%
both = key_mask[:, None, None, :] & key_mask[:, None, :, None]                   # (N, 1, T, T)
mha(X_batch, mask=both)
print("веса запросов <pad> третьей фразы:", mha.attn[2, :, 2:].sum(), "; nan нет:", not np.isnan(mha.attn).any())

nt.manual_seed(2)
gpt_like = nt.MultiHeadAttention(d_model, num_heads=2, causal=True)
out = gpt_like(X_batch, mask=mask).data
same = [np.allclose(out[n, :L], gpt_like(embed(w[:L])[None]).data[0]) for n, (w, L) in enumerate(zip(padded, lengths))]
print("причинная маска + паддинг: каждая фраза как одна?", same)

# %% [markdown]
# ## Поиграйте
#
# Ползунок `T` — длина фразы, флажок «причинная маска», «запрос №» — чью строку показывают
# столбики справа (номера с нуля). Сверху над матрицей написано, сколько клеток спрятано.
# **Посмотрите:** с маской серые клетки — весь верхний треугольник, и первый токен всегда
# смотрит только на себя. Сначала выбран последний токен — ему прятать нечего, его строка
# с маской и без одинакова. Сдвиньте «запрос №» влево, к началу фразы, и снимите флажок:
# серое исчезнет, и столбики запроса потянутся вправо, в будущее.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.causal import causal_explorer, causal_view

causal_explorer(T=6, causal=True)

# %% [markdown]
# Что виджет показывает, в числах: сколько клеток спрятано при разных $T$ — ровно $T(T-1)/2$ —
# и сколько веса запрос отдаёт будущему без маски и с ней.

# %%
for T_demo in (1, 3, 6, 11):
    view = causal_view(T_demo, causal=True, query=0)
    print(f"T = {T_demo:>2}: спрятанных клеток {view.hidden:>2} из {T_demo * T_demo:>3};  T(T−1)/2 = {T_demo * (T_demo - 1) // 2}")
for query in (1, 5):
    future = {is_causal: float(causal_view(6, is_causal, query).weights[query, query + 1:].sum()) for is_causal in (False, True)}
    print(f"T = 6, запрос № {query}: вес будущего без маски {future[False]:.2f}, с маской {future[True]:.2f}")

# %% [markdown]
# ## Упражнение 1. Причинные веса
#
# Напишите `causal_weights(scores)`: оценки $(\dots, T, T)$ → веса той же формы. Будущее
# (клетки выше диагонали) спрятать до softmax, строки должны давать в сумме 1.
# Пригодятся `np.tril` или `nt.causal_mask`, `np.where`, `nt.softmax`.

# %%
from course_lib.exercises.causal import check_causal_weights, check_padding_mask


def causal_weights(scores):
    raise NotImplementedError  # ваш код здесь


check_causal_weights(causal_weights)

# %% [markdown] tags=["solution"]
# Решение — под своим именем, чтобы ваша `causal_weights` и её проверка остались вашими:

# %% jupyter={"source_hidden": true} tags=["solution"]
# T — последняя ось; маска (T, T) сама растягивается на батч и головы.
def causal_weights_solution(scores):
    T = scores.shape[-1]
    return nt.softmax(np.where(nt.causal_mask(T), scores, -np.inf))


check_causal_weights(causal_weights_solution)

# %% [markdown]
# ## Упражнение 2. Маска паддинга
#
# Напишите `padding_mask(lengths, T)`: по длинам фраз $(N,)$ верните булеву маску формы
# $(N, 1, 1, T)$, где `True` — настоящий токен (на него можно смотреть). Проверка подаст её
# в `MultiHeadAttention` и сравнит каждую фразу с ней же без паддинга.

# %%
def padding_mask(lengths, T):
    raise NotImplementedError  # ваш код здесь


check_padding_mask(padding_mask)

# %% [markdown] tags=["solution"]
# Решение:

# %% jupyter={"source_hidden": true} tags=["solution"]
# Позиция t настоящая, если t < L; две новые оси — для голов и запросов.
def padding_mask_solution(lengths, T):
    return (np.arange(T) < np.asarray(lengths)[:, None])[:, None, None, :]


check_padding_mask(padding_mask_solution)

# %% [markdown]
# ## Итог
#
# - Без маски GPT списывал бы: на каждой позиции правильный ответ — следующий токен — был бы в поле зрения.
# - Причинная маска — это $-\infty$ над диагональю до softmax; после softmax там ровно 0.
#   Обнулить будущее после softmax — строки теряют часть веса; поделить заново — лишний проход,
#   который на больших оценках даёт $0/0$.
#   Усреднение прошлого в цикле, $A X$ с нижнетреугольной $A$ и softmax с $-\infty$ — одно и то же.
# - `tril == 0` → $-\infty$, `triu(k=1)` → $-\infty$ (True = спрятать), `causal_mask` (True = можно)
#   и маска-слагаемое $0/-\infty$ дают одинаковые веса. Перепутать «спрятать» и «можно» — значит
#   смотреть только в будущее.
# - С маской выход токена $t$ не зависит от токенов после $t$ — проверено заменой слова.
# - Энкодеры (BERT) видят всё, декодеры (GPT) — только прошлое.
# - Маска паддинга $(N, 1, 1, T)$ прячет `<pad>`-ключи: каждая фраза батча считается как одна.
#
# **Дальше:** урок 06 — многоголовое внимание: зачем нескольким головам смотреть на одну фразу,
# что при этом достаётся бесплатно (параметры) и что растёт с числом голов (память под веса).

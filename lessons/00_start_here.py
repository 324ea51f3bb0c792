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
# # Урок 00. С чего начать
#
# Это курс «Attention без магии»: мы разберём механизм внимания — от векторов слов до
# многоголового внимания — на маленькой библиотеке `course_lib`, которую можно прочитать
# строчка за строчкой. Никакой магии: три матрицы, скалярное произведение, softmax.
#
# **В этом уроке:**
# - как пользоваться курсом: JupyterLab, «Run All», ползунки;
# - проверим, что у вас всё установлено (`course_lib.doctor()`);
# - первый ползунок: двигаете — картинка меняется. Если он работает, виджеты у вас установлены.
#
# Незнакомое слово — загляните в [глоссарий](glossary.md) (русский ↔ английский, со ссылкой
# на урок, где слово объясняется); формы массивов всех уроков собраны в
# [шпаргалке по формам](shapes.md).

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
# ## Как устроен курс
#
# Каждый урок — тетрадка Jupyter. `make lab` открывает в JupyterLab **вашу копию** уроков —
# папку `work/` (её создаёт первый запуск, git её не видит): правьте, сохраняйте и ломайте
# смело, исходники курса в `lessons/` от этого не меняются. Начать урок заново:
# `make fresh LESSON=03` (прежняя копия уйдёт в `work/backup/`). Выполните все ячейки сверху
# вниз: меню **Run → Run All Cells** (или по одной: **Shift+Enter**).
#
# В `lessons/` у каждой тетрадки есть близнец — файл `.py` с тем же именем: тот же урок
# обычным текстом (формат jupytext «percent»), его правят авторы курса.
#
# Утверждения в уроках двух видов.
# - **О коде и моделях курса** («веса в строке в сумме дают 1», «голова смотрит на предыдущий
#   токен»): урок проверяет их тут же, в ячейке рядом — `assert`, напечатанное `True`
#   (`np.allclose(...)`) или измеренное число. Меняйте код, ломайте — и смотрите, какое
#   утверждение перестанет выполняться. Если проверка — в другом уроке, текст так и говорит:
#   «это мы проверим в уроке 10».
# - **О мире** (история, статьи, размеры настоящих моделей, соглашения других библиотек): в ячейке
#   их не проверить, поэтому рядом назван источник — авторы и год статьи или документация библиотеки.

# %% [markdown]
# ## Всё ли установлено
#
# `doctor()` проверяет Python, библиотеки и расширение виджетов. Строчки проверок должны быть
# с ✅; строчка с ℹ️ — не проверка, а подсказка: что нужно ползункам там, где открыт урок.
# Если где-то ❌ — закройте JupyterLab и снова выполните `make lab` в папке курса.

# %%
import numpy as np

import course_lib as nt

ok = nt.doctor()
assert ok, "что-то не установлено — см. строчки с ❌ выше"

# %% [markdown]
# ## Библиотека курса за одну ячейку
#
# `course_lib` — это NumPy плюс автоматическое дифференцирование (autograd, «автоград»): **тензор** (массив NumPy с
# памятью) помнит, из чего он посчитан, и умеет найти **градиент** — насколько быстро растёт
# результат, если чуть сдвинуть каждое входное число. По градиенту модель и учится (урок 07).
# Например, для $y = \sum_i x_i^2$ градиент равен $2x$:

# %%
x = nt.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward()
print("y =", y.item(), " градиент:", x.grad)
assert np.allclose(x.grad, 2 * x.data), f"градиент {x.grad}, а должен быть 2·x = {2 * x.data}"

# %% [markdown]
# А вот и главное действующее лицо курса — слой внимания. Пока со случайными весами:
# на вход — 5 векторов по 8 чисел (предложение из 5 токенов, по вектору на токен), на выход —
# тоже 5 векторов по 8 чисел. У слоя два числа-настройки: `d_model = 8` — длина вектора
# токена, и `num_heads = 2` — сколько **голов** у слоя. Голова — это одно внимание целиком:
# слой считает его дважды, параллельно и независимо, и каждой голове достаётся своя часть
# вектора — `d_head = 8 / 2 = 4` числа (видно в распечатке ниже).
# Зачем так делать — подробно в уроке 06, а до него хватит знать, что голов может быть больше одной.

# %%
nt.manual_seed(0)                                      # зерно (seed): те же «случайные» веса при каждом запуске
mha = nt.MultiHeadAttention(d_model=8, num_heads=2)
X = np.random.default_rng(0).normal(size=(1, 5, 8))    # (N, T, d_model): 1 предложение из 5 токенов
out = mha(X)
print(mha)
print("вход:", X.shape, "-> выход:", out.shape, " веса внимания:", mha.attn.shape)

# %% [markdown]
# В распечатке слоя — четыре матрицы `W_q, W_k, W_v, W_o`: что они делают, разберём
# в уроках 03 и 06; `causal` — маска из урока 05. Сейчас важны формы. Вход и выход —
# `(N, T, d_model) = (1, 5, 8)`: $N = 1$ предложение, $T = 5$ токенов, по 8 чисел на токен.
# Веса внимания — `(1, 2, 5, 5)`: на 1 предложение, для каждой из **2 голов**, таблица 5 × 5 —
# сколько каждый из 5 токенов берёт от каждого из 5. Каждая строка таблицы в сумме даёт 1,
# и у двух голов таблицы свои:

# %%
N, h, T = X.shape[0], mha.num_heads, X.shape[1]
assert mha.attn.shape == (N, h, T, T), f"веса формы {mha.attn.shape}, а нужна (N, h, T, T) = {(N, h, T, T)}"
print("каждая строка весов в сумме 1:", np.allclose(mha.attn.sum(axis=-1), 1))
print("у голов 0 и 1 разные веса:", not np.allclose(mha.attn[0, 0], mha.attn[0, 1]))

# %% [markdown]
# ## Первый ползунок
#
# Ниже — веса внимания для фразы «кот сел на тёплый коврик»: строка — кто смотрит,
# столбец — на кого. Чем ярче клетка, тем больше вес. Веса получаются из **оценок** —
# чисел «насколько этому слову интересно то», по одной на клетку. Здесь оценки мы придумали
# сами, чтобы были и сильные, и слабые связи; в уроке 03 их посчитает слой внимания.
# Из оценок веса делает функция **softmax**: любые числа строки превращает в положительные
# веса с суммой 1, и чем больше оценка, тем больше вес (как именно — в уроке 02).
# Ползунок $\tau$ (**температура**) делит оценки перед softmax.

# %%
from course_lib.widgets.softmax import DEMO_SCORES, DEMO_TOKENS, temperature_view

print("оценки для строки «кот»:", dict(zip(DEMO_TOKENS, DEMO_SCORES[0].tolist())))
print("веса при τ = 1 — это softmax(оценки):", np.allclose(temperature_view(1.0).weights, nt.softmax(DEMO_SCORES)))

# %% [markdown]
# **Поиграйте:** потяните $\tau$ влево — каждая строка «впивается» в одно слово;
# вправо — веса расплываются, приближаясь к поровну. Если картинка меняется вслед за ползунком,
# виджеты у вас работают.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets import temperature_heatmap, temperature_view

explorer = temperature_heatmap()
explorer

# %% [markdown]
# То, что вы видели глазами, — в числах. В каждой строке веса в сумме дают 1 при любой
# температуре; при маленькой $\tau$ самый большой вес строки близок к 1, при большой —
# к $1/T = 1/5 = 0.2$ (поровну на все $T = 5$ слов):

# %%
for tau in [0.1, 1.0, 10.0]:
    weights = temperature_view(tau).weights
    assert np.allclose(weights.sum(axis=1), 1), f"при τ = {tau} суммы строк весов {weights.sum(axis=1)}, а нужна 1"
    print(f"τ = {tau:>4}: средний самый большой вес в строке = {weights.max(axis=1).mean():.2f}")
assert temperature_view(0.1).weights.max(axis=1).mean() > 0.9, (
    f"при τ = 0.1 средний самый большой вес {temperature_view(0.1).weights.max(axis=1).mean():.3f}, а нужно > 0.9")
assert temperature_view(10.0).weights.max(axis=1).mean() < 0.3, (
    f"при τ = 10 средний самый большой вес {temperature_view(10.0).weights.max(axis=1).mean():.3f}, а нужно < 0.3")

# %% [markdown]
# ## Итог
#
# - Ваши тетрадки — в `work/` (`make lab`), исходники курса — в `lessons/`, с близнецами `.py`.
# - Выполняйте ячейки сверху вниз; каждое утверждение о коде проверено в ячейке рядом, у факта о мире
#   назван источник.
# - `course_lib` — маленькая библиотека на NumPy: тензор с градиентом, внимание, слои, картинки.
# - Слой внимания превращает `(N, T, d_model)` в `(N, T, d_model)`; его веса — `(N, h, T, T)`:
#   по таблице T × T на каждую из $h$ голов, строки в сумме 1 (головы — в уроке 06).
# - Ползунки перерисовывают картинку сразу; если картинка не меняется, запустите `doctor()`.
#
# **Дальше:** урок 01 — как слова превращаются в векторы и почему одного вектора на слово мало.

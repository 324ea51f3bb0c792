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
# # Урок 08. Цена внимания: O(T²), KV-кэш и точное внимание без матрицы T×T
#
# Матрица весов внимания имеет размер $T \times T$: каждый токен сравнивается с каждым.
# Для 1000 токенов — миллион весов на каждую голову каждого слоя, для 100 000 — 10 миллиардов.
# Это главная цена трансформера. В этом уроке мы её измерим и разберём три приёма, которые
# с ней борются, — каждый в NumPy и каждый с проверкой. Запись $O(T^2)$ в заголовке
# (**O-нотация**, «порядка $T^2$») значит: при росте $T$ работа или память растёт как $T^2$,
# с точностью до постоянного множителя — удвоили $T$, и она выросла примерно вчетверо.
#
# Термины — в [глоссарии](glossary.md), формы массивов — в [шпаргалке по формам](shapes.md).
#
# **В этом уроке:**
# - измерим время и память обычного внимания и увидим на графике, что они растут как $T^2$;
# - посчитаем, сколько памяти попросили бы 100 000 токенов;
# - **KV-кэш:** почему при генерации не нужно заново считать ключи и значения прошлых токенов;
# - **online softmax:** точное внимание по блокам ключей, без матрицы $T \times T$ — идея FlashAttention
#   (Dao et al., 2022, «FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness»);
# - **локальное внимание:** окно из последних токенов — дёшево, но дальнее уже не видно.

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
import timeit

import matplotlib.pyplot as plt
import numpy as np

import course_lib as nt
from course_lib import vis
from course_lib.russian import number     # 126 767, а не 126,767: по-русски запятая — дробная часть

# %% [markdown]
# ## Где прячется квадрат
#
# Вспомним самовнимание для «кот сел на тёплый коврик»: 5 токенов, и матрица весов — 5 × 5.
# Каждая строка — кто смотрит, каждый столбец — на кого. Добавили токен — добавились
# и строка, и столбец.

# %%
rng = np.random.default_rng(0)
for T in [5, 10, 20, 40]:
    Q, K, V = (rng.normal(size=(T, 8)) for _ in range(3))
    context, weights = nt.scaled_dot_product_attention(Q, K, V)
    print(f"T = {T:>2}: context {context.shape}, веса {weights.shape} — {weights.size:>4} чисел")

# %% [markdown]
# Выход `context` растёт как $T$, а веса — как $T^2$: удвоили текст — весов вчетверо больше.
# И такая матрица — у каждой головы: в уроке 06 мы видели, что `.attn` имеет форму $(N, h, T, T)$.
# Одно число float64 — 8 байт. Посчитаем, сколько весит одна матрица $T \times T$ — на одну
# голову одного слоя — для длинных текстов:

# %%
for T in [1_000, 10_000, 100_000]:
    cells = T * T
    print(f"T = {number(T):>7}: {number(cells):>14} весов — float64 {cells * 8 / 1e9:>6.3f} ГБ, "
          f"float16 {cells * 2 / 1e9:>6.3f} ГБ")
assert 100_000 * 100_000 == 10_000_000_000, f"100 000² = {number(100_000 * 100_000)}"     # те самые 10 миллиардов весов

# %% [markdown]
# 100 000 токенов — это 10 миллиардов весов, **80 ГБ в float64** (20 ГБ даже в float16)
# на одну голову одного слоя. А у GPT-3 — 96 голов в каждом из 96 слоёв. Хранить такие
# матрицы нельзя — значит, нужно научиться без них обходиться. Но сначала убедимся, что
# квадрат — не только арифметика на бумаге, а то, что показывает секундомер.

# %% [markdown]
# ## Измеряем: время
#
# Засечём обычное внимание `scaled_dot_product_attention` для одной головы ($d_k = 64$)
# при разных $T$. Меряем не время на часах, а **время процессора**, потраченное на наши
# вычисления (`time.process_time`): пока процессор занят соседними программами, эти часы
# стоят. Матрицы NumPy умножает не сам, а через **BLAS** — библиотеку быстрых подпрограмм линейной
# алгебры (у нас OpenBLAS), которая умеет считать в несколько потоков. На время замера BLAS
# считает в один поток: иначе время процессора сложилось бы по всем потокам, даже по тем, что
# просто ждут работы. Из пяти повторов берём лучший. Функции замера — общие для уроков и
# `benchmarks/`, они лежат в `course_lib.measure`; вот первая:

# %%
from course_lib.measure import peak_bytes, seconds, slope

print(inspect.getsource(seconds))

# %% [markdown]
# Замерим. Числа у вас будут другими — важно, как они растут. Меряем внутри `with nt.fast():` —
# в «машинном отделении» библиотеки (`course_lib/engine_room/`): там те же три шага — оценки, маска,
# softmax — слиты в одну операцию, которая проходит матрицу $T \times T$ кусками, пока они лежат в
# быстрой памяти процессора, и на всех ядрах. Ответ тот же (это проверяют тесты), а квадрат
# остаётся: слияние меняет множитель, а не степень. Как устроено отделение — ниже, в разделе
# «Машинное отделение».

# %% tags=["nbval-ignore-output"]
lengths = np.array([64, 128, 256, 512, 1024, 2048])
inputs = {T: tuple(np.random.default_rng(T).normal(size=(3, T, 64))) for T in lengths}   # Q, K, V для каждой длины
with nt.fast():                                          # те же формулы, слитые (course_lib/engine_room/attention.py)
    standard_time = np.array([seconds(lambda: nt.scaled_dot_product_attention(*inputs[T]), 5) for T in lengths])
for T, t in zip(lengths, standard_time):
    print(f"T = {T:>4}: {t * 1e3:7.1f} мс")

# %% [markdown]
# На графике в логарифмическом масштабе по обеим осям степень $t \propto T^a$ становится
# прямой с наклоном $a$. Подгоним прямую (`np.polyfit` по логарифмам) по длинам от 256: на
# коротких заметны слагаемые, растущие только как $T$ (деление $Q$ на $\sqrt{d_k}$, проверки входов).

# %% tags=["nbval-ignore-output"]
long = lengths >= 256                                    # где главное слагаемое — T²
time_slope = slope(lengths[long], standard_time[long])
fig, ax = plt.subplots(figsize=(5.5, 3.8), layout="constrained")
ax.loglog(lengths, standard_time * 1e3, "o-", color=vis.BAR_COLOR, label=f"обычное внимание, наклон {time_slope:.2f}")
ax.loglog(lengths, standard_time[-1] * 1e3 * (lengths / lengths[-1]) ** 2, "--", color="grey", label="∝ T²")
ax.set(xlabel="длина T, токенов", ylabel="время, мс", title="Время внимания растёт как T²")
ax.set_xticks(lengths, labels=lengths, minor=False)
ax.xaxis.set_minor_locator(plt.NullLocator())
ax.legend()
plt.show()
print(f"наклон по T ≥ 256: {time_slope:.2f}")

# %% [markdown]
# Наклон — около 2: удвоили $T$ — время выросло почти вчетверо. Время — это замер, а не расчёт:
# на занятой машине наклон скачет от запуска к запуску (у нас выходило от 1.6 до 2.1), поэтому
# `assert` на него урок не ставит. Память ниже считается точно — её проверяем.
# На самых коротких длинах точки лежат выше прямой: там время съедают накладные расходы.
# В `benchmarks/efficient.py` тот же замер до $T = 4096$.

# %% [markdown]
# ## Измеряем: память
#
# Память меряем модулем `tracemalloc` из стандартной библиотеки: NumPy сообщает ему о каждом
# своём массиве. Нас интересует пик — сколько байт понадобилось сверх уже занятого, пока
# считалось внимание. Числа здесь от соседних программ не зависят, но чуть-чуть — от версий
# NumPy и Python, поэтому сами байты ячейка не сравнивает, а проверяет их рост `assert`-ами.

# %%
print(inspect.getsource(peak_bytes))

# %% tags=["nbval-ignore-output"]
standard_memory = np.array([peak_bytes(lambda: nt.scaled_dot_product_attention(*inputs[T])) for T in lengths])
for T, peak in zip(lengths, standard_memory):
    print(f"T = {T:>4}: пик {peak / 2**20:6.1f} МиБ, одна матрица T×T float64 — {T * T * 8 / 2**20:5.1f} МиБ,"
          f" пик / матрица = {peak / (T * T * 8):4.2f}")
longest = lengths >= 512                                 # для памяти массивы T × d_k заметны дольше
memory_slope = slope(lengths[longest], standard_memory[longest])
print(f"наклон памяти по T ≥ 512: {memory_slope:.2f}")
assert np.all(standard_memory >= lengths**2 * 8), (
    f"хотя бы одна матрица T×T лежит в памяти целиком, а при T = {lengths[standard_memory < lengths**2 * 8]} "
    f"пик {standard_memory[standard_memory < lengths**2 * 8]} байт меньше T·T·8 = "
    f"{lengths[standard_memory < lengths**2 * 8]**2 * 8}")
assert abs(memory_slope - 2) < 0.15, f"наклон памяти по T ≥ 512 {memory_slope:.2f}, а нужен 2 ± 0.15"

# %% [markdown]
# Пик — не меньше одной матрицы $T \times T$: веса мы возвращаем, и они лежат в памяти целиком.
# Сколько сверху (последний столбец), зависит от того, как внимание устроено внутри: держит ли
# оно рядом с весами ещё и оценки до softmax, — плюс массивы $T \times d_k$ (входы, умноженные на
# $1/\sqrt{d_k}$, и `context`), заметные на коротких длинах. Растёт пик почти вчетверо при удвоении
# $T$: наклон около 2 — чуть меньше из-за тех же массивов $T \times d_k$, поэтому наклон памяти
# берём по $T \ge 512$. Запомним эти числа: ниже мы сравним с ними внимание без матрицы.

# %% [markdown]
# ## KV-кэш: не считать прошлое заново
#
# Языковая модель пишет текст по токену: «Your journey starts with one» → «step» → и дальше.
# Каждый новый токен — ещё один проход модели. Если делать это «в лоб», на шаге $t$ модель
# читает весь префикс из $t$ токенов: заново считает $Q$, $K$, $V$ для всех и матрицу весов
# $t \times t$. Почти вся эта работа уже была сделана на прошлом шаге.
#
# Возьмём крошечную случайную модель `TinyDecoder`: эмбеддинги с позициями, один слой
# причинного `MultiHeadAttention` (урок 06) и линейный слой, который превращает вектор
# в оценки следующего токена. Учить её не будем: нам важна работа, а не смысл.

# %%
from course_lib.props.generation import TinyDecoder, generate_with_cache, generate_without_cache

nt.manual_seed(0)
model = TinyDecoder(vocab_size=50, d_model=32, num_heads=2, max_len=256)
print(model)

# %% [markdown]
# Почему прошлое можно не пересчитывать? Из-за причинной маски (урок 05): старые токены
# не видят новых. Допишем токен в конец — выходы модели на всех старых позициях не изменятся,
# и ключи $K$ старых токенов тоже (до ошибок округления порядка $10^{-16}$: BLAS складывает
# числа в чуть другом порядке, когда матрица на строку длиннее):

# %%
ids = np.array([[3, 14, 15, 9, 26, 5]])                        # (N=1, T=6)
with nt.no_grad():
    short, longer = model(ids[:, :5]).data, model(ids).data     # (1, 5, 50) и (1, 6, 50)
    keys_short = model.attention.W_k(model.embedding(ids[:, :5]) + model.positions[:5]).data
    keys_longer = model.attention.W_k(model.embedding(ids) + model.positions[:6]).data
output_gap = np.abs(short - longer[:, :5]).max()
keys_gap = np.abs(keys_short - keys_longer[:, :5]).max()
print(f"выходы на 5 старых позициях совпали: {output_gap < 1e-12} (расхождение < 1e-12)")
print(f"ключи 5 старых токенов совпали:      {keys_gap < 1e-12}")
assert output_gap < 1e-12 and keys_gap < 1e-12, (
    f"расхождение выходов {output_gap:.2e}, ключей {keys_gap:.2e}, а нужно меньше 1e-12")

# %% [markdown]
# Значит, ключи и значения прошлых токенов можно хранить — это и есть **KV-кэш**. На каждом
# шаге модель считает $q$, $k$, $v$ только для нового токена, дописывает $k$ и $v$ в кэш и
# смотрит запросом $q$ на все ключи кэша. Вот шаг модели — он почти весь в вызове
# `self.attention.step`:

# %%
print(inspect.getsource(TinyDecoder.step))

# %% [markdown]
# Строчка `x = x + self.attention.step(x, cache)` — **остаточная связь** (residual connection):
# внимание не заменяет вектор токена, а прибавляет к нему поправку, собранную с других токенов.
# Так устроен каждый блок трансформера; зачем это нужно и что ещё стоит в блоке — в уроке 09.
# Кэшу она не мешает: и прибавка, и сам `x` здесь — только для нового токена.
#
# А вот сам шаг слоя внимания — метод `step` того же `MultiHeadAttention`, что в уроке 06:
# `forward`, только для новых токенов и с кэшем:

# %%
print(inspect.getsource(nt.MultiHeadAttention.step))

# %% [markdown]
# Ключи и значения нового токена `cache.append` дописывает в кэш и возвращает весь кэш —
# прошлое и новый токен. Для одного нового токена маска пропускает все ключи: в кэше нет
# будущего. Она нужна, только если подать в `step` несколько новых токенов сразу — тогда они
# не должны смотреть друг другу в будущее. Та же строчка маски для кэша из 6 токенов:

# %%
t = 6
for n in (1, 3):
    print(f"новых токенов {n} (строка — новый токен, столбец — ключ кэша, 1 — можно смотреть):")
    print((np.arange(t) <= np.arange(t - n, t)[:, None]).astype(int))

# %% [markdown]
# Сгенерируем 40 токенов обоими способами (жадно: каждый раз берём самый вероятный токен)
# и сравним. Генерация — не обучение, поэтому внутри обеих функций стоит `nt.no_grad()`:
# граф для градиентов не строится.

# %%
prompt = np.array([[3, 14, 15]])
ids_full, logits_full = generate_without_cache(model, prompt, steps=40)
ids_cached, logits_cached = generate_with_cache(model, prompt, steps=40)
print("токены:", ids_cached[0, :16], "…")
print("токены совпали:", np.array_equal(ids_full, ids_cached))
print(f"оценки совпали до 1e-12: {np.abs(logits_full - logits_cached).max() < 1e-12}")
assert np.array_equal(ids_full, ids_cached) and np.abs(logits_full - logits_cached).max() < 1e-12, (
    f"токены совпали: {np.array_equal(ids_full, ids_cached)} (нужно True); "
    f"оценки разошлись на {np.abs(logits_full - logits_cached).max():.2e}, а нужно меньше 1e-12")

# %% [markdown]
# Ответ тот же. А работа? Без кэша шаг $t$ стоит как внимание на $t$ токенах — $O(t^2)$,
# и на $n$ новых токенов уходит $O(n^3)$. С кэшем шаг стоит $O(t)$ — скалярные произведения
# одного запроса со всеми ключами, — а всего $O(n^2)$. Посчитаем точно, сколько оценок $q \cdot k$
# в открытых маской клетках нужно на $n$ токенов: без кэша на шаге с префиксом длины $t$ их
# $t(t+1)/2$, с кэшем — $t$.

# %%
steps_list = np.array([24, 48, 96, 192])
work_ratio = []
for n in steps_list:
    t = np.arange(1, n + 1)                              # длина префикса на каждом шаге
    full, cached = int((t * (t + 1) // 2).sum()), int(t.sum())
    work_ratio.append(full / cached)
    print(f"{n:>4} токенов: оценок без кэша {number(full):>9}, с кэшем {number(cached):>6} — в {full / cached:4.1f} раза меньше")
work_ratio = np.array(work_ratio)
assert np.allclose(work_ratio, (steps_list + 2) / 3), (     # Σ t(t+1)/2 / Σ t = (n + 2) / 3
    f"без кэша работы больше в {np.round(work_ratio, 3)} раза, "
    f"а по формуле (n + 2) / 3 — в {np.round((steps_list + 2) / 3, 3)}")

# %% [markdown]
# По работе выигрыш растёт с длиной ровно: в $(n + 2)/3$ раза. А по времени? Засечём обе
# генерации — числа у вас будут другими.

# %% tags=["nbval-ignore-output"]
with nt.fast():                                          # быстрым путём, как замер выше
    time_full = np.array([seconds(lambda: generate_without_cache(model, prompt[:, :1], n), 2) for n in steps_list])
    time_cached = np.array([seconds(lambda: generate_with_cache(model, prompt[:, :1], n), 2) for n in steps_list])
speedup = time_full / time_cached
for n, a, b, s in zip(steps_list, time_full, time_cached, speedup):
    print(f"{n:>4} токенов: без кэша {a:6.3f} с, с кэшем {b:6.3f} с — быстрее в {s:4.1f} раза")

# %% tags=["nbval-ignore-output"]
fig, ax = plt.subplots(figsize=(5.5, 3.6), layout="constrained")
ax.plot(steps_list, work_ratio, "s--", color="grey", label="по работе: (n + 2) / 3")
ax.plot(steps_list, speedup, "o-", color=vis.BAR_COLOR, label="по времени (замер)")
ax.set_yscale("log")
ax.set(xlabel="сколько токенов сгенерировано", ylabel="во сколько раз меньше с кэшем",
       title="Выигрыш KV-кэша: работа и время")
ax.legend()
plt.show()

# %% [markdown]
# По времени выигрыш намного меньше, чем по работе, и от длины к длине скачет: у такой маленькой
# модели шаг генерации — это в основном накладные расходы. Каждый вызов NumPy и каждый слой
# стоят микросекунды, сколько бы чисел в них ни было, а вызовов на шаге с кэшем почти столько
# же, сколько без него. Чем длиннее текст, тем больше времени уходит на саму арифметику и тем
# больше выигрыш по времени: в `benchmarks/efficient.py` у нас вышло 1.3× на 64 токенах и около
# 8× на 512. Поэтому библиотеки генерации держат KV-кэш включённым: например, в Hugging Face
# Transformers у `generate` параметр `use_cache` по умолчанию `True` (документация `GenerationConfig`).
#
# Но кэш — не бесплатный: это память, и она растёт с длиной. В нём $K$ и $V$ — по вектору
# $d_{\text{head}}$ на токен, голову и слой. У нашей модели — немного, а у модели размером
# с LLaMA-7B (32 слоя, $d_{\text{model}} = 4096$ — размеры из статьи Touvron et al., 2023, «LLaMA: Open and
# Efficient Foundation Language Models»; float16) на 4096 токенов — уже 2 ГиБ:

# %%
cache = model.new_cache(N=1)
with nt.no_grad():
    for token in ids_cached[0]:
        model.step(np.array([token]), cache)
print(f"наш кэш: {cache.length} токенов, K и V формы {cache.keys.shape} — {number(cache.nbytes)} байт")
assert cache.nbytes == 2 * cache.length * model.attention.d_model * 8, (   # K и V, float64
    f"кэш занимает {number(cache.nbytes)} байт, а K и V во float64 (токенов {cache.length}, d_model = "
    f"{model.attention.d_model}) — это 2·{cache.length}·{model.attention.d_model}·8 = "
    f"{number(2 * cache.length * model.attention.d_model * 8)}")

layers, d_model, T, bytes_per_number = 32, 4096, 4096, 2
big_cache = 2 * layers * T * d_model * bytes_per_number                # K и V во всех слоях
print(f"LLaMA-7B, {T} токенов: {number(big_cache)} байт = {big_cache / 2**30:.0f} ГиБ")

# %% [markdown]
# ## Внимание без матрицы T×T: online softmax
#
# KV-кэш экономит работу при генерации. Но при обучении и при чтении длинного промпта всё
# равно нужно внимание всех ко всем — и матрица $T \times T$. Можно ли получить **тот же самый**
# `context`, не держа её в памяти?
#
# Посмотрим на один запрос. Его выход — $\sum_j w_j v_j$, где $w_j = e^{s_j - m} / \ell$,
# $m = \max_j s_j$, $\ell = \sum_j e^{s_j - m}$. Кажется, что сначала нужны все оценки $s_j$:
# иначе не узнать ни максимум, ни сумму. Но их можно собирать **на ходу**, по блокам ключей,
# храня только три числа на запрос: бегущий максимум $m$, бегущую сумму $\ell$ и бегущий
# вектор $\text{acc} = \sum_j e^{s_j - m} v_j$. Пришёл блок оценок $s_j$ со значениями $v_j$:
#
# $$m_{\text{new}} = \max\big(m,\ \max_{j \in \text{блок}} s_j\big), \qquad c = e^{\,m - m_{\text{new}}} \le 1,$$
# $$\ell \leftarrow c\,\ell + \sum_{j \in \text{блок}} e^{s_j - m_{\text{new}}}, \qquad
#   \text{acc} \leftarrow c\,\text{acc} + \sum_{j \in \text{блок}} e^{s_j - m_{\text{new}}}\, v_j .$$
#
# Поправка $c$ — главное: старые слагаемые считались от старого максимума, а теперь все должны
# считаться от нового. Так как $e^{s - m_{\text{old}}} \cdot e^{m_{\text{old}} - m_{\text{new}}} = e^{s - m_{\text{new}}}$,
# одно умножение переводит всю старую сумму к новому максимуму. В конце $\text{context} = \text{acc} / \ell$ —
# ровно softmax, без приближений. Проверим на шести оценках, разбитых на два блока:

# %%
scores = np.array([1.0, 3.0, 2.0, 5.0, 0.0, 4.0])
m, l = -np.inf, 0.0
for block in (scores[:3], scores[3:]):
    m_new = max(m, block.max())
    correction = np.exp(m - m_new)
    l = l * correction + np.exp(block - m_new).sum()
    print(f"блок {block}: m = {m_new}, поправка старой суммы = {correction:.4f}, l = {l:.4f}")
    m = m_new
print(f"за один проход:            m = {scores.max()}, l = {np.exp(scores - scores.max()).sum():.4f}")
assert np.isclose(l, np.exp(scores - scores.max()).sum()), (
    f"по блокам l = {l:.6f}, а за один проход {np.exp(scores - scores.max()).sum():.6f}")

# %% [markdown]
# На первом блоке поправка — 0: старой суммы ещё нет ($e^{-\infty} = 0$). После него максимум
# был 3; второй блок принёс 5, и старую сумму умножили на $e^{3-5} \approx 0.135$. Итог совпал
# с подсчётом за один проход.
#
# Теперь — для всех запросов сразу. Ключи и значения идут блоками по `block_size`; для каждого
# блока считаем оценки всех запросов только по его ключам: матрица $T \times B$ вместо $T \times T$.

# %%
def attention_in_blocks(Q, K, V, block_size):
    """softmax(Q Kᵀ / √d_k) V по блокам ключей: в памяти только (T_q, block_size) оценок."""
    T_q, d_k = Q.shape
    m = np.full((T_q, 1), -np.inf)                         # бегущий максимум каждого запроса
    l = np.zeros((T_q, 1))                                  # бегущая сумма exp
    acc = np.zeros((T_q, V.shape[1]))                       # бегущая сумма exp · v
    for start in range(0, len(K), block_size):
        scores = Q @ K[start:start + block_size].T / np.sqrt(d_k)     # (T_q, B)
        m_new = np.maximum(m, scores.max(axis=1, keepdims=True))
        correction = np.exp(m - m_new)                      # (T_q, 1)
        exp_scores = np.exp(scores - m_new)                 # (T_q, B)
        l = l * correction + exp_scores.sum(axis=1, keepdims=True)
        acc = acc * correction + exp_scores @ V[start:start + block_size]
        m = m_new
    return acc / l

# %%
Q, K, V = np.random.default_rng(512).normal(size=(3, 512, 64))    # свой генератор у каждой проверки
expected, _ = nt.scaled_dot_product_attention(Q, K, V)
for block_size in [1, 7, 64, 512]:
    gap = np.abs(attention_in_blocks(Q, K, V, block_size) - expected).max()
    print(f"блок {block_size:>3}: отличие от обычного внимания меньше 1e-12 — {gap < 1e-12}")
    assert gap < 1e-12, f"блок {block_size}: отличие от обычного внимания {gap:.2e}, а нужно меньше 1e-12"

# %% [markdown]
# Совпадение до $10^{-12}$ при любом размере блока — это не приближение, а тот же softmax,
# посчитанный в другом порядке. В `course_lib.efficient` то же самое, только для любых осей
# батча и голов, с маской и с причинной маской, которую блок строит себе сам, без матрицы
# $T \times T$. Шаг по одному блоку вынесен в отдельную функцию:

# %%
from course_lib.efficient import block_attention, online_softmax_step

print(inspect.getsource(online_softmax_step))

# %% [markdown]
# Строчка с `np.where(np.isneginf(m_new), 0.0, m_new)` — для запросов, которым маска пока
# не разрешила ни одного ключа: их $m$ всё ещё $-\infty$, а $e^{-\infty - (-\infty)}$ — это nan.
# Такие строки остаются пустыми и в конце получают нулевой `context` — ровно как в
# `scaled_dot_product_attention`. Проверим на головах, батче и масках:

# %%
q, k, v = np.random.default_rng(300).normal(size=(3, 2, 4, 300, 16))   # каждый (N, h, T, d_head)
causal = nt.causal_mask(300)
padding = np.arange(300) < np.array([300, 120])[:, None, None, None]  # (N, 1, 1, T): у второго текста 120 токенов
for name, mask, flag in [("без маски", None, False), ("причинная", causal, True), ("паддинг", padding, False)]:
    expected, _ = nt.scaled_dot_product_attention(q, k, v, mask)
    out = block_attention(q, k, v, mask=None if flag else mask, causal=flag, block_size=64)
    gap = np.abs(out - expected).max()
    print(f"{name:>10}: отличие меньше 1e-12 — {gap < 1e-12}")
    assert gap < 1e-12, f"{name}: отличие от обычного внимания {gap:.2e}, а нужно меньше 1e-12"

# %% [markdown]
# А теперь главное — память. Замерим пик для тех же длин, что и у обычного внимания, с
# блоком 128:

# %% tags=["nbval-ignore-output"]
block_memory = np.array([peak_bytes(lambda: block_attention(*inputs[T], block_size=128)) for T in lengths])
for T, std, blk in zip(lengths, standard_memory, block_memory):
    print(f"T = {T:>4}: обычное {std / 2**20:6.1f} МиБ, блочное {blk / 2**20:5.2f} МиБ, обычное / блочное = {std / blk:4.1f}")
block_slope = slope(lengths[longest], block_memory[longest])
print(f"наклон памяти по T ≥ 512: обычное {memory_slope:.2f}, блочное {block_slope:.2f}")
saving = standard_memory / block_memory
assert abs(block_slope - 1) < 0.15 and saving[-1] > 3 and np.all(np.diff(saving[longest]) > 0), (  # выигрыш растёт с T
    f"наклон блочного {block_slope:.2f} (нужен 1 ± 0.15); обычное / блочное по T: {np.round(saving, 1)} "
    f"(нужно: растёт при T ≥ 512, в конце больше 3)")

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.8), layout="constrained")
ax.loglog(lengths, standard_memory / 2**20, "o-", color=vis.BAR_COLOR, label="обычное: ∝ T²")
ax.loglog(lengths, block_memory / 2**20, "s-", color="#a00", label="блочное, блок 128: ∝ T")
ax.set(xlabel="длина T, токенов", ylabel="пик памяти, МиБ", title="Память: T² против T × блок")
ax.set_xticks(lengths, labels=lengths, minor=False)
ax.xaxis.set_minor_locator(plt.NullLocator())
ax.legend()
plt.show()

# %% [markdown]
# Наклон 2 против наклона 1: дополнительная память блочного внимания растёт как $T \times B$,
# а не как $T^2$. На коротких длинах выигрыша нет: блок один или два, а бегущие $m$, $\ell$ и
# acc тоже занимают место. Но дальше каждое удвоение $T$ примерно удваивает выигрыш (последний
# столбец; `benchmarks/efficient.py` продолжает тот же замер до $T = 4096$), а для 100 000
# токенов вместо 80 ГБ на матрицу весов хватило бы $100\,000 \times 128 \times 8$ байт ≈ 0.1 ГБ на блок оценок.
#
# Работы при этом столько же — $O(T^2)$ умножений: экономим память, а не арифметику. В NumPy
# выигрыша по времени блочное внимание не даёт (замеры — в `benchmarks/efficient.py`). На видеокарте
# FlashAttention, по замерам его авторов (Dao et al., 2022), ещё и заметно быстрее: блок целиком помещается в быструю память рядом с
# вычислителями, и матрица $T \times T$ не гоняется туда-обратно через медленную.

# %% [markdown]
# ## Машинное отделение: книга и слитая операция
#
# `nt.scaled_dot_product_attention`, который печатает урок 05, — это «книга»: оценки, маска,
# softmax и `weights @ V` отдельными шагами, и каждый шаг проходит по всей матрице $T \times T$
# и кладёт в память новую. Матрица не помещается в кэш процессора — маленькую быструю память
# рядом с ядром, — и каждый проход гоняет её из оперативной памяти и обратно.
#
# Рядом с книгой в библиотеке есть **машинное отделение** — папка `course_lib/engine_room/`. Там
# то же внимание одной операцией, со своим обратным проходом:
# - строки запросов идут полосами по 64: полоса оценок посчитана, замаскирована, пронормирована
#   и умножена на $V$, пока лежит в кэше, — один проход вместо нескольких;
# - куски (полосы нескольких матриц, всего около $2^{18}$ чисел) независимы — их считают все ядра сразу;
# - причинная маска закрывает для строк 0–63 все ключи от 64 и правее — их не считают вовсе:
#   почти половина работы;
# - веса мы всё же сохраняем (их рисуют картинки и `.attn`), поэтому память остаётся $\propto T^2$ —
#   в отличие от online softmax выше.
#
# Это та же мысль, что у FlashAttention на видеокарте: считать кусок целиком, пока он в быстрой
# памяти, и не гонять матрицу туда-обратно. Включает отделение один выключатель — `with nt.fast():`;
# вызовы те же. Сначала убедимся, что ответ тот же — и вперёд, и назад:

# %%
rng = np.random.default_rng(8)
q, k, v = (nt.tensor(rng.normal(size=(4, 200, 16)), requires_grad=True) for _ in range(3))
paths = {}
for name, on in [("книга", False), ("nt.fast()", True)]:
    with nt.fast(on):
        context, weights = nt.scaled_dot_product_attention(q, k, v, causal=True)
    for t in (q, k, v):
        t.grad = None
    (context * context).sum().backward()
    paths[name] = [context.data, weights.data, q.grad, k.grad, v.grad]
gap = max(np.abs(a - b).max() for a, b in zip(paths["книга"], paths["nt.fast()"]))
print(f"context, веса и градиенты q, k, v совпадают: отличие меньше 1e-12 — {gap < 1e-12}")

# %% [markdown]
# Теперь цена. Восемь голов ($N \cdot h = 8$, $d_{head} = 64$), причинная маска, $T$ от 256 до 1024
# (2048 — на графике выше; здесь замер с ним шёл бы вчетверо дольше: время растёт как $T^2$):
# время процессора (его работа по всем ядрам вместе), время на часах (лучшее из трёх) и пик памяти.
# Времена у вас будут другими — и от запуска к запуску тоже: они зависят от процессора и от того,
# чем он ещё занят. Чего ждать: при $T$ = 256 и 512 оба пути тратят примерно поровну, и разница
# в пару миллисекунд бывает в любую сторону. При $T$ = 1024 слитый путь обычно тратит
# заметно меньше процессорного времени (пропуск закрытой половины, один проход по кэшу), а на часах,
# если у процессора свободно второе ядро, выигрывает ещё больше. Памяти он берёт меньше всегда,
# потому что не держит оценки рядом с весами, — это число не зависит от нагрузки, и его мы проверяем ниже.

# %% tags=["nbval-ignore-output"]
engine_lengths = [256, 512, 1024]
print(" T     | процессор: книга   fast  | часы: книга   fast  | пик памяти, МиБ: книга  fast")
engine_memory = {}
for T in engine_lengths:
    q, k, v = np.random.default_rng(T).normal(size=(3, 8, T, 64))
    row = {}
    for name, on in [("книга", False), ("fast", True)]:
        run = lambda: nt.scaled_dot_product_attention(q, k, v, causal=True)    # noqa: E731
        with nt.fast(on):
            cpu = seconds(run, 3)
            wall = min(timeit.repeat(run, number=1, repeat=3))
            row[name] = cpu, wall, peak_bytes(run)
    engine_memory[T] = row["книга"][2], row["fast"][2]
    print(f" {T:>5} | {row['книга'][0] * 1e3:14.0f} {row['fast'][0] * 1e3:6.0f}  |"
          f" {row['книга'][1] * 1e3:10.0f} {row['fast'][1] * 1e3:6.0f}  |"
          f" {row['книга'][2] / 2**20:20.1f} {row['fast'][2] / 2**20:5.1f}")
assert all(fast < book for book, fast in engine_memory.values()), (
    f"fast должен брать меньше памяти, чем книга, а (T, книга МиБ, fast МиБ): "
    f"{[(T, round(b / 2**20, 1), round(f / 2**20, 1)) for T, (b, f) in engine_memory.items() if f >= b]}")

# %% [markdown]
# Пик памяти не зависит от соседних программ, поэтому его мы проверяем: слитый путь берёт
# меньше при каждом $T$ — и вот во сколько раз:

# %%
saving = {T: book / fast for T, (book, fast) in engine_memory.items()}
print("книга / fast по пику памяти:", ", ".join(f"T = {T}: больше 1.5 — {ratio > 1.5}" for T, ratio in saving.items()))

# %% [markdown]
# Формулы в машинном отделении те же, что в книге, — и все тесты библиотеки проходят оба пути
# (`tests/test_fast_paths.py` сверяет их до $10^{-12}$). Поэтому уроки читают книгу, а там, где
# нужна скорость, — обучение в уроках 07, 09 и 10, замеры этого урока, `benchmarks/`, — пишут
# `with nt.fast():` на виду.

# %% [markdown]
# ## Поиграйте: online softmax блок за блоком
#
# Слева вверху — оценки одного запроса по 24 ключам; синие ключи уже прочитаны, жёлтые —
# текущий блок, серые — ещё впереди. Красная линия — бегущий максимум $m$. Справа — веса,
# какими их видит алгоритм сейчас, и красные точки — настоящий softmax всей строки.
#
# **Что искать:** двигайте «прочитано». Когда в жёлтом блоке есть оценка выше красной линии,
# $m$ прыгает вверх, а $\ell$ падает: старую сумму умножили на поправку $e^{m_{\text{old}} - m_{\text{new}}} < 1$,
# и веса уже прочитанных ключей съёживаются. На последнем блоке столбики ложатся точно на
# точки — при любом размере блока $B$.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.efficient import local_window_explorer, online_softmax_explorer, online_softmax_view

online_softmax_explorer(block_size=6, step=1)

# %% [markdown]
# То же в числах: при любом размере блока после последнего шага веса совпадают с softmax.

# %%
from course_lib.widgets.efficient import online_softmax_view    # чистая функция виджета: ползунки -> картинка

for block_size in [1, 5, 6, 24]:
    view = online_softmax_view(block_size, step=100)                   # шаг за пределами — покажет последний
    print(f"блок {block_size:>2}: {view.n_blocks:>2} шагов, m = {view.m_history[-1]:.2f}, "
          f"поправок меньше 1: {(view.corrections[1:] < 1).sum()}, "
          f"совпало с softmax: {np.allclose(view.weights_so_far, view.weights)}")
    assert np.allclose(view.weights_so_far, view.weights), (
        f"блок {block_size}: веса по блокам отличаются от softmax на "
        f"{np.abs(view.weights_so_far - view.weights).max():.2e}")

# %% [markdown]
# ## Локальное внимание: смотреть только на соседей
#
# Другой способ сэкономить — разрешить каждому токену смотреть только на последние `window`
# токенов (включая себя). Это просто ещё одна маска, как причинная, только уже:

# %%
from course_lib.functional import allowed_cells, local_mask

tokens = "The glass ball fell on the steel table, and it shattered".split()
T = len(tokens)
mask = local_mask(T, window=4)
fig = vis.heatmap(mask.astype(float), tokens, tokens, mask=mask, colorbar=False,
                  title="Локальная маска, окно 4: жёлтые клетки — можно смотреть")
plt.show()
print(f"разрешено клеток: {mask.sum()} из {T * (T + 1) // 2} у причинной маски")
assert mask.sum() == allowed_cells(T, 4), (
    f"в маске {mask.sum()} разрешённых клеток, а allowed_cells(T, 4) = {allowed_cells(T, 4)}")

# %% [markdown]
# Разрешённых клеток примерно $T \times \text{window}$ — растёт как $T$, а не как $T^2$.
# Для длинных текстов разница огромная:

# %%
for T_long, window in [(1_000, 256), (100_000, 4096)]:
    local, full = allowed_cells(T_long, window), T_long * (T_long + 1) // 2
    print(f"T = {number(T_long):>7}, окно {window}: {number(local):>13} клеток вместо {number(full):>14} — в {full / local:5.1f} раза меньше")

# %% [markdown]
# Цена — то, что дальше окна слой не видит. В «The glass ball fell on the steel table, and it
# shattered» местоимению «it» нужен «ball», а он на 7 токенов левее. Изменим значение $v$
# у «ball» и посмотрим, почувствует ли это «it»:

# %%
Q, K, V = np.random.default_rng(11).normal(size=(3, len(tokens), 8))
it, ball = tokens.index("it"), tokens.index("ball")
V_changed = V.copy()
V_changed[ball] += 5.0                                           # «ball» стал другим
for name, mask in [("причинная маска", nt.causal_mask(len(tokens))), ("окно 4", local_mask(len(tokens), 4))]:
    before = block_attention(Q, K, V, mask=mask)[it]
    after = block_attention(Q, K, V_changed, mask=mask)[it]
    print(f"{name:>15}: выход «it» изменился на {np.abs(after - before).max():.3f}")
assert np.array_equal(block_attention(Q, K, V, mask=local_mask(len(tokens), 4))[it],
                      block_attention(Q, K, V_changed, mask=local_mask(len(tokens), 4))[it]), (
    f"с окном 4 выход «it» изменился на {np.abs(after - before).max():.3f}, а «ball» за окном его менять не должен")

# %% [markdown]
# С окном 4 выход «it» не изменился ни на бит: связь «it» → «ball» потеряна. Выручают слои:
# во втором слое «it» смотрит на соседей, которые в первом уже смотрели на своих соседей, —
# каждый слой удлиняет дотягивание на `window − 1` токенов. Посчитаем, через сколько слоёв
# сведения о «ball» могут дойти до «it» (так устроено окно в Longformer — Beltagy et al., 2020 —
# и в Mistral 7B — Jiang et al., 2023):

# %%
one_layer = local_mask(len(tokens), 4).astype(int)             # 1 — «за один слой можно дотянуться»
reach = np.eye(len(tokens), dtype=int)
for layers in range(1, 4):
    reach = (one_layer @ reach > 0).astype(int)                  # куда можно дойти за layers слоёв
    print(f"{layers} слой(я): «it» дотягивается до «ball» — {bool(reach[it, ball])}")
assert reach[it, ball] and not (one_layer @ one_layer > 0)[it, ball], (
    f"«it» дотягивается до «ball» за 3 слоя: {bool(reach[it, ball])} (нужно True), "
    f"за 2 слоя: {bool((one_layer @ one_layer > 0)[it, ball])} (нужно False)")

# %% [markdown]
# ## Поиграйте: размер окна
#
# Оценки здесь случайные, кроме двух связей, вписанных руками: «it» ищет «ball»,
# «shattered» — «glass». Серые клетки — за окном или в будущем.
#
# **Что искать:** при окне 7 у «it» столбик «ball» серый — связь за окном; при окне 8 «it»
# отдаёт «ball» почти весь вес. Выберите запрос 10 («shattered»): ему нужно окно 10. И следите
# за числом клеток в заголовке: оно растёт с окном, но медленнее, чем у полной маски.

# %% tags=["nbval-ignore-output"]
local_window_explorer(window=4, query=9)

# %% [markdown]
# ## Упражнения
#
# ### 1. Шаг online softmax
#
# Напишите `my_online_softmax_step(m, l, acc, scores, values)`: учесть ещё один блок ключей.
# Формы: `m`, `l` — (T_q, 1), `acc` — (T_q, d_v), `scores` — (T_q, B), `values` — (B, d_v).
# Верните новые `(m, l, acc)`. Проверка прогонит ваш шаг по блокам огромных оценок (±300)
# и сравнит `acc / l` с softmax.

# %%
from course_lib.exercises.efficient import check_kv_step, check_online_softmax_step


def my_online_softmax_step(m, l, acc, scores, values):
    raise NotImplementedError  # ваш код здесь


_ = check_online_softmax_step(my_online_softmax_step)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение — под своим именем: ваша my_online_softmax_step и её вердикт выше остаются вашими.
def online_softmax_step_solution(m, l, acc, scores, values):
    m_new = np.maximum(m, scores.max(axis=-1, keepdims=True))   # максимум из старого и блока
    correction = np.exp(m - m_new)                              # ≤ 1: перевод к новому максимуму
    exp_scores = np.exp(scores - m_new)
    l = l * correction + exp_scores.sum(axis=-1, keepdims=True)
    acc = acc * correction + exp_scores @ values
    return m_new, l, acc


_ = check_online_softmax_step(online_softmax_step_solution)

# %% [markdown]
# ### 2. Шаг генерации с KV-кэшем
#
# Напишите `my_kv_step(k_cache, v_cache, q_new, k_new, v_new)`: допишите ключ и значение
# нового токена в конец кэша и посчитайте его `context` по всему кэшу. Формы: кэши —
# (…, t, d_k) и (…, t, d_v), новые — (…, 1, d). Верните `(context, k_cache, v_cache)`.
# Кэш может быть пустым (t = 0) — это первый токен. Подсказка: `np.concatenate(..., axis=-2)`
# и `nt.scaled_dot_product_attention`.

# %%
def my_kv_step(k_cache, v_cache, q_new, k_new, v_new):
    raise NotImplementedError  # ваш код здесь


_ = check_kv_step(my_kv_step)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение — под своим именем: ваша my_kv_step остаётся вашей.
def kv_step_solution(k_cache, v_cache, q_new, k_new, v_new):
    k_cache = np.concatenate([k_cache, k_new], axis=-2)        # новый токен — новая строка в конце
    v_cache = np.concatenate([v_cache, v_new], axis=-2)
    context, _ = nt.scaled_dot_product_attention(q_new, k_cache, v_cache)   # видит прошлое и себя
    return context, k_cache, v_cache


_ = check_kv_step(kv_step_solution)

# %% [markdown]
# ## Итог
#
# - Веса внимания — матрица $T \times T$ на каждую голову каждого слоя: время и память растут
#   как $T^2$ — наклон 2 на графике log–log. 100 000 токенов — 10 миллиардов весов, 80 ГБ в float64.
# - **KV-кэш:** из-за причинной маски ключи и значения прошлых токенов не меняются — их хранят,
#   а на каждом шаге считают только новый токен. Те же токены, шаг $O(t)$ вместо $O(t^2)$;
#   выигрыш растёт с длиной, цена — память кэша, растущая как $T$.
# - **Online softmax:** бегущие $m$, $\ell$ и acc с поправкой $e^{m_{\text{old}} - m_{\text{new}}}$ дают
#   точно тот же `context` (до $10^{-12}$), а в памяти лишь $T \times B$ оценок. Это идея
#   FlashAttention: арифметики столько же, памяти — намного меньше.
# - **Машинное отделение** (`with nt.fast():`): те же формулы одной слитой операцией — полосами
#   в кэше, на всех ядрах, без закрытой маской половины; ответ тот же до $10^{-12}$, памяти меньше.
# - **Локальное внимание:** окно из последних `window` токенов — клеток $\approx T \times \text{window}$,
#   но связи дальше окна один слой не видит; стопка слоёв дотягивается на `window − 1` за слой.
#
# **Дальше:** [урок 09](09_transformer_block.ipynb) — блок трансформера. Внимание — только половина
# блока; вторая половина — сеть прямого распространения, которая обрабатывает каждый токен
# отдельно, а вокруг них — нормализация и остаточные связи вроде `x = x + …` из `TinyDecoder.step`.
# Соберём блок из `course_lib`, посчитаем его параметры, а потом обучим двухслойную модель и
# увидим, как в ней сами собой появляются индукционные головы — головы, которые находят в
# тексте прошлое появление текущего токена и копируют то, что шло за ним.

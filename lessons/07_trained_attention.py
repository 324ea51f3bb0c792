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
# # Урок 07. Внимание, которое научилось
#
# До сих пор матрицы $W_Q$, $W_K$, $W_V$ у нас были случайными, и веса внимания выглядели
# соответственно: кто куда. В обученной модели эти матрицы подбираются градиентным спуском
# так, чтобы каждый токен смотрел туда, откуда ему полезно взять информацию. В этом уроке мы
# увидим это своими глазами: обучим крошечные модели прямо здесь, на процессоре, за секунды.
#
# Термины — в [глоссарии](glossary.md), формы массивов — в [шпаргалке по формам](shapes.md).
#
# **В этом уроке:**
# - цикл обучения: четыре строчки, которые превращают случайные веса в осмысленные;
# - задача «банк»: модель угадывает смысл слова и сама учится смотреть на слово, которое этот смысл решает;
# - ползунок по снимкам обучения: как узор внимания появляется шаг за шагом;
# - две головы делят работу: одна смотрит на предыдущую позицию, другая — на первую;
# - обученная модель в исследователе внимания — на предложении, которое напишете вы;
# - упражнения: цикл обучения своими руками и число «какая голова что делает».

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
# ## Задача: какой это «банк»?
#
# В уроке 01 у слова «банк» было два смысла: финансовая организация и песчаный «банк» у реки,
# то есть отмель (в этом смысле «банк» — калька английского *bank*). Стеклянная банка там была
# другим токеном, «банка». В игрушке этого урока мы **нарочно** сваливаем все три смысла на
# один токен «банк»: деньги, река и ёмкость. Так у модели одно слово и один вектор на три
# смысла — как у многозначных английских *bank* и *mole*, — и смысл может решить только контекст. Внимание и нужно для
# того, чтобы «банк» взял недостающее у соседей.
#
# Сделаем игрушечную версию. В каждом предложении — «банк», одно **решающее слово**
# («реки», «кредит», «варенье», …) и слова-отвлекатели («вчера», «старый», «там», …),
# все в случайном порядке. Четверть предложений — без решающего слова: ответ для них
# «не ясно». Слова, которых нет в словаре модели, превращаются в особый токен `<unk>`
# (unknown, «неизвестное слово») — он попадается среди отвлекателей уже в примерах ниже. Предложения выходят словесным салатом, но вниманию без позиций порядок и не
# важен (урок 04): оно видит набор слов.

# %%
import inspect
import time

import matplotlib.pyplot as plt
import numpy as np

import course_lib as nt
from course_lib import vis
from course_lib.props.tasks import BANK_VOCAB, CLASS_NAMES, CUE_WORDS, bank_sentences

train_set = bank_sentences(256, T=6, seed=0)      # на этих модель учится
test_set = bank_sentences(1000, T=6, seed=1)      # на этих проверяем: их она не видела
for sentence, label in zip(train_set.sentences[:6], train_set.labels[:6]):
    print(f"{sentence:<38} -> {CLASS_NAMES[label]}")
print(f"\nслов в словаре: {len(BANK_VOCAB)}, решающих: {sum(len(c) for c in CUE_WORDS.values())}; "
      f"предложений: {len(train_set)} для обучения и {len(test_set)} для проверки")

# %% [markdown]
# ## Модель: эмбеддинг → внимание → выходной слой
#
# Возьмём самую маленькую модель, которая может решить задачу:
#
# 1. эмбеддинг: слово → вектор из $d_\text{model} = 16$ чисел, вместе $X$ формы $(T, d_\text{model})$;
# 2. один слой `MultiHeadAttention` с одной головой — тот самый, из урока 06;
# 3. выходной линейный слой (в коде — `readout`): вектор, который внимание собрало **в позиции
#    «банка»**, → 4 числа, оценки смыслов («река», «деньги», «банка», «не ясно»).
#
# Других слоёв нет. Всё, что модель узнает о контексте, она может взять только вниманием:
# запрос «банка» должен найти решающее слово среди ключей.

# %%
from course_lib.props.models import TinyAttention

nt.manual_seed(0)
model = TinyAttention(vocab_size=len(BANK_VOCAB), num_classes=len(CLASS_NAMES), d_model=16, num_heads=1)
print(model)
print("параметров:", model.num_params())
print(inspect.getsource(TinyAttention.forward))

# %% [markdown]
# ## До обучения
#
# Сначала честно измерим, что умеет случайная модель. Точность — доля предложений, где самый
# большой из четырёх выходов указывает на верный смысл; вес — сколько внимания «банк» отдаёт
# решающему слову, в среднем по предложениям.

# %%
from course_lib.props.evaluation import bank_report

before = bank_report(model, test_set)
print(f"точность: {before.accuracy:.1%}  (наугад — 25%)")
print(f"вес «банк» -> решающее слово: {before.cue_weight:.3f}, а 1/T = {before.uniform:.3f}")
assert abs(before.cue_weight - before.uniform) < 0.03, (
    f"до обучения вес на решающее слово {before.cue_weight:.3f}, а нужен около 1/T = {before.uniform:.3f} (±0.03)")

# %% [markdown]
# Угадывает наугад, а смотрит почти поровну на все шесть слов. Вот строка «банка» на одном
# предложении — его мы будем «фотографировать» во время обучения:

# %%
probe_tokens = "вчера я видел банк у реки".split()
probe = BANK_VOCAB.ids(probe_tokens)                      # номера слов (T,)
bank_row = model.attention_weights(probe)[0, probe_tokens.index("банк")]   # (h, T, T) -> строка «банка» (T,)
print("«банк» смотрит:", ", ".join(f"{w} {x:.2f}" for w, x in zip(probe_tokens, bank_row)))

# %% [markdown]
# ## Один шаг обучения
#
# Насколько модель ошибается, говорит **функция потерь** (по-английски *loss*). Её значение на данных
# дальше зовём коротко **потери**: «потери 1.39» — функция потерь дала 1.39; в коде это переменная `loss`.
# У нас функция потерь — кросс-энтропия: $-\log p(\text{верного смысла})$, в среднем по предложениям.
# Пока модель отвечает наугад, $p \approx 1/4$ и потери $\approx \log 4 \approx 1.386$.
# Шаг обучения — четыре строчки:
#
# 1. `optimizer.zero_grad()` — стереть градиенты прошлого шага (иначе `backward` прибавит к ним новые);
# 2. `loss = ...` — **прямой проход** (forward): предложения → оценки → потери;
# 3. `loss.backward()` — **обратный проход** (backward): для каждого параметра узнать градиент — куда его
#    сдвинуть, чтобы потери росли быстрее всего;
# 4. `optimizer.step()` — сдвинуть все параметры чуть-чуть в обратную сторону.
#
# Оптимизатор — Adam (Kingma, Ba, 2015, «Adam: A Method for Stochastic Optimization»): он делит градиент
# на его «типичную величину», поэтому шаг `lr` (learning rate, **скорость обучения** — насколько далеко
# сдвигать параметры за шаг) одинаково разумен и для больших, и для маленьких градиентов.

# %%
from course_lib import optim
from course_lib.props.training import bank_loss

print(inspect.getsource(bank_loss))
nt.manual_seed(0)                                         # та же случайная модель, что выше: шаг — с начала
model = TinyAttention(vocab_size=len(BANK_VOCAB), num_classes=len(CLASS_NAMES), d_model=16, num_heads=1)
optimizer = optim.Adam(model.parameters(), lr=0.01)
optimizer.zero_grad()
loss = bank_loss(model, train_set)
loss.backward()
optimizer.step()
grad = model.attention.W_q.weight.grad
print(f"потери до шага: {loss.item():.4f}  (log 4 = {np.log(4):.4f})")
print(f"градиент W_q: форма {grad.shape}, самый большой по модулю {np.abs(grad).max():.1e}")
print(f"потери после шага: {bank_loss(model, train_set).item():.4f}")
assert bank_loss(model, train_set).item() < loss.item(), (
    f"потери после шага {bank_loss(model, train_set).item():.4f}, а до шага были {loss.item():.4f}: должны уменьшиться")

# %% [markdown]
# Один шаг — и потери чуть меньше. Теперь повторим это много раз.

# %% [markdown]
# ## Обучение целиком
#
# `train` из `course_lib.props.training` делает те же четыре строчки в цикле и по дороге
# фотографирует веса внимания на пробном предложении «вчера я видел банк у реки» — каждые 2 шага.
# Снимки пригодятся для ползунка. Цикл идёт внутри `with nt.fast():` — те же формулы, только
# слитые и на всех ядрах (как и почему, покажет урок 08). Обучим модель заново, с тех же случайных весов:

# %%
from course_lib.props.training import train

nt.manual_seed(0)
model = TinyAttention(vocab_size=len(BANK_VOCAB), num_classes=len(CLASS_NAMES), d_model=16, num_heads=1)
started = time.perf_counter()
history = train(model, lambda m: bank_loss(m, train_set), steps=60, lr=0.01, probe=probe, snapshot_every=2)
bank_seconds = time.perf_counter() - started
print(f"потери: {history.losses[0]:.3f} на первом шаге -> меньше 0.01 на шаге {len(history.losses)}: {history.losses[-1] < 0.01}")
print(f"снимков: {len(history.snapshots)}, каждый формы {history.snapshots[0].shape} = (h, T, T)")
assert history.losses[-1] < 0.01, f"потери на последнем шаге {history.losses[-1]:.4f}, а нужно меньше 0.01"

# %% tags=["nbval-ignore-output"]
print(f"60 шагов обучения заняли {bank_seconds:.1f} с")

# %% [markdown]
# Кривая потерь: первые десять шагов — медленный спуск (модель ещё ищет, куда смотреть), потом всё
# круче: за следующие 30 шагов потери падают больше чем в сто раз. Шкала по вертикали логарифмическая:
# каждое деление — в 10 раз меньше.

# %%
fig, ax = plt.subplots(figsize=(6.5, 3), layout="constrained")
ax.plot(np.arange(1, len(history.losses) + 1), history.losses, color=vis.BAR_COLOR)
ax.axhline(np.log(4), color="grey", ls="--", lw=1, label="наугад: log 4")
ax.set_yscale("log")
ax.set_xlabel("шаг обучения")
ax.set_ylabel("потери")
ax.set_title("Задача «банк»: потери по шагам")
ax.legend()
plt.show()
losses = history.losses
print("за первые 10 шагов потери упали меньше чем на десятую долю:", losses[9] > 0.9 * losses[0])
print("с шага 10 до шага 40 — больше чем в 100 раз:", losses[39] < losses[9] / 100)
assert losses[9] > 0.9 * losses[0] and losses[39] < losses[9] / 100, (
    f"потери на шагах 1, 10, 40: {losses[0]:.4f}, {losses[9]:.4f}, {losses[39]:.2e}; "
    f"нужно на шаге 10 больше {0.9 * losses[0]:.4f}, на шаге 40 меньше {losses[9] / 100:.2e}")

# %% [markdown]
# ## После обучения
#
# Те же два числа на тысяче предложений, которых модель не видела:

# %%
after = bank_report(model, test_set)
print(f"точность: {before.accuracy:.1%} -> {after.accuracy:.1%}")
print(f"вес «банк» -> решающее слово: {before.cue_weight:.3f} -> {after.cue_weight:.3f}  (1/T = {after.uniform:.3f})")
assert after.accuracy >= 0.95, f"точность после обучения {after.accuracy:.1%}, а нужно не меньше 95%"
assert after.cue_weight >= 0.8, f"вес на решающее слово {after.cue_weight:.3f}, а нужно не меньше 0.8"

# %% [markdown]
# Никто не говорил модели, какое слово решающее: мы давали только предложение и ответ.
# Смотреть на «реки», «кредит» или «варенье» она научилась сама — потому что так потери меньше.
# Сравним веса на пробном предложении до и после:

# %%
fig, axes = plt.subplots(1, 2, figsize=(9.5, 4), layout="constrained")
vis.heatmap(history.snapshots[0][0], probe_tokens, probe_tokens, title="до обучения", ax=axes[0], colorbar=False)
vis.heatmap(history.snapshots[-1][0], probe_tokens, probe_tokens, title=f"после {history.snapshot_steps[-1]} шагов",
            ax=axes[1])
plt.show()
bank_row = history.snapshots[-1][0, probe_tokens.index("банк")]
print("строка «банк» после обучения:", {w: round(float(x), 3) for w, x in zip(probe_tokens, bank_row)})

# %% [markdown]
# Смотрите на строку «банк»: весь вес ушёл на «реки». Остальные строки модель не использует —
# выходной слой берёт только позицию «банка», — поэтому их никто и не учил. Но у всех слов одни и те
# же $W_Q$ и $W_K$, и ключ «реки» «громкий» для любого запроса: остальные строки тоже тянутся к нему.

# %% [markdown]
# ## Что выучили $W_Q$ и $W_K$
#
# Запрос «банка» — один вектор $q = x_\text{банк} W_Q$. Оценка любого слова — $q \cdot k / \sqrt{d_k}$,
# где $k = x_\text{слова} W_K$. Посчитаем её для всех слов словаря сразу и отсортируем:

# %%
E = model.tokens.weight.data                                     # (V, d_model): векторы всех слов
q_bank = model.attention.W_q(E[BANK_VOCAB.index["банк"]]).data   # (d_model,)
keys = model.attention.W_k(E).data                               # (V, d_model)
scores = keys @ q_bank / np.sqrt(model.attention.d_head)         # (V,)
cue_words = {w for cues in CUE_WORDS.values() for w in cues}
is_cue = np.array([w in cue_words for w in BANK_VOCAB.words])
order = np.argsort(-scores)
fig, ax = plt.subplots(figsize=(10, 3.2), layout="constrained")
ax.bar(range(len(order)), scores[order], color=np.where(is_cue[order], vis.BAR_COLOR, "#bbbbbb"))
ax.set_xticks(range(len(order)), labels=[BANK_VOCAB.words[i] for i in order], rotation=90)
ax.set_ylabel("оценка q·k / √d_k")
ax.set_title("На кого смотрит «банк»: решающие слова (синие) против остальных (серые)")
plt.show()
print(f"самое низкое решающее слово: {scores[is_cue].min():.1f}, самое высокое из остальных: {scores[~is_cue].max():.1f}")
assert scores[is_cue].min() > scores[~is_cue].max(), (
    f"самое низкое решающее слово {scores[is_cue].min():.2f}, самое высокое из остальных {scores[~is_cue].max():.2f}: "
    f"решающие должны быть выше всех")

# %% [markdown]
# Все пятнадцать решающих слов выше всех остальных, с большим запасом. Это и есть выученное
# «что я ищу» (запрос) и «что я предлагаю» (ключ) из урока 03: «банк» ищет слова, говорящие о
# смысле, и такие слова научились это предлагать. А сам «банк» — в самом конце: смотреть на себя
# ему бесполезно.

# %% [markdown]
# ## Поиграйте: как узор появляется
#
# Ползунок «шаг» листает снимки весов на пробном предложении; справа — куда смотрит «банк»,
# снизу — потери с отметкой текущего шага. Виджет открывается на последнем снимке: обучение
# закончено, и строка «банка» уже острая — почти весь вес на «реки». **Потяните** ползунок к
# нулю и обратно: посмотрите, как строка из ровной становится острой и как в то же время
# обрываются потери.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.training import training_explorer

training_explorer(history, probe_tokens, query=probe_tokens.index("банк"))

# %% [markdown]
# Те же снимки в числах: вес «банк» → «реки» по шагам.

# %%
cue_curve = history.snapshots[:, 0, probe_tokens.index("банк"), probe_tokens.index("реки")]
for step, weight in list(zip(history.snapshot_steps, cue_curve))[::5]:
    print(f"шаг {step:>2}: вес {weight:.2f}  " + "█" * int(round(weight * 30)))
half = history.snapshot_steps[np.argmax(cue_curve >= 0.5)]
print(f"половину веса «реки» получило к шагу {half}")

# %% [markdown]
# ## Задача 2: две связи сразу — две головы
#
# В уроке 06 было: одна голова даёт одно распределение, а связей в языке много сразу. Проверим,
# разделят ли головы работу сами. Последовательность из $T = 8$ букв алфавита «А Б В Г Д»; на каждой
# позиции $t \ge 1$ модель отвечает на **два** вопроса:
#
# - какая буква стоит **первой**?
# - какая стоит **прямо передо мной** (на позиции $t - 1$)?
#
# Одной голове тут тесно: если она поделит вес пополам между первой и предыдущей буквой, их
# значения сложатся, и уже не понять, какая буква где стояла. Ответ зависит только от позиций,
# а буквы повторяются, поэтому к эмбеддингу буквы прибавим обучаемый эмбеддинг позиции (урок 04).
# Выходной слой выдаёт $2K = 10$ чисел: первые пять — ответ на первый вопрос, вторые — на второй.

# %%
from course_lib.props.evaluation import relations_report
from course_lib.props.tasks import letters, two_relations
from course_lib.props.training import relations_loss

relations_train = two_relations(128, T=8, K=5, seed=0)
relations_test = two_relations(500, T=8, K=5, seed=1)
letter_probe = relations_test.ids[0]
print("позиция t:            ", " ".join(str(t) for t in range(8)))
print("последовательность:   ", " ".join(letters(letter_probe)))
print("ответ «первая»:       ", "  " + " ".join(letters(relations_test.first[0])))
print("ответ «предыдущая»:   ", "  " + " ".join(letters(relations_test.previous[0])))
print(inspect.getsource(relations_loss))

# %% [markdown]
# Куда смотрят головы, измерим двумя числами для каждой: средний вес запроса $t$ на позицию
# $t - 1$ («предыдущая») и на позицию $0$ («первая»), по запросам $t = 2 \dots 7$ (при $t = 1$
# предыдущая и есть первая — по ней головы не различить). Третье число — насколько головы
# смотрят по-разному: полуразность строк $\tfrac12 \sum_j |w^{(1)}_{tj} - w^{(2)}_{tj}|$, в среднем
# по строкам: 0 — смотрят одинаково, 1 — ни одного общего ключа.

# %%
def new_two_heads():
    """Модель с двумя головами — всегда с одних и тех же случайных весов."""
    nt.manual_seed(0)
    return TinyAttention(vocab_size=5, num_classes=10, d_model=16, num_heads=2, max_len=8)


two_heads = new_two_heads()
print(two_heads)
start = relations_report(two_heads, relations_test)
print(f"до обучения: точность {start.accuracy:.1%}, различие голов {start.difference:.2f}")
for h in range(2):
    print(f"  голова {h + 1}: на предыдущую {start.previous[h]:.2f}, на первую {start.first[h]:.2f}  (1/T = {1 / 8:.3f})")

# %%
two_heads = new_two_heads()                       # учим с начала, даже если ячейку запустили второй раз
started = time.perf_counter()
relations_history = train(two_heads, lambda m: relations_loss(m, relations_train), steps=100, lr=0.01,
                          probe=letter_probe, snapshot_every=4)
relations_seconds = time.perf_counter() - started
finish = relations_report(two_heads, relations_test)
previous_head, first_head = finish.head_roles()
print(f"после обучения: точность {finish.accuracy:.1%} (оба ответа верны), различие голов {finish.difference:.2f}")
for h in range(2):
    print(f"  голова {h + 1}: на предыдущую {finish.previous[h]:.2f}, на первую {finish.first[h]:.2f}")
print(f"голова {previous_head + 1} смотрит на предыдущую букву, голова {first_head + 1} — на первую")
assert previous_head != first_head and finish.difference >= 0.8, (
    f"на предыдущую смотрит голова {previous_head + 1}, на первую — {first_head + 1} (нужны разные); "
    f"различие голов {finish.difference:.2f}, а нужно ≥ 0.8")
assert finish.previous[previous_head] >= 0.8 and finish.first[previous_head] <= 0.1, (
    f"голова {previous_head + 1}: на предыдущую {finish.previous[previous_head]:.2f} (нужно ≥ 0.8), "
    f"на первую {finish.first[previous_head]:.2f} (нужно ≤ 0.1)")
assert finish.first[first_head] >= 0.8 and finish.previous[first_head] <= 0.1, (
    f"голова {first_head + 1}: на первую {finish.first[first_head]:.2f} (нужно ≥ 0.8), "
    f"на предыдущую {finish.previous[first_head]:.2f} (нужно ≤ 0.1)")

# %% tags=["nbval-ignore-output"]
print(f"100 шагов обучения заняли {relations_seconds:.1f} с")

# %% [markdown]
# Обе головы на пробной последовательности до и после обучения. До — ровная муть. После у одной
# головы диагональ прямо под главной: каждый смотрит на соседа слева. У другой — первый столбец:
# все смотрят на первую букву.

# %%
letter_labels = letters(letter_probe, numbered=True)
both = np.concatenate([relations_history.snapshots[0], relations_history.snapshots[-1]])   # (2h, T, T)
fig = vis.heads(both, letter_labels, ncols=2)
for ax, title in zip(fig.axes, ["до: голова 1", "до: голова 2", "после: голова 1", "после: голова 2"]):
    ax.set_title(title)
plt.show()

# %% [markdown]
# Как они к этому пришли? Кривая потерь с полкой и числа по снимкам:

# %%
from course_lib.props.evaluation import relation_scores

fig, ax = plt.subplots(figsize=(6.5, 3), layout="constrained")
ax.plot(np.arange(1, len(relations_history.losses) + 1), relations_history.losses, color=vis.BAR_COLOR)
ax.set_yscale("log")
ax.set_xlabel("шаг обучения")
ax.set_ylabel("потери")
ax.set_title("Задача «две связи»: потери по шагам")
plt.show()
for step, weights in list(zip(relations_history.snapshot_steps, relations_history.snapshots))[::5]:
    previous, first = relation_scores(weights)
    loss_here = relations_history.losses[max(step, 1) - 1]
    print(f"шаг {step:>3}, потери {loss_here:.3f}: "
          + "   ".join(f"голова {h + 1}: пред. {previous[h]:.2f}, первая {first[h]:.2f}" for h in range(2)))

# %% [markdown]
# В начале потери $\approx 2 \log 5 \approx 3.22$: оба ответа наугад. Сначала **обе** головы бросаются на
# первую букву: это самый простой способ уменьшить потери. Потери сползают на полку около $\log 5 \approx 1.61$:
# первую букву модель уже знает, а предыдущую угадывает почти наугад (наугад из пяти букв — это $\log 5$).
# Потом одна из голов «передумывает» и переходит на диагональ — и потери обрываются. Полка в числах —
# насколько потери падают за шаг до неё, на ней и после:

# %%
losses = relations_history.losses


def drop_per_step(first, last):
    """На сколько в среднем падают потери за шаг между шагами first и last (нумерация с 1)."""
    return (losses[first - 1] - losses[last - 1]) / (last - first)


on_shelf = drop_per_step(35, 55)
shelf = np.asarray(losses[34:55])                        # шаги 35–55
print(f"на шагах 35–55 потери между 1.2 и 1.7 (log 5 = {np.log(5):.2f}):", bool(((shelf > 1.2) & (shelf < 1.7)).all()))
print("на полке (шаги 35–55) потери падают втрое медленнее, чем на шагах 15–30 и 60–75:",
      on_shelf < drop_per_step(15, 30) / 3 and on_shelf < drop_per_step(60, 75) / 3)
assert on_shelf < drop_per_step(15, 30) / 3 and on_shelf < drop_per_step(60, 75) / 3, (
    f"потери падают за шаг: на полке {on_shelf:.4f}, на шагах 15–30 {drop_per_step(15, 30):.4f}, "
    f"на 60–75 {drop_per_step(60, 75):.4f}; на полке нужно хотя бы втрое медленнее")
assert ((shelf > 1.2) & (shelf < 1.7)).all(), (
    f"на шагах 35–55 потери от {shelf.min():.3f} до {shelf.max():.3f}, а нужно между 1.2 и 1.7")

# %% [markdown]
# Полистайте сами: виджет тоже открывается на последнем шаге,
# где головы уже разделили работу; ползунок «шаг» ведёт назад, «голова» переключает головы.

# %% tags=["nbval-ignore-output"]
training_explorer(relations_history, letter_labels, query=len(letter_labels) - 1)

# %% [markdown]
# ## Обученная модель в исследователе внимания
#
# Подключим модель «банк» к исследователю внимания из прошлых уроков: `model=` — её слой внимания,
# `embed=` — функция, которая превращает слова в векторы этой модели. Незнакомые слова
# становятся `<unk>`: в обучении он встречался среди отвлекателей, и модель научилась его не
# замечать. **Поиграйте:** поставьте «запрос №» на «банк» (номер 3) и поменяйте решающее
# слово в тексте: «кредит», «варенье», «лодка»… или уберите его совсем.

# %% tags=["nbval-ignore-output"]
from course_lib.props.models import word_embedder
from course_lib.widgets.explorer import attention_explorer

embed = word_embedder(model, BANK_VOCAB)
attention_explorer(sentence="вчера я видел банк у реки", model=model.attention, embed=embed)

# %% [markdown]
# Что ответит модель на ваше предложение — и куда при этом смотрит «банк»:

# %%
def predict(sentence):
    """Смысл «банка» в предложении и веса его строки внимания."""
    tokens = sentence.split()
    ids = BANK_VOCAB.ids(tokens)                                # регистр и запятые не мешают: «Банк,» -> «банк»
    if BANK_VOCAB.index["банк"] not in ids:
        print(f"«{sentence}»: нет слова «банк» — модель отвечает только про него")
        return
    bank = list(ids).index(BANK_VOCAB.index["банк"])
    with nt.no_grad():
        logits = model(ids[None], read_at=[bank]).data[0]        # (C,): логиты — оценки смыслов до softmax
    weights = model.attention.attn[0, 0, bank]                  # (T,): строка «банка»
    look = ", ".join(f"{t} {w:.2f}" for t, w in zip(tokens, weights) if w >= 0.05)
    print(f"«{sentence}» -> {CLASS_NAMES[logits.argmax()]}   (смотрит: {look})")


predict("Мы взяли кредит, а банк закрылся")
predict("старый банк у реки зарос камышом")
predict("вчера мы видели банк")
predict("на полке банк огурцы и варенье")

# %% [markdown]
# «взяли», «закрылся», «зарос», «камышом» модель не знает — это `<unk>`, и она на них не смотрит.
#
# А почему в «вчера мы видели банк» почти весь вес у «мы»? Решающего слова нет, но softmax не умеет
# «никуда не смотреть»: веса строки всё равно в сумме 1, и достаются тому, чья оценка выше остальных,
# — пусть даже она низкая. Оценки этой строки — те же, что на графике оценок выше:

# %%
no_cue = "вчера мы видели банк".split()
row_scores = scores[BANK_VOCAB.ids(no_cue)]                       # (T,): оценки «банка» для слов этой фразы
print("оценки:", ", ".join(f"{w} {s:.1f}" for w, s in zip(no_cue, row_scores)), "  («видели» — это <unk>)")
print(f"самое низкое решающее слово — {scores[is_cue].min():.1f}; у «мы» — самая высокая оценка среди нерешающих слов:",
      BANK_VOCAB.words[np.argmax(np.where(is_cue, -np.inf, scores))] == "мы")
print(f"softmax строки: «мы» {nt.softmax(row_scores)[1]:.2f}")
assert np.argmax(row_scores) == 1 and row_scores[1] - row_scores[2] > 4 and nt.softmax(row_scores)[1] > 0.9, (
    f"оценки {np.round(row_scores, 1)}: нужно, чтобы «мы» была выше всех и на 4 выше «видели», "
    f"а вес softmax у «мы» {nt.softmax(row_scores)[1]:.2f} был больше 0.9")

# %% [markdown]
# Оценка «мы» ниже любого решающего слова, но на 4 с лишним выше «<unk>», а softmax смотрит только
# на разницу оценок — отсюда 0.99. Что делать с такой смесью, решает выходной слой: на фразах без
# решающего слова его учили отвечать «не ясно».
#
# «На полке банк огурцы» по-русски, конечно, «банка»; но в нашей игрушке, как договорились в
# начале урока, ёмкость — тоже токен «банк». Попробуйте свои предложения: слова словаря — в
# `BANK_VOCAB.words`.

# %% [markdown]
# ## Упражнение 1: цикл обучения
#
# Напишите цикл обучения сами. Функция получает модель, уже созданный оптимизатор, функцию
# `loss_fn(model)` (она возвращает скалярный Tensor) и число шагов; возвращает список
# `loss.item()` каждого шага. Проверка обучит вашим циклом свежую модель «банк» и убедится,
# что потери упали, а «банк» научился смотреть на решающее слово.

# %%
from course_lib.exercises.training import check_relation_scores, check_training_loop


def train_loop(model, optimizer, loss_fn, steps):
    raise NotImplementedError  # ваш код здесь


check_training_loop(train_loop)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение — под своим именем: ваша train_loop и её вердикт выше остаются вашими.
# Стереть старые градиенты, прямой проход, обратный проход, шаг — и запомнить число.
def train_loop_solution(model, optimizer, loss_fn, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


check_training_loop(train_loop_solution)

# %% [markdown]
# ## Упражнение 2: какая голова что делает
#
# Напишите функцию, которая по весам одной последовательности `weights` формы $(h, T, T)$
# возвращает пару `(previous, first)`: для каждой головы — средний вес запросов $t = 2 \dots T-1$
# на позицию $t - 1$ и на позицию $0$. Это те самые числа, по которым мы назначили головам роли.

# %%
def previous_and_first(weights):
    raise NotImplementedError  # ваш код здесь


check_relation_scores(previous_and_first)

# %% jupyter={"source_hidden": true} tags=["solution"]
# Решение — под своим именем: ваша previous_and_first остаётся вашей.
# t — запросы 2…T−1; weights[:, t, t - 1] — «t смотрит на соседа слева», weights[:, t, 0] — «на первую».
def previous_and_first_solution(weights):
    t = np.arange(2, weights.shape[-1])
    return weights[:, t, t - 1].mean(axis=-1), weights[:, t, 0].mean(axis=-1)


check_relation_scores(previous_and_first_solution)
previous, first = previous_and_first_solution(relations_history.snapshots[-1])
print("на обученной модели: на предыдущую", [round(float(p), 2) for p in previous],
      " на первую", [round(float(f), 2) for f in first])

# %% [markdown]
# ## Итог
#
# - Шаг обучения — четыре строчки: `zero_grad()`, прямой проход и потери, `backward()`, `step()`.
# - Модель «эмбеддинг → одно внимание → выходной слой» на задаче «банк»: точность с 25% до 100% на
#   новых предложениях, а вес «банк» → решающее слово — с $1/T \approx 0.17$ почти до 1.
#   Куда смотреть, модель нашла сама: мы давали только ответы.
# - Выученные $W_Q$, $W_K$ в числах: оценки $q_\text{банк} \cdot k$ всех решающих слов выше, чем у всех остальных.
# - Две головы на задаче «первая и предыдущая буква» разделили работу: одна смотрит на $t-1$, другая на $0$;
#   по дороге обе сначала смотрели на первую букву — это видно по полке на кривой потерь.
# - Обученная модель подключается к исследователю внимания (`model=`, `embed=`) — пробуйте свои предложения.
#
# **Дальше:** урок 08 — цена внимания: матрица $T \times T$ в каждой голове, измеренная по времени и
# памяти, кэш ключей и значений при генерации и точное внимание без матрицы $T \times T$.

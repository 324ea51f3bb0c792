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
# # Урок 10. Маленький GPT учит русский: обучить, послушать, прочитать его головы
#
# Статья, из которой вырос курс, кончается обещанием: «В следующей, последней статье серии, соберём
# всё вместе и посмотрим, как из этих кубиков получается работающая GPT». Все кубики у нас есть:
# эмбеддинги (урок 01), позиции (04), причинная маска (05), головы (06), KV-кэш (08), блоки (09).
# В этом уроке мы соберём из них GPT, обучим её на русском тексте — прозе самих уроков курса — прямо
# здесь, за минуту процессора, послушаем, что она пишет, и прочитаем, что делают её головы.
#
# Термины — в [глоссарии](glossary.md), формы массивов — в [шпаргалке по формам](shapes.md).
#
# **В этом уроке:**
# - токенизатор по символам и корпус — текст уроков 00–09;
# - GPT из деталей курса и число её параметров рядом с GPT-2;
# - точки отсчёта: какие потери даёт угадывание наугад, по частоте символа, по предыдущему символу;
# - обучение за минуту с полосой прогресса; кривые потерь; что модель пишет на разных шагах;
# - та же модель, обученная дольше (чекпойнт в репозитории);
# - температура и top-k: ползунки над генерацией;
# - головы обученной модели: какие из них что делают — по измерениям и по абляции;
# - зачем маска: модель без неё «учится» лучше всех — и ничего не умеет;
# - как обучить модель на своём тексте; упражнения.

# %%
import inspect
import time

import matplotlib.pyplot as plt
import numpy as np

import course_lib as nt
from course_lib import vis

# %% [markdown]
# ## Текст и токенизатор
#
# Учить будем на тексте, который вы уже читали: это проза уроков 00–09 (ячейки с текстом, без кода),
# собранная в один файл инструментом `tools/build_corpus.py`. Модель будет учиться писать «как этот курс».
# Корпус в репозитории — снимок уроков 00–09: этого урока в нём нет.
#
# Токен у нас — **один символ**. У GPT-2 токен — кусок слова (словарь из 50 257 кусков, урок 01),
# но по символам словарь маленький, и модель учится за минуты. **Токенизатор** переводит текст в номера
# и обратно: номер символа — его место в словаре.

# %%
from course_lib.props.text_file import lessons_text
from course_lib.props.tokenizer import CharTokenizer

text = lessons_text()
tokenizer = CharTokenizer.from_text(text)
V = tokenizer.vocab_size
print(f"символов в тексте: {len(text):,}; разных (словарь V): {V}")
print("начало:", repr(text[:120]))
ids = tokenizer.encode("кот сел")
print("«кот сел» ->", ids, "->", repr(tokenizer.decode(ids)))
assert tokenizer.decode(tokenizer.encode(text[:1000])) == text[:1000]

# %% [markdown]
# Символа, которого в тексте не было, модель никогда не видела — номера у него нет, и токенизатор
# говорит об этом прямо, а не подменяет его молча:

# %%
try:
    tokenizer.encode("кот 🐈")
except ValueError as error:
    print(error)

# %% [markdown]
# ## GPT из деталей курса
#
# Вот весь `forward` модели из `course_lib`. Каждая строка — урок, который вы прошли: эмбеддинг
# токена (01) и позиции (04) — их сумма; стопка блоков (09), в каждом — многоголовое внимание (06)
# с причинной маской (05); последний LayerNorm и линейный слой в оценки всех $V$ символов.

# %%
print(inspect.getsource(nt.nn.GPT.forward))

# %% [markdown]
# Возьмём 4 блока, $d_\text{model} = 64$, 4 головы, окно $T = 64$ символа. Посчитаем параметры
# и сверим с формулой: эмбеддинги $(V + T)\,d$, блоки по $12d^2 + 13d$ (урок 09), последний
# LayerNorm $2d$ и голова $d V + V$. И рядом — GPT-2 small из урока 06 (124 439 808 параметров):

# %%
nt.manual_seed(0)
gpt = nt.nn.GPT(vocab_size=V, max_len=64, d_model=64, num_heads=4, num_layers=4)
print(gpt)
d = 64
formula = (V + 64) * d + 4 * (12 * d * d + 13 * d) + 2 * d + d * V + V
GPT2_SMALL = 124_439_808
print(f"параметров: {gpt.num_params():,}; по формуле {formula:,}; GPT-2 small больше в {GPT2_SMALL / formula:.0f} раз")
assert gpt.num_params() == formula

# %% [markdown]
# ## Точки отсчёта: что значат потери
#
# Потери (loss) — кросс-энтропия следующего символа в натах (урок 07). Чтобы число что-то говорило, нужны точки
# отсчёта. Текст делим на обучающую часть (первые 90 %) и проверочную (последние 10 %): потери на проверке —
# на тексте, которого модель не видела.
#
# - **наугад**: все $V$ символов равновероятны — $\ln V$;
# - **униграммы**: каждый символ — с его частотой в обучающей части (пробел частый, «ъ» редкий);
# - **биграммы**: следующий символ — с частотой, с которой он шёл после текущего (после «щ» чаще «е»).
#
# К каждому счёту прибавляем 1, чтобы у невиданной пары вероятность не была нулём (сглаживание Лапласа).

# %%
from course_lib.props.gpt_reading import bigram_loss, unigram_loss
from course_lib.props.gpt_training import evaluate, fixed_windows, split_ids

train_ids, val_ids = split_ids(tokenizer.encode(text), T=64, val_fraction=0.1)
val_windows = fixed_windows(val_ids, T=64)                 # (128, 65): одни и те же окна проверки
baselines = {"наугад, ln V": np.log(V), "униграммы": unigram_loss(train_ids, val_ids, V),
             "биграммы": bigram_loss(train_ids, val_ids, V)}
for name, loss in baselines.items():
    print(f"{name:>14}: {loss:.2f} ната на символ")
untrained = evaluate(gpt, val_windows)
print("необученная GPT — почти наугад (|потери − ln V| < 0.3):", abs(untrained - np.log(V)) < 0.3)
assert baselines["биграммы"] < baselines["униграммы"] < baselines["наугад, ln V"] and abs(untrained - np.log(V)) < 0.3

# %% [markdown]
# Необученная модель раздаёт вероятность почти поровну — её потери около $\ln V$. Биграммы знают только
# предыдущий символ. Всё, что GPT опустит ниже биграмм, она взяла из более далёкого контекста —
# а видеть далеко ей позволяет внимание.
#
# ## Обучение за минуту
#
# `train_gpt` строит GPT из зерна, берёт случайные окна по 65 символов обучающей части (батч — 16 окон)
# и учит модель Adam'ом (lr = 0.003) предсказывать в каждом окне символ за символом. Всё — в `with nt.fast():`
# (машинное отделение, урок 08) и в один поток BLAS.
# Каждые 100 шагов — потери на проверке и снимок: что модель пишет после слова «Внимание» и её веса внимания.
# Полоса ниже показывает шаг, потери и сколько осталось. Повторный запуск ячейки не учит заново:
# `train_gpt` помнит прогоны с теми же аргументами.

# %% tags=["nbval-ignore-output"]
from course_lib.props.gpt_training import train_gpt
from course_lib.widgets import progress_bar

STEPS = 1100
started = time.process_time()
run = train_gpt(text, STEPS, seed=0, snapshot_steps=range(0, STEPS + 1, 100), progress=progress_bar())
train_seconds = time.process_time() - started
print(f"{STEPS} шагов: {train_seconds:.0f} с процессора; потери на проверке {run.val_losses[-1]:.3f}")

# %%
print(f"потери на проверке после {STEPS} шагов ≤ 2.1: {run.val_losses[-1] <= 2.1};  "
      f"ниже биграмм на 0.3 и больше: {run.val_losses[-1] < baselines['биграммы'] - 0.3}")
assert run.val_losses[-1] <= 2.1 and run.val_losses[-1] < baselines["биграммы"] - 0.3

# %% [markdown]
# 1100 шагов — порядка минуты процессора (сколько у вас — в ячейке выше), и модель уже заметно лучше
# биграмм. Нарисуем потери обучения (на каждом батче; сглажен по 50 шагам) и на проверке:

# %%
from course_lib.props.induction_training import smooth

train_curve = smooth(run.losses, 50)
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
ax.plot(np.arange(1, STEPS + 1), train_curve, color=vis.BAR_COLOR, label="обучение (сглажено)")
ax.plot(run.val_steps, run.val_losses, "o-", color="#e8384f", label="проверка")
for (name, loss), style in zip(baselines.items(), [":", "--", "-."]):
    ax.axhline(loss, color="grey", ls=style, lw=1, label=name)
ax.set(xlabel="шаг обучения", ylabel="потери, наты на символ", title="GPT учится писать как курс", ylim=(1.5, 5.5))
fig.legend(loc="outside lower center", ncol=3, fontsize=8)   # под осями: линии отсчёта идут через всю ширину
plt.show()
gap = run.val_losses[-1] - train_curve[-1]
print("в конце потери на проверке выше, чем на обучении, но меньше чем на 0.3 ната:", 0 < gap < 0.3)
print(f"модель увидела {STEPS * 16 * 64:,} символов — {STEPS * 16 * 64 / len(train_ids):.0f} проходов по обучающей части")
assert 0 < gap < 0.3

# %% [markdown]
# Первые сотни шагов кривые идут вместе, а к концу красная чуть выше синей: на тексте, которого модель
# не видела, она ошибается больше. Разрыв — то, что модель выучила про обучающий текст, а не про язык
# вообще: каждый его символ она видела уже много раз (сколько — под кривыми). Отчасти это и разница самих
# текстов: проверочная часть — последние уроки, со своими словами и формулами. Пока разрыв мал, и потери на
# проверке ещё падают. Если учить гораздо дольше, модель начнёт **переобучаться** — заучивать обучающий
# текст так, что на новом становится хуже. Так и вышло, когда мы учили её 6000 шагов с тем же lr: после 1800 шагов потери на
# проверке перестали падать (1.83) и к 6000-му выросли до 2.10, хотя на обучении продолжали падать
# (`tools/train_gpt_checkpoint.py` печатает потери на проверке по дороге).
#
# ## Что модель пишет по дороге
#
# На каждом снимке модель дописывала 100 символов к слову «Внимание» — одним и тем же генератором
# случайных чисел, так что разница только в весах. Текст зависит от округлений (на другом процессоре
# он будет немного другим), поэтому смотрите не на буквы, а на то, **что появляется**: сначала
# случайные символы, потом пробелы между «словами» разумной длины, потом настоящие слова курса.

# %% tags=["nbval-ignore-output"]
for snapshot in run.snapshots:
    if snapshot.step in (0, 100, 300, STEPS):
        print(f"шаг {snapshot.step:>4}, потери на проверке {snapshot.val_loss:.2f}:\n  «{snapshot.sample}»\n")

# %% [markdown]
# Что от округлений почти не зависит, посчитаем: какая доля слов (от трёх букв подряд) в текстах модели —
# настоящие слова корпуса. Сто символов — это полтора десятка слов, слишком мало для доли, поэтому
# пусть модель напишет по 150 символов четыре раза (одним вызовом `generate`: строки батча — независимые тексты).

# %%
from course_lib.props.gpt_reading import known_word_share


def written(model, rows=4, length=150):
    """rows текстов по length символов после «Внимание» — одним батчем, из одного зерна."""
    prompt = np.tile(tokenizer.encode("Внимание"), (rows, 1))                 # (rows, 8)
    with nt.fast():
        ids = model.generate(prompt, length, rng=np.random.default_rng(0))    # (rows, 8 + length)
    return "\n".join(tokenizer.decode(row[prompt.shape[1]:]) for row in ids)


share_before, share_after = known_word_share(written(gpt), text), known_word_share(written(run.model), text)
print(f"доля настоящих слов: у необученной модели меньше 0.05 — {share_before < 0.05};  "
      f"после обучения больше 0.1 — {share_after > 0.1}")
assert share_before < 0.05 and share_after > 0.1

# %% tags=["nbval-ignore-output"]
print(f"доля настоящих слов: до обучения {share_before:.2f}, после {share_after:.2f}")

# %% [markdown]
# ## Поиграйте: что модель писала на каждом шаге
#
# Ползунок «шаг» листает снимки: сверху — потери на проверке до этого шага, снизу — образец текста.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.gpt import samples_explorer

samples_explorer(run)

# %% [markdown]
# ## Учить дольше: чекпойнт
#
# Что даёт время? Та же модель, те же батчи и то же зерно, но 2400 шагов, и шаг обучения к концу плавно
# убывает (по косинусу, от 0.003 до 0.0003: маленькие шаги в конце дают модели осесть). Это несколько минут
# процессора, поэтому её обучили один раз инструментом `tools/train_gpt_checkpoint.py` и положили веса
# в репозиторий (`course_lib/props/data/gpt_lessons_ru.npz`, около мегабайта). Учили на том же корпусе —
# снимке уроков 00–09. Файл — только массивы
# и словарь, без pickle: загрузка не выполнит чужой код, а файл не той формы или не того словаря
# получит понятное сообщение.

# %%
from course_lib.props.gpt_checkpoint import lesson_checkpoint_path, load_gpt

long_model, long_tokenizer = load_gpt(lesson_checkpoint_path(), tokenizer=tokenizer)
long_loss = evaluate(long_model, val_windows)
share_long = known_word_share(written(long_model), text)
print(f"чекпойнт: потери на проверке ≤ 1.8: {long_loss <= 1.8};  лучше минутной модели на 0.1 и больше: "
      f"{long_loss < run.val_losses[-1] - 0.1};  настоящих слов больше: {share_long > share_after}")
assert long_loss <= 1.8 and long_loss < run.val_losses[-1] - 0.1 and share_long > share_after

# %% tags=["nbval-ignore-output"]
print(f"потери на проверке: минута — {run.val_losses[-1]:.3f}, чекпойнт — {long_loss:.3f} "
      f"(биграммы {baselines['биграммы']:.2f}); доля настоящих слов: {share_after:.2f} и {share_long:.2f}")
sample = long_model.generate(tokenizer.encode("Внимание")[None], 300, temperature=0.8, rng=np.random.default_rng(0))
print(tokenizer.decode(sample[0]))

# %% [markdown]
# Посмотрите на текст чекпойнта: настоящих слов в нём заметно больше, чем у минутной модели, встречаются
# обороты курса, формулы в долларах, списки и переносы строк, как в markdown уроков. Смысла нет: модель
# знает, какие символы обычно идут за какими на расстоянии до 64, и ничего больше.
#
# ## Температура и top-k
#
# Генерация выбирает следующий символ случайно по вероятностям модели. Как в уроке 02, перед softmax
# логиты делят на **температуру** $\tau$: $\tau < 1$ заостряет распределение (модель смелее берёт самое
# вероятное), $\tau > 1$ сглаживает (текст случайнее). **top-k** оставляет только $k$ самых вероятных
# символов и делит вероятность между ними; `top_k=1` — жадный выбор. Так устроены `next_token_probs`
# и `sample_next_token`, которым пишет `generate` (как в nanoGPT):

# %%
from course_lib.nn.sampling import next_token_probs, sample_next_token

print(inspect.getsource(next_token_probs))
print(inspect.getsource(sample_next_token))

# %% [markdown]
# Измерим, как температура меняет распределение следующего символа после «Внимание » у чекпойнта:
# энтропия (в битах, урок 06: сколько «вариантов» у модели) и вероятность самого вероятного символа.

# %%
with nt.no_grad():
    logits = long_model(tokenizer.encode("Внимание ")[None]).data[0, -1]     # (V,)
taus = [0.5, 1.0, 2.0]
probs = [nt.softmax(logits / tau) for tau in taus]
entropies = [float(nt.functional.entropy(p)) for p in probs]
greedy = sample_next_token(logits[None], 1.0, 1, np.random.default_rng(0))[0]
print("энтропия растёт с температурой:", entropies[0] < entropies[1] < entropies[2],
      ";  top_k = 1 — всегда самый вероятный:", greedy == logits.argmax())
assert entropies[0] < entropies[1] < entropies[2] and greedy == logits.argmax()

# %% tags=["nbval-ignore-output"]
for tau, p, H in zip(taus, probs, entropies):
    print(f"τ = {tau}: энтропия {H:.2f} бит, самый вероятный символ — {p.max():.2f}")

# %% [markdown]
# ## Поиграйте: температура, top-k и ваш промпт
#
# Напишите начало текста, двигайте температуру и top-k — модель допишет 200 символов через KV-кэш
# (урок 08); top-k = 0 — выбирать из всех символов. Столбики — вероятности первого символа после промпта
# при этих настройках. **Посмотрите**, что станет с текстом при $\tau = 0.1$ (почти всегда самое
# вероятное) и при $\tau = 2$, и что top-k = 5 делает с текстом при высокой температуре. «Зерно» —
# другая случайная выборка при тех же настройках.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.gpt import sampling_explorer, sampling_view

sampling_explorer(long_model, tokenizer)

# %% [markdown]
# Сколько стоит один кадр? У курса бюджет на сдвиг ползунка — около 100 мс, а здесь каждый кадр — это
# 200 символов генерации. Пока текст короче окна ($T = 64$), каждый новый символ проходит модель один
# (KV-кэш, урок 08); дальше окно сдвигается, позиции всех символов меняются, и окно приходится считать
# заново на каждом символе. Поэтому ползунки этого виджета обновляют текст, когда ручку отпустили.

# %% tags=["nbval-ignore-output"]
started = time.perf_counter()
for tau in [0.5, 0.8, 1.2]:
    sampling_view(long_model, tokenizer, "Внимание", tau, 0)
print(f"один сдвиг: {(time.perf_counter() - started) / 3 * 1000:.0f} мс")

# %% [markdown]
# ## Головы обученной модели
#
# Что делают 16 голов чекпойнта (4 слоя по 4)? Как в уроке 09, назовём их по измерениям. Для каждой
# головы — средний вес на 32 окнах проверочного текста:
#
# - **на предыдущий символ** ($t \to t-1$) — как голова предыдущего токена урока 09;
# - **на последний пробел**: от символа внутри слова — на пробел перед этим словом (только когда он не сосед):
#   голова, которая знает, где началось слово;
# - **индукционная**: первые 32 символа окна, повторённые дважды; от символа второй копии — на символ,
#   шедший после него в первой ($q \to q - L + 1$, урок 09).
#
# Слои и головы нумеруем с нуля.

# %%
from course_lib.props.gpt_reading import ablation_costs, head_scores

scores = head_scores(long_model, val_windows[:32, :-1], space_id=tokenizer.encode(" ")[0])
kinds = {"previous": "на предыдущий символ", "space": "на последний пробел", "induction": "индукционная"}
fig, axes = plt.subplots(1, 3, figsize=(10, 3.2), layout="constrained")
for ax, (name, title) in zip(axes, kinds.items()):
    image = ax.imshow(getattr(scores, name), cmap=vis.WEIGHTS_CMAP, vmin=0, vmax=1)
    ax.set(title=title, xlabel="голова", ylabel="слой", xticks=range(4), yticks=range(4))
fig.colorbar(image, ax=axes, label="средний вес", shrink=0.8)
fig.suptitle("Три оценки каждой головы чекпойнта")
plt.show()
previous_head, space_head = scores.best("previous"), scores.best("space")
print(f"голова предыдущего символа — слой {previous_head[0]}, голова {previous_head[1]}: вес на t − 1 ≥ 0.5 —",
      scores.previous[previous_head] >= 0.5)
print(f"голова последнего пробела — слой {space_head[0]}, голова {space_head[1]}: вес на пробел ≥ 0.15 и вдвое "
      f"больше среднего по головам — {scores.space[space_head] >= 0.15 and scores.space[space_head] > 2 * scores.space.mean()}")
print("индукционной головы нет: вес на «после прошлого раза» < 0.1 у всех —", scores.induction.max() < 0.1)
assert scores.previous[previous_head] >= 0.5 and scores.induction.max() < 0.1
assert scores.space[space_head] >= 0.15 and scores.space[space_head] > 2 * scores.space.mean()

# %% tags=["nbval-ignore-output"]
print(f"на предыдущий символ: {scores.previous[previous_head]:.2f};  на последний пробел: {scores.space[space_head]:.2f} "
      f"(в среднем по головам {scores.space.mean():.2f});  индукционная: не больше {scores.induction.max():.2f}")

# %% [markdown]
# Голова предыдущего символа отдаёт ему больше половины веса. Голова пробела слабее, но заметна:
# на пробел перед словом она смотрит в разы чаще, чем голова в среднем. А индукционной головы
# в нашей модели нет вовсе: на повторённом куске ни одна голова не ищет «что было после прошлого раза».
# В уроке 09 задача была придумана так, что без копирования её не решить; в прозе курса дословные
# повторы длиной в десятки символов редки, и за пару тысяч шагов модель этому не научилась.
#
# Выключим каждую голову (обнулим её строки в $W_O$, как в уроке 09) и посмотрим, на сколько вырастут
# потери на проверке:

# %%
all_costs = ablation_costs(long_model, val_windows, list(np.ndindex(4, 4))).reshape(4, 4)
fig, ax = plt.subplots(figsize=(4.4, 3.4), layout="constrained")
image = ax.imshow(all_costs, cmap=vis.WEIGHTS_CMAP, vmin=0)
ax.set(xlabel="голова", ylabel="слой", xticks=range(4), yticks=range(4), title="Абляция: рост потерь на проверке")
fig.colorbar(image, ax=ax, label="наты на символ")
plt.show()
print("дороже всех — голова предыдущего символа:", np.unravel_index(all_costs.argmax(), (4, 4)) == previous_head)
print("без головы пробела потери тоже растут (больше 0.01):", all_costs[space_head] > 0.01)
assert np.unravel_index(all_costs.argmax(), (4, 4)) == previous_head and all_costs[space_head] > 0.01

# %% tags=["nbval-ignore-output"]
print(f"без головы предыдущего символа: +{all_costs[previous_head]:.3f} ната;  без головы пробела: "
      f"+{all_costs[space_head]:.3f};  в среднем по 16 головам: +{all_costs.mean():.3f}")

# %% [markdown]
# Без головы предыдущего символа модель теряет больше всего: «какой символ стоял передо мной» — самое
# полезное, что внимание приносит символу. Голова пробела стоит куда меньше (во сколько — в ячейке выше):
# то, что она делает, модель умеет узнать и другими путями.

# %% [markdown]
# ## Поиграйте: головы на фразах
#
# Выберите фразу, слой и голову. Фразы: «кот сел на тёплый коврик» и «банк выдал кредит» из прошлых
# уроков и фраза, повторённая дважды. **Найдите** голову предыдущего символа (диагональ под главной)
# и голову, которая смотрит на пробел перед словом (столбцы пробелов). На повторённой фразе **проверьте**
# сами: смотрит ли хоть одна голова во второй копии на символ после прошлого раза — диагональ, сдвинутая
# на длину фразы?

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.gpt import gpt_heads_explorer

PHRASES = ["кот сел на тёплый коврик", "банк выдал кредит", "кот сел на коврик. кот сел на коврик."]
gpt_heads_explorer(long_model, tokenizer, PHRASES)

# %% [markdown]
# ## Зачем маска
#
# В уроке 05 мы сказали: без причинной маски модель списывает ответ у соседа справа и ничему не научится.
# Проверим. Та же модель, то же зерно и те же батчи, но `causal=False` — каждый символ видит все
# символы окна, в том числе следующий, который и нужно предсказать. 300 шагов:

# %%
cheat = train_gpt(text, 300, seed=0, causal=False, progress=lambda *args: None)
masked_loss, cheat_loss = run.losses[250:300].mean(), cheat.losses[250:].mean()
print(f"потери обучения на шагах 250–300 без маски меньше, чем с маской, в 10 раз и больше: {cheat_loss < masked_loss / 10}")
assert cheat_loss < masked_loss / 10

# %% tags=["nbval-ignore-output"]
print(f"потери обучения на шагах 250–300: с маской {masked_loss:.2f}, без маски {cheat_loss:.2f} ната")

# %% [markdown]
# Без маски потери падают почти до нуля: модели не нужно ничего понимать, достаточно найти следующий
# символ в окне и скопировать его. А теперь попросим её писать. При генерации следующего символа ещё нет —
# списывать не у кого. Сравним с моделью из основного прогона: какая доля слов образца (от трёх букв) —
# настоящие слова корпуса, и самый длинный повтор одного символа подряд:

# %%
from course_lib.props.gpt_reading import longest_run

cheat_text, honest_text = written(cheat.model), written(run.model)
print(f"настоящих слов: без маски меньше 0.05 — {known_word_share(cheat_text, text) < 0.05}, "
      f"с маской больше 0.1 — {known_word_share(honest_text, text) > 0.1}")
print("без маски один и тот же символ повторяется 10 раз подряд и больше:", longest_run(cheat_text) >= 10)
assert known_word_share(cheat_text, text) < 0.05 and known_word_share(honest_text, text) > 0.1
assert longest_run(cheat_text) >= 10

# %% tags=["nbval-ignore-output"]
print("без маски:", repr(cheat_text[:120]))
print("с маской: ", repr(honest_text[:120]))
print(f"самый длинный повтор одного символа: без маски {longest_run(cheat_text)}, с маской {longest_run(honest_text)}")

# %% [markdown]
# Модель без маски выучила только «списывать» — а при генерации списывать не у кого, и выходит мешанина
# символов. Низкие потери обучения ещё не значат, что модель чему-то научилась (вспомните ловушку урока 09):
# маска закрывает путь к ответу, и модели приходится учить язык.
#
# ## Свой текст
#
# Модель учится на любом тексте на UTF-8. Положите файл рядом с тетрадкой и напишите его имя в
# `MY_TEXT` — `load_text` прочитает его, а если с файлом что-то не так (его нет, он пуст, это
# картинка или .docx, он не в UTF-8, он короче окна), скажет, что именно и что сделать (в сообщении —
# и папка, где искали файл: у вас она своя):

# %% tags=["nbval-ignore-output"]
from course_lib.props.text_file import load_text

for bad in ["нет_такого_файла.txt", "."]:
    try:
        load_text(bad)
    except ValueError as error:
        print("❌", error)

# %% [markdown]
# Для примера возьмём глоссарий курса (его в корпусе нет) — 100 шагов, несколько секунд. Поставьте
# свой файл и побольше шагов: на тексте в сотню тысяч символов через тысячу шагов появятся слова.

# %% tags=["nbval-ignore-output"]
MY_TEXT = "glossary.md"
mine = load_text(MY_TEXT)
own = train_gpt(mine, 100, seed=0, progress=progress_bar())
print(f"{len(mine):,} символов, словарь {own.tokenizer.vocab_size}; потери на проверке {own.val_losses[-1]:.2f}")
print(own.tokenizer.decode(own.model.generate(own.tokenizer.encode(mine[:10])[None], 150,
                                              rng=np.random.default_rng(0))[0]))

# %% [markdown]
# ## Упражнения
#
# ### 1. Вероятности следующего символа
#
# Напишите `my_next_token_probs(logits, temperature, top_k)`: логиты одного шага $(V,)$ -> вероятности
# $(V,)$. Поделите логиты на температуру, оставьте `top_k` самых больших (`None` — все), остальным —
# вероятность 0, и softmax среди оставшихся.

# %%
from course_lib.exercises.gpt import check_bigram_loss, check_next_token_probs


def my_next_token_probs(logits, temperature, top_k):
    raise NotImplementedError  # ваш код здесь


_ = check_next_token_probs(my_next_token_probs)

# %% jupyter={"source_hidden": true}
# Решение: сначала температура, потом порог — k-й по величине логит; вне top-k — -inf, потом softmax.
def next_token_probs_solution(logits, temperature, top_k):
    scaled = logits / temperature
    if top_k is not None:
        scaled = np.where(scaled < np.sort(scaled)[-top_k], -np.inf, scaled)
    return nt.softmax(scaled)


_ = check_next_token_probs(next_token_probs_solution)

# %% [markdown]
# ### 2. Потери биграмм
#
# Напишите `my_bigram_loss(train_ids, val_ids, V)`: по обучающим номерам посчитайте таблицу $(V, V)$
# «сколько раз за символом $a$ шёл символ $b$», прибавьте 1 к каждой клетке, поделите каждую строку
# на её сумму — это $p(b \mid a)$. Верните средний $-\ln p$ по всем парам соседей проверочной части.

# %%
def my_bigram_loss(train_ids, val_ids, V):
    raise NotImplementedError  # ваш код здесь


_ = check_bigram_loss(my_bigram_loss)

# %% jupyter={"source_hidden": true}
# Решение: np.add.at считает повторяющиеся пары честно (counts[a, b] += 1 с массивами — нет).
def bigram_loss_solution(train_ids, val_ids, V):
    counts = np.ones((V, V))
    np.add.at(counts, (train_ids[:-1], train_ids[1:]), 1)
    p = counts / counts.sum(axis=1, keepdims=True)
    return -np.log(p[val_ids[:-1], val_ids[1:]]).mean()


_ = check_bigram_loss(bigram_loss_solution)
print("то же число, что у точки отсчёта биграмм:",
      np.isclose(bigram_loss_solution(train_ids, val_ids, V), baselines["биграммы"]))

# %% [markdown]
# ## Итог
#
# - **GPT** — эмбеддинги токена и позиции, стопка блоков с причинным вниманием, LayerNorm и линейная
#   голова; у нашей 226 тысяч параметров, и все они — детали, которые вы собрали в уроках 01–09.
# - **Точки отсчёта** делают потери осмысленными: $\ln V$, униграммы, биграммы. Всё ниже биграмм модель взяла из
#   дальнего контекста — через внимание.
# - **Обучение** за минуту процессора опускает потери на проверке ниже 2.1 ната на символ; разрыв между кривыми
#   обучения и проверки — то, что модель выучила про свой текст, а не про язык. Чекпойнт, обученный
#   дольше и с убывающим шагом, — не выше 1.8; ещё дольше — и модель начинает заучивать текст.
# - **Температура** заостряет или сглаживает распределение, **top-k** отрезает маловероятный хвост.
# - **Головы** обученной модели делят работу, и это измеряется: голова предыдущего символа (без неё потери
#   растут сильнее всего), голова последнего пробела. Индукционной головы на этом тексте не сложилось —
#   и это тоже измерение, а не впечатление.
# - **Маска** — не формальность: без неё потери обучения падают почти до нуля, а текст — мешанина.
#
# ## Что отделяет эту модель от GPT-2
#
# Ничего нового в устройстве — только масштаб. Посчитаем, во сколько раз. Данные о GPT-2 — из статьи
# Radford et al. (2019, «Language Models are Unsupervised Multitask Learners») и опубликованной
# конфигурации модели: словарь 50 257 токенов, окно 1024 токена, 124 млн параметров у small и 1.5 млрд
# у самой большой, обучающий текст WebText — около 40 ГБ.

# %%
ours = {"параметров": gpt.num_params(), "окно, токенов": 64, "словарь, токенов": V,
        "текст, байт": len(text.encode("utf-8"))}
gpt2 = {"параметров": GPT2_SMALL, "окно, токенов": 1024, "словарь, токенов": 50_257, "текст, байт": 40e9}
for key in ours:
    print(f"{key:>17}: у нас {ours[key]:>12,.0f}, у GPT-2 small {gpt2[key]:>16,.0f} — в {gpt2[key] / ours[key]:>9,.0f} раз больше")
seen = STEPS * 16 * 64
print(f"за минуту наша модель увидела {seen:,} символов; вычислений на обучение ≈ 6 · параметры · символы "
      f"(Kaplan et al., 2020) = {6 * gpt.num_params() * seen:.1e} операций")
assert gpt2["параметров"] / ours["параметров"] > 500

# %% [markdown]
# Параметров в пятьсот с лишним раз больше, окно в 16 раз длиннее, текста — в сотни тысяч раз больше, и
# токен — кусок слова, а не буква. Такие модели учат на видеокартах, а не минуту на процессоре.
# Но устроена GPT-2 так же, как модель, которую вы только что обучили: те же эмбеддинги,
# та же маска, те же головы, те же блоки. Статья обещала: «соберём всё вместе и посмотрим, как из этих
# кубиков получается работающая GPT». Собрали — и посмотрели: она учится, пишет и делит работу между
# головами на глазах.
#
# **Дальше:** это последний урок. Возьмите свой текст — дневник, стихи, переписку, код — и обучите на нём
# модель подольше: `train_gpt(load_text("мой_текст.txt"), 3000)`. Перечитайте `course_lib/nn/gpt.py`:
# теперь в нём нет ни одной строчки, которую вы бы не понимали.

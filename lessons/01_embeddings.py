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
# # Урок 01. Эмбеддинги: слова как векторы
#
# Нейросеть не умеет читать буквы — она умеет умножать числа. Поэтому первым делом текст
# превращают в векторы: каждому слову — строчку чисел. В этом уроке мы пройдём весь путь
# от фразы «кот сел на тёплый коврик» до векторов, у которых похожие слова стоят рядом,
# и упрёмся в проблему, ради которой придумали attention.
#
# **В этом уроке:**
# - текст → токены → номера → векторы; поиск эмбеддинга — это просто строка таблицы;
# - осмысленные векторы из маленького корпуса без всякого обучения сети — по соседям слов,
#   на NumPy, за доли секунды;
# - косинусное сходство и ближайшие соседи; карта слов на плоскости;
# - главная проблема: у слова «банк» (и у английского «mole») один вектор на все смыслы —
#   и мы измерим, где он застревает;
# - в конце, **необязательно**: как векторы получаются из соседей по шагам (счётчики, PPMI, SVD).
#
# Незнакомый термин — в [глоссарии](glossary.md), формы массивов — в [шпаргалке по формам](shapes.md).

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
from matplotlib.patches import Patch

import course_lib as nt
from course_lib import vis
from course_lib.props.embeddings import (STOP_WORDS, build_vocab, cooccurrence, load_corpus, load_sections, ppmi,
                                   svd_embeddings, tokenize, train_static_embeddings, word_topics)

# %% [markdown]
# ## Текст → токены → номера
#
# Сначала режем текст на кусочки — **токены**. У нас токен — это слово в нижнем регистре,
# знаки препинания выбрасываем. Потом каждому токену даём номер в **словаре** — списке всех
# слов, которые встречались в корпусе (корпус — это просто много предложений; наш лежит внутри
# `course_lib`, о нём ниже).

# %%
corpus = load_corpus("ru")                  # список предложений, каждое — список слов
vocab = build_vocab(corpus)                 # все слова корпуса, от частых к редким
word_to_id = {word: i for i, word in enumerate(vocab)}

tokens = tokenize("Кот сел на тёплый коврик.")
ids = np.array([word_to_id[t] for t in tokens])
print("токены:", tokens)
print("номера:", ids, f" (словарь: V = {len(vocab)} слов)")

# %% [markdown]
# Номер — просто адрес в словаре: «кот» не «больше» «на» оттого, что у него номер больше.
# Настоящие модели режут текст не на слова, а на кусочки слов: токенизатор **BPE** (byte-pair
# encoding) начинает с отдельных символов и раз за разом склеивает самую частую пару соседей
# в новый токен, пока словарь не дорастёт до десятков тысяч токенов. Дальше всё устроено так же.

# %% [markdown]
# ## Номер → вектор: строка таблицы
#
# Слой эмбеддингов — это таблица размера (V, d_model): по строке на каждое слово словаря,
# `d_model` чисел в строке (`d_model` — длина вектора токена; у нас 8, у настоящих моделей — сотни и тысячи).
# Чтобы получить вектор токена, берём строку таблицы с его номером. Для предложения из $T$
# токенов получается матрица $X$ формы (T, d_model) — с ней и будет работать внимание.

# %%
nt.manual_seed(0)
d_model = 8
embedding = nt.Embedding(len(vocab), d_model)       # таблица (V, d_model), пока случайная
X = embedding(ids)                                   # (T,) -> (T, d_model)
print(embedding)
print("X:", X.shape, " = T токенов по d_model чисел")
print(f"строка X для «кот» == строка таблицы номер {ids[0]}:", np.array_equal(X.data[0], embedding.weight.data[ids[0]]))

# %% [markdown]
# То же самое можно записать умножением матриц. Закодируем каждый токен вектором **one-hot**:
# длины V, все нули и одна единица на месте номера. Умножение one-hot на таблицу выбирает
# ровно одну её строку:
#
# $$\text{one\_hot}(\text{ids}) \cdot W = W[\text{ids}], \qquad (T, V) \cdot (V, d_{model}) \to (T, d_{model}).$$

# %%
one_hot = np.eye(len(vocab))[ids]                    # (T, V): в строке i единица в столбце ids[i]
print("one_hot:", one_hot.shape, " единиц в строке:", one_hot.sum(axis=1))
print("one_hot @ W == W[ids]:", np.allclose(one_hot @ embedding.weight.data, X.data))
print(f"доля ненулевых чисел в one_hot: {one_hot.mean():.4f}")

# %% [markdown]
# Поэтому слой эмбеддингов — обычный **линейный слой** без смещения, на вход которому подают
# one-hot. Линейный слой — это $y = xW + b$: умножение на матрицу весов $W$ плюс вектор
# **смещения** $b$ (bias); такие слои встретятся в каждом уроке. Умножать на матрицу, где почти все числа — нули, расточительно, и библиотеки
# просто берут строку по номеру. Результат тот же, а градиент при обучении достаётся только
# строкам тех слов, которые были в тексте.
#
# Пока числа в таблице случайные, и векторы ничего не значат. В большой модели их подбирает
# обучение. Но осмысленные векторы можно получить и проще — из одних только соседей слов.

# %% [markdown]
# ## Слово узнают по соседям
#
# «Скажи мне, кто твой друг, и я скажу, кто ты». Слова, которые встречаются в похожих
# окружениях, похожи по смыслу: рядом с «кредит» и «вклад» стоят «банк», «процент»,
# «деньги»; рядом с «лодка» и «рыба» — «река», «берег», «течение». Это **дистрибутивная
# гипотеза** (Harris, 1954; Firth, 1957), и на ней построены первые эмбеддинги: word2vec (Mikolov et al.,
# 2013) и GloVe (Pennington et al., 2014).
#
# Для курса мы написали маленький корпус: 532 коротких предложения на четыре темы.

# %%
sections = load_sections("ru")
for topic, sentences in sections.items():
    words = sum(len(s) for s in sentences)
    bank = sum(s.count("банк") for s in sentences)
    print(f"{topic:>9}: предложений {len(sentences)}, слов {words}, из них «банк»: {bank}")
print(f"    всего: предложений {len(corpus)}, слов {sum(len(s) for s in corpus)}")

# %% [markdown]
# Слово «банк» нарочно живёт в двух темах. В финансах — привычный банк с кредитами.
# У реки — песчаный банк, отмель: «лодка села на песчаный банк посреди реки».
# Честно скажем: по-русски отмель чаще называют «банкой» («песчаная банка»), а «банк» у
# реки — калька английского *bank*, как в статье, по которой написан курс. Мы оставили
# «банк» в обоих смыслах, чтобы у одного токена было два значения. А стеклянная банка с
# вареньем — это токен «банка», совсем другой; позже выяснится, что и у него есть двойник.

# %%
for topic in ["финансы", "река"]:
    examples = [" ".join(s) for s in sections[topic] if "банк" in s][:2]
    print(f"{topic}: {examples}")

# %% [markdown]
# ## Векторы из соседей — одной функцией
#
# Как превратить «кто с кем стоит рядом» в векторы? Три шага, все на NumPy:
#
# 1. посчитать, сколько раз каждая пара слов стояла рядом — не дальше трёх слов друг от друга.
#    Служебные слова («на», «в», «и», «the») выбрасываем заранее: они стоят рядом со всеми темами
#    сразу и о смысле ничего не говорят;
# 2. оставить только то, что встречается вместе **чаще, чем случайно** (PPMI), — иначе самые
#    частые слова оказались бы соседями всем;
# 3. сжать длинную строку таких чисел до 16 (SVD) — это и есть вектор слова.
#
# Все три шага делает `train_static_embeddings`. Как устроен каждый и что теряет сжатие, —
# в необязательном разделе в конце урока; для внимания нам хватит результата.

# %%
emb = train_static_embeddings(corpus, dim=16, window=3, min_count=2)
print(emb, "— словарь из V слов, у каждого вектор из dim чисел")
print(f"слов {len(emb)} из {len(vocab)}: без служебных и без встреченных лишь раз (по одной встрече соседей не узнать)")
print("вектор «банк»:", np.round(emb.vector("банк")[:4], 2), "… всего", emb.vector("банк").shape, "чисел")

# %% [markdown]
# Сколько это стоит по времени? Зависит от машины, но у вас ниже должны выйти доли секунды
# процессорного времени — никакого обучения сети, только счётчики и одно разложение матрицы.

# %% tags=["nbval-ignore-output"]
from course_lib.measure import seconds

print(f"train_static_embeddings: {seconds(lambda: train_static_embeddings(corpus), repeats=1, warmup=False):.2f} с")

# %% [markdown]
# ## Косинусное сходство и ближайшие соседи
#
# Насколько похожи два слова? Сравним направления их векторов — **косинус** угла между ними:
#
# $$\cos(a, b) = \frac{a \cdot b}{\lVert a \rVert\,\lVert b \rVert}.$$
#
# 1 — смотрят в одну сторону, 0 — перпендикулярны (не связаны), −1 — противоположны.
# Длина вектора в косинус не входит: частое слово с длинным вектором не обгоняет редкое.

# %%
for a, b in [("деньги", "кредит"), ("деньги", "река"), ("кот", "мышь"), ("кот", "варенье")]:
    print(f"cos({a}, {b}) = {emb.cosine(a, b):+.3f}")
print(f"cos(банк, банк) = {emb.cosine('банк', 'банк'):.3f}")

# %% [markdown]
# Ближайшие соседи слова — слова с самым большим косинусом (само слово не считаем).
# Проверим, что похожие слова собрались вместе: тема каждого слова известна из корпуса —
# та, где оно встречается в 80 % случаев и чаще.

# %%
topics = word_topics(sections)                        # {слово: тема} для слов одной темы
for word in ["деньги", "река", "варенье", "кот"]:
    neighbours = emb.nearest(word, k=5)
    same = sum(topics.get(w) == topics[word] for w, _ in neighbours)
    print(f"{word:>8}: " + ", ".join(f"{w} {c:.2f}" for w, c in neighbours) + f"   ({same} из 5 — «{topics[word]}»)")
    assert same >= 2, (f"у «{word}» соседей из темы «{topics[word]}» {same} из 5, а нужно хотя бы 2: "
                       f"{[w for w, _ in neighbours]}")

# %% [markdown]
# Теперь то же для всего словаря: для каждого слова с темой возьмём 5 соседей и посчитаем,
# сколько из них из той же темы. Если бы соседи были случайными, совпадала бы примерно
# четверть (тем четыре; точнее — с учётом размеров тем — ниже).

# %%
def same_topic_share(embeddings):
    words = [w for w in embeddings.vocab if w in topics]
    hits = sum(topics.get(n) == topics[w] for w in words for n, _ in embeddings.nearest(w, k=5))
    return hits / (5 * len(words))


sizes = np.array([sum(t == topic for t in topics.values()) for topic in sections])
share = same_topic_share(emb)
print(f"соседи из той же темы: {share:.0%}   (случайно: {((sizes / sizes.sum()) ** 2).sum():.0%})")
assert share > 0.85, f"соседи из той же темы: {share:.1%}, а нужно больше 85%"

# %% [markdown]
# ## Карта слов
#
# Вектор из 16 чисел не нарисовать. Возьмём несколько слов каждой темы, найдём две оси,
# вдоль которых их векторы различаются сильнее всего (главные компоненты — то же SVD, только
# для выбранных слов), и спроецируем на них. Красным — «банк» и «банка». Вторая ячейка —
# только рисование (цвета, подписи столбиком, чтобы не слипались); она свёрнута — раскройте,
# если интересно.

# %%
MAP_WORDS = {"финансы": ["деньги", "кредит", "вклад", "процент"], "река": ["река", "берег", "лодка", "рыба"],
             "кухня": ["варенье", "огурцы", "крышка", "стекло"], "животные": ["кот", "собака", "мышь", "коврик"]}
MIXED = "несколько тем"
TOPIC_COLORS = {"финансы": "tab:blue", "река": "tab:green", "кухня": "tab:orange", "животные": "tab:purple",
                MIXED: "tab:red"}


def project_2d(embeddings, words):
    """Единичные векторы слов -> координаты (n, 2) на двух главных осях и доля разброса на них."""
    units = np.stack([embeddings.vector(w) / np.linalg.norm(embeddings.vector(w)) for w in words])
    centred = units - units.mean(axis=0)                       # (n, dim)
    _, S, Vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ Vt[:2].T, (S[:2] ** 2).sum() / (S ** 2).sum()   # (n, dim) @ (dim, 2) -> (n, 2)

# %% jupyter={"source_hidden": true}
def word_map(embeddings, groups, title):
    """Карта: группы слов своими цветами; подписи группы — столбиком рядом с ней, чтобы не слипались."""
    words = [w for ws in groups.values() for w in ws]
    points, kept = project_2d(embeddings, words)
    fig = vis.vectors_2d(points, [""] * len(words), title=f"{title}\n(две главные оси держат {kept:.0%} разброса)",
                         arrows=False, colors=[TOPIC_COLORS[t] for t, ws in groups.items() for _ in ws])
    ax, start = fig.axes[0], 0
    for topic, ws in groups.items():
        group = points[start:start + len(ws)]                   # (n, 2) точки этой группы
        start += len(ws)
        if topic == MIXED:                                      # многозначные слова подписываем прямо у точки
            for w, point in zip(ws, group):
                ax.annotate(w, point, xytext=(5, 5), textcoords="offset points", color="tab:red", weight="bold")
            continue
        side = -1 if group[:, 0].mean() > 0 else 1              # подписи — в сторону центра картинки
        x = (group[:, 0].min() - 0.12 if side < 0 else group[:, 0].max() + 0.12)
        for j, k in enumerate(np.argsort(-group[:, 1])):         # сверху вниз, чтобы линии не перекрещивались
            y = group[:, 1].mean() + 0.08 * ((len(ws) - 1) / 2 - j)
            ax.annotate(ws[k], group[k], xytext=(x, y), ha="left" if side > 0 else "right", va="center",
                        arrowprops={"arrowstyle": "-", "color": "grey", "lw": 0.5})
    ax.legend(handles=[Patch(color=TOPIC_COLORS[t], label=t) for t in groups], loc="best", fontsize=8)
    return fig


word_map(emb, {**MAP_WORDS, MIXED: ["банк", "банка"]}, "Слова корпуса на плоскости")
plt.show()

# %% [markdown]
# Четыре темы — четыре кучки: векторы одной темы смотрят почти в одну сторону. А где
# «банк» и «банка»? По карте не судите: она лишь тень 16-мерных векторов (оси держат меньше
# половины разброса), и точка, которая на плоскости сидит внутри кучки, в полном пространстве
# может тянуться и к другой теме. Поэтому дальше меряем косинусами в полном пространстве.

# %% [markdown]
# ## Проблема: один вектор на все смыслы
#
# Центр темы — среднее единичных векторов всех её слов. Посмотрим, насколько «банк» близок
# к центру каждой темы, и сравним с однозначными словами.

# %%
def centroids(embeddings, topic_of, order):
    """{тема: средний единичный вектор (dim,) её слов}, темы в порядке order."""
    centres = {}
    for topic in order:
        words = [w for w in embeddings.vocab if topic_of.get(w) == topic]
        units = [embeddings.vector(w) / np.linalg.norm(embeddings.vector(w)) for w in words]   # n × (dim,)
        centres[topic] = np.mean(units, axis=0)
    return centres


def centroid_table(embeddings, centres, words):
    print(" " * 10 + "".join(f"{t:>11}" for t in centres))
    for w in words:
        print(f"{w:>10}" + "".join(f"{round(embeddings.cosine(w, c), 2) + 0.0:>11.2f}" for c in centres.values()))


centres = centroids(emb, topics, sections)
centroid_table(emb, centres, ["кредит", "лодка", "варенье", "кот", "банк", "банка"])

# %% [markdown]
# Однозначные слова близки к одному центру и далеки от остальных. «Банк» близок сразу к двум:
# к финансам — даже ближе, чем «кредит», и заметно — к реке (0.54, у «лодки» к финансам — 0.08).
# Его вектор — смесь финансового и речного смыслов. Финансов в смеси больше, потому что
# в корпусе финансовый «банк» встречается чаще (44 раза против 25).
#
# А «банка»? В кухне это стеклянная банка, а в финансах — родительный падеж от «банк»:
# «в отделении банка», «акции банка». Токенизатор не знает грамматики: одинаковые буквы —
# один токен — один вектор.

# %%
bank_jar = {topic: sum(s.count("банка") for s in sentences) for topic, sentences in sections.items()}
print("«банка» по темам:", bank_jar)
print("финансовые примеры:", [" ".join(s) for s in sections["финансы"] if "банка" in s][:2])
assert emb.cosine("банка", centres["финансы"]) > 0.3 and emb.cosine("банка", centres["кухня"]) > 0.3, (
    f"косинус «банка» с центром «финансы» {emb.cosine('банка', centres['финансы']):.3f}, "
    f"с центром «кухня» {emb.cosine('банка', centres['кухня']):.3f}, а нужно оба больше 0.3")

# %% [markdown]
# Что, если бы каждый смысл получил свой вектор? Разведём смыслы вручную: в речных
# предложениях заменим «банк» на отдельный токен «банк_река» и построим векторы заново.

# %%
split_corpus = [[("банк_река" if w == "банк" and topic == "река" else w) for w in s]
                for topic, sentences in sections.items() for s in sentences]
emb_split = train_static_embeddings(split_corpus)
split_centres = centroids(emb_split, topics, sections)
centroid_table(emb_split, split_centres, ["банк", "банк_река"])
assert emb_split.cosine("банк_река", split_centres["река"]) > emb.cosine("банк", centres["река"]), (
    f"косинус «банк_река» с центром «река» {emb_split.cosine('банк_река', split_centres['река']):.3f}, "
    f"а у общего «банк» был {emb.cosine('банк', centres['река']):.3f}: должен стать больше")
assert emb_split.cosine("банк", split_centres["финансы"]) > emb.cosine("банк", centres["финансы"]), (
    f"косинус «банк» с центром «финансы» после разделения {emb_split.cosine('банк', split_centres['финансы']):.3f}, "
    f"а до него был {emb.cosine('банк', centres['финансы']):.3f}: должен стать больше")

# %% [markdown]
# Разведённые смыслы встали каждый в свою тему, и оба — ближе к ней, чем общий «банк».
# Но в настоящем тексте нам никто не подпишет, какой это банк. Это должна понять сама
# модель — по соседям в предложении: «песчаный», «реки», «лодка» или «кредит», «процент».
# Механизм, который позволяет токену посмотреть на соседей и сдвинуть свой вектор, —
# это и есть **attention**.

# %% [markdown]
# ## «mole»: три смысла — один вектор
#
# Пример из 3Blue1Brown: английское *mole* — это крот («American shrew mole»), моль как
# единица количества вещества («one mole of carbon dioxide») и родинка («take a biopsy of the
# mole»). Для него в курсе есть маленький английский корпус — по 42–48 фраз на смысл.

# %%
sections_en = load_sections("mole_en")
emb_en = train_static_embeddings(load_corpus("mole_en"))
topics_en = word_topics(sections_en)
centres_en = centroids(emb_en, topics_en, sections_en)
print({t: len(s) for t, s in sections_en.items()}, emb_en)
centroid_table(emb_en, centres_en, ["soil", "grams", "skin", "mole"])
foreign = max(emb_en.cosine(w, c) for w, own in [("soil", "animal"), ("grams", "chemistry"), ("skin", "medicine")]
              for t, c in centres_en.items() if t != own)
assert foreign < 0.2 and min(emb_en.cosine("mole", c) for c in centres_en.values()) > 2 * foreign, (
    f"у soil, grams, skin косинус с чужим центром до {foreign:.3f} (нужно < 0.2); у «mole» наименьший косинус "
    f"с центрами {min(emb_en.cosine('mole', c) for c in centres_en.values()):.3f}, а нужно больше {2 * foreign:.3f}")

# %% [markdown]
# Однозначные слова сидят каждое в своей теме: к чужим темам у них косинус меньше 0.2.
# А *mole* близок ко всем трём сразу: к кроту и родинке сильнее, к химии слабее — но и к ней
# больше чем вдвое ближе, чем любое однозначное слово к чужой теме.
# На карте он повис между облаками:

# %%
MOLE_WORDS = {"animal": ["soil", "tunnels", "lawn", "worms"], "chemistry": ["grams", "carbon", "gas", "atoms"],
              "medicine": ["skin", "biopsy", "doctor", "melanoma"], MIXED: ["mole"]}
TOPIC_COLORS.update({"animal": "tab:brown", "chemistry": "tab:cyan", "medicine": "tab:pink"})
word_map(emb_en, MOLE_WORDS, "mole и три его смысла")
plt.show()

# %% [markdown]
# ## Поиграйте
#
# Выберите слово — сверху появятся его ближайшие соседи, снизу — сам вектор полоской
# из 16 чисел. Ползунок «соседей» — сколько соседей показать. Ползунок «предложение»
# листает предложения корпуса с этим словом: у «банк» первые три — про деньги, последние
# три — про песчаный банк у реки.
#
# **Что увидеть:** листайте предложения — ни столбики, ни полоска не шелохнутся, меняется
# только подпись. В ней написано, насколько вектор в этом предложении отличается от строки
# таблицы: всегда 0.000. Статический эмбеддинг не смотрит на соседей.

# %% tags=["nbval-ignore-output"]
from course_lib.widgets.embeddings import contexts_for, embeddings_explorer, neighbours_view

explorer = embeddings_explorer(emb)
explorer

# %% [markdown]
# То же в числах: вектор «банк» во всех предложениях виджета — одна и та же строка таблицы.

# %%
contexts = contexts_for("банк", sections)
bank_vectors = [neighbours_view(emb, "банк", sentence).vector for _, sentence in contexts]
print("темы предложений с «банк»:", [topic for topic, _ in contexts])
print("вектор везде одинаков:", all(np.array_equal(v, bank_vectors[0]) for v in bank_vectors))

# %% [markdown]
# ## Упражнения
#
# Допишите функцию вместо `raise NotImplementedError` и выполните ячейку: проверка сразу
# ответит ✅ или ❌ с подсказкой. Решение спрятано в свёрнутой ячейке ниже — загляните,
# когда попробуете сами. Решения названы по-своему (`cosine_solution`, …), так что после
# «Run All» ваша функция и её вердикт остаются вашими.
#
# **Упражнение 1. Косинусное сходство.** `cosine(a, b)` для двух векторов формы (dim,)
# возвращает одно число от −1 до 1.

# %%
from course_lib.exercises.embeddings import check_cosine, check_nearest, check_one_hot_lookup


def cosine(a, b):
    raise NotImplementedError  # ваш код здесь


check_cosine(cosine)

# %% jupyter={"source_hidden": true} tags=["solution"]
def cosine_solution(a, b):
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


check_cosine(cosine_solution)

# %% [markdown]
# **Упражнение 2. Эмбеддинг через one-hot.** `one_hot_lookup(ids, weight)`: постройте
# матрицу one-hot (T, V) для номеров `ids` и умножьте её на таблицу `weight` (V, dim).
# Должно выйти то же, что `weight[ids]`.

# %%
def one_hot_lookup(ids, weight):
    raise NotImplementedError  # ваш код здесь


check_one_hot_lookup(one_hot_lookup)

# %% jupyter={"source_hidden": true} tags=["solution"]
def one_hot_lookup_solution(ids, weight):
    one_hot = np.eye(weight.shape[0])[ids]              # (T, V)
    return one_hot @ weight                             # (T, V) @ (V, dim) -> (T, dim)


check_one_hot_lookup(one_hot_lookup_solution)

# %% [markdown]
# **Упражнение 3. Ближайшие соседи.** `nearest(word, vocab, vectors, k)`: `vocab` — список
# слов, `vectors` — таблица (V, dim). Верните список из `k` слов с самым большим косинусом
# к `word`, от ближнего к дальнему, без самого `word`.

# %%
def nearest(word, vocab, vectors, k):
    raise NotImplementedError  # ваш код здесь


check_nearest(nearest)

# %% jupyter={"source_hidden": true} tags=["solution"]
def nearest_solution(word, vocab, vectors, k):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)   # (V, dim), каждая строка длины 1
    cosines = unit @ unit[vocab.index(word)]                          # (V,)
    order = np.argsort(-cosines)                                      # от большего косинуса к меньшему
    return [vocab[j] for j in order if vocab[j] != word][:k]


check_nearest(nearest_solution)
print("на настоящих векторах:", nearest_solution("деньги", emb.vocab, emb.vectors, 5))
assert nearest_solution("деньги", emb.vocab, emb.vectors, 5) == [w for w, _ in emb.nearest("деньги", k=5)], (
    f"решение дало {nearest_solution('деньги', emb.vocab, emb.vectors, 5)}, "
    f"а emb.nearest — {[w for w, _ in emb.nearest('деньги', k=5)]}")

# %% [markdown]
# ## Итог
#
# - Текст → токены → номера → векторы. Слой эмбеддингов — таблица (V, d_model), вектор токена —
#   её строка; это то же, что one-hot × таблица, только без умножения на нули.
# - Осмысленные векторы можно получить из соседей, без обучения сети: `train_static_embeddings`
#   на нашем корпусе из 532 предложений строит их за доли секунды (по шагам — в разделе ниже).
# - Сходство слов — косинус. Из ближайших соседей 9 из 10 — из той же темы (случайно был бы
#   1 из 4).
# - Вектор у слова один на все смыслы: «банк» застревает между финансами и рекой,
#   «банка» — между кухней и финансами, *mole* — между кротом, химией и родинкой.
#   В каком бы предложении ни стояло слово, вектор тот же самый.
#
# **Дальше:** урок 02 — внимание как мягкий поиск: как токен может «спросить» соседей и
# собрать из них взвешенную смесь. А в уроке 03 этот же «банк» сдвинется к «реке» в одном
# предложении и к «деньгам» — в другом.

# %% [markdown]
# ## Необязательно: как векторы получаются из соседей
#
# Этот раздел можно пропустить: для уроков 02–03 хватит того, что выше. Здесь — три шага
# `train_static_embeddings` по отдельности, что теряет сжатие до 16 чисел и зачем выбрасывать
# служебные слова. В конце проверим, что шаги дают ровно те же векторы, что и функция.

# %% [markdown]
# ### Шаг 1. Считаем соседей
#
# Для каждой пары слов посчитаем, сколько раз они стояли рядом — не дальше `window = 3`
# слов друг от друга. Служебные слова («на», «в», «и», «the») выбросим заранее: они стоят
# рядом со всеми темами сразу и о смысле ничего не говорят (что будет, если их оставить,
# измерим ниже). Получится таблица счётчиков `counts` формы (V, V).

# %%
content = [[w for w in s if w not in STOP_WORDS] for s in corpus]   # без «на», «в», «и»…
vocab = build_vocab(content, min_count=2)             # слова, встреченные хотя бы дважды
counts = cooccurrence(content, vocab, window=3)       # (V, V)
print("counts:", counts.shape, f" непустых клеток: {(counts > 0).mean():.1%}")
show = ["банк", "деньги", "кредит", "песчаный", "реки", "кот", "мышь"]
rows = [vocab.index(w) for w in show]
print(" " * 9 + "".join(f"{w:>9}" for w in show))
for w, i in zip(show, rows):
    print(f"{w:>9}" + "".join(f"{counts[i, j]:>9.0f}" for j in rows))

# %% [markdown]
# Почти вся таблица — нули: «кредит» и «реки» не встретились ни разу. А у «банк» две
# компании сразу: «деньги» и «кредит» — и «песчаный» и «реки». Это и есть два смысла,
# и оба уже попали в одну строку таблицы.
#
# У сырых счётчиков есть беда: они растут вместе с частотой слова. «Банк» — самое частое
# слово корпуса, и рядом с ним много чего оказывается просто потому, что он везде. Нужна мера
# «встречаются вместе **чаще, чем случайно**».

# %% [markdown]
# ### Шаг 2. PPMI: чаще, чем случайно
#
# Pointwise mutual information сравнивает, как часто пара встречается на самом деле и как
# часто встречалась бы, если бы слова были независимы:
#
# $$\text{PMI}(w, c) = \log \frac{P(w, c)}{P(w)\,P(c)}, \qquad \text{PPMI} = \max(0, \text{PMI}).$$
#
# PMI > 0 — слова притягиваются, PMI < 0 — избегают друг друга; отрицательные значения по
# маленькому корпусу ненадёжны, поэтому их обнуляют (буква P — positive). Одна тонкость:
# частоты соседей $P(c)$ в `ppmi` слегка сглажены (возведены в степень 0.75, как в word2vec — Mikolov et al.,
# 2013; для PPMI — Levy, Goldberg, Dagan, 2015),
# чтобы редкое слово не получало огромный PMI от одной случайной встречи.

# %%
P = ppmi(counts)                                      # (V, V)
print("все PPMI ≥ 0:", bool((P >= 0).all()), " там, где пар не было, — 0:", bool((P[counts == 0] == 0).all()))
i = vocab.index
print("самые частые слова:", vocab[:3])
for a, b in [("банк", "деньги"), ("деньги", "кредит"), ("деньги", "реки")]:
    print(f"PPMI({a}, {b}) = {P[i(a), i(b)]:.2f}   (рядом: {counts[i(a), i(b)]:.0f})")
assert np.isclose(P[i("банк"), i("деньги")], P[i("деньги"), i("кредит")], atol=0.05), (
    f"PPMI(банк, деньги) = {P[i('банк'), i('деньги')]:.3f}, PPMI(деньги, кредит) = {P[i('деньги'), i('кредит')]:.3f}, "
    f"а нужно почти поровну (±0.05)")

# %% [markdown]
# Семь встреч с вездесущим «банк» весят столько же, сколько две встречи «деньги» с более
# редким «кредит»: PPMI делит на то, чего можно было ждать случайно.
#
# ### Шаг 3. SVD: сжимаем таблицу в векторы
#
# Строка PPMI уже описывает слово — но она длиной V и почти вся из нулей. Сингулярное
# разложение $P = U S V^\top$ находит несколько главных направлений, вдоль которых строки
# различаются сильнее всего. Оставим первые `dim = 16`: вектор слова — строка $U S$,
# обрезанная до 16 чисел. Это лучшее приближение таблицы матрицей ранга 16: главные
# направления держат общие для темы закономерности, а мелкие детали отдельных пар отбрасываются.

# %%
dim = 16
vectors = svd_embeddings(P, dim)                      # (V, V) -> (V, dim)
singular = np.linalg.svd(P, compute_uv=False)
print("векторы:", vectors.shape)
print(f"доля «энергии» σ², которую держат {dim} направлений из {len(singular)}: "
      f"{(singular[:dim] ** 2).sum() / (singular ** 2).sum():.1%}")

# %% [markdown]
# Что за «энергия»? Квадраты сингулярных чисел $\sigma_i^2$ в сумме дают сумму квадратов всех
# чисел таблицы $P$, и каждое направление держит свою долю $\sigma_i^2 / \sum_j \sigma_j^2$.
# 26 % — это много или мало? Лежи энергия поровну на все направления, 16 из них держали бы
# лишь несколько процентов — главные держат в разы больше. Остальное — в основном мелочи
# отдельных пар слов маленького корпуса. Но хорошо ли, что мы их выбросили? Проверим делом:
# сколько соседей из той же темы при разной длине вектора — и у строк $P$ целиком, без сжатия.

# %%
from course_lib.props.embeddings import StaticEmbeddings

print("Σσ² == сумма квадратов P:", np.isclose((singular ** 2).sum(), (P ** 2).sum()))
print(f"если бы энергия лежала поровну, {dim} направлений из {len(singular)} держали бы {dim / len(singular):.1%}")
wide = svd_embeddings(P, 128)                         # (V, 128); первые 16 столбцов — наши векторы
assert np.array_equal(wide[:, :dim], vectors), (
    f"первые {dim} столбцов wide должны совпасть с vectors, а отличие до {np.abs(wide[:, :dim] - vectors).max():.2e}")
by_dim = {d: same_topic_share(StaticEmbeddings(vocab, wide[:, :d])) for d in [2, 4, 8, 16, 32, 64, 128]}
print(" dim  энергия  соседи из той же темы")
for d, s in by_dim.items():
    print(f"{d:>4}  {(singular[:d] ** 2).sum() / (singular ** 2).sum():>7.0%}  {s:>8.0%}")
whole = same_topic_share(StaticEmbeddings(vocab, P))
print(f"строки P целиком, по {len(vocab)} чисел: соседи из той же темы {whole:.0%}")
assert by_dim[16] > whole and by_dim[2] < by_dim[16] and 4 <= max(by_dim, key=by_dim.get) <= 8, (
    f"соседи из той же темы: dim 2 — {by_dim[2]:.1%}, dim 16 — {by_dim[16]:.1%}, строки P — {whole:.1%}, "
    f"лучший dim = {max(by_dim, key=by_dim.get)}; нужно: 16 лучше 2 и строк P, лучший dim от 4 до 8")
assert by_dim[128] < by_dim[64] < by_dim[32] < by_dim[16], (      # после 8 чисел — только хуже
    f"с ростом dim должно быть только хуже, а dim 16, 32, 64, 128 дают "
    f"{by_dim[16]:.1%}, {by_dim[32]:.1%}, {by_dim[64]:.1%}, {by_dim[128]:.1%}")

# %% [markdown]
# Больше энергии — не значит лучше соседи. От 2 до 8 чисел соседи улучшаются (в 2 числа четыре
# темы не помещаются), а дальше каждая новая доля энергии их только портит: полные строки $P$
# уступают 16 числам.
# Выброшенные три четверти энергии для наших тем — шум: детали отдельных пар слов, которые
# только мешают находить соседей, а сжатие как раз сводит слова одной темы вместе. Лучше всего здесь 4–8 чисел
# (тем всего четыре); мы взяли 16 с запасом, и соседи от этого хуже лишь на несколько процентов.
#
# Все три шага собраны в `train_static_embeddings` — она даёт ровно те же векторы:

# %%
print("те же векторы, что по шагам:", emb.vocab == vocab and np.array_equal(emb.vectors, vectors))

# %% [markdown]
# И обещанное: что, если не выбрасывать служебные слова?

# %%
with_stop_words = train_static_embeddings(corpus, stop_words=())
share_with_stop_words = same_topic_share(with_stop_words)
print(f"без выбрасывания служебных слов: {share_with_stop_words:.0%} (с выбрасыванием — {share:.0%});",
      "соседи «деньги»:", [w for w, _ in with_stop_words.nearest("деньги", k=5)])
assert share > share_with_stop_words, (f"без служебных слов соседи из той же темы {share:.1%}, со служебными "
                                       f"{share_with_stop_words:.1%}, а выбрасывание должно помогать")

# %% [markdown]
# Служебные слова стоят рядом со всем подряд и тянут к себе соседей из всех тем.
#
# **Итог раздела:** счётчики соседей в окне → PPMI оставляет «чаще, чем случайно» → SVD сжимает
# строку до 16 чисел. Сжатие теряет три четверти «энергии» таблицы, и это к лучшему: соседи
# из той же темы находятся чаще, чем по полным строкам.

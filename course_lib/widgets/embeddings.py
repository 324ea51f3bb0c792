"""Соседи слова и его вектор в выбранном предложении: статический вектор не двигается (урок 01).

`neighbours_view(...)` — чистая функция от выбора (слово, предложение, k) к тому, что рисуется;
`NeighboursPainter` рисует столбики косинусов и полоску вектора; `embeddings_explorer(...)`
только связывает список слов и ползунки «предложение» и «соседей».
"""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from course_lib import vis
from course_lib.props.embeddings import load_corpus, load_sections, tokenize, train_static_embeddings
from course_lib.widgets import layout
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, clamp, whole

DEFAULT_WORDS = ["банк", "банка", "деньги", "река", "варенье", "кот", "коврик"]
K = 8                       # сколько соседей показывать сначала
K_MAX = 15                  # больше столбиков на картинке не помещается
MIN_ROWS = 5                # меньше строк на оси столбиков не бывает: один сосед — не столбик во всю высоту


@dataclass
class NeighboursView(View):
    word: str
    neighbours: list          # [(слово, косинус)] — k ближайших, от близкого к далёкому
    topic: str                # тема выбранного предложения ("" — если предложение пришло без темы)
    context: list             # слова выбранного предложения
    position: int             # где в нём стоит word (-1 — его там нет)
    vector: np.ndarray        # (dim,) вектор слова, взятый по его месту в предложении
    scale: float              # max |число| во всей таблице: одна шкала цвета для всех слов
    drift: float              # max |вектор здесь − строка таблицы|: для статических эмбеддингов всегда 0
    note: str                 # что увидеть (подпись к картинке)


def contexts_for(word, sections, per_topic=3):
    """Предложения корпуса со словом word: до per_topic из каждой темы, как [(тема, предложение)]."""
    options = []
    for topic, sentences in sections.items():
        options += [(topic, " ".join(s)) for s in sentences if word in s][:per_topic]
    return options


def neighbours_view(emb, word, context, k=K, topic=""):
    """Чистая функция: слово и предложение -> соседи слова и его вектор в этом предложении.

    Никогда не бросает исключение на странный выбор — объясняет его в `message`.
    """
    notes = []
    if word not in emb:
        fallback = "банк" if "банк" in emb else emb.vocab[0]
        try:
            emb.id(word)
        except (ValueError, TypeError) as error:
            notes.append(f"{error} Показываю «{fallback}».")
        word = fallback
    k = clamp(whole(k, "соседей", notes, K), 1, len(emb) - 1, "соседей", notes)
    if k > K_MAX:
        notes.append(f"На картинке помещается {K_MAX} столбиков: рисую первых {K_MAX} соседей из {k}.")
    tokens = tokenize(context) if isinstance(context, str) else []
    position = tokens.index(word) if word in tokens else -1
    if position < 0:
        notes.append(f"В выбранном предложении нет слова «{word}» — выберите предложение с ним.")
        vector = emb.vector(word)
    else:
        vector = emb.vector(tokens[position])           # поиск по слову на его месте: соседи не участвуют
    drift = float(np.abs(vector - emb.vectors[emb.id(word)]).max())
    note = f"вектор «{word}» здесь = строка таблицы (max |разница| = {drift:.3f}): предложение на него не влияет"
    scale = float(np.abs(emb.vectors).max())
    return NeighboursView(word, emb.nearest(word, k=k), topic, tokens, position, vector, scale, drift, note,
                          message=" ".join(notes))


def explorer_view(emb, sections, word, context, k=K):
    """Положения виджета (слово, номер предложения со словом, k) -> NeighboursView."""
    options, notes = contexts_for(word, sections), []
    if not options:
        return neighbours_view(emb, word, "", k)
    index = clamp(whole(context, "предложение", notes, 0), 0, len(options) - 1, "предложение", notes)
    topic, sentence = options[index]
    view = neighbours_view(emb, word, sentence, k, topic)
    view.message = " ".join(notes + [view.message]).strip()
    return view


def _sentence_with_mark(view, width=60):
    words = [f"[{w}]" if i == view.position else w for i, w in enumerate(view.context)]
    text, lines = f"{view.topic}:" if view.topic else "", []
    for w in words:                                       # переносим длинное предложение по словам
        if len(text) + len(w) + 1 > width:
            lines.append(text)
            text = ""
        text = f"{text} {w}".strip()
    return "\n".join(lines + [text])


class NeighboursPainter(Painter):
    """Сверху — косинусы k соседей, снизу — вектор слова полоской.

    Раскладка одна на весь виджет (K_MAX столбиков, общая шкала цвета), поэтому смена слова,
    предложения или k только меняет данные у готовых артистов — фигура не перестраивается. Ось столбиков
    показывает столько строк, сколько соседей (но не меньше MIN_ROWS — иначе столбик толще подписи): при k = 8
    из 15 мест половина оси пустовала бы.
    """

    def layout_key(self, view):
        return len(view.vector), view.scale

    def draw(self, fig, view):
        # Раскладка в дюймах (фигура 7.5 × 5.4): сверху столбики косинусов (ось x — от 0 до 1,
        # подпись «слово 0.93» — сразу за концом столбика, справа для неё поле), снизу — полоска вектора.
        grid = layout.Inches(fig, 7.5, 5.4)
        bar_ax = grid.axes(0.35, 2.15, 5.6, 2.85)
        vector_ax = grid.axes(0.35, 0.55, 6.3, 0.45)
        cax = grid.axes(6.8, 0.55, 0.12, 0.45)
        self.bars = list(bar_ax.barh(range(K_MAX), np.zeros(K_MAX), color=vis.BAR_COLOR))
        self.labels = [bar_ax.text(0, i, "", va="center", fontsize=8) for i in range(K_MAX)]
        bar_ax.set_ylim(K_MAX - 0.5, -0.5)                 # самый близкий сосед — сверху
        bar_ax.set_xlim(0, 1)                              # косинус соседа: от 0 до 1
        bar_ax.set_yticks([])
        bar_ax.set_xlabel("косинус с вектором слова")
        self.title = bar_ax.set_title(" ")
        image = vector_ax.imshow(view.vector[None], cmap=vis.SIGNED_CMAP, aspect="auto",
                                 vmin=-view.scale, vmax=view.scale)
        fig.colorbar(image, cax=cax, label="значение")
        vector_ax.set_yticks([])
        vector_ax.set_xlabel(f"номер координаты (dim = {len(view.vector)})")
        self.image, self.sentence = image, vector_ax.set_title(" \n \n ", fontsize=9)
        return self.bars + self.labels + [self.title, self.image, self.sentence]

    def refresh(self, view):
        shown = view.neighbours[:K_MAX]
        self.bars[0].axes.set_ylim(max(len(shown), MIN_ROWS) - 0.5, -0.5)     # на оси — только строки соседей
        for i, (bar, label) in enumerate(zip(self.bars, self.labels)):
            word, cosine = shown[i] if i < len(shown) else ("", 0.0)
            bar.set_width(max(cosine, 0.0))               # ось от 0: далёкие (cos < 0) — без столбика
            label.set_x(max(cosine, 0.0) + 0.01)
            label.set_text(f"{word} {cosine:.2f}" if word else "")
        self.title.set_text(f"ближайшие соседи «{view.word}» (одни и те же в любом предложении)")
        self.image.set_data(view.vector[None])
        self.sentence.set_text(f"{_sentence_with_mark(view)}\n{view.note}")


class EmbeddingsExplorer(Explorer):
    """Виджет: выбор слова меняет число предложений с ним (ползунок «предложение»)."""

    def __init__(self, controls, view, painter, fig, sections):
        self.sections = sections
        super().__init__(controls, view, painter, fig)

    def sync(self, change):
        if change["owner"] is self.controls["word"]:
            count = len(contexts_for(change["new"], self.sections))
            self.controls["context"].value = 0
            self.controls["context"].max = max(count - 1, 0)


def embeddings_explorer(emb=None, words=DEFAULT_WORDS, corpus="ru", k=K):
    """Выберите слово — увидите соседей; листайте предложения — вектор слова не сдвинется (урок 01).

    emb — StaticEmbeddings (по умолчанию — обученные на корпусе `corpus`); words — слова в списке.
    """
    emb = emb if emb is not None else train_static_embeddings(load_corpus(corpus))
    words = [w for w in words if w in emb]
    if not words:
        raise ValueError("embeddings_explorer: ни одного слова из words нет в словаре эмбеддингов — "
                         "передайте слова, которые встречаются в корпусе")
    sections = load_sections(corpus)
    count = len(contexts_for(words[0], sections))
    style = {"description_width": "initial"}            # подпись «предложение» целиком, без «предлож…»
    controls = {
        "word": widgets.Dropdown(options=words, value=words[0], description="слово", style=style),
        "context": widgets.IntSlider(value=0, min=0, max=max(count - 1, 0), description="предложение", style=style),
        "k": widgets.IntSlider(value=min(k, K_MAX), min=1, max=K_MAX, description="соседей", style=style),
    }
    return EmbeddingsExplorer(controls, lambda word, context, k: explorer_view(emb, sections, word, context, k),
                              NeighboursPainter(), new_figure(7.5, 5.4, layout=None), sections)

"""GPT урока 10: снимки обучения, генерация с ползунками (промпт, температура, top-k) и головы на фразах.

`samples_view(run, step)` — что модель писала после step шагов; `sampling_view(model, tokenizer, prompt,
temperature, top_k, seed)` — что модель допишет до конца своего окна и с какими вероятностями выберет первый символ;
`gpt_heads_view(model, tokenizer, phrase, layer, head)` — веса одной головы на фразе.
"""

import functools
import html
from dataclasses import dataclass

import ipywidgets as widgets
import matplotlib
import numpy as np

from course_lib import vis
from course_lib._checks import check_int, check_real, check_text
from course_lib.autograd.tensor import no_grad
from course_lib.engine_room import fast
from course_lib.nn.gpt import GPT
from course_lib.nn.sampling import next_token_probs, sample_next_token
from course_lib.props.gpt_training import GPTRun
from course_lib.props.run_memory import weights_fingerprint
from course_lib.props.tokenizer import CharTokenizer
from course_lib.widgets._live import Explorer, new_figure
from course_lib.widgets.base import Painter, View, check_seed, clamp, real, rounded, whole

MIN_NEW = 16                 # меньше символов виджет не дописывает: длинный промпт он укорачивает с начала
SHOWN = 12                   # столбиков: самые вероятные первые символы
TEMPERATURES = (0.1, 2.0)    # пределы ползунка температуры
DEFAULT_TEMPERATURE = 0.8


def shown_char(c):
    """Подпись символа: пробел и перевод строки видны."""
    return {" ": "␣", "\n": "↵"}.get(c, c)


def check_model(model, tokenizer, where):
    """Модель и словарь виджета: GPT и CharTokenizer с тем же числом символов — иначе отказ по-русски, до кадра."""
    if not isinstance(model, GPT):
        raise TypeError(f"{where}: model — GPT (run.model или первое из model, tokenizer = load_gpt(путь)), "
                        f"а пришло {type(model).__name__}")
    if not isinstance(tokenizer, CharTokenizer):
        raise TypeError(f"{where}: tokenizer — CharTokenizer (run.tokenizer или второе из load_gpt(путь)), "
                        f"а пришло {tokenizer!r:.60} ({type(tokenizer).__name__})")
    if tokenizer.vocab_size != model.vocab_size:
        raise ValueError(f"{where}: в словаре {tokenizer.vocab_size} символов, а модель знает {model.vocab_size}: "
                         "словарь — от другой модели; берите пару из одного прогона или одного файла load_gpt")


def check_run(run, where):
    """Прогон train_gpt (GPTRun) со снимками — иначе отказ по-русски."""
    if not isinstance(run, GPTRun):
        raise TypeError(f"{where}: run — итог train_gpt(..., snapshot_steps=...), а пришло {type(run).__name__}")
    if not run.snapshots:
        raise ValueError(f"{where}: в прогоне нет снимков: train_gpt(..., snapshot_steps=range(0, steps + 1, 100))")


def known_prompt(tokenizer, prompt, notes):
    """Промпт без символов, которых нет в словаре (о них — в notes); пустой — пробел."""
    unknown = sorted(set(prompt) - set(tokenizer.vocab))
    if unknown:
        notes.append(f"Символов {''.join(unknown)!r} модель не знает — пропускаю их.")
        prompt = "".join(c for c in prompt if c in tokenizer.vocab)
    if not prompt:
        notes.append("Промпт пуст — начинаю с пробела.")
        prompt = " " if " " in tokenizer.vocab else tokenizer.vocab[0]
    return prompt


@dataclass
class SamplingView(View):
    prompt: str                # промпт, с которого пишет модель (только знакомые символы)
    text: str                  # дописанные символы: промпт и текст вместе — окно модели (max_len)
    labels: list               # (SHOWN,) первые символы-кандидаты
    probs: np.ndarray          # (SHOWN,) их вероятности при этих температуре и top-k
    temperature: float
    top_k: int                 # 0 — из всех


def sampling_view(model, tokenizer, prompt="Внимание", temperature=DEFAULT_TEMPERATURE, top_k=0, seed=0):
    """Чистая функция: промпт, температура, top-k (0 — все символы), зерно -> текст до конца окна модели
    и вероятности первого символа.

    Промпт и продолжение вместе — max_len символов (64 у модели урока): всё окно идёт через KV-кэш,
    по одному проходу на символ (урок 08). За краем окна каждый символ пересчитывал бы всё окно заново —
    впятеро дольше на кадр, поэтому виджет дальше окна не пишет (длинные тексты — model.generate).
    """
    check_model(model, tokenizer, "sampling_view")
    notes = []
    prompt = known_prompt(tokenizer, str(prompt), notes)
    room = max(model.max_len - MIN_NEW, model.max_len // 2)             # сколько символов промпта помещается
    if len(prompt) > room:
        notes.append(f"Промпт длиннее {room} символов — беру последние {room}: "
                     f"остальное окно модели ({model.max_len} символов) — под текст.")
        prompt = prompt[-room:]
    temperature = real(temperature, "температура", notes, DEFAULT_TEMPERATURE)
    if temperature != temperature:                                       # nan: ни ближе к 0.1, ни к 2
        notes.append(f"Значение «температура» — число, а пришло nan — показываю {DEFAULT_TEMPERATURE}.")
        temperature = DEFAULT_TEMPERATURE
    temperature = rounded(temperature, 2, "температура", notes)          # ±inf остаётся ±inf: его сдвинет clamp
    temperature = clamp(temperature, *TEMPERATURES, "температура", notes)
    top_k = clamp(whole(top_k, "top-k", notes, 0), 0, tokenizer.vocab_size, "top-k", notes)
    seed = check_seed(seed, notes)
    logits, text = _sample(model, weights_fingerprint(model), tokenizer, prompt, temperature, top_k, seed)
    order = np.argsort(-logits, kind="stable")[:SHOWN]                      # самые вероятные — при любых τ и k
    probs = next_token_probs(logits, temperature, top_k or None)             # (V,): как у generate
    return SamplingView(prompt, text, [shown_char(tokenizer.vocab[i]) for i in order],
                        probs[order], temperature, top_k, message=" ".join(notes))


@functools.lru_cache(maxsize=64)
def _sample(model, fingerprint, tokenizer, prompt, temperature, top_k, seed):
    """Логиты первого символа (V,) и текст до конца окна — на каждое положение ползунков один раз.

    Промпт — один проход, дальше по символу через KV-кэш: это ветка model.generate с кэшем, и текст тот же,
    что у generate с тем же rng (проверяет tests/test_widgets_gpt.py). Логиты первого символа — из того же
    прохода промпта. Быстрым путём (nt.fast(), урок 08: в нём и BLAS в один поток).
    """
    ids = tokenizer.encode(prompt)[None]                                     # (1, T0)
    rng = np.random.default_rng(seed)
    new = model.max_len - ids.shape[1]
    with fast(), no_grad():
        if not model.causal:                                                 # без маски кэш не годится
            logits = model(ids).data[:, -1]
            return logits[0].astype(float), tokenizer.decode(
                model.generate(ids, new, temperature, top_k or None, rng)[0, ids.shape[1]:])
        caches = model.new_cache(1)
        logits = model.step(ids, caches).data[:, -1]                         # (1, V): промпт одним проходом
        first, written = logits[0].astype(float), []
        for i in range(new):
            next_ids = sample_next_token(logits, temperature, top_k or None, rng)   # (1,)
            written.append(int(next_ids[0]))
            if i < new - 1:
                logits = model.step(next_ids[:, None], caches).data[:, -1]   # (1, V): только новый символ
    return first, tokenizer.decode(np.array(written, dtype=np.int64))


class SamplingPainter(Painter):
    """Столбики: вероятности первого символа после промпта; сам текст — подписью (caption).

    Раскладка — только число столбиков: символы под ними — меняющиеся подписи, а не деления оси. Новый промпт
    меняет символы, и будь они делениями, каждый новый промпт строил бы фигуру заново (втрое дольше кадра).
    """

    def layout_key(self, view):
        return len(view.labels)

    def draw(self, fig, view):
        ax = fig.add_subplot()
        shown = range(len(view.labels))
        self.bars = list(ax.bar(shown, np.zeros(len(view.labels)), color=vis.BAR_COLOR))
        ax.set(ylim=(0, 1), xlabel="первый символ после промпта", ylabel="вероятность")
        ax.set_xticks(shown, labels=[""] * len(view.labels))
        ax.xaxis.labelpad = 14                     # место под символами: подпись оси не наезжает на них
        # x — номер столбика, y — доля высоты осей (чуть ниже оси, где стояли бы подписи делений, и их размером)
        self.symbols = [ax.text(i, -0.03, "", transform=ax.get_xaxis_transform(), ha="center", va="top",
                                fontsize=matplotlib.rcParams["xtick.labelsize"]) for i in shown]
        self.title = ax.set_title(" ")
        return [*self.bars, *self.symbols, self.title]

    def refresh(self, view):
        for bar, p in zip(self.bars, view.probs):
            bar.set_height(p)
        for symbol, label in zip(self.symbols, view.labels):
            symbol.set_text(label)
        k = f"top-k = {view.top_k}" if view.top_k else "все символы"
        self.title.set_text(f"температура {view.temperature:.2f}, {k}: {SHOWN} самых вероятных")

    def caption(self, view):
        return (f"<pre style='white-space:pre-wrap'><b>{html.escape(view.prompt)}</b>"
                f"{html.escape(view.text)}</pre>")


def sampling_explorer(model, tokenizer, prompt="Внимание", temperature=DEFAULT_TEMPERATURE, top_k=0):
    """Промпт, температура, top-k и зерно -> текст модели до конца её окна.

    Кадр — это десятки проходов модели (генерация, не рисование), поэтому ползунки обновляют его, когда ручку отпустили.
    """
    check_model(model, tokenizer, "sampling_explorer")
    check_text(prompt, "prompt", "sampling_explorer", meaning=" (с чего модель начнёт писать)", empty=True)
    if not TEMPERATURES[0] <= check_real(temperature, "temperature", "sampling_explorer") <= TEMPERATURES[1]:
        raise ValueError(f"sampling_explorer: temperature — число от {TEMPERATURES[0]} до {TEMPERATURES[1]} "
                         f"(пределы ползунка), а пришло {temperature!r}")
    check_int(top_k, "top_k", "sampling_explorer", low=0, high=tokenizer.vocab_size,
              meaning=" (0 — из всех символов)")
    controls = {
        "prompt": widgets.Text(value=prompt, description="промпт", continuous_update=False),
        "temperature": widgets.FloatSlider(value=temperature, min=TEMPERATURES[0], max=TEMPERATURES[1], step=0.1,
                                           description="температура", continuous_update=False),
        "top_k": widgets.IntSlider(value=top_k, min=0, max=tokenizer.vocab_size, description="top-k",
                                   continuous_update=False),
        "seed": widgets.IntSlider(value=0, min=0, max=20, description="зерно", continuous_update=False),
    }
    view = functools.partial(sampling_view, model, tokenizer)
    return Explorer(controls, view, SamplingPainter(), new_figure(8, 3))


@dataclass
class GPTHeadView(View):
    tokens: list               # (T,) символы фразы
    weights: np.ndarray        # (T, T) веса выбранной головы
    layer: int
    head: int
    previous: float            # средний вес на предыдущий символ на этой фразе


def gpt_heads_view(model, tokenizer, phrase, layer=0, head=0):
    """Чистая функция: фраза, слой и голова (с нуля) -> веса этой головы на фразе."""
    check_model(model, tokenizer, "gpt_heads_view")
    notes = []
    phrase = known_prompt(tokenizer, str(phrase), notes)
    if len(phrase) > model.max_len:
        notes.append(f"Модель видит не больше {model.max_len} символов, а во фразе {len(phrase)} — показываю "
                     f"последние {model.max_len}.")
        phrase = phrase[-model.max_len:]
    layer = clamp(whole(layer, "слой", notes, 0), 0, model.num_layers - 1, "слой", notes)
    head = clamp(whole(head, "голова", notes, 0), 0, model.num_heads - 1, "голова", notes)
    weights = _phrase_weights(model, weights_fingerprint(model), tokenizer, phrase)[layer, head]   # (T, T)
    t = np.arange(1, len(phrase))
    previous = float(weights[t, t - 1].mean()) if len(phrase) > 1 else 0.0
    return GPTHeadView([shown_char(c) for c in phrase], weights, layer, head, previous, message=" ".join(notes))


@functools.lru_cache(maxsize=16)
def _phrase_weights(model, fingerprint, tokenizer, phrase):
    """Веса всех голов (layers, h, T, T) на фразе — один проход на фразу, ползунки слоя и головы его не повторяют.
    Ключ — и отпечаток весов: дообученная модель — новая запись."""
    return model.attention_weights(tokenizer.encode(phrase)[None])[0]


class GPTHeadPainter(Painter):
    """Тепловая карта одной головы; раскладка — символы фразы."""

    def layout_key(self, view):
        return tuple(view.tokens)

    def draw(self, fig, view):
        ax = fig.add_subplot()
        vis.heatmap(view.weights, view.tokens, view.tokens, ax=ax)
        self.image, self.title = ax.images[0], ax.set_title(" \n ")
        return [self.image, self.title]

    def refresh(self, view):
        self.image.set_data(view.weights)
        self.title.set_text(f"слой {view.layer}, голова {view.head}\n"
                            f"на предыдущий символ в среднем {view.previous:.2f}")


def gpt_heads_explorer(model, tokenizer, phrases):
    """Выбор фразы, слоя и головы: веса внимания обученного GPT."""
    check_model(model, tokenizer, "gpt_heads_explorer")
    if not isinstance(phrases, (list, tuple)):
        raise TypeError(f"gpt_heads_explorer: phrases — список фраз, например ['кот сел на тёплый коврик'], "
                        f"а пришло {phrases!r:.60} ({type(phrases).__name__})")
    if not phrases:
        raise ValueError("gpt_heads_explorer: phrases — хотя бы одна фраза, а пришёл пустой список: выбирать не из чего")
    for phrase in phrases:
        check_text(phrase, "phrases", "gpt_heads_explorer", meaning=" (фраза, на которой смотреть веса)")
    controls = {
        "phrase": widgets.Dropdown(options=list(phrases), description="фраза"),
        "layer": widgets.IntSlider(value=0, min=0, max=model.num_layers - 1, description="слой"),
        "head": widgets.IntSlider(value=0, min=0, max=model.num_heads - 1, description="голова"),
    }
    view = functools.partial(gpt_heads_view, model, tokenizer)
    return Explorer(controls, view, GPTHeadPainter(), new_figure(9, 8))


@dataclass
class SamplesView(View):
    step: int                  # шаг показанного снимка
    sample: str                # что модель написала после этого шага
    val_steps: np.ndarray      # (S,) шаги, на которых мерили loss на проверке
    val_losses: np.ndarray     # (S,)
    val_loss: float            # loss на проверке на шаге снимка


def samples_view(run, step):
    """Чистая функция: шаг -> последний снимок train_gpt(..., snapshot_steps=...) не позже него."""
    check_run(run, "samples_view")
    steps = np.array([s.step for s in run.snapshots])
    notes = []
    step = clamp(whole(step, "шаг", notes, int(steps[-1])), 0, int(steps[-1]), "шаг", notes)
    index = int(np.searchsorted(steps, step, side="right")) - 1           # последний снимок не позже step
    if index < 0:                                                         # раньше первого снимка — первый
        index = 0
        notes.append(f"Первый снимок — после шага {steps[0]}, раньше снимков нет — показываю шаг {steps[0]}.")
    elif steps[index] != step:
        notes.append(f"Снимка после шага {step} нет — показываю шаг {steps[index]}.")
    snapshot = run.snapshots[index]
    return SamplesView(snapshot.step, snapshot.sample, np.asarray(run.val_steps), np.asarray(run.val_losses),
                       snapshot.val_loss, message=" ".join(notes))


class SamplesPainter(Painter):
    """Кривая потерь на проверке с курсором на шаге снимка; образец текста — подписью."""

    def draw(self, fig, view):
        ax = fig.add_subplot()
        ax.plot(view.val_steps, view.val_losses, color="#e8384f", lw=1, alpha=0.3)
        (self.line,) = ax.plot([], [], "o-", color="#e8384f", label="потери на проверке")
        self.cursor = ax.axvline(0, color="black", lw=1)
        ax.set(xlabel="шаг обучения", ylabel="потери, наты на символ", xlim=(-10, view.val_steps[-1] + 10))
        ax.legend(loc="upper right")
        self.title = ax.set_title(" ")
        return [self.line, self.cursor, self.title]

    def refresh(self, view):
        seen = view.val_steps <= view.step
        self.line.set_data(view.val_steps[seen], view.val_losses[seen])
        self.cursor.set_xdata([view.step, view.step])
        self.title.set_text(f"после {view.step} шагов: потери на проверке {view.val_loss:.2f}")

    def caption(self, view):
        return f"<pre style='white-space:pre-wrap'>{html.escape(view.sample)}</pre>"


def samples_explorer(run):
    """Ползунок «шаг» по снимкам train_gpt: потери на проверке до этого шага и что модель тогда писала."""
    check_run(run, "samples_explorer")
    steps = [s.step for s in run.snapshots]
    every = steps[1] - steps[0] if len(steps) > 1 else 1
    slider = widgets.IntSlider(value=steps[-1], min=steps[0], max=steps[-1], step=every, description="шаг")
    return Explorer({"step": slider}, functools.partial(samples_view, run), SamplesPainter(), new_figure(8, 3))

"""Урок 10 на настоящем корпусе: планка потерь для зёрен 0–2 (0 — в самом уроке), чекпойнт, точки отсчёта, оценки голов, виды виджетов.

Дорогой тест здесь один — `test_the_lesson_run_reaches_the_bar` (зёрна 1 и 2 по 1200 шагов, меньше минуты
процессора каждое; зерно 0 утверждает сам урок под nbval). Остальные — доли секунды или секунды.
"""

import numpy as np
import pytest

from course_lib.props.gpt_checkpoint import lesson_checkpoint_path, load_gpt
from course_lib.props.gpt_reading import (HeadScores, bigram_loss, head_scores, known_word_share, longest_run,
                                          unigram_loss)
from course_lib.props.gpt_training import evaluate, fixed_windows, split_ids, train_gpt
from course_lib.props.text_file import lessons_text
from course_lib.props.tokenizer import CharTokenizer
from course_lib.widgets.gpt import MIN_NEW, gpt_heads_view, sampling_view

LESSON_STEPS, LESSON_BAR, CHECKPOINT_BAR = 1200, 2.1, 1.8      # то, что утверждает урок


@pytest.fixture(scope="module")
def corpus():
    text = lessons_text()
    tokenizer = CharTokenizer.from_text(text)
    train_ids, val_ids = split_ids(tokenizer.encode(text), T=64, val_fraction=0.1)
    return text, tokenizer, train_ids, val_ids


@pytest.fixture(scope="module")
def checkpoint(corpus):
    return load_gpt(lesson_checkpoint_path(), tokenizer=corpus[1])


@pytest.mark.slow          # 2 минуты процессора: make test их не гоняет, CI гоняет (make test MARKS=)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_lesson_run_reaches_the_bar(seed, corpus):
    """Аргументы — те же, что в уроке: меньше минуты процессора на зерно. Зерно 0 — прогон самого урока:
    его планку утверждает ячейка урока 10, а nbval гоняет урок в make test трижды (и ещё раз с нижними
    версиями), поэтому здесь — зёрна 1 и 2.

    Зерно 1 — самое трудное: 1.891 после 1200 шагов (зерно 2 — 1.885, зерно 0 — 1.870)."""
    # Без снимков урока: образцы и веса внимания на снимках берут свой генератор и идут без графа — на обучение
    # и потери на проверке (их меряют те же eval_every = 100 шагов) не влияют, а стоят около 3 с на зерно.
    run = train_gpt(corpus[0], LESSON_STEPS, seed=seed, progress=lambda *args: None)
    assert run.val_losses[-1] <= LESSON_BAR, f"зерно {seed}: потери на проверке {run.val_losses[-1]:.3f}"


def test_the_shipped_checkpoint_is_as_good_as_the_lesson_says(corpus, checkpoint):
    model, tokenizer = checkpoint
    loss = evaluate(model, fixed_windows(corpus[3], T=64))     # те же 128 окон проверки, что в уроке
    assert loss <= CHECKPOINT_BAR, loss
    assert lesson_checkpoint_path().stat().st_size < 3 * 2**20
    assert tokenizer.vocab == corpus[1].vocab


def test_baselines_are_counted_by_hand():
    train, val = np.array([0, 1, 0, 1, 1]), np.array([0, 1, 1])
    # униграммы: счёт 0 — 2 + 1, 1 — 3 + 1, 2 — 0 + 1 из 8
    assert np.isclose(unigram_loss(train, val, 3), -(np.log(3 / 8) + 2 * np.log(4 / 8)) / 3)
    # биграммы: после 0 — (0, 1) дважды: строка [1, 3, 1] / 5; после 1 — (1, 0) и (1, 1): [2, 2, 1] / 5
    assert np.isclose(bigram_loss(train, val, 3), -(np.log(3 / 5) + np.log(2 / 5)) / 2)


def test_text_properties():
    assert known_word_share("кот сел на коврик", "кот и коврик") == 2 / 3    # «на» короче трёх букв
    assert known_word_share("12 + 3", "кот") == 0.0
    assert longest_run("абвввг") == 3 and longest_run("") == 0


class PatternModel:
    """Вместо модели: у головы (0, 1) веса — на предыдущий символ, у (1, 0) — на последний пробел, иначе поровну."""

    def attention_weights(self, ids):
        N, T = ids.shape
        weights = np.tile(np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None], (N, 2, 2, 1, 1))
        weights[:, 0, 1] = np.eye(T, k=-1) + np.eye(T) * (np.arange(T) == 0)[:, None]
        for n in range(N):
            last = 0
            for t in range(T):
                weights[n, 1, 0, t] = np.eye(T)[last]
                if ids[n, t] == 0:
                    last = t
        return weights


def test_head_scores_find_the_heads_by_their_pattern():
    windows = np.random.default_rng(0).integers(0, 5, size=(4, 40))
    scores = head_scores(PatternModel(), windows, space_id=0, L=20)
    assert isinstance(scores, HeadScores)
    assert scores.best("previous") == (0, 1) and np.isclose(scores.previous[0, 1], 1.0)
    assert scores.best("space") == (1, 0) and np.isclose(scores.space[1, 0], 1.0)
    assert scores.previous.shape == scores.induction.shape == (2, 2)
    for name in ("previous", "space", "induction"):                  # голова (0, 0) делит вес поровну — как ровный разброс
        assert np.isclose(getattr(scores, name)[0, 0], scores.even[name]), name
    assert scores.even["previous"] < 0.5 and scores.even["induction"] < scores.even["previous"]


def test_the_checkpoint_heads_the_lesson_names(corpus, checkpoint):
    model, tokenizer = checkpoint
    windows = fixed_windows(corpus[3], T=64)[:32, :-1]                # те же 32 окна, что в уроке
    scores = head_scores(model, windows, space_id=tokenizer.encode(" ")[0])
    space = scores.space[scores.best("space")]
    assert scores.previous[scores.best("previous")] >= 0.5
    assert space > 3 * scores.even["space"], (space, scores.even["space"])
    assert scores.induction.max() < 2 * scores.even["induction"], (
        "урок 10 (и конец урока 09) говорит, что индукционной головы у чекпойнта нет", scores.induction.max())


def test_sampling_view_writes_known_characters_and_says_what_it_changed(checkpoint):
    model, tokenizer = checkpoint
    view = sampling_view(model, tokenizer, "Внимание", 0.8, 5, seed=0)
    assert len(view.text) == 64 - len("Внимание") and set(view.text) <= set(tokenizer.vocab) and not view.message
    assert np.isclose(view.probs[:5].sum(), 1.0) and (view.probs[5:] == 0).all()      # top-k = 5
    odd = sampling_view(model, tokenizer, "кот 🐈", 0.0, 10_000, seed=-1)
    for word in ["🐈", "температура", "top-k", "зерно"]:
        assert word in odd.message, odd.message
    assert odd.prompt == "кот " and odd.temperature == 0.1 and odd.top_k == tokenizer.vocab_size
    long = sampling_view(model, tokenizer, "кот сел на тёплый коврик. " * 3, 1.0, 0)
    assert len(long.prompt) == 64 - MIN_NEW and len(long.text) == MIN_NEW and "последние 48" in long.message
    empty = sampling_view(model, tokenizer, "", 1.0, 0)
    assert "пуст" in empty.message and empty.prompt == " "


def test_heads_view_shows_one_head_and_clamps_aloud(checkpoint):
    model, tokenizer = checkpoint
    view = gpt_heads_view(model, tokenizer, "банк выдал кредит", 1, 2)
    assert view.weights.shape == (17, 17) and np.allclose(view.weights.sum(-1), 1) and not view.message
    assert np.allclose(np.triu(view.weights, 1), 0), "причинная маска: над диагональю нули"
    beyond = gpt_heads_view(model, tokenizer, "банк выдал кредит", 4, -1)
    assert (beyond.layer, beyond.head) == (1, 0) and "слой" in beyond.message and "голова" in beyond.message

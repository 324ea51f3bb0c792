"""Обучение GPT урока 10 (props/gpt_training.py), прогресс, чекпойнт — на крошечной модели за секунды."""

import io
import pathlib
import sys

import numpy as np
import pytest

import course_lib as nt
from course_lib.props import gpt_training
from course_lib.props.gpt_checkpoint import load_gpt, save_gpt
from course_lib.props.gpt_training import fixed_windows, forget_runs, random_windows, split_ids, train_gpt
from course_lib.props.progress import TrainingProgress
from course_lib.props.tokenizer import CharTokenizer

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from tools.train_gpt_checkpoint import main as train_checkpoint  # noqa: E402

TEXT = "кот сел на тёплый коврик. мама мыла раму. " * 30            # 1260 символов, V = 19 разных
V = 19
TINY = dict(T=8, d_model=16, num_heads=2, num_layers=1, batch=8, lr=1e-2, eval_every=10,
            phrases=("кот сел",), prompt="кот", sample_len=12)


class Spy:
    """progress, который запоминает свои вызовы."""

    def __init__(self):
        self.calls = []

    def __call__(self, step, steps, loss):
        self.calls.append((step, steps, loss))


@pytest.fixture(autouse=True)
def fresh_runs():
    forget_runs()
    yield
    forget_runs()


def test_a_short_run_learns_the_text():
    run = train_gpt(TEXT, 40, seed=0, snapshot_steps=(0, 40), progress=Spy(), **TINY)
    assert run.val_steps.tolist() == [0, 10, 20, 30, 40]
    assert run.val_losses[0] > np.log(V) - 0.5, "до обучения loss должен быть около ln(V)"
    assert run.val_losses[-1] < run.val_losses[0] - 1.0, f"потери на проверке не упали: {run.val_losses}"
    assert run.losses.shape == (40,) and run.losses[-5:].mean() < run.losses[:5].mean() - 1.0


def test_snapshots_hold_val_loss_sample_and_attention():
    run = train_gpt(TEXT, 20, seed=1, snapshot_steps=(20, 0, 10), progress=Spy(), **TINY)
    assert [s.step for s in run.snapshots] == [0, 10, 20]
    for snapshot in run.snapshots:
        assert snapshot.val_loss == run.val_losses[list(run.val_steps).index(snapshot.step)]
        assert snapshot.sample.startswith("кот") and len(snapshot.sample) == 3 + 12
        (weights,) = snapshot.attention
        assert weights.shape == (1, 2, 7, 7)                     # (слои, головы, T фразы, T фразы)
        np.testing.assert_allclose(weights.sum(axis=-1), 1, atol=1e-5)
        assert np.abs(np.triu(weights, 1)).max() == 0, "причинное внимание смотрит в будущее"
    assert run.snapshots[0].sample != run.snapshots[-1].sample


def test_same_arguments_give_the_same_run_even_after_forgetting():
    first = train_gpt(TEXT, 15, seed=2, progress=Spy(), **TINY)
    forget_runs()
    second = train_gpt(TEXT, 15, seed=2, progress=Spy(), **TINY)
    np.testing.assert_array_equal(first.losses, second.losses)
    np.testing.assert_array_equal(first.val_losses, second.val_losses)
    other = train_gpt(TEXT, 15, seed=3, progress=Spy(), **TINY)
    assert not np.array_equal(first.losses, other.losses), "зерно ни на что не влияет"


def test_a_repeated_call_does_not_train_again_and_cannot_be_spoiled():
    spy = Spy()
    first = train_gpt(TEXT, 12, seed=4, progress=spy, **TINY)
    assert [c[0] for c in spy.calls] == list(range(13))        # шаг 0 (до обучения) и 12 шагов
    again = Spy()
    second = train_gpt(TEXT, 12, seed=4, progress=again, **TINY)
    assert again.calls == [], "повторный вызов с теми же аргументами учил заново"
    assert second.seconds == first.seconds > 0, "прогон из памяти говорит, сколько шло настоящее обучение, а не 0 с"
    np.testing.assert_array_equal(first.losses, second.losses)
    first.model.unembed.bias.data += 100.0                      # ученик портит свою копию…
    third = train_gpt(TEXT, 12, seed=4, progress=Spy(), **TINY)
    np.testing.assert_array_equal(third.model.unembed.bias.data, second.model.unembed.bias.data)   # …память цела
    assert len(gpt_training._RUNS) == 1


def test_the_cache_forgets_the_oldest_runs():
    for seed in range(gpt_training.CACHE_SIZE + 1):
        train_gpt(TEXT, 2, seed=seed, progress=Spy(), **TINY)
    spy = Spy()
    train_gpt(TEXT, 2, seed=0, progress=spy, **TINY)
    assert spy.calls, "самый давний прогон должен был забыться"
    assert len(gpt_training._RUNS) == gpt_training.CACHE_SIZE


def test_the_memory_is_in_the_kernel_only(tmp_path, monkeypatch):
    """Память прогонов — только в процессе: ни переменная окружения, ни файл не вернут прогон после forget_runs()."""
    monkeypatch.chdir(tmp_path)
    for name in ("COURSE_LIB_SAVE_RUNS", "COURSE_LIB_LOAD_RUNS"):     # прежний протокол make test: его больше нет
        monkeypatch.setenv(name, str(tmp_path))
    train_gpt(TEXT, 6, seed=5, progress=Spy(), **TINY)
    assert list(tmp_path.iterdir()) == [], "обучение записало файлы"
    forget_runs()
    spy = Spy()
    train_gpt(TEXT, 6, seed=5, progress=spy, **TINY)
    assert spy.calls, "после forget_runs() прогон взялся не из обучения"


def test_snapshots_do_not_change_the_training():
    """Образцы и веса на снимках — своим генератором и без графа: с ними и без них потери те же (test_gpt_lesson этим пользуется)."""
    with_snapshots = train_gpt(TEXT, 12, seed=6, snapshot_steps=(0, 4, 8, 12), progress=Spy(), **dict(TINY, eval_every=4))
    without = train_gpt(TEXT, 12, seed=6, progress=Spy(), **dict(TINY, eval_every=4))
    assert len(with_snapshots.snapshots) == 4 and without.snapshots == []
    np.testing.assert_array_equal(with_snapshots.losses, without.losses)
    np.testing.assert_array_equal(with_snapshots.val_losses, without.val_losses)


def test_windows_batches_and_split():
    ids = np.arange(100)
    train, val = split_ids(ids, T=8, val_fraction=0.1)
    assert train.tolist() == list(range(90)) and val.tolist() == list(range(90, 100))
    windows = random_windows(train, 5, 8, np.random.default_rng(0))
    assert windows.shape == (5, 9) and (np.diff(windows, axis=1) == 1).all() and windows.max() < 90
    fixed = fixed_windows(val, 8, count=3)
    assert fixed[:, 0].tolist() == [90, 90, 91] and (fixed == fixed_windows(val, 8, count=3)).all()


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(phrases=("кот Ж",)), ValueError, "phrases='кот Ж' символов «Ж» нет в обучающем тексте"),
    (dict(prompt="Кот"), ValueError, "prompt='Кот' символов «К» нет в обучающем тексте"),
    (dict(steps=0), ValueError, "steps"),
    (dict(snapshot_steps=(50,)), ValueError, "snapshot_steps"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(T=2000), ValueError, "нужно хотя бы 20010"),
    (dict(text=b"bytes"), TypeError, "текст строкой"),
])
def test_bad_arguments_fail_before_training(kwargs, error, match):
    spy = Spy()
    args = {**TINY, "text": TEXT, "steps": 10, **kwargs}
    with pytest.raises(error, match=match):
        train_gpt(progress=spy, **args)
    assert spy.calls == [], "ошибка должна случиться до обучения"


# ---- прогресс ---------------------------------------------------------------------------

def test_training_progress_is_a_tqdm_line_outside_jupyter():
    shown = io.StringIO()
    bar = TrainingProgress(delay=0, every=0, file=shown)
    for step in range(6):
        bar(step, 5, float("nan") if step == 0 else 3.0 - step / 10)
    lines = shown.getvalue().split("\r")[1:]
    assert lines[0].startswith("шаг 0 из 5") and "потери —" in lines[0] and "осталось ≈ ?" in lines[0]
    assert any(line.startswith("шаг 2 из 5 ") and "потери 2.800" in line for line in lines)
    assert lines[-1].startswith("шаг 5 из 5") and "потери 2.500" in lines[-1] and "прошло 00:00" in lines[-1]
    assert lines[-1].endswith("\n") and not lines[-2].endswith("\n"), "строка переписывает себя и кончается переводом"
    from tqdm import notebook, std

    assert isinstance(bar.bar, std.tqdm) and not isinstance(bar.bar, notebook.tqdm), \
        "pytest — не ядро Jupyter: tqdm.auto берёт текстовую строку"


def test_training_progress_is_silent_on_fast_runs():
    quiet = io.StringIO()
    bar = TrainingProgress(delay=60, file=quiet)
    for step in range(4):
        bar(step, 3, 1.0)
    assert quiet.getvalue() == "" and bar.bar.n == 3


def test_training_progress_in_jupyter_is_a_widget_bar():
    from tqdm.notebook import tqdm                                 # то, что tqdm.auto берёт в ядре Jupyter

    bar = TrainingProgress(delay=0, every=0, tqdm_class=tqdm)
    for step in range(6):
        bar(step, 5, 3.0 - step / 10)
    left, progress, right = bar.bar.container.children
    text = lambda widget: widget.value.replace("\u2007", " ")       # tqdm пишет пробелы «цифровыми»
    assert (progress.value, progress.max, progress.bar_style) == (5, 5, "success")
    assert text(left).startswith("шаг 5 из 5") and text(right).strip().startswith("потери 2.500 · прошло")


# ---- чекпойнт ---------------------------------------------------------------------------

def tiny_model_and_tokenizer(seed=0):
    tokenizer = CharTokenizer.from_text(TEXT)
    nt.manual_seed(seed)
    return nt.GPT(tokenizer.vocab_size, 8, 8, 2, 2), tokenizer


def test_checkpoint_round_trip_gives_the_same_model(tmp_path):
    model, tokenizer = tiny_model_and_tokenizer()
    model.to(np.float32)
    save_gpt(tmp_path / "gpt.npz", model, tokenizer)
    loaded, loaded_tokenizer = load_gpt(tmp_path / "gpt.npz")
    assert loaded_tokenizer.vocab == tokenizer.vocab
    assert (loaded.vocab_size, loaded.max_len, loaded.d_model, loaded.num_heads, loaded.num_layers) == (V, 8, 8, 2, 2)
    ids = tokenizer.encode("кот сел")[None]
    np.testing.assert_array_equal(loaded(ids).data, model(ids).data)
    assert loaded.tokens.weight.dtype == np.float32
    with np.load(tmp_path / "gpt.npz", allow_pickle=False) as data:
        assert data["vocab"].dtype.kind == "U" and data["config"].tolist() == [V, 8, 8, 2, 2]


def test_checkpoint_with_another_vocabulary_is_refused(tmp_path):
    model, tokenizer = tiny_model_and_tokenizer()
    save_gpt(tmp_path / "gpt.npz", model, tokenizer)
    other = CharTokenizer.from_text(TEXT.replace("ё", "е") + "Ж")
    with pytest.raises(ValueError, match="только в файле 'ё', только в вашем 'Ж'"):
        load_gpt(tmp_path / "gpt.npz", tokenizer=other)
    assert load_gpt(tmp_path / "gpt.npz", tokenizer=tokenizer)[1].vocab == tokenizer.vocab


def _rewrite(path, **changes):
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changes)
    np.savez(path, **arrays)


@pytest.mark.parametrize("changes, match", [
    (dict(**{"blocks.0.ln1.bias": np.zeros((3, 3))}), r"параметр blocks\.0\.ln1\.bias — формы \(8,\), а в state — формы \(3, 3\)"),
    (dict(config=np.array([V, 8, 8, 2, 3])), "нет blocks.2.ln1.weight"),
    (dict(config=np.array([V, 8, 8])), "5 целых"),
    (dict(vocab=np.array(list("абв"))), f"словарь .* — {V} символов"),
    (dict(vocab=np.array(["а"] * V)), "повторяются"),
])
def test_checkpoint_of_the_wrong_shape_is_refused(tmp_path, changes, match):
    model, tokenizer = tiny_model_and_tokenizer()
    path = tmp_path / "gpt.npz"
    save_gpt(path, model, tokenizer)
    _rewrite(path, **changes)
    with pytest.raises(ValueError, match=match):
        load_gpt(path)


def test_not_a_checkpoint_is_refused(tmp_path):
    with pytest.raises(ValueError, match="файла «.*» нет"):
        load_gpt(tmp_path / "нет.npz")
    (tmp_path / "text.npz").write_text("не архив", encoding="utf-8")
    with pytest.raises(ValueError, match="не чекпойнт save_gpt"):
        load_gpt(tmp_path / "text.npz")
    np.savez(tmp_path / "pickled.npz", config=np.array([{"код": 1}], dtype=object))
    with pytest.raises(ValueError, match="массив «config» — объекты Python \\(pickle\\)"):
        load_gpt(tmp_path / "pickled.npz")
    model, tokenizer = tiny_model_and_tokenizer()
    with pytest.raises(ValueError, match="словарь от другой модели"):
        save_gpt(tmp_path / "x.npz", model, CharTokenizer.from_text("абв"))


def test_the_checkpoint_tool_saves_a_model_the_lesson_can_load(tmp_path, capsys):
    out = tmp_path / "gpt.npz"
    assert train_checkpoint(["--steps", "2", "--out", str(out)]) == 1              # два шага до цели 1.8 не доводят
    model, tokenizer = load_gpt(out)
    assert (tokenizer.vocab_size, model.max_len, model.num_params()) == (175, 64, 126_767)
    assert out.stat().st_size < 2**20, "чекпойнт урока должен весить меньше мегабайта (float32)"
    assert "цель 1.8 не достигнута" in capsys.readouterr().out


def test_learning_rate_warms_up_then_falls_by_cosine():
    from course_lib.props.gpt_training import WARMUP, learning_rate

    lrs = [learning_rate(step, 800, 8e-3, 3e-4) for step in range(1, 801)]
    assert np.isclose(lrs[0], 8e-3 / WARMUP) and np.all(np.diff(lrs[:WARMUP]) > 0), "первые шаги — разгон"
    assert np.all(np.diff(lrs[WARMUP:]) < 0) and np.isclose(lrs[-1], 3e-4), "дальше — косинусом до lr_final"
    assert max(lrs) < 8e-3
    short = [learning_rate(step, 40, 1e-2, None) for step in range(1, 41)]
    assert short[9] == short[-1] == 1e-2 and short[8] < 1e-2, "40 шагам — разгон в четверть прогона, потом lr"

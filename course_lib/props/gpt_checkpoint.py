"""Чекпойнт GPT урока 10: веса, словарь и размеры модели в одном .npz — только массивы, без pickle.

В файле: `config` — целые [vocab_size, max_len, d_model, num_heads, num_layers], `vocab` — массив
символов словаря, `param.000`, `param.001`, … — параметры в порядке `model.named_parameters()`
и `names` — их имена. Читается np.load(allow_pickle=False): чужой код из файла не выполнится.
Долгое обучение чекпойнта урока — tools/train_gpt_checkpoint.py.
"""

import os
import pathlib
import zipfile
from importlib import resources

import numpy as np

from course_lib.nn import GPT
from course_lib.props.tokenizer import CharTokenizer

CONFIG_FIELDS = ("vocab_size", "max_len", "d_model", "num_heads", "num_layers")


def lesson_checkpoint_path():
    """Где лежит чекпойнт урока (data/gpt_lessons_ru.npz); его пишет tools/train_gpt_checkpoint.py."""
    return pathlib.Path(str(resources.files("course_lib.props") / "data" / "gpt_lessons_ru.npz"))


def save_gpt(path, model, tokenizer):
    """Сохраняет model (GPT) и tokenizer (CharTokenizer) в path (.npz)."""
    if not isinstance(model, GPT) or not isinstance(tokenizer, CharTokenizer):
        raise TypeError(f"save_gpt ждёт GPT и CharTokenizer, а пришли {type(model).__name__} и {type(tokenizer).__name__}")
    if tokenizer.vocab_size != model.vocab_size:
        raise ValueError(f"в словаре {tokenizer.vocab_size} символов, а модель знает {model.vocab_size} токенов: "
                         "это словарь от другой модели")
    named = list(model.named_parameters())
    config = [getattr(model, field) for field in CONFIG_FIELDS]
    arrays = {f"param.{i:03d}": p.data for i, (_, p) in enumerate(named)}
    np.savez(path, config=np.array(config, dtype=np.int64), vocab=np.array(tokenizer.vocab, dtype="<U1"),
             names=np.array([name for name, _ in named]), **arrays)


def load_gpt(path, tokenizer=None):
    """(GPT, CharTokenizer) из файла save_gpt. tokenizer — если задан, словарь файла должен с ним совпасть."""
    where = f"«{path}»"
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load_gpt ждёт путь к файлу .npz, а пришёл {type(path).__name__}")
    if not pathlib.Path(path).is_file():
        raise ValueError(f"файла {where} нет. Чекпойнт урока пишет tools/train_gpt_checkpoint.py; "
                         "свой — save_gpt(путь, model, tokenizer)")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (ValueError, OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{where} — не чекпойнт save_gpt (не читается как .npz без pickle: {error})") from None
    missing = [name for name in ("config", "vocab", "names") if name not in arrays]
    if missing:
        raise ValueError(f"в {where} нет {', '.join(missing)}: это не чекпойнт save_gpt")
    config = arrays["config"]
    if config.shape != (len(CONFIG_FIELDS),) or not np.issubdtype(config.dtype, np.integer):
        raise ValueError(f"config в {where} — {len(CONFIG_FIELDS)} целых ({', '.join(CONFIG_FIELDS)}), "
                         f"а там {config.dtype} формы {config.shape}")
    vocab = arrays["vocab"]
    if vocab.dtype.kind != "U" or vocab.shape != (config[0],):
        raise ValueError(f"словарь в {where} — {config[0]} символов (vocab_size из config), "
                         f"а там {vocab.dtype} формы {vocab.shape}")
    file_tokenizer = CharTokenizer(vocab.tolist())
    if tokenizer is not None and tokenizer.vocab != file_tokenizer.vocab:
        only_file = sorted(set(file_tokenizer.vocab) - set(tokenizer.vocab))
        only_yours = sorted(set(tokenizer.vocab) - set(file_tokenizer.vocab))
        raise ValueError(
            f"словарь {where} не совпадает с вашим: только в файле {''.join(only_file)!r}, только в вашем "
            f"{''.join(only_yours)!r}{' (символы те же, порядок другой)' if not only_file and not only_yours else ''}. "
            "Номера символов у модели свои: берите токенизатор из файла — model, tokenizer = load_gpt(путь)"
        )
    model = GPT(*(int(n) for n in config))
    named = list(model.named_parameters())
    count = sum(name.startswith("param.") for name in arrays)
    if count != len(named):
        raise ValueError(f"в {where} {count} массивов параметров, а GPT с config {config.tolist()} нужно {len(named)}")
    for i, (name, p) in enumerate(named):
        value = arrays[f"param.{i:03d}"]
        if value.shape != p.shape or not np.issubdtype(value.dtype, np.floating):
            raise ValueError(f"параметр {name} в {where}: ожидались дробные числа формы {p.shape}, "
                             f"а там {value.dtype} формы {value.shape}")
        p.data = value
    return model, file_tokenizer

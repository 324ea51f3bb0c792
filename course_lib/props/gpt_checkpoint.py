"""Чекпойнт GPT урока 10: веса по именам, словарь и размеры модели в одном .npz — только массивы, без pickle.

В файле: `config` — целые [vocab_size, max_len, d_model, num_heads, num_layers], `vocab` — массив
символов словаря и по массиву на параметр под его именем из `model.state_dict()`: `tokens.weight`,
`blocks.0.attention.W_q.weight`, … Загрузка кладёт их по именам (`load_state_dict`): параметры одной
формы не перепутаются, а файл не той модели получит отказ с именем параметра.
Прежде чем читать массивы, загрузка смотрит их заголовки: массивы объектов Python (pickle) не читаются
вовсе — чужой код из файла не выполнится, — а файл, который обещает больше чисел, чем в нём лежит
или чем влезет в память, получает отказ до выделения памяти.
Долгое обучение чекпойнта урока — tools/train_gpt_checkpoint.py.
"""

import os
import pathlib
import zipfile
from importlib import resources

import numpy as np

from course_lib._checks import check_memory
from course_lib.nn import GPT
from course_lib.nn.gpt import num_params
from course_lib.props.tokenizer import CharTokenizer
from course_lib.russian import number

CONFIG_FIELDS = ("vocab_size", "max_len", "d_model", "num_heads", "num_layers")
SERVICE = ("config", "vocab")           # остальные массивы файла — параметры по именам


def lesson_checkpoint_path():
    """Где лежит чекпойнт урока (data/gpt_lessons_ru.npz); его пишет tools/train_gpt_checkpoint.py."""
    return pathlib.Path(str(resources.files("course_lib.props") / "data" / "gpt_lessons_ru.npz"))


def save_gpt(path, model, tokenizer):
    """Сохраняет model (GPT) и tokenizer (CharTokenizer) в файл path (.npz) — ровно под этим именем. -> путь."""
    if not isinstance(model, GPT) or not isinstance(tokenizer, CharTokenizer):
        raise TypeError(f"save_gpt ждёт GPT и CharTokenizer, а пришли {type(model).__name__} и {type(tokenizer).__name__}")
    path = _checked_path(path, "save_gpt")
    if tokenizer.vocab_size != model.vocab_size:
        raise ValueError(f"в словаре {tokenizer.vocab_size} символов, а модель знает {model.vocab_size} токенов: "
                         "это словарь от другой модели")
    state = model.state_dict()
    for name, value in state.items():
        if not np.isfinite(value).all():
            raise ValueError(f"save_gpt: в параметре {name} есть nan или ±inf — модель сломана (обучение разошлось?), "
                             "сохранять её незачем: учите заново с lr поменьше")
    if path.is_dir():
        raise ValueError(f"save_gpt: «{path}» — папка, а нужен путь к файлу, например {path / 'my_gpt.npz'}")
    if not path.parent.is_dir():
        raise ValueError(f"save_gpt: папки «{path.parent}» нет — создайте её или сохраните рядом с тетрадкой")
    config = np.array([getattr(model, field) for field in CONFIG_FIELDS], dtype=np.int64)
    try:
        with open(path, "wb") as file:     # файлом, а не именем: np.savez дописал бы к «my_model» «.npz»
            np.savez(file, config=config, vocab=np.array(tokenizer.vocab, dtype="<U1"), **state)
    except OSError as error:
        raise ValueError(f"save_gpt: не удалось записать «{path}» ({error.strerror}): "
                         "нет прав на папку или кончилось место на диске?") from None
    return path


def load_gpt(path, tokenizer=None):
    """(GPT, CharTokenizer) из файла save_gpt. tokenizer — если задан, словарь файла должен с ним совпасть."""
    path = _checked_path(path, "load_gpt")
    if tokenizer is not None and not isinstance(tokenizer, CharTokenizer):
        raise TypeError(f"load_gpt: tokenizer — CharTokenizer (словарь, с которым сверить файл) или None — словарь "
                        f"из файла, а пришло {tokenizer!r:.60} ({type(tokenizer).__name__}). "
                        "Обычно он не нужен: model, tokenizer = load_gpt(путь)")
    where = f"«{path}»"
    if not path.is_file():
        guess = path.with_name(path.name + ".npz")
        hint = f" Рядом есть «{guess.name}» — может быть, он?" if guess.is_file() else ""
        raise ValueError(f"файла {where} нет.{hint} Чекпойнт урока пишет tools/train_gpt_checkpoint.py; "
                         "свой — save_gpt(путь, model, tokenizer)")
    arrays = _read_arrays(path, where)
    missing = [name for name in SERVICE if name not in arrays]
    if missing:
        raise ValueError(f"в {where} нет {', '.join(missing)}: это не чекпойнт save_gpt")
    config = arrays["config"]
    if config.shape != (len(CONFIG_FIELDS),) or not np.issubdtype(config.dtype, np.integer) or (config < 1).any():
        raise ValueError(f"config в {where} — {len(CONFIG_FIELDS)} целых ≥ 1 ({', '.join(CONFIG_FIELDS)}), "
                         f"а там {config.dtype} формы {config.shape}: {config.tolist()}")
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
    state = _state(arrays, where)
    vocab_size, max_len, d_model, num_heads, num_layers = (int(n) for n in config)
    wanted, stored = num_params(vocab_size, max_len, d_model, num_layers), sum(v.size for v in state.values())
    if wanted - stored > 10**6:          # до постройки модели: config на терабайт при весах на килобайт — отказ сразу
        raise ValueError(f"config в {where} {config.tolist()} описывает GPT из {number(wanted)} чисел, а весов в файле "
                         f"только {number(stored)}: файл испорчен или собран не save_gpt")
    try:
        model = GPT(vocab_size, max_len, d_model, num_heads, num_layers)
    except (TypeError, ValueError) as error:
        raise ValueError(f"config в {where} {config.tolist()} не описывает GPT: {error}") from None
    dtypes = {value.dtype for value in state.values() if np.issubdtype(value.dtype, np.floating)}
    if len(dtypes) == 1:
        model.to(dtypes.pop())            # веса — в том типе, в каком их сохранили (чекпойнт урока — float32)
    try:
        model.load_state_dict(state)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{where}: {error}") from None
    return model, file_tokenizer


def _checked_path(path, where):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{where} ждёт путь к файлу .npz (строку), а пришёл {type(path).__name__}")
    return pathlib.Path(path)


def _read_arrays(path, where):
    """Все массивы файла — после проверки заголовков: без объектов Python и не больше, чем в файле и в памяти."""
    not_ours = f"{where} — не чекпойнт save_gpt (не архив .npz из одних массивов чисел и символов)"
    try:
        with zipfile.ZipFile(path) as archive:
            declared = sum(_declared_bytes(archive, info, where) for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, EOFError):
        raise ValueError(not_ours) from None
    check_memory(declared, f"массивы из {where}", "load_gpt", "это точно чекпойнт урока? Его модель — около мегабайта")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile):
        raise ValueError(not_ours) from None


def _declared_bytes(archive, info, where):
    """Сколько байт обещает заголовок массива info; объекты Python и обещания сверх данных — отказ."""
    name = info.filename.removesuffix(".npy")
    with archive.open(info) as file:
        try:
            version = np.lib.format.read_magic(file)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                           (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read_header is None:
                raise ValueError(version)
            shape, _, dtype = read_header(file)
        except ValueError:
            raise ValueError(f"{where} — не чекпойнт save_gpt: «{name}» не читается как массив NumPy") from None
        header = file.tell()
    if dtype.hasobject:
        raise ValueError(f"в {where} массив «{name}» — объекты Python (pickle), а не числа: такие курс не читает, "
                         "при чтении они могли бы выполнить чужой код. Чекпойнт save_gpt хранит только числа и символы")
    nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if nbytes > info.file_size - header:
        raise ValueError(f"в {where} массив «{name}» обещает форму {shape} ({number(nbytes)} байт), а данных в файле "
                         f"{number(info.file_size - header)} байт: файл испорчен или подделан")
    return nbytes


def _state(arrays, where):
    """Параметры по именам. В файлах прежнего вида (param.000, … и names) имя каждого — из names."""
    if "names" not in arrays:
        return {name: value for name, value in arrays.items() if name not in SERVICE}
    names = arrays["names"]
    numbered = sorted(name for name in arrays if name.startswith("param."))
    if names.dtype.kind != "U" or numbered != [f"param.{i:03d}" for i in range(names.size)]:
        raise ValueError(f"в {where} имён параметров (names) {names.size}, а массивов param.* — {len(numbered)}: "
                         "у каждого массива должно быть своё имя")
    return {str(name): arrays[f"param.{i:03d}"] for i, name in enumerate(names)}


"""Текст для GPT урока 10: посимвольный токенизатор, свой файл ученика (и все способы его испортить),
корпус курса и инструмент, который его собирает."""

import pathlib
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.props.text_file import CORPUS_DATE, CORPUS_SHA256, lessons_text, load_text, min_text_length
from course_lib.props.tokenizer import CharTokenizer

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.build_corpus import build_corpus  # noqa: E402

TOKENIZER = CharTokenizer.from_text("кот сел на тёплый коврик.\n")


# ---- токенизатор ------------------------------------------------------------------------

@settings(max_examples=50, deadline=None)
@given(st.text(alphabet=TOKENIZER.vocab, max_size=40))
def test_decode_undoes_encode(text):
    ids = TOKENIZER.encode(text)
    assert ids.dtype == np.int64 and ids.shape == (len(text),)
    assert TOKENIZER.decode(ids) == text


def test_vocabulary_is_sorted_distinct_characters():
    assert TOKENIZER.vocab == sorted(set("кот сел на тёплый коврик.\n"))
    assert TOKENIZER.encode("а").tolist() == [TOKENIZER.vocab.index("а")]


def test_unknown_characters_are_named_in_the_error():
    with pytest.raises(ValueError, match="символов '\\\\t', «Ж», «щ» нет в словаре"):
        TOKENIZER.encode("кот\tЖщ")


@pytest.mark.parametrize("ids, match", [
    (np.array([0.0, 1.0]), "целые номера формы"),
    (np.zeros((2, 3), dtype=int), r"decode\(row\) for row"),
    (np.array([0, 99]), "от 0 до"),
])
def test_decode_rejects_bad_ids(ids, match):
    with pytest.raises(ValueError, match=match):
        TOKENIZER.decode(ids)


@pytest.mark.parametrize("vocab, match", [(["а", "а"], "повторяются: «а»"), (["ab"], "отдельные символы"), ([], "пуст")])
def test_bad_vocabulary_is_refused(vocab, match):
    with pytest.raises(ValueError, match=match):
        CharTokenizer(vocab)


def test_encode_wants_a_string():
    with pytest.raises(TypeError, match="строку"):
        TOKENIZER.encode(["к", "о"])


# ---- свой файл ученика ------------------------------------------------------------------

LONG = "кот сел на тёплый коврик. " * 40          # 1040 символов: хватает окну T = 64 при доле 0.1


def test_a_good_file_is_read_with_windows_newlines_and_bom_cleaned(tmp_path):
    path = tmp_path / "мой_текст.txt"
    path.write_bytes("\ufeff".encode() + LONG.replace(". ", ".\r\n").encode("utf-8"))
    text = load_text(path)
    assert text == LONG.replace(". ", ".\n")
    assert load_text(str(path)) == text


@pytest.mark.parametrize("content, match", [
    (b"", "пуст: вставьте в него текст"),
    (b"  \n\n ", r"пуст \(одни пробелы"),
    (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(200), "двоичные данные"),
    (LONG.encode("cp1251"), "не в кодировке UTF-8: байт 0x"),
    ("кот сел".encode(), "7 символов, а для обучения нужно хотя бы 650"),
], ids=["пустой", "одни пробелы", "PNG", "cp1251", "короткий"])
def test_bad_files_get_a_message_saying_what_arrived(tmp_path, content, match):
    path = tmp_path / "text.txt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=match):
        load_text(path)


def test_missing_path_and_folder(tmp_path):
    with pytest.raises(ValueError, match="файла «.*нет_такого.txt» нет"):
        load_text(tmp_path / "нет_такого.txt")
    with pytest.raises(ValueError, match="папка, а нужен текстовый файл"):
        load_text(tmp_path)
    with pytest.raises(TypeError, match="путь к файлу"):
        load_text(b"bytes")


def test_the_needed_length_follows_the_window_and_the_split(tmp_path):
    assert min_text_length(64, 0.1) == 650 and min_text_length(8, 0.5) == 18
    path = tmp_path / "short.txt"
    path.write_text("а" * 18, encoding="utf-8")
    assert len(load_text(path, T=8, val_fraction=0.5)) == 18
    with pytest.raises(ValueError, match="хотя бы 20"):
        load_text(path, T=9, val_fraction=0.5)
    with pytest.raises(ValueError, match="val_fraction — доля"):
        load_text(path, val_fraction=1.5)


# ---- корпус курса -----------------------------------------------------------------------

def test_the_course_corpus_is_long_russian_prose():
    text = lessons_text()
    assert len(text) >= 100_000, f"корпус урока 10 — {len(text)} символов, а нужно не меньше 100 000"
    letters = [c for c in text if c.isalpha()]
    cyrillic = sum("а" <= c.lower() <= "я" or c in "ёЁ" for c in letters) / len(letters)
    assert cyrillic > 0.8, f"кириллицы среди букв корпуса {cyrillic:.0%}: это не русская проза"


def test_build_corpus_takes_markdown_cells_only_in_lesson_order(tmp_path):
    (tmp_path / "01_second.py").write_text(
        "# %% [markdown]\n# ## Второй\n#\n# текст  с отступом\n\n# %%\nx = 1  # код\n", encoding="utf-8")
    (tmp_path / "00_first.py").write_text(
        "# ---\n# jupyter: заголовок\n# ---\n\n# %% [markdown]\n# # Первый\n\n# %%\nprint('нет')\n"
        "# %% [markdown]\n# - пункт\n#   продолжение\n", encoding="utf-8")
    (tmp_path / "notes.py").write_text("# %% [markdown]\n# не урок\n", encoding="utf-8")
    expected = "# Первый\n\n- пункт\n  продолжение\n\n## Второй\n\nтекст  с отступом\n"
    assert build_corpus(tmp_path) == expected
    assert build_corpus(tmp_path) == build_corpus(tmp_path)


def test_the_corpus_is_the_snapshot_whose_date_the_lesson_prints():
    import hashlib

    digest = hashlib.sha256(lessons_text().encode("utf-8")).hexdigest()
    assert digest == CORPUS_SHA256, (
        f"корпус data/lessons_ru.txt пересобран, а урок 10 печатает дату прежнего снимка ({CORPUS_DATE}): "
        "обновите CORPUS_DATE и CORPUS_SHA256 в course_lib/props/text_file.py и переучите чекпойнт")

"""Текст для обучения GPT (урок 10): проза уроков курса или свой файл ученика.

`lessons_text()` — корпус курса (data/lessons_ru.txt, его собирает tools/build_corpus.py);
`load_text("мой_текст.txt")` — свой файл. Что бы ни пришло — пустой файл, слишком короткий,
двоичный, не UTF-8, несуществующий путь, — ошибка скажет, что пришло и что сделать.
"""

import math
import numbers
import os
import pathlib
from importlib import resources

from course_lib._checks import check_int, check_memory, format_bytes

# Корпус — снимок прозы уроков 00–09 на этот день: уроки с тех пор правили, а корпус (и обученный на нём
# чекпойнт) — нет. Пересобрали корпус (tools/build_corpus.py) — обновите оба числа: отпечаток сверяет
# tests/test_gpt_text.py, дату печатает урок 10.
CORPUS_DATE = "3 декабря 2026"
CORPUS_SHA256 = "a9033cef1a1c9edfa16deec778d50428523093734cef817540df5e3ca8205f31"


def lessons_text():
    """Проза уроков 00–09 на день CORPUS_DATE: около 146 000 символов русского текста, написанного для курса."""
    return (resources.files("course_lib.props") / "data" / "lessons_ru.txt").read_text(encoding="utf-8")


def min_text_length(T, val_fraction):
    """Сколько символов нужно, чтобы и в проверочной части (доля val_fraction) нашлось окно из T + 1 символа."""
    check_int(T, "T", "обучение GPT", meaning=" (длина окна: сколько символов модель видит сразу)")
    if isinstance(val_fraction, bool) or not isinstance(val_fraction, numbers.Real) or not 0 < val_fraction < 1:
        raise ValueError(f"val_fraction — доля текста для проверки, число между 0 и 1 (обычно 0.1), а пришло {val_fraction!r}")
    return math.ceil((T + 1) / val_fraction)


def check_text_length(text, T, val_fraction, source="текст"):
    """Ошибка по-русски, если text короче min_text_length(T, val_fraction)."""
    need = min_text_length(T, val_fraction)
    if len(text) < need:
        raise ValueError(
            f"{source}: {len(text)} символов, а для обучения нужно хотя бы {need}: в проверочную часть "
            f"({val_fraction:.0%} текста) должно влезть окно из T + 1 = {T + 1} символов. "
            "Возьмите текст подлиннее (лучше десятки тысяч символов) или окно T поменьше"
        )


def load_text(path, T=64, val_fraction=0.1):
    """Текст из файла path в UTF-8 — для обучения с окном T и проверочной долей val_fraction.

    Переводы строк Windows (\\r\\n) становятся \\n, метка BOM в начале отбрасывается.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load_text ждёт путь к файлу (строку), а пришёл {type(path).__name__}")
    path = pathlib.Path(path)
    where = f"«{path}»"
    if not path.exists():
        raise ValueError(
            f"файла {where} нет (ищу от папки {pathlib.Path.cwd()}). Проверьте имя и папку; "
            "проще всего положить файл рядом с тетрадкой и написать только его имя"
        )
    if path.is_dir():
        raise ValueError(f"{where} — папка, а нужен текстовый файл в ней, например {path / 'мой_текст.txt'}")
    if not path.is_file():                # /dev/zero, канал (FIFO): читать такое можно вечно
        raise ValueError(f"{where} — не обычный файл (устройство или канал), а нужен текстовый файл, например мой_текст.txt")
    size = path.stat().st_size            # до чтения: 30 ГБ не читаем, чтобы потом отказать
    check_memory(3 * size, f"текст из файла {where} ({format_bytes(size)}: байты и строка)", "load_text",
                 "файл поменьше — урок учит на 118 000 символах, модели такого размера хватает нескольких мегабайт")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"файл {where} не читается ({error.strerror}): нет прав на него? "
                         "Скопируйте его рядом с тетрадкой") from None
    if not data.strip():
        raise ValueError(f"файл {where} пуст{'' if not data else ' (одни пробелы и переводы строк)'}: "
                         "вставьте в него текст и сохраните")
    if b"\0" in data[:8192]:
        raise ValueError(
            f"файл {where} — не текст, а двоичные данные (в нём нулевые байты): картинка, архив, .docx или .pdf? "
            "Откройте его в редакторе и сохраните как обычный текст (.txt) в кодировке UTF-8"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"файл {where} — не в кодировке UTF-8: байт 0x{data[error.start]:02x} в позиции {error.start} "
            "ею не читается. Часто так выглядят файлы Windows в cp1251: пересохраните файл в UTF-8 "
            "(в Блокноте: «Сохранить как» -> «Кодировка: UTF-8»)"
        ) from None
    text = text.replace("\r\n", "\n")
    check_text_length(text, T, val_fraction, source=f"в файле {where}")
    return text

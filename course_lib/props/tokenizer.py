"""Посимвольный токенизатор урока 10: токен — один символ, номер — место символа в словаре.

Символа, которого нет в словаре, модель никогда не видела, и номера у него нет. Молча
заменять его «неизвестным» значило бы подсовывать модели текст, которого ей не давали, —
поэтому encode отказывается и называет такие символы: их можно убрать или заменить.
"""

import numpy as np

from course_lib._checks import check_memory, check_numbers


class CharTokenizer:
    """Словарь — разные символы текста по порядку кодов: encode(str) -> номера (T,), decode(номера) -> str."""

    def __init__(self, vocab):
        if isinstance(vocab, (bytes, bytearray)) or not hasattr(vocab, "__iter__"):
            raise TypeError(f"словарь CharTokenizer — список символов, например sorted(set(текст)), "
                            f"а пришёл {type(vocab).__name__}. Из текста: CharTokenizer.from_text(текст)")
        vocab = list(vocab)
        bad = [repr(c) for c in vocab if not isinstance(c, str) or len(c) != 1]
        if bad:
            raise ValueError(f"словарь CharTokenizer — отдельные символы, а в нём {', '.join(bad[:5])}")
        if len(set(vocab)) != len(vocab):
            repeated = sorted({c for c in vocab if vocab.count(c) > 1})
            raise ValueError(f"в словаре CharTokenizer символы повторяются: {shown_chars(repeated)} — у символа один номер")
        if not vocab:
            raise ValueError("словарь CharTokenizer пуст: постройте его из текста, CharTokenizer.from_text(текст)")
        self.vocab = vocab
        self._index = {c: i for i, c in enumerate(vocab)}

    @classmethod
    def from_text(cls, text):
        """Словарь из всех разных символов text, по порядку их кодов Unicode."""
        if not isinstance(text, str):
            raise TypeError(f"CharTokenizer.from_text ждёт строку текста, а пришёл {type(text).__name__}")
        return cls(sorted(set(text)))

    @property
    def vocab_size(self):
        return len(self.vocab)

    def encode(self, text):
        """Строка -> номера символов (T,), целые int64."""
        if not isinstance(text, str):
            raise TypeError(f"encode ждёт строку, а пришёл {type(text).__name__}")
        check_memory(16 * len(text), f"номера {len(text)} символов (список и массив int64)", "encode",
                     "текст покороче или по частям")
        unknown = sorted(set(text) - self._index.keys())
        if unknown:
            raise ValueError(
                f"символов {shown_chars(unknown)} нет в словаре ({self.vocab_size} символов обучающего текста): "
                "модель их ни разу не видела, и номера у них нет. Уберите или замените их — "
                "например, text.replace(…), — или постройте словарь по тексту, где они есть"
            )
        return np.array([self._index[c] for c in text], dtype=np.int64)

    def decode(self, ids):
        """Номера (T,) -> строка."""
        ids = check_token_ids(ids, "ids", "decode", ndim=1, vocab_size=self.vocab_size, min_length=0)
        return "".join(self.vocab[i] for i in ids)

    def __repr__(self):
        return f"CharTokenizer(vocab_size={self.vocab_size})"


def check_token_ids(ids, name, where, ndim, vocab_size=None, min_length=1):
    """Номера символов: целые, ndim осей (1 — (T,), 2 — (K, T)), по последней оси ≥ min_length, строк ≥ 1,
    от 0 до vocab_size − 1 (None — без проверки словаря). Возвращает массив NumPy."""
    ids = check_numbers(getattr(ids, "data", ids), name, where)
    shape = "(T,)" if ndim == 1 else "(K, T)"
    if not np.issubdtype(ids.dtype, np.integer) or ids.ndim != ndim:
        hint = " Для батча: [tokenizer.decode(row) for row in ids]." if where == "decode" and ids.ndim == 2 else ""
        raise ValueError(f"{where}: {name} — целые номера формы {shape}, "
                         f"а пришло {ids.dtype} формы {ids.shape}.{hint}")
    if ids.shape[-1] < min_length or (ndim == 2 and ids.shape[0] == 0):
        raise ValueError(f"{where}: {name} — форма {shape} хотя бы с {min_length} номерами в строке"
                         f"{' и хотя бы одной строкой' if ndim == 2 else ''}, а пришла форма {ids.shape}")
    if vocab_size is not None and ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        raise ValueError(f"{where}: номера символов — от 0 до {vocab_size - 1}, а встретились {ids.min()}…{ids.max()}")
    return ids


def shown_chars(chars, limit=12):
    """Символы для сообщения: «a», «\\n»… — невидимые показаны как в Python."""
    shown = ", ".join(f"«{c}»" if c.isprintable() and not c.isspace() else repr(c) for c in chars[:limit])
    return shown + (f" и ещё {len(chars) - limit}" if len(chars) > limit else "")

"""Числа по-русски: «1 слово», «2 слова», «5 слов» и «126 767» — для сообщений уроков, виджетов и TEACHERS.md."""

import numbers


def plural(n, one, few, many):
    """n и слово в нужной форме: plural(2, "ядро", "ядра", "ядер") -> «2 ядра»."""
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} {one}"
    return f"{n} {few if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else many}"


def number(n):
    """Целое число с разрядами через пробел, как в русском тексте: number(126767) -> «126 767».

    Не f"{n:,}": по-русски запятая отделяет дробную часть, и «126,767» читается как «126 целых 767 тысячных».
    Число с дробной частью (счёт по формуле, размер в байтах) округлите сами: number(round(x)).
    """
    whole = isinstance(n, numbers.Integral) or (isinstance(n, numbers.Real) and float(n).is_integer())
    if isinstance(n, bool) or not whole:       # float без дробной части — тоже целое: number(round(x)) при любом типе round
        raise TypeError(f"number: нужно целое число, а пришло {n!r} ({type(n).__name__}); "
                        "дробное округлите сами: number(round(x))")
    return f"{int(n):,}".replace(",", " ")

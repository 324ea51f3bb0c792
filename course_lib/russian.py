"""Числа со словами по-русски: «1 слово», «2 слова», «5 слов» — для сообщений уроков, виджетов и TEACHERS.md."""


def plural(n, one, few, many):
    """n и слово в нужной форме: plural(2, "ядро", "ядра", "ядер") -> «2 ядра»."""
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} {one}"
    return f"{n} {few if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else many}"

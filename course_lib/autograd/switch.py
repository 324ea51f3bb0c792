"""Выключатели курса — `nt.no_grad` и `nt.fast`: вызов даёт блок для with, а сам выключатель — не блок.

С with ученик ошибается тремя способами, и Python на них отвечает по-английски или молчит:
`with nt.fast:` без скобок, `@nt.fast` над функцией без скобок и `nt.fast()` без with (ничего не включает).
Здесь ответ на каждый — один на оба выключателя: Switch отказывает по-русски и говорит, что писать,
а Block, которого так и не поставили в with, предупреждает, когда его выбрасывают (в ячейке — сразу),
и его repr (последняя строка ячейки) говорит то же. Блок можно войти снова и вложенно, как torch.no_grad(),
и поставить над функцией: `@nt.no_grad()`.
"""

import functools
import inspect
import sys
import warnings


class UnusedSwitchWarning(UserWarning):
    """nt.fast() или nt.no_grad() вызвали, а в with (или над функцией) так и не поставили: он ничего не изменил."""


class Switch:
    """Выключатель: вызов — блок `block` для with; `with выключатель:` без скобок — ошибка по-русски.

    Подкласс задаёт `name` («nt.fast») и `block` — класс блока (наследник Block), его __init__ проверяет аргументы;
    подсказка Jupyter (Shift+Tab) показывает аргументы этого __init__.
    """

    name = "выключатель"
    block = None

    @property
    def __signature__(self):
        return inspect.signature(self.block)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            raise TypeError(f"{self.name}: декоратор пишут со скобками — @{self.name}() над def, а пришло "
                            f"@{self.name} без скобок над {getattr(args[0], '__name__', type(args[0]).__name__)}")
        block = self.block(*args, **kwargs)
        caller = sys._getframe(1)                        # где вызвали: туда укажет предупреждение «без with»
        block._where = (caller.f_code.co_filename, caller.f_lineno)
        return block

    def __enter__(self):
        raise TypeError(f"with {self.name}: — без скобок это сам выключатель, а не блок: пишите with {self.name}():")

    def __exit__(self, *error):
        return False

    def __repr__(self):
        return f"{self.name} — выключатель: with {self.name}(): …"


def pop_entry(stack, block):
    """Снять со стека открытых входов последний вход этого блока и вернуть, что при нём запомнили.

    Состояние выключателя — у самого внутреннего из открытых входов (вершина стека), а не «прежнее», запомненное
    при входе: так генератор с `with` внутри может выйти из своего блока, пока открыт другой, и не сбить чужой."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i][0] is block:
            return stack.pop(i)[1:]
    raise RuntimeError(f"{block.call}: выход из блока, в который не входили")


class Block:
    """Блок одного выключателя. Подкласс задаёт `call` («nt.fast()» — как его вызвали), `_enter()` и `_exit(*error)`:
    состояние до входа они хранят сами, стеком — так блок можно войти снова и вложенно."""

    _used, _where = True, None                         # полусозданный блок (ошибка в __init__) не предупреждает

    def __init__(self):
        self._used = False

    def __enter__(self):
        self._used = True
        self._enter()

    def __exit__(self, *error):
        self._exit(*error)
        return False

    def __call__(self, fn):
        """@nt.fast() над функцией: каждый её вызов — внутри этого блока."""
        self._used = True

        @functools.wraps(fn)
        def inside_block(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return inside_block

    def __repr__(self):
        return (f"{self.call} — блок: сам по себе он ничего не включает, только в with — "
                f"пишите with {self.call}: и под ним — то, что считать")

    def __del__(self):
        if not self._used and self._where is not None:
            warnings.warn_explicit(
                f"{self.call} вызван без with и ничего не изменил: он действует только как блок — "
                f"with {self.call}: и под ним, с отступом, то, что считать",
                UnusedSwitchWarning, *self._where, registry=None)   # registry=None: говорить каждый раз, а не раз на строку

"""Машинное отделение: те же формулы, что в книге, только слитые и на всех ядрах — за одним выключателем.

Книга — это `autograd/` и `functional.py`: туда ведёт «перейти к определению» из урока, там простой код.
Здесь — то же самое, написанное ради скорости (урок 08 объясняет, откуда она берётся):

    attention.py — внимание одной операцией: оценки, маска, softmax и веса @ v кусками по кэшу, со своим backward;
    linear.py    — x @ W слоя Linear одним большим умножением (и его градиенты), большие — на все ядра;
    gelu.py      — GELU одной операцией с готовой производной (книга строит её из восьми операций);
    layer_norm.py — LayerNorm одной операцией с готовой производной (в книге — дюжина операций);
    pool.py      — свой пул потоков: куски этих операций на все ядра, BLAS в каждом куске — в один поток;
    memory.py    — память процесса: освобождённые большие массивы остаются под следующие (включает первый `fast()`).
    inputs.py    — вход этих функций, позванных напрямую: не Tensor, не дробный, не та форма — отказ по-русски.

Выключатель — `with nt.fast():` (`nt.fast` — объект FastSwitch: вызов даёт блок FastBlock для with). Внутри блока публичные вызовы те же, но четыре места берут быстрый путь:
`scaled_dot_product_attention`, `Linear.forward`, `gelu` и `LayerNorm.forward` (каждое — одной строкой с `fast_enabled()`).
Внутри блока ещё и BLAS — в один поток (`course_lib/blas.py`): большие умножения делит по ядрам свой пул.
Вне блока всё идёт по книге. Сама библиотека выключатель не включает; это делают те, кому нужна
скорость, и говорят об этом: обучение в props/training.py, замеры урока 08, benchmarks/.

Папка называется не `fast`, чтобы имя `nt.fast` было только выключателем: части отсюда
берут обычным импортом — `from course_lib.engine_room import pool`, `import course_lib.engine_room.attention`.
"""

import contextlib
import threading

from course_lib._checks import check_bool
from course_lib.autograd.switch import Block, Switch, pop_entry

from course_lib.engine_room.attention import fused_attention
from course_lib.engine_room.gelu import fast_gelu
from course_lib.engine_room.layer_norm import fast_layer_norm
from course_lib.engine_room.linear import fast_linear
from course_lib.engine_room.memory import keep_freed_memory
from course_lib.blas import one_blas_thread

_state = threading.local()        # у каждого потока свой выключатель и свой стек открытых блоков


class FastBlock(Block):
    """Блок `with nt.fast(on):` — его даёт вызов nt.fast(on); войти в него можно снова и вложенно."""

    def __init__(self, on=True):
        super().__init__()
        self.on = check_bool(on, "on", "nt.fast", meaning=" (включить ли быстрый путь)")
        self.call = "nt.fast()" if self.on else "nt.fast(False)"

    def _enter(self):
        stack = _state.__dict__.setdefault("stack", [])      # (блок, контекст BLAS) каждого открытого входа
        blas = one_blas_thread() if self.on else contextlib.nullcontext()
        if self.on:
            keep_freed_memory()                               # один раз на процесс: см. memory.py
        blas.__enter__()
        stack.append((self, blas))
        _state.on = self.on

    def _exit(self, *error):
        (blas,) = pop_entry(_state.stack, self)
        _state.on = _state.stack[-1][0].on if _state.stack else False   # решает самый внутренний открытый блок
        blas.__exit__(*error)


class FastSwitch(Switch):
    """Выключатель `nt.fast`: `with nt.fast():` — быстрый путь внутри блока, `with nt.fast(False):` — по книге.

    Внутри блока внимание, Linear, GELU и LayerNorm идут быстрым путём; результат тот же (до округления).
    Блоки вкладываются: на выходе из блока (и при ошибке внутри него) возвращается прежнее
    состояние. Выключатель действует только в том потоке, который вошёл в блок: другой поток (например,
    фоновый поток виджета) считает по книге, пока сам не войдёт в свой `with nt.fast():`.
    Первый вход ещё и просит glibc держать освобождённую память (memory.py) — это на весь процесс.
    BLAS внутри блока считает в один поток (course_lib/blas.py): мелкие умножения в два потока только ждут.
    `@nt.fast()` над функцией — вся функция в таком блоке. Сам `nt.fast` без скобок — не блок
    (`with nt.fast:` отвечает ошибкой, что писать), а nt.fast() без with предупреждает (autograd/switch.py).
    """

    name, block = "nt.fast", FastBlock


fast = FastSwitch()


def enabled():
    """Включён ли быстрый путь в этом потоке (внутри `with fast():`)."""
    return getattr(_state, "on", False)


__all__ = ["fast", "enabled", "fused_attention", "fast_linear", "fast_gelu", "fast_layer_norm"]

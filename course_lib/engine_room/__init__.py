"""Машинное отделение: те же формулы, что в книге, только слитые и на всех ядрах — за одним выключателем.

Книга — это `autograd/` и `functional.py`: туда ведёт «перейти к определению» из урока, там простой код.
Здесь — то же самое, написанное ради скорости (урок 08 объясняет, откуда она берётся):

    attention.py — внимание одной операцией: оценки, маска, softmax и веса @ v кусками по кэшу, со своим backward;
    linear.py    — x @ W слоя Linear одним большим умножением (и его градиенты), большие — на все ядра;
    gelu.py      — GELU одной операцией с готовой производной (книга строит её из восьми операций);
    layer_norm.py — LayerNorm одной операцией с готовой производной (в книге — дюжина операций);
    pool.py      — свой пул потоков: куски этих операций на все ядра, BLAS в каждом куске — в один поток;
    memory.py    — память процесса: освобождённые большие массивы остаются под следующие (включает первый `fast()`).

Выключатель — `with nt.fast():`. Внутри блока публичные вызовы те же, но четыре места берут быстрый путь:
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

from course_lib.engine_room.attention import fused_attention
from course_lib.engine_room.gelu import fast_gelu
from course_lib.engine_room.layer_norm import fast_layer_norm
from course_lib.engine_room.linear import fast_linear
from course_lib.engine_room.memory import keep_freed_memory
from course_lib.blas import one_blas_thread

_state = threading.local()        # у каждого потока свой выключатель


@contextlib.contextmanager
def fast(on=True):
    """Внутри `with fast():` внимание, Linear и GELU идут быстрым путём; результат тот же (до округления).

    Блоки вкладываются: на выходе из блока (и при ошибке внутри него) возвращается прежнее
    состояние. `with fast(False):` — участок по книге внутри быстрого блока.
    Выключатель действует только в том потоке, который вошёл в блок: другой поток (например,
    фоновый поток виджета) считает по книге, пока сам не войдёт в свой `with fast():`.
    Первый вход ещё и просит glibc держать освобождённую память (memory.py) — это на весь процесс.
    BLAS внутри блока считает в один поток (course_lib/blas.py): мелкие умножения в два потока только ждут.
    """
    previous, _state.on = enabled(), check_bool(on, "on", "nt.fast", meaning=" (включить ли быстрый путь)")
    if _state.on:
        keep_freed_memory()       # один раз на процесс: см. memory.py
    try:
        with one_blas_thread() if _state.on else contextlib.nullcontext():
            yield
    finally:
        _state.on = previous


def enabled():
    """Включён ли быстрый путь в этом потоке (внутри `with fast():`)."""
    return getattr(_state, "on", False)


__all__ = ["fast", "enabled", "fused_attention", "fast_linear", "fast_gelu", "fast_layer_norm"]

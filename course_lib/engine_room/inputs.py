"""Входы публичных функций машинного отделения: Tensor, дробный, нужной формы — иначе отказ по-русски до счёта.

Книга (functional.py, nn/) свои входы уже проверила и превратила в Tensor, а потом зовёт эти функции
под `with nt.fast():`. Позвать их можно и напрямую (`nt.engine_room.fast_gelu(x)`), и тогда массив вместо
Tensor или не та форма дали бы английскую ошибку NumPy, а eps < 0 — молча nan. Здесь проверяется только то,
что видно без прохода по числам (тип, dtype, формы): на быстром пути проверка не стоит времени.
"""

from course_lib.autograd.tensor import Tensor


def check_tensor(x, name, where, shape, book, axes=0):
    """x — Tensor из дробных чисел хотя бы с axes осями; shape — его форма для ученика: «(…, T, d)».

    book — книжная функция, которая берёт и массивы («nt.gelu(x)»): её и советуем.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"{where}: {name} — Tensor формы {shape} (nt.tensor(массив)), а пришёл {type(x).__name__}. "
                        f"Массивы и списки берёт книжный путь — {book}; под with nt.fast(): он сам зовёт {where}")
    if x.dtype.kind != "f":
        raise TypeError(f"{where}: {name} — Tensor из дробных чисел (float32 или float64), а пришёл dtype {x.dtype}. "
                        f"Приведите тип: {name}.astype(np.float32)")
    if x.ndim < axes:
        raise ValueError(f"{where}: {name} — форма {shape}, хотя бы {axes} оси, а пришла форма {x.shape}")
    return x

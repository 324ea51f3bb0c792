"""KV-кэш: ключи и значения уже обработанных токенов одного слоя внимания (урок 08, генерация в уроке 09).

Модель с причинной маской не меняет прошлое: когда в конец дописали токен, старые токены
его не видят, и их ключи K и значения V остаются прежними. Поэтому при генерации их хранят
здесь и дописывают по строке на новый токен. Кэш создаёт слой: `mha.new_cache(N, max_len)`,
а заполняет `mha.step(x_new, cache)`.
"""

import numpy as np

from course_lib._checks import check_dtype, check_int, check_memory


class KVCache:
    """Буферы ключей и значений (N, h, max_len, d_head); заняты первые `length` позиций.

    Буфер выделен сразу: дописать токен — записать одну строку. С np.concatenate каждый шаг
    копировал бы весь кэш, и на T шагов ушло бы O(T²) копирований.
    """

    def __init__(self, N, num_heads, d_head, max_len, dtype=np.float64):
        for value, name, meaning in ((N, "N", "сколько последовательностей"), (num_heads, "num_heads", "голов"),
                                     (d_head, "d_head", "длина вектора головы"), (max_len, "max_len", "сколько токенов вместит")):
            check_int(value, name, "KVCache", meaning=f" ({meaning})")
        dtype = check_dtype(dtype, "KVCache")
        check_memory(2 * N * num_heads * max_len * d_head * dtype.itemsize,
                     f"ключи и значения (два массива {(N, num_heads, max_len, d_head)} {dtype})", "KVCache",
                     "меньше max_len (столько токенов и сгенерируете) или меньше N")
        self._keys = np.zeros((N, num_heads, max_len, d_head), dtype=dtype)
        self._values = np.zeros((N, num_heads, max_len, d_head), dtype=dtype)
        self.length = 0

    def append(self, k, v):
        """Дописывает k, v (N, h, n, d_head) в конец и возвращает все ключи и значения (N, h, length, d_head)."""
        if not all(isinstance(t, np.ndarray) and t.ndim == 4 for t in (k, v)):
            raise TypeError(f"KVCache.append: k и v — массивы NumPy формы (N, h, n, d_head), "
                            f"а пришли {type(k).__name__} и {type(v).__name__}")
        n = k.shape[-2]
        if k.shape != v.shape or k.shape[:2] + k.shape[3:] != self._keys.shape[:2] + self._keys.shape[3:]:
            raise ValueError(
                f"KVCache.append: k и v должны быть формы (N, h, n, d_head) = "
                f"{self._keys.shape[:2] + ('n',) + self._keys.shape[3:]}, а пришли k {k.shape}, v {v.shape}"
            )
        if self.length + n > self._keys.shape[2]:
            raise ValueError(f"KVCache переполнен: в нём место на {self._keys.shape[2]} токенов, а их стало бы {self.length + n}")
        self._keys[:, :, self.length:self.length + n] = k
        self._values[:, :, self.length:self.length + n] = v
        self.length += n
        return self.keys, self.values

    @property
    def keys(self):
        return self._keys[:, :, :self.length]              # вид на занятую часть, без копии

    @property
    def values(self):
        return self._values[:, :, :self.length]

    @property
    def nbytes(self):
        """Сколько байт занимают ключи и значения, уже лежащие в кэше."""
        return self.keys.nbytes + self.values.nbytes

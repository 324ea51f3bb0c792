"""Память прогонов обучения (уроки 09 и 10): тот же вызов с теми же аргументами не учит второй раз.

Повторный вызов отдаёт копию сохранённого результата: перезапуск ячейки не платит дважды и никогда
не «продолжает с того места», где остановился прошлый запуск. Память живёт, пока живёт ядро.
"""

import copy
import hashlib
from collections import OrderedDict

import numpy as np


class RunMemory:
    """Последние size прогонов одного вида (kind — его имя), по ключу из аргументов."""

    def __init__(self, kind, size):
        self.kind, self.size = kind, size
        self._runs = OrderedDict()

    def __len__(self):
        return len(self._runs)

    def recall(self, key, train):
        """Прогон с ключом key: из памяти или train() -> копия (её можно портить)."""
        if key not in self._runs:
            self._runs[key] = train()
            while len(self._runs) > self.size:
                self._runs.popitem(last=False)       # забываем самый давний прогон
        self._runs.move_to_end(key)
        return copy.deepcopy(self._runs[key])

    def forget(self):
        """Забыть все прогоны: следующий вызов учит заново."""
        self._runs.clear()


def fingerprint(*arrays):
    """Короткий отпечаток массивов для ключа: меняется, как только меняется хоть одно число, форма или тип."""
    digest = hashlib.blake2b(digest_size=16)
    for array in map(np.asarray, arrays):
        digest.update(repr((array.shape, array.dtype.str)).encode("ascii"))
        digest.update(array.tobytes())
    return digest.hexdigest()


def weights_fingerprint(model):
    """Отпечаток всех весов модели (дообучили — другой): ключ прогонов обучения и кэшей виджетов."""
    return fingerprint(*(parameter.data for parameter in model.parameters()))

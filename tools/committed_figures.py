"""Картинки урока — те же, что в тетрадке: картинку, заменённую в тетрадке руками, ловит проход урока.

nbval картинок не сравнивает (байты PNG меняются от версии matplotlib и от округления BLAS). Здесь картинка
сравнивается по тому, что на ней видно: обе уменьшены в SCALE раз (среднее по квадратам SCALE×SCALE пикселей
сглаживает сдвиг линии на пиксель и другое сглаживание краёв), и считается, какая доля уменьшенных пикселей
отличается больше чем на LEVEL уровней яркости из 255. Другая картинка (другие данные, другая раскраска,
другой заголовок) меняет больше SHARE пикселей; тот же рисунок на другом пути кода NumPy — нет.
"""

import base64
import io

import numpy as np

SCALE = 4          # во сколько раз уменьшаем перед сравнением
LEVEL = 48         # на сколько уровней (из 255) должен отличаться уменьшенный пиксель, чтобы считаться другим
SHARE = 0.005      # доля других пикселей, с которой картинка — другая


def pictures(outputs):
    """PNG-картинки вывода ячейки по порядку (bytes)."""
    return [base64.b64decode(output["data"]["image/png"]) for output in outputs
            if output.get("output_type") in ("display_data", "execute_result") and "image/png" in output.get("data", {})]


def _small(png):
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = image.size
    small = image.resize((max(1, width // SCALE), max(1, height // SCALE)), Image.BOX)
    return image.size, np.asarray(small, dtype=float)


def compare(committed, fresh):
    """(размер в тетрадке, размер сейчас, доля других пикселей или None, если размеры разные)."""
    size_a, a = _small(committed)
    size_b, b = _small(fresh)
    if size_a != size_b:
        return size_a, size_b, None
    return size_a, size_b, float((np.abs(a - b).max(axis=-1) > LEVEL).mean())


def differences(committed_outputs, fresh_outputs):
    """Чем картинки ячейки сейчас отличаются от картинок в тетрадке: список строк по-русски (пустой — ничем)."""
    committed, fresh = pictures(committed_outputs), pictures(fresh_outputs)
    if len(committed) != len(fresh):
        return [f"картинок в тетрадке {len(committed)}, а ячейка сейчас рисует {len(fresh)}"]
    problems = []
    for number, (old, new) in enumerate(zip(committed, fresh), start=1):
        size_old, size_new, share = compare(old, new)
        if share is None:
            problems.append(f"картинка {number}: в тетрадке {size_old[0]}×{size_old[1]} пикселей, "
                            f"а ячейка рисует {size_new[0]}×{size_new[1]} — картинку в тетрадке заменили или она устарела")
        elif share > SHARE:
            problems.append(f"картинка {number}: {share:.1%} пикселей (уменьшенных в {SCALE} раза) отличаются больше "
                            f"чем на {LEVEL} из 255 (допуск {SHARE:.1%}) — в тетрадке не та картинка, что рисует ячейка; "
                            f"пересоберите урок (`make notebooks`), а не заменяйте картинку руками")
    return problems

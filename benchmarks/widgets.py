"""Задержка главного исследователя внимания на стороне ядра: от сдвига ползунка до готовой картинки.

    .venv/bin/python benchmarks/widgets.py

Без Jupyter: создаём attention_explorer() и двигаем его ползунки из Python — так же, как их
двигает браузер через comm. Печатаем p50/p95 на одно обновление для T=16, 4 головы и T=32, 8 голов,
отдельно для сдвигов, не меняющих раскладку (d_k, зерно, маска, √d_k, запрос, голова), и для
меняющих её (T, число голов) — тогда фигура перерисовывается целиком.

Для сравнения — два других способа на той же фигуре: полная перерисовка на каждый сдвиг
(так работает inline-бэкенд с Output: фигура рисуется заново и сжимается в PNG) и blitting
с PNG вместо JPEG.
Цель: p50 ≤ 50 мс и p95 ≤ 100 мс при T=16, 4 головы.
"""

import os
import time

import numpy as np

from course_lib.widgets import attention_explorer
from course_lib.widgets._live import encode_png

WORDS = ("кот сел на тёплый коврик и долго смотрел в окно на улицу где шёл дождь а потом уснул "
         "рядом с большой собакой которая тоже любила тёплые места у батареи зимой").split()


def slider_moves(T, heads, rounds=3):
    """Последовательность сдвигов, как у ученика: протащить d_k, зерно, запрос, голову, щёлкнуть флажки, сдвинуть T."""
    moves = []
    for r in range(rounds):
        moves += [("d_k", d) for d in range(4 + r, 64, 6)]
        moves += [("seed", s) for s in range(10 * r, 10 * r + 8)]
        moves += [("query", q) for q in range(T)]
        moves += [("head", h) for h in range(1, heads + 1)]
        moves += [("causal", True), ("scaled", False), ("causal", False), ("scaled", True)]
        moves += [("T", T - 1), ("T", T - 2), ("T", T - 1), ("T", T)]          # меняют раскладку
        moves += [("heads", max(1, heads - 1)), ("heads", heads)]
    return moves


def measure(T, heads, encode=None, full_redraw=False):
    explorer = attention_explorer(sentence=" ".join(WORDS[:T]), heads=heads, d_k=16)
    if encode:
        explorer.live.encode = encode
    if full_redraw:                      # как inline-бэкенд: каждый кадр рисуется целиком
        explorer.live.painter.layout_key = lambda view, counter=iter(range(10**9)): next(counter)
    timings = {"same": [], "layout": []}
    for name, value in slider_moves(T, heads):
        control = explorer.controls[name]
        if control.value == value:
            continue
        redraws = explorer.live.full_redraws
        started = time.perf_counter()
        control.value = value
        elapsed = (time.perf_counter() - started) * 1000
        timings["layout" if explorer.live.full_redraws > redraws and not full_redraw else "same"].append(elapsed)
    return timings


def row(label, values):
    if not values:
        return f"{label:<44} {'—':>8}"
    p50, p95 = np.percentile(values, [50, 95])
    return f"{label:<44} {len(values):>5} {p50:>8.1f} {p95:>8.1f}"


def main():
    print(f"ядер: {os.cpu_count()}, OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '—')}")
    print(f"{'способ и сдвиги':<44} {'шагов':>5} {'p50, мс':>8} {'p95, мс':>8}")
    for T, heads in ((16, 4), (32, 8)):
        print(f"--- T = {T}, голов = {heads} ---")
        blit = measure(T, heads)
        print(row("blitting + JPEG (по умолчанию): все сдвиги", blit["same"] + blit["layout"]))
        print(row("  без смены раскладки", blit["same"]))
        print(row("  со сменой раскладки (T, голов)", blit["layout"]))
        png = measure(T, heads, encode=encode_png)
        print(row("blitting + PNG: все сдвиги", png["same"] + png["layout"]))
        full = measure(T, heads, encode=encode_png, full_redraw=True)
        print(row("полная перерисовка + PNG (как inline)", full["same"]))


if __name__ == "__main__":
    main()

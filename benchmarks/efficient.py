"""Цена внимания в цифрах (урок 08): O(T²) по времени и памяти, KV-кэш, блочное внимание.

Запуск из корня репозитория:

    .venv/bin/python benchmarks/efficient.py            # всё, ≈ 1–3 минуты
    .venv/bin/python benchmarks/efficient.py --quick    # меньше повторов и длин

Печатает:
1. время и пиковую память обычного внимания (scaled_dot_product_attention) для T = 256…4096
   и наклон прямой на графике log–log: ≈ 2 значит «растёт как T²»; то же для блочного;
2. ускорение генерации с KV-кэшем против пересчёта всего префикса: 64…512 новых токенов;
3. пиковую дополнительную память блочного внимания против обычного при T = 4096;
4. скорость блочного внимания относительно обычного при T = 4096 для разных размеров блока.

Время — время процессора (time.process_time), лучшее из повторов: пока процессор отдан
соседним программам, эти часы стоят, и на занятой машине замер почти не портится. Поэтому
BLAS по умолчанию в один поток (иначе время сложится по потокам, вместе с их ожиданием);
задайте OPENBLAS_NUM_THREADS, чтобы взять больше. Память — пик выделений NumPy по tracemalloc
сверх того, что было выделено до вызова (входы q, k, v не считаются, выход — считается).
«Обычное внимание» меряется под `cl.fast()` (слитая операция, как в замерах урока 08), а рядом —
то же по книге (три шага урока 05: оценки, маска, softmax отдельными массивами).
"""

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")     # до импорта NumPy, иначе не подействует
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import course_lib as cl  # noqa: E402
from course_lib.efficient import block_attention  # noqa: E402
from course_lib.measure import peak_bytes, seconds, slope  # noqa: E402
from course_lib.props.generation import TinyDecoder, generate_with_cache, generate_without_cache  # noqa: E402

D_K = 64
MEMORY_T = 4096
BLOCKS = (32, 64, 128, 256, 512, 1024)


def timed(fn, repeats):
    """(лучшее время процессора из `repeats` вызовов fn(), результат последнего вызова)."""
    return seconds(fn, repeats, warmup=False), fn()


def best_seconds(fn, repeats):
    """Лучшее время из `repeats` вызовов fn() после одного прогрева."""
    return seconds(fn, repeats)


def qkv(T, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((T, D_K)) for _ in range(3))


def standard(q, k, v, causal=False, fast=True):
    """Обычное внимание: под cl.fast() (fast=True) или по книге."""
    with cl.fast(fast):
        return cl.scaled_dot_product_attention(q, k, v, cl.causal_mask(len(q)) if causal else None)[0]


# ---- 1. O(T²) ---------------------------------------------------------------------

def growth(lengths, repeats):
    print(f"1. Обычное и блочное (блок 128) внимание, одна голова, d_k = {D_K}, float64")
    print(f"  {'T':>6} {'обычное, мс':>12} {'по книге, мс':>13} {'блочное, мс':>12} {'память обычного':>16} "
          f"{'по книге':>11} {'блочного':>10} {'T×T float64':>12}")
    rows = []
    for T in lengths:
        q, k, v = qkv(T)
        reps = max(1, repeats * 1024 // T)                 # короткие длины — больше повторов
        t_std = best_seconds(lambda: standard(q, k, v), reps)
        t_plain = best_seconds(lambda: standard(q, k, v, fast=False), reps)
        m_plain = peak_bytes(lambda: standard(q, k, v, fast=False))
        t_blk = best_seconds(lambda: block_attention(q, k, v, block_size=128), reps)
        m_std, m_blk = peak_bytes(lambda: standard(q, k, v)), peak_bytes(lambda: block_attention(q, k, v, block_size=128))
        rows.append((T, t_std, t_blk, m_std, m_blk))
        print(f"  {T:>6} {t_std * 1e3:>12.1f} {t_plain * 1e3:>13.1f} {t_blk * 1e3:>12.1f} {m_std / 2**20:>13.1f} МБ "
              f"{m_plain / 2**20:>8.1f} МБ {m_blk / 2**20:>7.1f} МБ {T * T * 8 / 2**20:>9.1f} МБ")
    Ts, t_std, t_blk, m_std, m_blk = (np.array(c, dtype=float) for c in zip(*rows))
    big = Ts >= 512                                        # на коротких длинах заметны слагаемые ∝ T и накладные расходы
    print(f"  наклон времени обычного внимания (T ≥ 512): {slope(Ts[big], t_std[big]):.2f}   (все T: {slope(Ts, t_std):.2f})")
    print(f"  наклон времени блочного внимания (T ≥ 512): {slope(Ts[big], t_blk[big]):.2f} — работы столько же, O(T²)")
    print(f"  наклон памяти обычного внимания (T ≥ 512): {slope(Ts[big], m_std[big]):.2f}   (все T: {slope(Ts, m_std):.2f})")
    print(f"  наклон памяти блочного внимания (T ≥ 512): {slope(Ts[big], m_blk[big]):.2f} — растёт как T × блок")


# ---- 2. KV-кэш ---------------------------------------------------------------------

def kv_cache(lengths):
    cl.manual_seed(0)
    model = TinyDecoder(vocab_size=50, d_model=32, num_heads=2, max_len=max(lengths) + 1)
    prompt = np.array([[1]])
    attn = model.attention
    print(f"\n2. Жадная генерация TinyDecoder (d_model={attn.d_model}, h={attn.num_heads}, один слой), промпт — 1 токен")
    print(f"  {'токенов':>8} {'без кэша, с':>12} {'с кэшем, с':>11} {'ускорение':>10}")
    for steps in lengths:
        repeats = 3 if steps <= 256 else 1                 # без кэша 512 токенов — десятки секунд
        with cl.fast():                                    # как в уроке 08
            t_full, (ids_full, _) = timed(lambda: generate_without_cache(model, prompt, steps), repeats)
            t_cached, (ids_cached, _) = timed(lambda: generate_with_cache(model, prompt, steps), repeats)
        assert np.array_equal(ids_full, ids_cached), "с кэшем и без кэша вышли разные токены"
        print(f"  {steps:>8} {t_full:>12.2f} {t_cached:>11.2f} {t_full / t_cached:>9.1f}×")
    print("  на всех длинах токены с кэшем и без кэша совпали")


# ---- 3. память при T = 4096 ----------------------------------------------------------

def memory():
    q, k, v = qkv(MEMORY_T)
    print(f"\n3. Пиковая дополнительная память при T = {MEMORY_T} (одна матрица T×T float64 = {MEMORY_T**2 * 8 / 2**20:.0f} МБ)")
    for causal in (False, True):
        m_std = peak_bytes(lambda: standard(q, k, v, causal))
        m_plain = peak_bytes(lambda: standard(q, k, v, causal, fast=False))
        print(f"  {'причинная маска' if causal else 'без маски'}: обычное внимание {m_std / 2**20:.1f} МБ "
              f"(по книге {m_plain / 2**20:.1f} МБ)")
        for block_size in (64, 128, 256, 512):
            m_blk = peak_bytes(lambda: block_attention(q, k, v, causal=causal, block_size=block_size))
            print(f"    блок {block_size:>4}: {m_blk / 2**20:6.1f} МБ — в {m_std / m_blk:5.1f} раз меньше")


# ---- 4. скорость блочного внимания -------------------------------------------------------

def throughput(repeats):
    q, k, v = qkv(MEMORY_T)
    t_std = best_seconds(lambda: standard(q, k, v), repeats)
    t_plain = best_seconds(lambda: standard(q, k, v, fast=False), repeats)
    print(f"\n4. Скорость блочного внимания относительно обычного, T = {MEMORY_T} "
          f"(обычное: {t_std * 1e3:.0f} мс, по книге {t_plain * 1e3:.0f} мс)")
    print(f"  {'блок':>6} {'мс':>8} {'скорость':>10} {'медленнее в':>12}")
    for block_size in BLOCKS:
        t_blk = best_seconds(lambda: block_attention(q, k, v, block_size=block_size), repeats)
        verdict = "" if block_size < 128 else ("  ✅ в пределах 3×" if t_blk / t_std <= 3 else "  ❌ больше 3×")
        print(f"  {block_size:>6} {t_blk * 1e3:>8.0f} {t_std / t_blk:>9.2f}× {t_blk / t_std:>11.2f}×{verdict}")
    print("  скорость = время обычного / время блочного: 1.00× — так же быстро, 0.50× — вдвое медленнее")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="меньше длин и повторов")
    args = parser.parse_args()
    threads = {var: os.environ[var] for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    print(__doc__.splitlines()[0])
    print(f"NumPy {np.__version__}; ядер: {os.cpu_count()}; {threads}\n")
    if args.quick:
        growth((256, 512, 1024, 2048), repeats=2)
        kv_cache((64, 128, 256))
    else:
        growth((256, 512, 1024, 2048, 4096), repeats=4)
        kv_cache((64, 128, 256, 512))
    memory()
    throughput(repeats=2 if args.quick else 3)


if __name__ == "__main__":
    main()

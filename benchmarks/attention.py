"""Замер скорости MultiHeadAttention из course_lib против torch.nn.MultiheadAttention: прямой и прямой + обратный.

Запуск из корня репозитория (PyTorch не зависимость курса: поставьте его в отдельное окружение
и запустите этим окружением, указав путь к курсу):

    .venv/bin/python benchmarks/attention.py                     # без PyTorch: только course_lib и профиль
    python3 -m venv /tmp/torch-env && /tmp/torch-env/bin/pip install torch numpy threadpoolctl
    PYTHONPATH=. /tmp/torch-env/bin/python benchmarks/attention.py

Размеры: N=8 последовательностей по T=256 токенов, d_model=256, h=8 голов, causal=True;
типы float32 и float64; столько потоков, сколько у BLAS NumPy (на 2 ядрах — 2).
Соперники меряются по очереди в каждом повторе (course_lib, torch need_weights=True,
torch need_weights=False, снова course_lib, …): если соседние процессы заняли процессор,
это бьёт по всем сразу, и отношение времён остаётся честнее, чем при замерах подряд.
Замеру каждого предшествует один вызов того же соперника без замера (см. measure_interleaved).
course_lib меряется дважды: под `with cl.fast():` (слитое внимание, строка «course_lib») и по книге
(три шага урока 05, строка «course_lib по книге», отдельным кругом против torch need_weights=False);
цели — для быстрого пути.
Печатаются медиана и лучший повтор, отношения к обоим вызовам torch и цели:
к need_weights=False (так зовёт внимание пользователь PyTorch — слитый путь; прямой проход у обоих
под no_grad): float32 — прямой ≤ 1.5×, прямой + обратный ≤ 1.3×; float64 — прямой ≤ 2×, прямой + обратный ≤ 1.5×.
В конце — профиль float32: куда уходит время прямого и обратного прохода course_lib.

FLOP считаются «по учебнику», без скидки на маску: 4 проекции по 2·N·T·D² и два умножения
внутри внимания (Q Kᵀ и веса·V) по 2·N·h·T²·d_head; обратный ≈ 2× прямого.
"""

import argparse
import os
import statistics
import time

import numpy as np

import course_lib as cl
from course_lib.engine_room.attention import fused_attention
from course_lib.engine_room.pool import each_piece

N, T, D_MODEL, HEADS = 8, 256, 256, 8
D_HEAD = D_MODEL // HEADS
WARMUP = 3
# цели к torch need_weights=False (слитый путь PyTorch), по медианам: {тип: {проход: во сколько раз медленнее}}
TARGETS = {"float32": {"прямой": 1.5, "прямой + обратный": 1.3}, "float64": {"прямой": 2.0, "прямой + обратный": 1.5}}
FLOPS_FORWARD = 4 * 2 * N * T * D_MODEL * D_MODEL + 2 * 2 * N * HEADS * T * T * D_HEAD
FLOPS = {"прямой": FLOPS_FORWARD, "прямой + обратный": 3 * FLOPS_FORWARD}


def measure_interleaved(steps, repeats, cpu=None):
    """{имя: [секунды по часам]} — по `repeats` замеров каждого шага, шаги по очереди в каждом повторе.

    Перед каждым замером шаг один раз вызывается без замера: потоки предыдущего соперника
    ещё крутятся в активном ожидании (OpenMP в torch — миллисекунды после вызова) и отняли бы
    ядро у следующего. Так каждый меряется после своего же вызова — как в цикле обучения.
    cpu — словарь: если дан, в cpu[имя] — процессорное время тех же замеров (все потоки процесса).
    """
    for step in steps.values():
        for _ in range(WARMUP):
            step()
    times = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            step()                                   # без замера: ядра свободны от чужих потоков
            start, start_cpu = time.perf_counter(), time.process_time()
            step()
            times[name].append(time.perf_counter() - start)
            if cpu is not None:
                cpu.setdefault(name, []).append(time.process_time() - start_cpu)
    return times


def ms(times):
    """(медиана, лучший) в миллисекундах."""
    return statistics.median(times) * 1e3, min(times) * 1e3


# ---- окружение ----------------------------------------------------------------------

def cpu_count():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def numpy_threads():
    """Сколько потоков возьмёт BLAS NumPy: переменная окружения, иначе — по потоку на ядро."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return cpu_count()


def optional_torch(threads):
    """Модуль torch с `threads` потоками или None, если PyTorch не установлен (он не зависимость курса)."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads)
    return torch


def print_setup(torch):
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]   # NumPy ≥ 1.25
        blas = f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:   # старый NumPy или другая сборка — не страшно
        blas = "неизвестно (см. numpy.show_config())"
    print(f"NumPy {np.__version__}, BLAS: {blas}; ядер: {cpu_count()}, потоков BLAS: {numpy_threads()}"
          + (f"; torch {torch.__version__}, потоков: {torch.get_num_threads()}" if torch else "; PyTorch не установлен"))
    try:
        print(f"нагрузка машины (load average за 1, 5, 15 мин): {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    except OSError:
        pass


# ---- соперники ----------------------------------------------------------------------

def course_lib_steps(dtype, x_data, upstream, fast=True):
    """Слой и два шага (прямой, прямой + обратный); fast — под `with cl.fast():` или по книге."""
    cl.manual_seed(0)
    mha = cl.MultiHeadAttention(D_MODEL, HEADS, causal=True).to(dtype)
    x = cl.tensor(x_data, requires_grad=True)
    out = mha(x)                                     # проверка до замеров: тип не «расползается»
    out.backward(upstream)
    assert out.dtype == dtype and x.grad.dtype == dtype
    assert all(p.grad.dtype == dtype for p in mha.parameters())

    def forward():
        with cl.no_grad(), cl.fast(fast):
            mha(x)

    def forward_backward():
        mha.zero_grad()
        x.grad = None
        with cl.fast(fast):
            mha(x).backward(upstream)

    return mha, {"прямой": forward, "прямой + обратный": forward_backward}


def torch_steps(torch, mha, x_data, upstream, need_weights):
    """torch.nn.MultiheadAttention с весами из course_lib; возвращает (расхождение выходов, шаги)."""
    tmha = torch.nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True, dtype=getattr(torch, x_data.dtype.name))
    with torch.no_grad():                            # W в course_lib (d_in, d_out), в torch — (d_out, d_in)
        tmha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([m.weight.data.T for m in (mha.W_q, mha.W_k, mha.W_v)])))
        tmha.in_proj_bias.copy_(torch.from_numpy(np.concatenate([m.bias.data for m in (mha.W_q, mha.W_k, mha.W_v)])))
        tmha.out_proj.weight.copy_(torch.from_numpy(mha.W_o.weight.data.T))
        tmha.out_proj.bias.copy_(torch.from_numpy(mha.W_o.bias.data))
    tx = torch.from_numpy(x_data.copy()).requires_grad_(True)
    tg = torch.from_numpy(upstream)
    blocked = torch.ones(T, T, dtype=torch.bool).triu(1)   # в torch True = «смотреть нельзя»

    def call():
        return tmha(tx, tx, tx, attn_mask=blocked, is_causal=True, need_weights=need_weights)[0]

    with torch.no_grad(), cl.no_grad():
        gap = float(np.abs(call().numpy() - mha(x_data).data).max())

    def forward():
        with torch.no_grad():
            call()

    def forward_backward():
        tmha.zero_grad()
        tx.grad = None
        call().backward(tg)

    return gap, {"прямой": forward, "прямой + обратный": forward_backward}


# ---- профиль ------------------------------------------------------------------------

def profile(repeats):
    """Куда уходит время course_lib под cl.fast() (float32): проекции, слитое внимание, обратный проход по частям."""
    dtype = np.float32
    rng = np.random.default_rng(1)
    x = cl.tensor(rng.standard_normal((N, T, D_MODEL)).astype(dtype), requires_grad=True)
    heads = [cl.tensor(rng.standard_normal((N, HEADS, T, D_HEAD)).astype(dtype), requires_grad=True) for _ in range(3)]
    g_heads = rng.standard_normal((N, HEADS, T, D_HEAD)).astype(dtype)
    g_out = rng.standard_normal((N, T, D_MODEL)).astype(dtype)
    mha, whole = course_lib_steps(dtype, x.data, g_out)     # тот же слой и те же шаги, что в сравнении с torch
    mask, scale = cl.causal_mask(T), 1 / np.sqrt(D_HEAD)
    as_heads = lambda t: t.reshape(N, T, HEADS, D_HEAD).transpose(0, 2, 1, 3)   # noqa: E731  (N, T, D) -> (N, h, T, d_head)

    def projections():
        with cl.no_grad(), cl.fast():
            for layer in (mha.W_q, mha.W_k, mha.W_v, mha.W_o):
                layer(x)

    def heads_split_merge():
        with cl.no_grad():
            for _ in range(3):                      # q, k, v
                np.ascontiguousarray(as_heads(x).data)
            np.ascontiguousarray(heads[0].transpose(0, 2, 1, 3).reshape(N, T, D_MODEL).data)

    def fused_forward():
        with cl.no_grad():
            fused_attention(*heads, mask, scale)

    def fused_forward_backward():
        for t in heads:
            t.grad = None
        fused_attention(*heads, mask, scale)[0].backward(g_heads)

    def projections_forward_backward():
        mha.zero_grad()
        x.grad = None
        with cl.fast():
            for layer in (mha.W_q, mha.W_k, mha.W_v, mha.W_o):
                layer(x).backward(g_out)

    flat = [np.ascontiguousarray(t.data).reshape(N * HEADS, T, D_HEAD) for t in heads]

    def matmuls_only():                             # как внутри слитой операции: кусками на все ядра, BLAS в один поток
        q, k, v = flat
        halves = [slice(0, N * HEADS // 2), slice(N * HEADS // 2, N * HEADS)]
        each_piece(lambda s: (q[s] @ k[s].swapaxes(-1, -2)) @ v[s], halves)

    steps = {
        "весь прямой проход MultiHeadAttention": whole["прямой"],
        "  4 проекции W_q, W_k, W_v, W_o": projections,
        "  нарезка на головы и склейка (копии)": heads_split_merge,
        "  слитое внимание (оценки, маска, softmax, @ v)": fused_forward,
        "    одни умножения Q Kᵀ и веса @ V, все клетки, без softmax": matmuls_only,
        "весь прямой + обратный": whole["прямой + обратный"],
        "  4 проекции, прямой + обратный": projections_forward_backward,
        "  слитое внимание, прямой + обратный": fused_forward_backward,
    }
    times = measure_interleaved(steps, repeats)
    print(f"\nПрофиль course_lib под cl.fast(), float32 (медиана, в скобках лучший из {repeats}):")
    for name, t in times.items():
        median, best = ms(t)
        print(f"  {name:<62} {median:7.1f} мс ({best:.1f})")


# ---- печать -------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description="Скорость MultiHeadAttention из course_lib против PyTorch.")
    parser.add_argument("--repeats", type=int, default=20, help="замеров на случай, не меньше 15 (по умолчанию 20)")
    args = parser.parse_args()
    torch = optional_torch(numpy_threads())

    print(__doc__.strip().splitlines()[0])
    print(f"N={N}, T={T}, d_model={D_MODEL}, h={HEADS} (d_head={D_HEAD}), causal=True; прогрев {WARMUP}, "
          f"замеров {args.repeats}; FLOP прямого прохода {FLOPS_FORWARD / 1e9:.2f} GFLOP")
    print_setup(torch)

    table, ratios = [], []
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        rng = np.random.default_rng(1)
        x_data = rng.standard_normal((N, T, D_MODEL)).astype(dtype)
        upstream = rng.standard_normal((N, T, D_MODEL)).astype(dtype)                # dL/d(out)
        mha, ours = course_lib_steps(dtype, x_data, upstream)
        rivals = {"course_lib": ours}
        if torch is not None:
            for need_weights in (True, False):
                gap, steps = torch_steps(torch, mha, x_data, upstream, need_weights)
                print(f"{name}: torch need_weights={need_weights} совпадает с course_lib до {gap:.1e}")
                rivals[f"torch need_weights={need_weights}"] = steps
        # Книга меряется отдельным кругом, только против слитого пути torch: её умножения идут в потоках
        # OpenBLAS, а они ещё ~0.1 с крутятся после вызова и отняли бы ядра у соседей по кругу.
        book = {"course_lib по книге": course_lib_steps(dtype, x_data, upstream, fast=False)[1]}
        book.update({who: steps for who, steps in rivals.items() if who.endswith("False")})
        for label in FLOPS:
            for group in (rivals, book):
                times = measure_interleaved({who: steps[label] for who, steps in group.items()}, args.repeats)
                ours_name = next(iter(times))
                for who, t in times.items():
                    if group is rivals or who == ours_name:
                        table.append((who, name, label, *ms(t), FLOPS[label] / statistics.median(t) / 1e9))
                for who in (w for w in times if w.startswith("torch")):
                    ratios.append((name, who if ours_name == "course_lib" else f"{ours_name} к {who}", label,
                                   ms(times[ours_name])[0] / ms(times[who])[0], ms(times[ours_name])[1] / ms(times[who])[1]))

    print(f"\n  {'кто':<28} {'тип':<8} {'проход':<18} {'мс, медиана':>11} {'(лучший)':>9} {'GFLOP/s':>8}")
    for who, name, label, median, best, gflops in table:
        print(f"  {who:<28} {name:<8} {label:<18} {median:>11.1f} {f'({best:.1f})':>9} {gflops:>8.1f}")

    if torch is not None:
        print("\nВо сколько раз course_lib медленнее PyTorch (по медианам; в скобках — по лучшим повторам)")
        print("  цели к need_weights=False: " + "; ".join(
            f"{name} прямой ≤ {t['прямой']}×, прямой + обратный ≤ {t['прямой + обратный']}×" for name, t in TARGETS.items()))
        for name, who, label, by_median, by_best in ratios:
            verdict = ""
            if who.endswith("False") and not who.startswith("course_lib по книге"):
                target = TARGETS[name][label]
                verdict = "цель выполнена" if by_median <= target else f"цель {target}× НЕ выполнена"
            print(f"  {name:<8} {who:<40} {label:<18} {by_median:6.2f}× ({by_best:.2f}×)  {verdict}")
    profile(args.repeats)


if __name__ == "__main__":
    main()

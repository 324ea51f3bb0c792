"""Замер скорости MultiHeadAttention из course_lib: прямой проход и прямой + обратный.

Запуск из корня репозитория:

    .venv/bin/python benchmarks/attention.py
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/attention.py   # всё в один поток

Размеры: N=8 последовательностей по T=256 токенов, d_model=256, h=8 голов, causal=True;
типы float32 и float64. Для каждого случая печатается время (медиана по повторам после
прогрева, в скобках — лучший повтор) и скорость в GFLOP/s.

FLOP считаются «по учебнику», без скидки на маску: 4 проекции по 2·N·T·D² и два умножения
внутри внимания (Q Kᵀ и веса·V) по 2·N·h·T²·d_head; обратный проход ≈ 2× прямого,
так что прямой + обратный ≈ 3× прямого. Поэлементные операции (softmax, маска) не считаются.

Если установлен PyTorch, то же самое меряется для torch.nn.MultiheadAttention (batch_first=True,
та же причинная маска, столько же потоков, сколько у NumPy) и печатается, во сколько раз
course_lib медленнее. PyTorch не зависимость курса: без него сравнение просто пропускается.
"""

import argparse
import os
import statistics
import time

import numpy as np

import course_lib as cl

N, T, D_MODEL, HEADS = 8, 256, 256, 8
D_HEAD = D_MODEL // HEADS
WARMUP = 3
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

# ---- сколько работы ---------------------------------------------------------------

FLOPS_FORWARD = (4 * 2 * N * T * D_MODEL * D_MODEL          # W_q, W_k, W_v, W_o
                 + 2 * 2 * N * HEADS * T * T * D_HEAD)       # Q Kᵀ и веса @ V
FLOPS_FORWARD_BACKWARD = 3 * FLOPS_FORWARD                    # обратный ≈ 2× прямого


def measure(step, repeats):
    """Секунды на каждый из `repeats` вызовов `step()` после WARMUP вызовов прогрева."""
    for _ in range(WARMUP):
        step()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def summary(times, flops):
    """(медиана в мс, лучший в мс, GFLOP/s по медиане)."""
    median = statistics.median(times)
    return median * 1e3, min(times) * 1e3, flops / median / 1e9


# ---- потоки -----------------------------------------------------------------------

def cpu_count():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def numpy_threads():
    """Сколько потоков возьмёт BLAS NumPy: переменная окружения, иначе — по потоку на ядро."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    return cpu_count()


def blas_name():
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]   # NumPy ≥ 1.25
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:   # старый NumPy или другая сборка — не страшно
        return "неизвестно (см. numpy.show_config())"


def print_thread_setup():
    print("Окружение")
    print(f"  NumPy {np.__version__}, BLAS: {blas_name()}")
    print(f"  ядер доступно: {cpu_count()}; потоков BLAS (по переменным окружения или по числу ядер): {numpy_threads()}")
    for var in THREAD_VARS:
        print(f"  {var} = {os.environ.get(var, '(не задана)')}")
    print("  поэлементные операции NumPy (exp, where, sum, …) идут в одном потоке")


# ---- course_lib ---------------------------------------------------------------------

def course_lib_case(dtype, upstream, repeats):
    """Времена course_lib для одного типа: (модуль, вход, прямой, прямой + обратный)."""
    cl.manual_seed(0)
    mha = cl.MultiHeadAttention(D_MODEL, HEADS, causal=True).to(dtype)
    x = cl.tensor(np.random.default_rng(1).standard_normal((N, T, D_MODEL)).astype(dtype), requires_grad=True)

    out = mha(x)                                     # проверка до замеров: тип не «расползается»
    out.backward(upstream)
    assert out.dtype == dtype, f"на входе {np.dtype(dtype).name}, а на выходе {out.dtype}"
    for name, p in mha.named_parameters():
        assert p.grad.dtype == dtype, f"градиент {name} в {p.grad.dtype}, а параметры в {np.dtype(dtype).name}"
    assert x.grad.dtype == dtype, f"градиент входа в {x.grad.dtype}"

    def forward():
        with cl.no_grad():
            mha(x)

    def forward_backward():
        mha.zero_grad()
        x.grad = None
        mha(x).backward(upstream)

    return mha, x, measure(forward, repeats), measure(forward_backward, repeats)


# ---- PyTorch (необязательно) ----------------------------------------------------------

def torch_case(torch, mha, x, upstream, threads, repeats):
    """То же на torch.nn.MultiheadAttention с весами из course_lib.

    Два варианта вызова: need_weights=True (как course_lib — веса внимания считаются явно)
    и need_weights=False (так зовут nn.TransformerEncoderLayer: PyTorch берёт слитное
    scaled_dot_product_attention и может пропускать замаскированную половину).
    """
    torch.set_num_threads(threads)
    dtype = getattr(torch, x.dtype.name)
    tmha = torch.nn.MultiheadAttention(D_MODEL, HEADS, bias=True, batch_first=True, dtype=dtype)
    with torch.no_grad():                            # W в course_lib (d_in, d_out), в torch — (d_out, d_in)
        tmha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([mha.W_q.weight.data.T, mha.W_k.weight.data.T,
                                                                   mha.W_v.weight.data.T])))
        tmha.in_proj_bias.copy_(torch.from_numpy(np.concatenate([mha.W_q.bias.data, mha.W_k.bias.data,
                                                                 mha.W_v.bias.data])))
        tmha.out_proj.weight.copy_(torch.from_numpy(mha.W_o.weight.data.T))
        tmha.out_proj.bias.copy_(torch.from_numpy(mha.W_o.bias.data))
    tx = torch.from_numpy(x.data.copy()).requires_grad_(True)
    tg = torch.from_numpy(upstream)
    blocked = torch.ones(T, T, dtype=torch.bool).triu(1)   # в torch True = «смотреть нельзя»

    with cl.no_grad():
        expected = mha(x).data
    results = {}
    for need_weights in (True, False):
        def call():
            return tmha(tx, tx, tx, attn_mask=blocked, is_causal=True, need_weights=need_weights)[0]

        with torch.no_grad():
            gap = float(np.abs(call().numpy() - expected).max())

        def forward():
            with torch.no_grad():
                call()

        def forward_backward():
            tmha.zero_grad()
            tx.grad = None
            call().backward(tg)

        results[need_weights] = (gap, measure(forward, repeats), measure(forward_backward, repeats))
    return results


# ---- печать -----------------------------------------------------------------------

def print_table(rows):
    head = f"  {'библиотека':<36} {'тип':<8} {'проход':<17} {'мс, медиана':>11} {'(лучший)':>9} {'GFLOP/s':>8}"
    print(head)
    print("  " + "-" * (len(head) - 2))
    for lib, dtype, times_fwd, times_fb in rows:
        for label, times, flops in (("прямой", times_fwd, FLOPS_FORWARD),
                                    ("прямой + обратный", times_fb, FLOPS_FORWARD_BACKWARD)):
            ms, best, gflops = summary(times, flops)
            print(f"  {lib:<36} {dtype:<8} {label:<17} {ms:>11.1f} {f'({best:.1f})':>9} {gflops:>8.1f}")


def main():
    parser = argparse.ArgumentParser(description="Скорость MultiHeadAttention из course_lib (и PyTorch, если есть).")
    parser.add_argument("--repeats", type=int, default=20, help="сколько замеров на случай (по умолчанию 20)")
    args = parser.parse_args()

    print(__doc__.strip().splitlines()[0])
    print(f"N={N}, T={T}, d_model={D_MODEL}, h={HEADS} (d_head={D_HEAD}), causal=True; "
          f"прогрев {WARMUP}, замеров {args.repeats}")
    print(f"FLOP: прямой {FLOPS_FORWARD / 1e9:.2f} GFLOP, прямой + обратный {FLOPS_FORWARD_BACKWARD / 1e9:.2f} GFLOP\n")
    print_thread_setup()

    try:
        import torch
    except ImportError:
        torch = None

    rows, ratios = [], []
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        upstream = np.random.default_rng(2).standard_normal((N, T, D_MODEL)).astype(dtype)  # dL/d(out)
        mha, x, times_fwd, times_fb = course_lib_case(dtype, upstream, args.repeats)
        print(f"\n{name}: проверено — на входе {name}, на выходе и в градиентах тоже {name}")
        rows.append(("course_lib", name, times_fwd, times_fb))
        if torch is None:
            continue
        threads = numpy_threads()
        for need_weights, (gap, t_fwd, t_fb) in torch_case(torch, mha, x, upstream, threads, args.repeats).items():
            print(f"{name}: torch need_weights={need_weights} совпадает с course_lib до {gap:.1e}")
            rows.append((f"torch {torch.__version__} need_weights={need_weights}", name, t_fwd, t_fb))
            ratios.append((name, need_weights,
                           statistics.median(times_fwd) / statistics.median(t_fwd),
                           statistics.median(times_fb) / statistics.median(t_fb),
                           min(times_fwd) / min(t_fwd), min(times_fb) / min(t_fb)))

    print("\nРезультаты")
    print_table(rows)

    if torch is None:
        print("\nPyTorch не установлен — сравнение с torch.nn.MultiheadAttention пропущено.")
        return
    print(f"\nВо сколько раз course_lib медленнее PyTorch (потоков у torch: {torch.get_num_threads()}; "
          "в скобках — по лучшим повторам, они меньше зависят от соседних процессов)")
    print(f"  {'тип':<8} {'вызов torch':<20} {'прямой':>16} {'прямой + обратный':>18}")
    for name, need_weights, ratio_fwd, ratio_fb, best_fwd, best_fb in ratios:
        print(f"  {name:<8} {f'need_weights={need_weights}':<20} {ratio_fwd:>6.2f}× ({best_fwd:.2f}×) "
              f"{ratio_fb:>9.2f}× ({best_fb:.2f}×)")
    print("  цель: прямой не медленнее 2×, прямой + обратный не медленнее 3×")


if __name__ == "__main__":
    main()

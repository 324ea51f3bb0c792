"""Сколько времени строятся статические эмбеддинги урока 01: по шагам и целиком.

Запуск из корня репозитория:

    .venv/bin/python benchmarks/embeddings.py

Для каждого корпуса печатается размер (предложения, слова, V) и время каждого шага —
медиана по повторам, в скобках лучший повтор: словарь, счётчики соседства, PPMI, SVD и
`train_static_embeddings` целиком. Урок обещает «за секунды» — здесь это видно в цифрах.
"""

import statistics
import time

from course_lib.props.embeddings import (STOP_WORDS, build_vocab, cooccurrence, load_corpus, ppmi, svd_embeddings,
                                   train_static_embeddings)

REPEATS = 5


def timed(fn):
    """(медиана, лучший) секунд по REPEATS повторам и результат последнего."""
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), min(times), result


def main():
    for name in ["ru", "mole_en"]:
        corpus = load_corpus(name)
        content = [[w for w in s if w not in STOP_WORDS] for s in corpus]
        steps = {}
        steps["словарь"] = timed(lambda: build_vocab(content, min_count=2))
        vocab = steps["словарь"][2]
        steps["соседи (окно 3)"] = timed(lambda: cooccurrence(content, vocab, window=3))
        counts = steps["соседи (окно 3)"][2]
        steps["PPMI"] = timed(lambda: ppmi(counts))
        steps["SVD до dim=16"] = timed(lambda: svd_embeddings(steps["PPMI"][2], 16))
        steps["всё вместе"] = timed(lambda: train_static_embeddings(corpus))
        print(f"корпус «{name}»: предложений {len(corpus)}, слов {sum(map(len, corpus))}, V = {len(vocab)}")
        for step, (median, best, _) in steps.items():
            print(f"  {step:<16} {median * 1000:8.1f} мс  (лучший {best * 1000:.1f} мс)")


if __name__ == "__main__":
    main()

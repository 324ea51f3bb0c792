"""Чекпойнт урока 10: тот же GPT, что учит урок, но дольше -> course_lib/props/data/gpt_lessons_ru.npz.

Урок учит модель около минуты; здесь — та же модель, те же батчи и то же зерно, только шагов
больше, lr к концу убывает, и веса сохраняются (save_gpt: массивы и словарь, без pickle). Цель — loss на проверке
не выше 1.8 ната на символ. Результат тот же при каждом запуске на той же машине.

    .venv/bin/python tools/train_gpt_checkpoint.py                 # учить и сохранить
    .venv/bin/python tools/train_gpt_checkpoint.py --steps 200 --out /tmp/gpt.npz   # короткая проба

Около минуты процессора (--steps 6000 — несколько минут): запускайте на свободной машине. Корпус — снимок уроков 00–09
(data/lessons_ru.txt): пересобрали корпус — переучите и чекпойнт.
"""

import argparse
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course_lib.props.gpt_checkpoint import lesson_checkpoint_path, load_gpt, save_gpt  # noqa: E402
from course_lib.props.gpt_training import train_gpt  # noqa: E402
from course_lib.props.text_file import lessons_text  # noqa: E402

STEPS = 2400          # Рецепт train_gpt (разгон, lr 8e-3 -> 3e-4 косинусом, betas (0.9, 0.99)), 2 блока:
                      # 1.798 после 2400 шагов на корпусе 3 декабря 2026 (1.2 мин процессора). Дольше не лучше:
                      # --steps 6000 — около 1.84 к шагу 4000 и 1.88 к 6000-му (модель заучивает текст).
LR_FINAL = 3e-4       # lr к последнему шагу (косинусом от lr train_gpt)
TARGET = 1.8          # наты на символ на проверочной части


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr-final", type=float, default=LR_FINAL)
    parser.add_argument("--out", type=pathlib.Path, default=lesson_checkpoint_path())
    args = parser.parse_args(argv)
    start = time.process_time()
    run = train_gpt(lessons_text(), args.steps, seed=args.seed, lr_final=args.lr_final,
                    eval_every=max(args.steps // 20, 1))
    cpu = time.process_time() - start
    save_gpt(args.out, run.model, run.tokenizer)
    load_gpt(args.out, tokenizer=run.tokenizer)                # файл читается тем же путём, что в уроке
    for step, loss in zip(run.val_steps, run.val_losses):
        print(f"шаг {step:>6}: loss на проверке {loss:.3f}")
    size = args.out.stat().st_size / 2**20
    verdict = "цель достигнута" if run.val_losses[-1] <= TARGET else f"цель {TARGET} не достигнута: больше шагов?"
    print(f"записано {args.out} ({size:.1f} МБ); {args.steps} шагов за {cpu / 60:.1f} мин процессора; {verdict}")
    return 0 if run.val_losses[-1] <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())

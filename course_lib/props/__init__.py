"""Реквизит уроков: игрушечные данные, модели, обучение и отчёты. Его можно смело менять.

Стоит на движке (`autograd`) и слоях (`nn`), сам ни на что из показа (vis, widgets, exercises) не опирается.

- `embeddings.py` — векторы слов из корпуса `data/` (урок 01);
- `tasks.py`, `models.py`, `training.py`, `evaluation.py` — задачи, модели, обучение и отчёты урока 07;
- `generation.py` — маленький декодер и генерация с KV-кэшем (урок 08);
- `induction.py`, `induction_training.py` — индукционная голова (урок 09);
- `text_file.py`, `tokenizer.py`, `gpt_settings.py`, `gpt_training.py`, `progress.py`, `gpt_checkpoint.py` — GPT учит
  русский на прозе уроков (урок 10; корпус data/lessons_ru.txt собирает tools/build_corpus.py);
- `gpt_reading.py` — точки отсчёта loss, свойства образцов текста, оценки голов GPT и их абляция (урок 10);
- `run_memory.py` — память прогонов: `train_induction` и `train_gpt` с теми же аргументами не учат второй раз.
"""

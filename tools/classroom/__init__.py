"""Курс для класса: JupyterHub на одном сервере, вердикты учеников в одной таблице, ответы отдельно.

Что где (подробно — TEACHERS.md):
- limits.py — пределы одного ученика (потоки BLAS и машинного отделения, память, простой ядер);
  их берут и хаб (class/jupyterhub_config.py), и benchmarks/class.py;
- lesson_cells.py — упражнения урока в тетрадке: задание, ячейка ученика, решение (метка `solution`);
  по ним answers.py пишет ответы учителя (make answers), а nbgrader_course.py — курс nbgrader (make nbgrader).
"""

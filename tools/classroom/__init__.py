"""Курс для класса: JupyterHub на одном сервере, вердикты учеников в одной таблице, ответы отдельно.

Что где (подробно — TEACHERS.md):
- limits.py — пределы одного ученика (потоки BLAS и машинного отделения, память, простой ядер);
  их берут и хаб (class/jupyterhub_config.py), и benchmarks/class.py;
- exercise_cells.py — упражнения урока в тетрадке: задание, ячейка ученика, решение (метка `solution`);
  по ним answers.py пишет ответы учителя (make answers), а nbgrader_course.py — курс nbgrader (make nbgrader).
- hub.py — make class / class-stop / class-status: записи, work/ учеников, запуск и остановка хаба;
  accounts.py — список class/learners.txt (проверка) и записи системы; memory_cgroup.py — предел памяти
  сервера ученика (cgroup); processes.py — процессы класса (какие живы, как остановить);
- results.py — make results: вердикты учеников в results/class.csv и class.html (collect.py читает work/ одного
  ученика как чужие данные, results_page.py рисует таблицу);
- guide.py — части TEACHERS.md, которые не должны расходиться с кодом (упражнения, план уроков); числа со словами
  по-русски — course_lib/russian.py, один на библиотеку и инструменты.
"""

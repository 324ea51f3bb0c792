"""Курс для класса: JupyterHub на одном сервере, вердикты учеников в одной таблице, ответы отдельно.

Что где (подробно — TEACHERS.md):
- limits.py — пределы одного ученика (потоки BLAS и машинного отделения, память, простой ядер);
  их берут и хаб (class/jupyterhub_config.py), и benchmarks/class.py.
- hub.py — make class / class-stop / class-status: записи, work/ учеников, запуск и остановка хаба;
  accounts.py — список class/learners.txt (проверка) и записи системы; memory_cgroup.py — предел памяти
  сервера ученика (cgroup); processes.py — процессы класса (какие живы, как остановить).
"""

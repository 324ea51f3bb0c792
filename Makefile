# Две команды курса: `make lab` — открыть уроки, `make test` — прогнать все проверки.
# Обеим хватает python3 (3.10+) и make: окружение .venv создаётся и обновляется само.
#
# Каждая цель — вызов course.py (python3 course.py lab …): установка, отметки и команды живут там, и
# на Windows без make то же самое делает `python course.py lab` / `python course.py test`.
# Переменные make (LESSON=03, UI=notebook, LAB_ARGS=…) course.py получает как есть: ИМЯ='значение';
# не заданные — не передаются, и значение по умолчанию берёт course.py (python3 course.py test --help).
#
# Что ставится в .venv (оба списка — в pyproject.toml):
#   make lab, make setup        — то, что нужно ученику: [project] dependencies и extra `lab` (NumPy, matplotlib,
#                                 ipywidgets, JupyterLab, Notebook 7, …): pip install -e '.[lab]'
#   make test, make setup-test  — сверху инструменты проверок, extra `test` (pytest, nbval, hypothesis,
#                                 playwright, …) и `class`: pip install -e '.[lab,test,class]'
# Две отметки: после make test команда make lab ничего не ставит, после make lab make test
# доставляет только инструменты проверок. Изменился pyproject.toml — переустанавливаются обе.

PYTHON ?= python3
COURSE := $(PYTHON) course.py

# Переменные, которые задали (в командной строке make или в окружении), -> ИМЯ='значение' для course.py
# (кавычка ' внутри значения — как '\'' в sh).
given = $(strip $(foreach v,$(1),$(if $(filter undefined default,$(origin $(v))),,$(v)='$(subst ','\'',$($(v)))')))
COMMON := VENV SKIP_INSTALL

.PHONY: lab fresh test notebooks setup setup-test site clean results class class-stop class-status answers nbgrader

# Тетрадки ученика: копия уроков в WORK (по умолчанию work/, в .gitignore) — lessons/ остаётся таким, как в git.
# Добавочные ключи Jupyter: make lab LAB_ARGS=--no-browser. Интерфейс: make lab UI=notebook (Jupyter Notebook 7).
# Под root (контейнер, новая облачная машина) JupyterLab запускается с --allow-root.
lab:
	@$(COURSE) lab $(call given,$(COMMON) UI WORK LAB_ARGS)

# Окружение ученика без запуска Jupyter (например, для VS Code): курс и то, что нужно урокам.
setup:
	@$(COURSE) setup $(call given,$(COMMON))

# Окружение ученика и инструменты проверок, без самих проверок (чтобы гонять один файл тестов).
setup-test:
	@$(COURSE) setup-test $(call given,$(COMMON))

# Начать урок заново: make fresh LESSON=03 (ваша прежняя копия уходит в work/backup/).
fresh:
	@$(COURSE) fresh $(call given,$(COMMON) LESSON WORK)

# Ответы учителя отдельно от уроков: class/answers/ — по странице на урок (задание, проверка, решение).
# Папка только для владельца (0700, файлы 0600): на сервере класса ученики могут читать репозиторий, а ответы — нет.
# Только некоторые уроки: make answers ONLY="02 03".
answers:
	@$(COURSE) answers $(call given,$(COMMON) ONLY)

# Курс nbgrader из тех же уроков: make nbgrader OUT=папка (по умолчанию class/nbgrader/, ONLY="02 03" — только эти).
# Упражнение — область решения, каждый вызов проверки — автотест на 1 балл; решения уроков выброшены.
# Сам nbgrader ставит extra class (pip install -e '.[class]'); его команды запускайте из OUT с .venv/bin в PATH.
nbgrader:
	@$(COURSE) nbgrader $(call given,$(COMMON) OUT ONLY)

# Одна команда pytest на все ядра (pytest-xdist), один отчёт: библиотека, виджеты, упражнения, пары уроков,
# сайт, браузерный тест (JupyterLab и Notebook 7 в Chromium) и проходы уроков — каждая ячейка каждого урока тест:
# «урок 07 · повторный запуск · ячейка 12 · второй запуск» (tools/lesson_passes.py). Проход урока и файл тестов
# идут каждый на одном ядре (--dist loadscope: nbval исполняет ячейки урока в одном ядре по порядку). Всё идёт до
# конца; упало хоть что-то — make test падает. Задержки ползунков браузерный тест меряет рядом с другими
# проверками; на спокойной машине — отдельно: .venv/bin/python -m pytest tests/test_browser.py --shared-runs keep.
#   make test LESSON=07   — только урок 07: его проходы, пара .py/.ipynb, проверки упражнений, виджеты (tests/lesson_map.py)
#   make test MARKS=      — и долгие проверки (метка slow: другие зёрна уроков 09 и 10, их проход переносимости), как в CI
#   make test WORKERS=2   — сколько процессов pytest сразу (по умолчанию ядер + 1: проходы уроков и браузерный тест
#                           подолгу ждут ядро Jupyter или браузер, и лишний процесс занимает ядро, пока другой ждёт)
#   make test PYTEST_ARGS=-x — добавочные ключи pytest
test:
	@$(COURSE) test $(call given,$(COMMON) LESSON MARKS WORKERS PYTEST_ARGS)

# Пересобрать и исполнить уроки из их .py (исполняется в чистом ядре сверху вниз): все или LESSONS="02 03".
notebooks:
	@$(COURSE) notebooks $(call given,$(COMMON) LESSONS)

# Вердикты класса в results/class.csv и results/class.html: ученики хаба (class/learners.txt; от root — sudo make results)
# или папки с ноутбуков, в каждой лежит work/ ученика: make results FROM="anna boris".
results:
	@$(COURSE) results $(call given,$(COMMON) FROM)

# Статический сайт курса в site/ (без интернета, с живыми ползунками): см. раздел README «Курс как сайт».
site:
	@$(COURSE) site $(call given,$(COMMON))

# Класс на одном сервере (JupyterHub, только Linux): sudo make class — ученики из class/learners.txt, каждый со своей
# записью системы и своей work/; подробно — TEACHERS.md, «Класс на одном сервере». Переменные:
#   HOST=127.0.0.1 — адрес хаба (для класса в сети — HOST=0.0.0.0 и TLS, см. CERT/KEY); PORT=8000 — порт;
#   TEACHER=teacher — запись учителя, администратора хаба (создаётся, если её нет);
#   SOLUTIONS=no — копии уроков ученикам без ячеек с решениями;
#   CERT, KEY — сертификат и ключ TLS (например от certbot: fullchain.pem и privkey.pem) — тогда хаб отвечает по HTTPS;
#   MEMORY — предел памяти одного ученика (сервер и все его ядра); по умолчанию — из tools/classroom/limits.py;
#   PIDS — предел процессов и потоков одного ученика (512); DISK — место одного ученика, образ его дома (1G; no — без).
# Нужен JupyterHub в .venv: make class ставит extra `class` (jupyterhub, jupyterhub-firstuseauthenticator, …).
class:
	@$(COURSE) class $(call given,$(COMMON) HOST PORT TEACHER SOLUTIONS CERT KEY MEMORY PIDS DISK)

# Остановить всё: серверы и ядра учеников, хаб, прокси, culler (работа учеников остаётся). Повторять можно.
class-stop:
	@$(COURSE) class-stop $(call given,$(COMMON))

# Идёт ли класс и у кого запущены серверы
class-status:
	@$(COURSE) class-status $(call given,$(COMMON))

clean:
	@$(COURSE) clean

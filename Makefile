# Две команды курса: `make lab` — открыть уроки, `make test` — прогнать все проверки.
# Обеим хватает python3 (3.10+) и make: окружение .venv создаётся и обновляется само.
#
# Что ставится в .venv (оба списка — в pyproject.toml):
#   make lab, make setup        — то, что нужно ученику: [project] dependencies (NumPy, matplotlib,
#                                 ipywidgets, JupyterLab, Notebook 7, …): pip install -e .
#   make test, make setup-test  — сверху инструменты проверок, extra `test` (pytest, nbval, hypothesis,
#                                 playwright, …): pip install -e '.[test]'
# Две отметки: после make test команда make lab ничего не ставит, после make lab make test
# доставляет только инструменты проверок. Изменился pyproject.toml — переустанавливаются обе.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
LAB_STAMP  := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test

.PHONY: lab fresh test notebooks setup setup-test site clean results class class-stop class-status

# Тетрадки ученика: копия уроков в work/ (в .gitignore) — lessons/ остаётся таким, как в git.
WORK ?= work
# Добавочные ключи Jupyter, например: make lab LAB_ARGS=--no-browser
LAB_ARGS ?=
# Интерфейс: lab (JupyterLab) или notebook (Jupyter Notebook 7): make lab UI=notebook
UI ?= lab
# Под root (контейнер, новая облачная машина) JupyterLab без --allow-root не запускается.
ALLOW_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

# Окружение ученика без запуска Jupyter (например, для VS Code): курс и то, что нужно урокам.
setup: $(LAB_STAMP)

# Окружение ученика и инструменты проверок, без самих проверок (чтобы гонять один файл тестов).
setup-test: $(TEST_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Переустанавливаем, только когда поменялся pyproject.toml.
$(LAB_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e .
	touch $@

# Проверки ставят и extra `class`: make test поднимает настоящий хаб и гоняет nbgrader (tests/test_class_*.py).
$(TEST_STAMP): $(LAB_STAMP)
	$(BIN)/python -m pip install -e '.[test,class]'
	touch $@ $(CLASS_STAMP)

lab: $(LAB_STAMP)
	@$(BIN)/python tools/workspace.py --work $(WORK)
	@if [ -n "$(ALLOW_ROOT)" ]; then echo "make lab: вы root (так бывает в контейнере и на новой облачной машине) — запускаем Jupyter с --allow-root, иначе он откажется стартовать"; fi
	$(BIN)/jupyter $(UI) $(ALLOW_ROOT) --ServerApp.root_dir=$(WORK) --ServerApp.ip=127.0.0.1 $(LAB_ARGS)

# Начать урок заново: make fresh LESSON=03 (ваша прежняя копия уходит в work/backup/).
fresh: $(LAB_STAMP)
	@test -n "$(LESSON)" || { echo "укажите урок: make fresh LESSON=03"; exit 2; }
	@$(BIN)/python tools/workspace.py --work $(WORK) --fresh $(LESSON)

# Ответы учителя отдельно от уроков: class/answers/ — по странице на урок (задание, проверка, решение).
# Папка только для владельца (0700, файлы 0600): на сервере класса ученики могут читать репозиторий, а ответы — нет.
# Только некоторые уроки: make answers ONLY="02 03".
.PHONY: answers nbgrader
answers: $(LAB_STAMP)
	$(BIN)/python -m tools.classroom.answers --out class/answers $(if $(ONLY),--lessons $(ONLY))

# Курс nbgrader из тех же уроков: make nbgrader OUT=папка (по умолчанию class/nbgrader/, ONLY="02 03" — только эти).
# Упражнение — область решения, каждый вызов проверки — автотест на 1 балл; решения уроков выброшены.
# Сам nbgrader ставит extra class (pip install -e '.[class]'); его команды запускайте из OUT с .venv/bin в PATH.
OUT ?= class/nbgrader
nbgrader: $(LAB_STAMP)
	$(BIN)/python -m tools.classroom.nbgrader_course --out $(OUT) $(if $(ONLY),--lessons $(ONLY))

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
MARKS ?= not slow
PYTEST_ARGS ?=
WORKERS ?= $(shell python3 -c "import os; print(len(os.sched_getaffinity(0)) + 1 if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1) + 1)" 2>/dev/null || echo auto)

test: $(TEST_STAMP)
	@status=0; started=$$(date +%s); \
	$(BIN)/python -m pytest -n $(WORKERS) --dist loadscope -m "$(MARKS)" $(if $(LESSON),--lesson $(LESSON)) $(PYTEST_ARGS) \
		|| status=1; \
	echo "make test: $$(( $$(date +%s) - started )) с"; \
	exit $$status

# Пересобрать и исполнить все уроки из их .py (исполняется в чистом ядре сверху вниз).
notebooks: $(TEST_STAMP)
	$(BIN)/python tools/build_notebooks.py $(LESSONS)

# Вердикты класса в results/class.csv и results/class.html: ученики хаба (class/learners.txt; от root — sudo make results)
# или папки с ноутбуков, в каждой лежит work/ ученика (или сами их work/): make results FROM="anna boris".
FROM ?=
results:
	$(BIN)/python -m tools.classroom.results $(if $(strip $(FROM)),--from $(FROM))

# Статический сайт курса в site/ (без интернета, с живыми ползунками): см. раздел README «Курс как сайт».
site: $(TEST_STAMP)
	$(BIN)/python tools/build_site.py

# Класс на одном сервере (JupyterHub): sudo make class — ученики из class/learners.txt, каждый со своей
# записью системы и своей work/; подробно — TEACHERS.md, «Класс на одном сервере».
# Адрес хаба: по умолчанию только эта машина; для класса в сети — HOST=0.0.0.0 (и TLS, см. CERT/KEY)
HOST ?= 127.0.0.1
# Порт хаба
PORT ?= 8000
# Запись учителя — администратора хаба (создаётся, если её нет)
TEACHER ?= teacher
# SOLUTIONS=no — копии уроков ученикам без ячеек с решениями
SOLUTIONS ?= yes
# Сертификат и ключ TLS (например от certbot: fullchain.pem и privkey.pem) — тогда хаб отвечает по HTTPS
CERT ?=
KEY ?=
# Предел памяти одного ученика (сервер и все его ядра); по умолчанию — из tools/classroom/limits.py
MEMORY ?=
# Нужен JupyterHub в .venv: make class ставит extra `class` (jupyterhub, jupyterhub-firstuseauthenticator, …).
CLASS_STAMP := $(VENV)/.installed-class

$(CLASS_STAMP): $(LAB_STAMP)
	$(BIN)/python -m pip install -e '.[class]'
	touch $@

class: $(CLASS_STAMP)
	@$(BIN)/python -m tools.classroom.hub start --host '$(HOST)' --port '$(PORT)' --teacher '$(TEACHER)' \
		--solutions '$(SOLUTIONS)' --cert '$(CERT)' --key '$(KEY)' $(if $(MEMORY),--memory '$(MEMORY)')

# Остановить всё: серверы и ядра учеников, хаб, прокси, culler (работа учеников остаётся). Повторять можно.
class-stop:
	@$(BIN)/python -m tools.classroom.hub stop

# Идёт ли класс и у кого запущены серверы
class-status:
	@$(BIN)/python -m tools.classroom.hub status

clean:
	rm -rf $(VENV) .venv-lowest test-artifacts .hypothesis

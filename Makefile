# Две команды курса: `make lab` — открыть уроки, `make test` — прогнать все проверки.
# Обеим хватает python3 (3.10+) и make: окружение .venv создаётся и обновляется само.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-from-pyproject

.PHONY: lab test notebooks setup clean

setup: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Переустанавливаем, только когда поменялся pyproject.toml.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[test]'
	touch $@

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=lessons --ServerApp.ip=127.0.0.1

test: $(STAMP)
	$(BIN)/python -m pytest

# Пересобрать и исполнить все уроки из их .py (исполняется в чистом ядре сверху вниз).
notebooks: $(STAMP)
	$(BIN)/python tools/build_notebooks.py $(LESSONS)

clean:
	rm -rf $(VENV) test-artifacts .hypothesis

# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
VENV := .venv
PY := $(VENV)/bin/python

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

# The tests also drive OpenRLHF's own code (training/): its CPU-importable part, without its GPU dependencies.
$(VENV)/.installed-train: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test,train]'
	$(PY) -m pip install -q --no-deps openrlhf==0.11.2
	touch $@

.PHONY: demo test bench
demo: $(VENV)/.installed
	$(VENV)/bin/tessera demo --out out/demo

# Bytecode is compiled once first: with PYTHONDONTWRITEBYTECODE set (as on our machines) every process the suite
# starts (xdist workers, CLI and wheel subprocesses) otherwise compiled the package from source again (~30 s).
test: $(VENV)/.installed-train
	$(PY) -m compileall -q compiler training tests
	$(PY) -m pytest -n auto

bench: $(VENV)/.installed-train
	$(PY) bench/bench_spine.py
	$(PY) bench/bench_reward.py

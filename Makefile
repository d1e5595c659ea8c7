# Every target sets itself up: `make setup` creates .venv/ from the package registry alone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
BYTECODE := $(VENV)/.bytecode-stamp
CONSTRAINTS := cli/constraints.txt

comma := ,
.PHONY: setup lock docs test test-fast lint demo bench schema golden clean test-sdk-v3

setup: $(STAMP)

EXTRAS := dev,local,deepspeed,charts,tensorflow,docs
LOCK := cli/requirements.lock
# uv does not read pip's configuration: pass this machine's wheel folder and extra indexes
# (e.g. torch's CPU build in find-links) explicitly, and only where pip is configured with them.
FIND_LINKS := $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null)
EXTRA_INDEXES := $(shell $(PYTHON) -m pip config get global.extra-index-url 2>/dev/null)
UV_SOURCES := $(foreach f,$(FIND_LINKS),--find-links $(f)) \
	$(foreach i,$(EXTRA_INDEXES),--extra-index-url $(i)) --index-strategy unsafe-best-match
UV := $(VENV)/bin/uv

# The lock: every package pinned, resolved from pyproject.toml's extras under cli/constraints.txt.
# The last install is the TensorFlow container's toolkit, the TF_CONFIG oracle of tests/local,
# without its dependencies: its pins (an old numpy, TF < 2.4) would break the environment, and the
# tests need only its TF_CONFIG builders.
# uv installs in seconds with progress; where uv cannot be installed, pip with the same pins.
$(STAMP): pyproject.toml $(CONSTRAINTS) $(LOCK)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	if $(PY) -m pip install --disable-pip-version-check -c $(CONSTRAINTS) uv; then \
	  $(UV) pip install --python $(PY) $(UV_SOURCES) -r $(LOCK) && \
	  $(UV) pip install --python $(PY) --no-deps -e . && \
	  $(UV) pip install --python $(PY) $(UV_SOURCES) --no-deps -c $(CONSTRAINTS) sagemaker-tensorflow-training; \
	else \
	  $(PY) -m pip install --disable-pip-version-check -c $(CONSTRAINTS) -e ".[$(EXTRAS)]" && \
	  $(PY) -m pip install --disable-pip-version-check --no-deps -c $(CONSTRAINTS) sagemaker-tensorflow-training; \
	fi
	touch $@

# Bytecode for every installed module, once, before the first test run: uv installs none (pip
# does), and where none may be written later (PYTHONDONTWRITEBYTECODE=1, as on CI machines; the
# read-only venv inside `local`'s sandbox) every process would compile torch, TensorFlow and the
# SDK from source again: 2.7 s more CPU per torch import, hundreds of processes in `make test`.
# Kept out of `setup`, which every newcomer waits on: about 40 s on 2 cores, paid by the targets
# that start many processes. A few files of the packages' own tests use newer Python syntax and
# do not compile: `-` ignores them.
$(BYTECODE): $(STAMP)
	@echo "compiling the venv's bytecode, once (about 40 s)"
	-$(PY) -m compileall -qq -j 0 $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	touch $@

# After adding a dependency to pyproject.toml and pinning it in cli/constraints.txt.
lock: $(STAMP)
	$(UV) pip compile --python $(PY) $(UV_SOURCES) --no-header --extra $(subst $(comma), --extra ,$(EXTRAS)) \
	  -c $(CONSTRAINTS) pyproject.toml -o $(LOCK)

docs: setup
	$(VENV)/bin/mkdocs build --strict

test: setup $(BYTECODE)
	$(PY) -m pytest -q -n 2 --dist loadgroup --durations=15

test-fast: setup  ## no multi-process runs
	$(PY) -m pytest -q -m "not slow and not integration"

lint: setup
	$(VENV)/bin/ruff check cli entrypoints tests
	$(VENV)/bin/ruff format --check cli entrypoints tests
	$(VENV)/bin/mypy

demo: setup $(BYTECODE)  ## validate, plan, then run PyTorch DDP and sharded XGBoost on 2 local hosts each
	$(VENV)/bin/sagelaunch validate launch_configs/
	$(VENV)/bin/sagelaunch plan launch_configs/smddp-p4d.yaml
	$(VENV)/bin/sagelaunch local launch_configs/cpu-local.yaml
	$(PY) -m tests.local.data .sagelaunch/demo-data
	$(VENV)/bin/sagelaunch local launch_configs/xgboost-local.yaml

golden: setup
	$(PY) -m tests.golden.regenerate

bench: setup $(BYTECODE)
	$(PY) tests/bench/run.py

schema: setup
	$(PY) -m sagelaunch schema > launch_configs/schema.json


# SDK v3 (sagemaker-train) cannot share a venv with v2: its own .venv-v3/, not part of `make test`.
# The scripts `export --sdk v3` writes, built into requests by ModelTrainer itself, offline.
VENV_V3 := .venv-v3
STAMP_V3 := $(VENV_V3)/.installed-stamp
CONSTRAINTS_V3 := cli/constraints-v3.txt

$(STAMP_V3): $(CONSTRAINTS_V3)
	test -x $(VENV_V3)/bin/python || $(PYTHON) -m venv $(VENV_V3)
	$(VENV_V3)/bin/python -m pip install --quiet --disable-pip-version-check -c $(CONSTRAINTS_V3) sagemaker-train
	touch $@

test-sdk-v3: setup $(STAMP_V3)
	SAGELAUNCH_SDK_V3_PYTHON=$(VENV_V3)/bin/python $(PY) -m pytest -q -p no:randomly tests/sdk_v3

clean:
	rm -rf $(VENV) $(VENV_V3) site .pytest_cache .mypy_cache .ruff_cache .sagelaunch

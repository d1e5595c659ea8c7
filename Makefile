# Every target sets itself up: `make setup` creates .venv/ from the package registry alone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
BYTECODE := $(VENV)/.bytecode-stamp
CONSTRAINTS := cli/constraints.txt

comma := ,
.PHONY: setup lock docs test test-fast mutate lint demo try-aws bench schema golden catalog clean test-sdk-v3 gpu-check

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

# Bytecode of what job processes import (tests/bytecode_warmup.py says why), once, before the
# first run: uv installs none, and the suite's hundreds of processes would each compile it.
# Kept out of `setup`, which every newcomer waits on: about 16 s on 2 cores, paid by the targets
# that start many processes. `test` then lets Python write the bytecode of anything else it
# imports (CI machines often set PYTHONDONTWRITEBYTECODE=1).
# What the imports write in a home folder (Keras's ~/.keras, matplotlib's config and font cache)
# goes to the venv instead: `make demo` and `make test` leave the home as they found it.
WARMUP_HOME := KERAS_HOME=$(VENV)/.home/.keras MPLCONFIGDIR=$(VENV)/.home/.config/matplotlib \
	XDG_CACHE_HOME=$(VENV)/.home/.cache XDG_CONFIG_HOME=$(VENV)/.home/.config
$(BYTECODE): $(STAMP)
	@echo "compiling the bytecode of torch, TensorFlow, DeepSpeed, XGBoost and the SDK, once (about 16 s)"
	@SAGEMAKER_SUPPRESS_V2_WARNING=1 TF_CPP_MIN_LOG_LEVEL=3 env -u PYTHONDONTWRITEBYTECODE \
	  $(WARMUP_HOME) $(PY) -m tests.bytecode_warmup > $(VENV)/bytecode.log 2>&1 || { cat $(VENV)/bytecode.log; exit 1; }
	touch $@

# After adding a dependency to pyproject.toml and pinning it in cli/constraints.txt.
lock: $(STAMP)
	$(UV) pip compile --python $(PY) $(UV_SOURCES) --no-header --extra $(subst $(comma), --extra ,$(EXTRAS)) \
	  -c $(CONSTRAINTS) pyproject.toml -o $(LOCK)

docs: setup
	$(VENV)/bin/mkdocs build --strict

# Wheels the suite's local runs install offline (UV_OFFLINE=1) from uv's cache, as a user's second
# run does: the PyTorch images' mpi4py at their locks' pin, omegaconf (a third-party script's
# requirements.txt), and what the suite's Hugging Face jobs install from their images
# (tests/local/hub_wheels.py says it as `local` does), with what they require. Fetched once from
# the package registry, as setup's packages are, into a scratch folder removed at once (uv's cache
# keeps the wheels). From uv's default index, as a local run's overlay asks it
# (local/software.py), not this machine's extra wheel folders. What this venv has is excluded,
# as an overlay excludes it: accelerate requires torch, and the index's is a CUDA build.
TEST_WHEELS := $(VENV)/.test-wheels-stamp
MPI4PY_LOCK := cli/sagelaunch/data/images/locks/pytorch-2.13-cpu.lock
HUB_JOBS := 4.56.2:transformers 4.49:transformers,datasets,sklearn
SCRATCH := $(VENV)/.test-wheels
$(TEST_WHEELS): $(STAMP) $(MPI4PY_LOCK) cli/sagelaunch/data/images/index.json
	mkdir -p $(SCRATCH)
	$(PY) -c "import importlib.metadata as m; print(*{d.metadata['Name'] for d in m.distributions()}, sep='\n')" \
	  > $(SCRATCH)/excludes.txt
	$(UV) pip install -q --python $(PY) --target $(SCRATCH)/a --excludes $(SCRATCH)/excludes.txt \
	  $$(grep -h '^mpi4py==' $(MPI4PY_LOCK)) omegaconf
	$(PY) -m tests.local.hub_wheels $(HUB_JOBS) | while read -r pins; do \
	  rm -rf $(SCRATCH)/b && $(UV) pip install -q --python $(PY) --target $(SCRATCH)/b \
	    --excludes $(SCRATCH)/excludes.txt $$pins || exit 1; done
	rm -rf $(SCRATCH)
	touch $@

test: setup $(BYTECODE) $(TEST_WHEELS)
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n 2 --dist loadgroup --durations=15

test-fast: setup  ## no multi-process runs
	$(PY) -m pytest -q -n 2 --dist loadgroup -m "not slow and not integration"

# Mutation testing ([tool.mutmut] in pyproject.toml): mutmut changes the modules that decide what
# is sent, attached and uploaded one small edit at a time and runs the tests that reach each
# change; a mutant no test fails on is a change a user could suffer unnoticed. Not part of
# `make test` (1,149 mutants: about 6 minutes on 2 cores). In $(MUTATE_DIR)/, `mutmut show
# NAME` shows a survivor's change, `mutmut run NAME...` reruns some. It runs there because src/
# there links to cli/ (the layout mutmut imports mutants from); it mutates the working tree.
MUTATE_DIR := build/mutate
MUTANTS := 'sagelaunch.services.attach.*' 'sagelaunch.aws.jobs.*' \
	'sagelaunch.services.chain_walk.*' 'sagelaunch.bundle.*' 'sagelaunch.local.channels.*' \
	$(foreach f,installed_versions cache_key refreshed_catalog sagelaunch_files sdk_defaults \
	  _platform_config_file,'sagelaunch.services.planning.x_$(f)__mutmut_*')
mutate: setup
	rm -rf $(MUTATE_DIR) && mkdir -p $(MUTATE_DIR)
	ln -s ../../cli $(MUTATE_DIR)/src
	for path in pyproject.toml tests entrypoints launch_configs; do ln -s ../../$$path $(MUTATE_DIR)/; done
	cd $(MUTATE_DIR) && SAGEMAKER_SUPPRESS_V2_WARNING=1 ../../$(VENV)/bin/mutmut run --max-children 2 $(MUTANTS)
	cd $(MUTATE_DIR) && ../../$(VENV)/bin/mutmut results --all true | awk -F': ' \
	  '$$2 != "not checked" { m = $$1; sub(/\.x[_ǁ].*/, "", m); gsub(/ /, "", m); all[m]++; \
	    if ($$2 == "killed") dead[m]++; else print } \
	  END { for (m in all) printf "%-32s %4d of %4d killed\n", m, dead[m], all[m] }'

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

# The AWS side without an account: moto's server on loopback (a dev dependency), a bucket and a
# role there, then plan, submit, status, logs and wait of launch_configs/cpu-local.yaml against
# it, each command shown; moto stopped at the end (docs/getting-started.md).
try-aws: setup
	$(PY) -m tests.aws.try_aws

golden: setup
	$(PY) -m tests.golden.regenerate

# The instance catalog (data/instances.json) from botocore's TrainingInstanceType enum, EC2's
# instance data (moto's copy) and the accelerators' datasheets: after a botocore or moto upgrade.
catalog: setup
	$(PY) -m sagelaunch.catalog.instance_catalog

bench: setup $(BYTECODE)
	$(PY) tests/bench/run.py

# The PyTorch entry point on this machine's GPU: throughput and MFU, memory against recommend,
# kill-and-resume, TP/FSDP2 paths (tests/gpu/check.py; about 5 minutes on one H100). On a machine
# without this venv (a bare GPU box with torch): PYTHONPATH=cli python3 -m tests.gpu.check
gpu-check: setup
	$(PY) -m tests.gpu.check --out .sagelaunch/gpu-check

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

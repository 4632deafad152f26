# The two commands: `make site` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
ARGS ?=
VENV := .venv
TEST_VENV := .venv-test
COLLECTIONS := .build/collections

.PHONY: site setup collection test unit lint sanity release molecule images clean help

help:
	@echo "make site  [ARGS='-i inventories/lab ...']  provision + verify (default: this machine)"
	@echo "make test                                  unit, lint, sanity, release and molecule layers"

## site: bootstrap the venv, install the collection, run site.yml
site: setup
	$(VENV)/bin/ansible-playbook site.yml $(ARGS)

setup:
	@PYTHON=$(PYTHON) scripts/venv.sh $(VENV) requirements.txt
	@scripts/install-collection.sh $(VENV) $(COLLECTIONS) >/dev/null

## test: every layer that runs without a GPU, with per-layer times
test:
	@PYTHON=$(PYTHON) tests/bin/run-all.sh

unit lint sanity release molecule:
	@PYTHON=$(PYTHON) tests/bin/run-all.sh $@

images:
	@tests/fixtures/images/build.sh

clean:
	rm -rf .build $(VENV) $(TEST_VENV) tests/output

# The two commands: `make site` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
ARGS ?=
VENV := .venv
TEST_VENV := .venv-test
COLLECTIONS := .build/collections

.PHONY: site setup collection test test-changed unit lint sanity test-release molecule core release images clean help

help:
	@echo "make site  [ARGS='-i inventories/lab ...']  provision + verify (default: this machine)"
	@echo "make test                                  unit, lint, sanity, release, molecule and core layers"
	@echo "make unit|lint|sanity|test-release|molecule|core one test layer (core: the newest ansible-core)"
	@echo "make test-changed [BASE=ref]               the unit tests and molecule scenarios a change touches (default: since HEAD)"
	@echo "make release VERSION=x.y.z                 bump galaxy.yml, write the changelog, build the tarball"

## site: bootstrap the venv, install the collection, run site.yml
site: setup
	$(VENV)/bin/ansible-playbook site.yml $(ARGS)

setup:
	@PYTHON=$(PYTHON) scripts/venv.sh $(VENV) requirements.txt
	@scripts/install-collection.sh $(VENV) $(COLLECTIONS) >/dev/null

## test: every layer that runs without a GPU, with per-layer times
test:
	@PYTHON=$(PYTHON) tests/bin/run-all.sh

## test-changed: only the unit test files and molecule scenarios the files changed since BASE (default HEAD) touch
test-changed:
	@PYTHON=$(PYTHON) tests/bin/bootstrap.sh
	@$(TEST_VENV)/bin/python tests/bin/changed.py --run $(if $(BASE),--base "$(BASE)")

unit lint sanity molecule core:
	@PYTHON=$(PYTHON) tests/bin/run-all.sh $@

## test-release: the release test layer (tests/bin/release.sh)
test-release:
	@PYTHON=$(PYTHON) tests/bin/run-all.sh release

## release: cut release VERSION (scripts/release.py); SUMMARY='...' adds a release summary
release:
	@[ -n "$(VERSION)" ] || { echo "usage: make release VERSION=x.y.z [SUMMARY='...']  (the release test layer: make test-release)" >&2; exit 2; }
	@PYTHON=$(PYTHON) scripts/venv.sh $(TEST_VENV) requirements-test.txt
	@$(TEST_VENV)/bin/python scripts/release.py "$(VERSION)" $(if $(SUMMARY),--summary "$(SUMMARY)")

images:
	@tests/fixtures/images/build.sh

clean:
	rm -rf .build $(VENV) $(TEST_VENV) .venv-core-newest tests/output

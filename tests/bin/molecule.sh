#!/usr/bin/env bash
# Molecule layer alone: tests/bin/molecule-prep.sh, then one job per scenario under extensions/molecule/ (molecule's
# layout for collections), on podman with local images, offline, several at a time (tests/bin/run-all.sh).
# MOLECULE_SCENARIOS="a b" runs a subset.
exec "$(dirname "$0")/run-all.sh" molecule

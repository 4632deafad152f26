#!/usr/bin/env bash
# The targets' oldest Python (part of the sanity layer): under Debian 11's python3.9 in a podman
# container (localhost/blackwell-debian11, built by tests/fixtures/images/build.sh when absent),
# with the checkout mounted read-only as ansible_collections/blackwell/pytorch and ansible-core's
# target-side ansible/module_utils (from .venv-test) beside it, the way AnsiballZ ships them:
#   1. every .py file under plugins/modules and plugins/module_utils compiles, and imports;
#   2. pytest (bullseye's 6.0) runs tests/unit/plugins/module_utils and tests/unit/plugins/modules,
#      less what needs the controller (CONTROLLER_ONLY below, with the reason for each), and writes the tests
#      that passed to .build/targets-python.passed (one per line; in `make test` the unit layer leaves these
#      out, tests/unit/conftest.py: each test runs once, under the oldest Python its code must run on).
# Prints one line of counts; exits non-zero when any step fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export CONTAINERS_CONF="$root/tests/fixtures/images/containers.conf"
image=localhost/blackwell-debian11
RELEASES=11 tests/fixtures/images/build.sh >/dev/null

# Test files and tests that do not run on a target's interpreter, and why.
# (The tests that compare the target-side version parser with plugin_utils/versions.py run: that
# module needs packaging alone, which the image carries.)
CONTROLLER_ONLY=(
  # the fleet report is checked with markdown-it (a test dependency); role messages render through Jinja2
  tests/unit/plugins/module_utils/verify/test_fleet_report.py
  tests/unit/plugins/module_utils/verify/test_fleet_verdicts.py
  tests/unit/plugins/module_utils/verify/test_fleet_low_precision.py
  # the fleet report's page rendered by headless Chromium (a controller-side browser)
  tests/unit/plugins/module_utils/verify/test_fleet_html_screenshot.py
  tests/unit/plugins/module_utils/planning/test_role_messages.py
  # these also drive the verify filters (plugins/filter/verify.py imports ansible.errors, controller code)
  tests/unit/plugins/module_utils/common/test_output_dirs.py
  tests/unit/plugins/module_utils/verify/test_verify_plan.py
  # a throwaway CA made with cryptography and real pip runs: test dependencies of the controller
  tests/unit/plugins/module_utils/wheel_index/test_wheel_index_private_mirror.py
  # YAML's reading of an unquoted version (PyYAML, as Ansible reads an inventory: controller side)
  tests/unit/plugins/module_utils/common/test_value_inputs.py
  tests/unit/plugins/module_utils/driver/test_path_and_number_inputs.py
  # the same, and the test interpreter as pytorch_python (3.10+ by design)
  tests/unit/plugins/modules/test_pytorch_plan_inputs.py
  # the modules' documentation read as YAML, as ansible-doc does on the controller
  tests/unit/plugins/modules/test_module_docs.py
  # the roles' vars and argument specs read as YAML (the stages' options against the roles' settings)
  tests/unit/plugins/module_utils/stages/test_role_settings.py
  # real git and git http-backend (the image carries no git)
  tests/unit/plugins/module_utils/planning/test_git_source.py
)
STACK_PYTHON_TESTS=(
  # these pass the test interpreter itself as pytorch_python, which must be 3.10+ (on 3.9 the module
  # refuses it, as designed: test_refuses_an_old_interpreter)
  tests/unit/plugins/modules/test_pytorch_plan.py::test_plans_with_this_interpreter_and_changes_nothing
  tests/unit/plugins/modules/test_pytorch_plan.py::test_refuses_missing_paths_and_a_hashes_file_that_does_not_pin_the_plan
  tests/unit/plugins/modules/test_pytorch_plan.py::test_reads_the_toolkit_for_source_and_auto_only
  tests/unit/plugins/modules/test_pytorch_plan.py::test_build_host
  tests/unit/plugins/modules/test_pytorch_plan.py::test_an_unreachable_index_is_refused_unless_the_table_may_stand_in
  tests/unit/plugins/modules/test_pytorch_plan.py::test_secrets_of_the_urls_are_no_log_values
  tests/unit/plugins/modules/test_pytorch_plan.py::test_refuses_a_missing_ca_bundle_or_client_certificate_before_reading_the_index
  tests/unit/plugins/modules/test_pytorch_plan.py::test_refuses_a_client_certificate_without_its_key_and_never_shows_the_file
  tests/unit/plugins/modules/test_pytorch_plan.py::test_refuses_pip_extra_args_that_send_pip_to_another_index
  tests/unit/plugins/modules/test_pytorch_plan.py::test_answers_whether_the_stage_is_already_as_asked
  tests/unit/plugins/modules/test_pytorch_plan.py::test_a_host_already_as_asked_returns_the_check_fact_the_verify_role_takes
  # builds with a venv of the test interpreter as the build Python (3.10+ by design): bullseye's pip 20.3
  # builds out of tree (in-tree builds are pip 21.3's default), so the tree's build record is not written
  tests/unit/plugins/modules/test_pytorch_source_build.py::test_builds_the_wheel_with_its_environment
  # unpacks FP4 bytes with the unit layer's CPU torch, a 3.11 venv of the controller's Python
  tests/unit/plugins/module_utils/benchmark/test_bench_low_precision.py::test_fp4_values_unpack_two_e2m1_numbers_per_byte_with_a_real_torch
)
select=()
for path in "${CONTROLLER_ONLY[@]}"; do
  [ -f "$path" ] || { echo "targets-python: $path is listed but gone: update the list" >&2; exit 1; }
  select+=("--ignore=$path")
done
for node in "${STACK_PYTHON_TESTS[@]}"; do select+=("--deselect=$node"); done

# ansible/__init__.py as AnsiballZ writes it (a namespace stub); module_utils mounted below it.
module_utils=$(.venv-test/bin/python -c 'import ansible.module_utils, os; print(os.path.dirname(ansible.module_utils.__file__))')
site="$root/.build/targets-python"
rm -rf "$site" && mkdir -p "$site/ansible/module_utils" "$site/ansible_collections/blackwell/pytorch"
printf 'from pkgutil import extend_path\n__path__=extend_path(__path__,__name__)\n' > "$site/ansible/__init__.py"
log="$root/.build/targets-python.log"
out="$root/.build/targets-python-out"
rm -rf "$out" "$root/.build/targets-python.passed" && mkdir -p "$out"

work=/site/ansible_collections/blackwell/pytorch
set +e
podman run --rm --network=none -e PYTHONDONTWRITEBYTECODE=1 -e PYTHONPATH=/site -e HOME=/tmp \
  -e BLACKWELL_TEST_RECORD_PASSED=/out/passed -v "$out:/out" \
  -v "$site:/site:ro" -v "$module_utils:/site/ansible/module_utils:ro" -v "$root:$work:ro" -w "$work" \
  "$image" sh -c 'python3 tests/bin/targets_python.py . || exit 10
    python3 -m pytest -q -rfEs -p no:cacheprovider -p no:nose --durations=5 "$@" \
      tests/unit/plugins/module_utils tests/unit/plugins/modules' sh "${select[@]}" > "$log" 2>&1
rc=$?
set -e
summary=$(grep -E '^python3\.[0-9]+ targets:' "$log" || true)
tests=$(tail -n 1 "$log")
[ "$rc" != 10 ] || tests="not run (the compile/import step failed)"
if [ "$rc" != 0 ]; then
  cat "$log"
  echo "targets-python: FAILED (rc $rc): ${summary:-no compile/import summary}; pytest: $tests"
  exit 1
fi
grep -E '^(SKIPPED|FAILED|ERROR) ' "$log" || true
mv "$out/passed" "$root/.build/targets-python.passed" && rm -rf "$out"
passed=$(grep -oE '[0-9]+ passed' <<<"$tests" | cut -d' ' -f1)
line="${summary}; unit tests: ${passed:-0} passed (${tests}), not run here: ${#CONTROLLER_ONLY[@]} test files that need controller-side packages, ${#STACK_PYTHON_TESTS[@]} tests that need a 3.10+ pytorch_python"
echo "$line"
# The sanity layer's line in the run's counts (tests/bin/times.py prints it).
mkdir -p .build/counts && echo "$line" > .build/counts/sanity

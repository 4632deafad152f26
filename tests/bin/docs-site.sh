#!/usr/bin/env bash
# tests/bin/docs-site.sh COLLECTIONS_PATH — the collection's documentation as a docs site, offline
# (part of the lint layer; COLLECTIONS_PATH holds the collection built from the checkout):
#   1. antsibull-docs lint-collection-docs --plugin-docs: every plugin's and role's documentation
#      validates against the docsite schema, with its markup and references (--skip-rstcheck: the RST it would
#      check is what step 2 generates and Sphinx parses, where any docutils warning fails the site; 10-11 of
#      its 19-24 s of CPU on the 2-core machine)
#   2. antsibull-docs sphinx-init + collection + sphinx-build: the HTML site builds, with a page for
#      every module, filter and role. References into docs.ansible.com (ansible.builtin, the
#      common return values) cannot resolve offline and are allowed; any other warning fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export ANSIBLE_COLLECTIONS_PATH=$1 PATH="$root/.venv-test/bin:$PATH"
collection="$ANSIBLE_COLLECTIONS_PATH/ansible_collections/blackwell/pytorch"
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
chmod 700 "$site"

antsibull-docs lint-collection-docs --plugin-docs --skip-rstcheck "$collection"
echo "antsibull-docs lint-collection-docs: no finding"

antsibull-docs sphinx-init --use-current --fail-on-error --dest-dir "$site" --project blackwell.pytorch \
  --title "blackwell.pytorch" --html-short-title "blackwell.pytorch" --copyright "blackwell.pytorch contributors" \
  blackwell.pytorch > "$site/init.log"
echo 'intersphinx_mapping = {}  # offline: no inventory is fetched' >> "$site/conf.py"
mkdir -p "$site/rst" && chmod 700 "$site/rst"
(cd "$site" && antsibull-docs --config-file antsibull-docs.cfg collection --cleanup everything --fail-on-error \
  --use-current --dest-dir rst blackwell.pytorch) > "$site/rst.log" 2>&1 || { cat "$site/rst.log"; exit 1; }
sphinx-build -q -b html -c "$site" -w "$site/warnings.log" "$site/rst" "$site/html" > "$site/sphinx.log" 2>&1 \
  || { cat "$site/sphinx.log" "$site/warnings.log"; exit 1; }
offline="WARNING: undefined label: '(ansible_collections\.ansible\.builtin\.[a-z_]+|common_return_values|action_plugins|ansible_configuration_settings)'"
if grep WARNING "$site/warnings.log" | grep -vE "$offline"; then
  echo "the docs site built with the warnings above"; exit 1
fi
pages="$site/html/collections/blackwell/pytorch"
missing=()
for module in plugins/modules/*.py; do [ -f "$pages/$(basename "$module" .py)_module.html" ] || missing+=("$module"); done
for filter in plugins/filter/*.yml; do [ -f "$pages/$(basename "$filter" .yml)_filter.html" ] || missing+=("$filter"); done
for role in roles/*/; do [ -f "$pages/$(basename "$role")_role.html" ] || missing+=("$role"); done
[ -f "$pages/index.html" ] || missing+=("collection index")
if [ ${#missing[@]} -gt 0 ]; then echo "the docs site has no page for: ${missing[*]}"; exit 1; fi
echo "docs site: $(find "$site/html" -name '*.html' | wc -l) HTML pages, one for every module, filter and role;" \
  "$(grep -c WARNING "$site/warnings.log" || true) references into docs.ansible.com left unresolved offline"

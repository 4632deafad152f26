#!/usr/bin/env bash
# tests/bin/run-all.sh [LAYER...] — bootstrap the test tools, run the layers (default: all),
# print each layer's time and result, exit non-zero if any failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(unit lint sanity release molecule)

start=$(date +%s)
if ! tests/bin/bootstrap.sh; then echo "bootstrap failed"; exit 1; fi
boot=$(( $(date +%s) - start ))

declare -A took rc
for layer in "${layers[@]}"; do
  echo "=================== layer: $layer ==================="
  t0=$(date +%s)
  tests/bin/"$layer".sh
  rc[$layer]=$?
  took[$layer]=$(( $(date +%s) - t0 ))
done

echo "=================== summary ==================="
printf '%-10s %6ss  %s\n' bootstrap "$boot" ok
passed=0; failed=0
for layer in "${layers[@]}"; do
  if [ "${rc[$layer]}" = 0 ]; then state=ok; passed=$((passed + 1)); else state="FAILED (rc ${rc[$layer]})"; failed=$((failed + 1)); fi
  printf '%-10s %6ss  %s\n' "$layer" "${took[$layer]}" "$state"
done
printf '%-10s %6ss\n' total "$(( $(date +%s) - start ))"
[ -f .build/test-counts ] && cat .build/test-counts
echo "layers: $passed passed, $failed failed"
[ "$failed" = 0 ]

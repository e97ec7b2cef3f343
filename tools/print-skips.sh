#!/usr/bin/env bash
# After ctest: each distinct reason a test gave for skipping itself, with how many gave it.
# ctest shows only "(Skipped)"; GoogleTest wrote the reason, the line after "Skipped", to the log.
# Usage: print-skips.sh BUILD_DIR
log="$1/Testing/Temporary/LastTest.log"
[ -f "$log" ] || exit 0
reasons=$(grep -A1 -E ': Skipped$' "$log" | grep -v -E ': Skipped$|^--$' | sort | uniq -c | sort -rn)
[ -n "$reasons" ] || exit 0
echo "Skipped tests, by reason:"
echo "$reasons"

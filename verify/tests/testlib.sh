# Shared by the shell tests: a scratch folder removed on exit, and pass/fail bookkeeping.
#   source testlib.sh; ok NAME / bad NAME ...; finish LABEL
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0
ok() { echo "ok   $1"; passes=$((passes+1)); }
bad() { echo "FAIL $1"; fails=$((fails+1)); }
finish() { echo "$1: $passes passed, $fails failed"; [ "$fails" -eq 0 ]; }

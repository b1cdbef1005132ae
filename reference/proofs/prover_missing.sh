#!/bin/sh
# A formal test whose prover was not found at configure time (gappa for formal_proofs, coqc for
# formal_certificates): on a developer's machine SKIPPED (exit 77, CTest's skip code); in CI
# (CI=true) a failure, since a CI run whose proofs were skipped would otherwise pass and say
# nothing (.ci/setup.sh installs gappa, .ci/run adds coq).
# Usage: prover_missing.sh [WHAT]   (WHAT: the program and how to install it)
what=${1:-"gappa (apt-get install gappa)"}
if [ "${CI:-}" = true ]; then
  echo "FAIL: not found and CI=true: $what; the proofs must run in CI (install, then reconfigure)"
  exit 1
fi
echo "SKIPPED: not found: $what (install, then reconfigure)"
exit 77

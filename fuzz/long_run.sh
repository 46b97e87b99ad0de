#!/bin/sh
# Every certificate kind's oracle fuzzer at 10^5 mutants (docs/robustness.md, "Each kind's oracle fuzzer").
#
#     sh fuzz/long_run.sh                 # COUNT=100000 mutants per fuzzer, WORKERS=$(nproc) processes
#     COUNT=2000 WORKERS=2 sh fuzz/long_run.sh
#
# Needs python3 with numpy, sympy, mpmath, networkx and hypothesis. python-flint is optional for all but the last:
# the valid certificates mutated are stored (fuzz/oracle_bases.json, fuzz/covering_bases.json; --write-bases
# rebuilds them), the oracles are written in the scripts (exact Fractions, mpmath, SymPy) and the checker falls
# back to pure Python; fuzz_parametric.py certifies random families with the generator, which needs python-flint,
# so without it that line says "skipped". Prints one line per fuzzer:
#     kind  mutants  false-acceptances  tracebacks  seconds
# and exits 1 if any fuzzer found a false acceptance or a traceback (or failed), 0 otherwise. Each fuzzer's
# full output, and the reproducer of anything found, is kept in LOGS (default: a new temporary folder).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
COUNT=${COUNT:-100000}
WORKERS=${WORKERS:-$(nproc)}
LOGS=${LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/symssm-long-run.XXXXXX")}
mkdir -p "$LOGS"
status=0

summary() {  # name, exit status, log: one line from the fuzzer's last line ("...: N mutants ... FALSE ACCEPTANCES
             # F, tracebacks T; S s")
    line=$(tail -n 1 "$3")
    mutants=$(printf '%s\n' "$line" | sed -n 's/^[^:]*: \([0-9]*\) mutants.*/\1/p')
    false=$(printf '%s\n' "$line" | sed -n 's/.*FALSE ACCEPTANCES \([0-9]*\).*/\1/p')
    tracebacks=$(printf '%s\n' "$line" | sed -n 's/.*tracebacks \([0-9]*\).*/\1/p')
    seconds=$(printf '%s\n' "$line" | sed -n 's/.*; \([0-9]*\) s$/\1/p')
    if [ "$2" -ne 0 ] || [ -z "$mutants" ]; then
        status=1
    fi
    printf '%-14s %8s mutants  %3s false acceptances  %3s tracebacks  %6s s%s\n' "$1" "${mutants:-?}" \
        "${false:-?}" "${tracebacks:-?}" "${seconds:-?}" "$([ "$2" -ne 0 ] && echo "  FAILED (exit $2): $3")"
}

printf 'kind            mutants, false acceptances, tracebacks, seconds (%s workers; logs in %s)\n' "$WORKERS" "$LOGS"
for kind in head-count gradient gaussian approximate trained interaction; do
    python3 "$ROOT/fuzz/fuzz_oracle.py" --kind "$kind" --seed 1 --count "$COUNT" --workers "$WORKERS" \
        --findings "$LOGS/findings" > "$LOGS/$kind.log" 2>&1
    summary "$kind" $? "$LOGS/$kind.log"
done
(cd "$LOGS" && python3 "$ROOT/fuzz/fuzz_covering.py" --seed 1 --count "$COUNT" --workers "$WORKERS" \
    > "$LOGS/covering.log" 2>&1)
summary covering $? "$LOGS/covering.log"
if ! python3 -c "import flint" 2>/dev/null; then  # it certifies random families: the generator needs python-flint
    printf '%-14s skipped: it certifies random families with the generator, which needs python-flint\n' parametric
    exit $status
fi
SHARDS=$((WORKERS * 4))
SYSTEMS=$((COUNT / 25 > SHARDS * 8 ? COUNT / 25 : SHARDS * 8))
python3 "$ROOT/fuzz/fuzz_parametric.py" --seed 11 --systems "$SYSTEMS" --mutants "$COUNT" \
    --shards "$SHARDS" --workers "$WORKERS" > "$LOGS/parametric.log" 2>&1
summary parametric $? "$LOGS/parametric.log"
exit $status

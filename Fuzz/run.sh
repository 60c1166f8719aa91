#!/usr/bin/env bash
# Runs libFuzzer targets and writes a summary (executions, coverage, corpus, findings).
#   [FUZZ_JOBS=N] Fuzz/run.sh SECONDS SUMMARY.md [TARGET...]   default: every target, one at a time
#   Fuzz/run.sh --regressions                      replays Tests/fuzz-regressions/<target>/*
# Corpora persist in .build/fuzz/corpus/<target>; findings go to .build/fuzz/artifacts/<target>/.
# Exit status 1 when any target found a crash, leak, timeout (> 1 s per input) or OOM.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${FUZZ_BIN:-.build/fuzz/gatekit-fuzz}
WORK=.build/fuzz
export SWIFT_BACKTRACE=enable=no          # the Swift backtracer must not hold a crashing child
# Test anchors for the validation targets (read at run time; never committed).
fixtures=${GATEKIT_FIXTURES:-$PWD/../shared/fixtures}
export GATEKIT_FUZZ_RECEIPT_ANCHOR=${GATEKIT_FUZZ_RECEIPT_ANCHOR:-$PWD/$WORK/seeds/scratch/forgeries/root.der}
export GATEKIT_FUZZ_JWS_ANCHOR=${GATEKIT_FUZZ_JWS_ANCHOR:-$fixtures/jws/apple-test/certs/testCA.der}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0}
# The targets' store files in memory where there is a tmpfs: a disk's writeback under load
# can stall one fsync past the 1 s an input may take.
if [[ -z "${GATEKIT_FUZZ_SCRATCH:-}" && -d /dev/shm && -w /dev/shm ]]; then export GATEKIT_FUZZ_SCRATCH=/dev/shm; fi
mkdir -p "$WORK"
all_targets() { GATEKIT_FUZZ_LIST=1 "$BIN" 2>/dev/null; }

if [[ "${1:-}" == "--regressions" ]]; then
    status=0; count=0
    for dir in Tests/fuzz-regressions/*/; do
        [[ -d "$dir" ]] || continue
        target=$(basename "$dir")
        mapfile -t inputs < <(find "$dir" -type f ! -name '*.md' | sort)
        [[ ${#inputs[@]} -gt 0 ]] || continue
        if GATEKIT_FUZZ_TARGET=$target "$BIN" -timeout=1 "${inputs[@]}" > "$WORK/regressions-$target.log" 2>&1; then
            count=$((count + ${#inputs[@]}))
        else
            echo "fuzz regression FAILED for $target (see $WORK/regressions-$target.log)"; status=1
        fi
    done
    # The BER reader against OpenSSL's parser over every fixture receipt and certificate
    # (each must parse, the same way in both) and every saved receipt corpus input.
    mapfile -t real < <(find "$fixtures/receipts" "$fixtures/certs" "$fixtures/jws" -type f \
                          \( -name '*.der' -o -name '*.cer' \) 2>/dev/null | sort)
    if [[ ${#real[@]} -eq 0 ]]; then
        echo "fuzz regressions: SKIP the BER differential over fixtures: none under $fixtures (set GATEKIT_FIXTURES)"
    elif GATEKIT_FUZZ_EXPECT_PARSE=1 GATEKIT_FUZZ_TARGET=ber-differential "$BIN" -timeout=5 "${real[@]}" \
            > "$WORK/regressions-ber-fixtures.log" 2>&1; then
        count=$((count + ${#real[@]}))
    else
        echo "BER differential FAILED on a fixture (see $WORK/regressions-ber-fixtures.log)"; status=1
    fi
    corpora=()
    for c in "$WORK"/corpus/receipt-*; do [[ -d "$c" ]] && corpora+=("$c"); done
    if [[ ${#corpora[@]} -gt 0 ]]; then
        inputs=$(find "${corpora[@]}" -type f | wc -l)
        mkdir -p "$WORK/corpus/ber-differential-replay"
        if GATEKIT_FUZZ_TARGET=ber-differential "$BIN" -runs=0 -timeout=5 "$WORK/corpus/ber-differential-replay" "${corpora[@]}" \
                > "$WORK/regressions-ber-corpus.log" 2>&1; then
            count=$((count + inputs))
        else
            echo "BER differential FAILED on the receipt corpus (see $WORK/regressions-ber-corpus.log)"; status=1
        fi
    fi
    echo "fuzz regressions: $count inputs replayed, status $status"
    exit $status
fi

seconds=${1:?seconds per target}
summary=${2:?summary file}
shift 2
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || mapfile -t targets < <(all_targets)
python3 Fuzz/make-seeds.py "$WORK/seeds" >/dev/null || echo "warning: seed generation failed"

status=0
targets_run=0
failed_targets=0
{
    echo "# Fuzz summary"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), ${seconds} s per target, \`$BIN\` (libFuzzer + ASan), timeout 1 s per input."
    echo
    echo "| target | executions | exec/s | coverage (edges) | features | corpus | crashes | leaks | timeouts | OOMs | peak RSS |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} > "$summary"

# One target's run: its summary row in $rows/<target>.row, what it says in $rows/<target>.out,
# and "failed" in $rows/<target>.failed when it found something.
run_target() {
    local target=$1 out=$rows/$1.out
    local corpus=$WORK/corpus/$target artifacts=$WORK/artifacts/$target/ log=$WORK/log-$target-$(basename "$summary" .md).txt
    mkdir -p "$corpus" "$artifacts"
    local seeds=() s
    for s in "Fuzz/seeds/$target" "$WORK/seeds/$target"; do [[ -d "$s" ]] && seeds+=("$s"); done
    # The differential starts from the receipt targets' seeds (real and generated receipts).
    if [[ $target == ber-differential ]]; then
        for s in "$WORK/seeds/receipt-container" "$WORK/seeds/receipt-payload"; do [[ -d "$s" ]] && seeds+=("$s"); done
    fi
    local dict=()
    case $target in
        json|eula-history|eula-export|jws-verify) dict=(-dict=Fuzz/dict/json.dict) ;;
        jws-parse) dict=(-dict=Fuzz/dict/jws.dict) ;;
        date) dict=(-dict=Fuzz/dict/date.dict) ;;
        receipt*|store-file|ber-differential) dict=(-dict=Fuzz/dict/asn1.dict) ;;
    esac
    touch "$log.start"
    echo "== fuzz $target for ${seconds}s" > "$out"
    GATEKIT_FUZZ_TARGET=$target "$BIN" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2560 \
        -malloc_limit_mb=2048 -max_len=${FUZZ_MAX_LEN:-131072} -print_final_stats=1 -artifact_prefix="$artifacts" \
        "${dict[@]}" "$corpus" "${seeds[@]}" > "$log" 2>&1
    local rc=$?
    local runs rate rss last cov ft corp crashes leaks timeouts ooms
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<< "$last")
    found() { find "$artifacts" -type f -name "$1-*" -newer "$log.start" | wc -l; }
    crashes=$(found crash); leaks=$(found leak); timeouts=$(found timeout); ooms=$(found oom)
    if [[ $rc -ne 0 || $((crashes + leaks + timeouts + ooms)) -gt 0 ]]; then
        touch "$rows/$target.failed"
        {
            echo "   FINDING in $target (exit $rc): see $log and $artifacts"
            grep -E 'ERROR|FAILED|Fatal|SUMMARY' "$log" | head -5 | sed 's/^/   /'
        } >> "$out"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s MB |\n' "$target" "${runs:-?}" "${rate:-?}" \
        "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$leaks" "$timeouts" "$ooms" "${rss:-?}" > "$rows/$target.row"
    echo "   ${runs:-?} executions, cov ${cov:-?}, corpus ${corp:-?}, exit $rc" >> "$out"
}

# FUZZ_JOBS targets at once (each is one process on one core; the time per target is the same).
rows=$WORK/rows-$(basename "$summary" .md)
rm -rf "$rows" && mkdir -p "$rows"
jobs_max=${FUZZ_JOBS:-1}
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_JOBS must be a positive number, not \"$jobs_max\"" >&2; exit 2; }
running=0
for target in "${targets[@]}"; do
    if [[ $running -ge $jobs_max ]]; then wait -n; running=$((running - 1)); fi
    run_target "$target" &
    running=$((running + 1))
done
wait
for target in "${targets[@]}"; do
    targets_run=$((targets_run + 1))
    cat "$rows/$target.out" 2>/dev/null || echo "   $target: no output (the run did not finish)"
    if [[ -f "$rows/$target.failed" || ! -f "$rows/$target.row" ]]; then status=1; failed_targets=$((failed_targets + 1)); fi
    cat "$rows/$target.row" >> "$summary" 2>/dev/null
done
{
    echo
    echo "Findings of this run are in .build/fuzz/artifacts/<target>/ (crash-*, leak-*, timeout-*, oom-*)."
    echo "Reproduce one finding: \`GATEKIT_FUZZ_TARGET=<target> $BIN <artifact>\`."
} >> "$summary"
echo "summary: $summary"
# The closing line CI counts: a target passes when its run ended with no finding.
echo "fuzz: $((targets_run - failed_targets)) passed, $failed_targets failed"
exit $status

#!/usr/bin/env bash
# gatekit(1) and the bash completion, generated from the tool's own --help texts (one source):
#   scripts/gen-man-and-completion.sh TOOL OUTDIR   writes OUTDIR/gatekit.1 and OUTDIR/gatekit.bash
set -euo pipefail
tool=$1
out=$2
mkdir -p "$out"
commands=(eula receipt perm jws ledger appstore api store test version)
version=$("$tool" --version | awk '{print $2}')

# A usage text as man-page body: roff-escaped, kept as preformatted lines.
roff() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"; }

{
    echo ".TH GATEKIT 1 \"\" \"gatekit $version\" \"User Commands\""
    echo ".SH NAME"
    echo "gatekit \\- gate EULAs, validate App Store receipts and signed data, manage permission state"
    echo ".SH SYNOPSIS"
    echo ".nf"
    "$tool" --help | sed -e '1s/^usage: //' | roff
    echo ".fi"
    echo ".SH DESCRIPTION"
    echo "A host of the GateKit C library (libgatekit). Each command below prints the same text with"
    echo ".B gatekit COMMAND --help"
    echo "(on standard output, exit status 0)."
    for c in "${commands[@]}"; do
        echo ".SS $c"
        echo ".nf"
        "$tool" help "$c" | sed -e '1s/^usage: //' | roff
        echo ".fi"
    done
    echo ".SH EXIT STATUS"
    echo "One table for every command; each number has one meaning."
    echo ".nf"
    echo "0    done; the answer to the question is yes"
    echo "1    a library call failed for another reason (printed on standard error)"
    echo "2    usage: a missing or wrong argument (named on standard error)"
    echo "3    the answer to the question is no: the EULA must be presented (eula status), no"
    echo "     prompt is allowed (perm state), nothing is pending (perm pending), not entitled"
    echo "     (ledger entitled, jws entitled), not eligible (ledger eligible), the receipt names"
    echo "     no transaction (appstore transaction-id), no store yet (ledger questions, store path,"
    echo "     store info), the catalog check warns (ledger catalog declare --check)"
    echo "4    eula check: the user declined, or nobody answered in time"
    echo "5    store check: the store is damaged or not a GateKit store"
    echo "6    eula check: the headless acceptance names another text (its hash differs): nothing accepted"
    echo "7    eula verify-export: the export does not match the store (edited, cut short, or another store's)"
    echo "10   receipt or signed data refused: not well-formed (Apple status 21002)"
    echo "11   refused: not signed by Apple (or the test anchor), or for another app or device (21003)"
    echo "12   refused: genuine, but for the other environment (21007/21008)"
    echo "172  eula check: acceptance required but impossible (no terminal, no --accept)"
    echo "Refusals (10-12) print {\"status\":N|null,\"code\":C,\"error\":...,\"detail\":...} on"
    echo "standard output: receipt verify and entitled, jws verify and entitled, ledger ingest, test"
    echo "sign, and api when a signed member of Apple's answer is refused (api prints Apple's own"
    echo "JSON error body when Apple answers with one). Every other failure (exit 1, 2, 4, 5, 6, 7, 172)"
    echo "prints its reason on standard error only, never JSON, with or without --json. Every"
    echo "command that answers a question prints JSON with --json (receipt verify, jws verify, the"
    echo "ledger and the api commands always do)."
    echo ".fi"
    echo ".SH FILES"
    echo ".TP"
    echo ".I \$XDG_STATE_HOME/gatekit/APP_ID.sqlite"
    echo "the default store (with its -wal and -shm files), where --store and \$GATEKIT_STORE name"
    echo "none; \$XDG_STATE_HOME unset or empty: ~/.local/state. APP_ID is --app-id, default"
    echo ".BR gatekit ."
    echo "Only commands that record something create it (eula accept, decline, check, minor and"
    echo "publish; perm usage, register, record, reset and watch; ledger ingest, sync, refresh, link,"
    echo "unlink and catalog declare). Questions create nothing: asked of an absent store, the ledger"
    echo "questions, store path and store info say no store yet, name the path and exit 3; eula"
    echo "status answers that nothing was accepted; perm questions answer as an empty store does."
    echo ".TP"
    echo ".I DIR/root.der, DIR/leaf.key"
    echo "a test PKI made by gatekit test pki (tests only; see docs/testing.md)"
    echo ".SH ENVIRONMENT"
    echo ".TP"
    echo ".B GATEKIT_STORE"
    echo "the store: a file path, or a PostgreSQL connection string (postgresql://...)"
    echo ".TP"
    echo '.BR XDG_STATE_HOME ", " HOME'
    echo "where the default store lives (FILES); a relative value is an error, never ignored"
    echo ".TP"
    echo '.BR PGSSLMODE ", " PGCONNECT_TIMEOUT ", " PGOPTIONS ", " PGPASSFILE ", and the other " PG*'
    echo "as libpq reads them, for a PostgreSQL store"
    echo ".TP"
    echo ".B TMPDIR"
    echo "where a question about an absent store keeps its empty stand-in (removed on exit)"
    echo ".TP"
    echo ".B GATEKIT_ACCEPT_EULA"
    echo "1: eula check accepts without a terminal"
    echo ".TP"
    echo ".B GATEKIT_EULA_TIMEOUT"
    echo "seconds eula check waits for an answer (300)"
    echo ".TP"
    echo ".B PAGER"
    echo "shows a EULA longer than the terminal (less)"
    echo ".SH SEE ALSO"
    echo "The README and docs/ of GateKit; gatekit.h."
} > "$out/gatekit.1"

# Completion: commands, then each command's subcommands (as the top-level usage lists them:
# "  eula status|show|…") and options (every --word its usage names), then file names.
{
    echo "# bash completion for gatekit, generated from its --help texts"
    echo "_gatekit() {"
    echo "    local cur=\${COMP_WORDS[COMP_CWORD]} cmd=\"\" i"
    echo "    for ((i = 1; i < COMP_CWORD; i++)); do"
    echo "        case \${COMP_WORDS[i]} in --store|--app-id) ((i++)) ;; -*) ;; *) cmd=\${COMP_WORDS[i]}; break ;; esac"
    echo "    done"
    echo "    case \$cmd in"
    echo "    \"\") COMPREPLY=(\$(compgen -W \"${commands[*]} help --store --app-id --help --version\" -- \"\$cur\")) ;;"
    for c in "${commands[@]}"; do
        subs=$("$tool" --help | sed -n "s/^  $c \([a-z|-]*\).*/\1/p" | tr '|' ' ')
        # api's endpoints are too many for the top-level line: its own text lists them.
        [ "$c" = api ] && subs=$("$tool" help api | grep -oE '(get|look|finish|send|set|extend|request|upload|delete|configure|initiate)-[a-z-]+' | sort -u | tr '\n' ' ')
        opts=$("$tool" help "$c" | { grep -o -- '--[a-z][a-z0-9-]*' || true; } | sort -u | tr '\n' ' ')
        echo "    $c) COMPREPLY=(\$(compgen -W \"$subs $opts--help\" -- \"\$cur\") \$(compgen -f -- \"\$cur\")) ;;"
    done
    echo "    help) COMPREPLY=(\$(compgen -W \"${commands[*]}\" -- \"\$cur\")) ;;"
    echo "    esac"
    echo "}"
    echo "complete -F _gatekit gatekit"
} > "$out/gatekit.bash"

/* bench/ab.sh's workload, counted in instructions by callgrind (repeatable whatever else the
 * machine does): 400 signed transactions (100 customers x 4 renewals) and 400 notifications
 * ingested in batches of 100 into a tmpfs store, then 2,000 warm ledger_is_entitled. Run from a
 * tree's root (the test PKI's script). */
#include "bench.h"
#include "bench_ledger_data.h"
#include <gatekit.h>
#include <string.h>
#include <unistd.h>
static char folder[] = "/tmp/gk-drv-XXXXXX";
static char shm[] = "/dev/shm/gk-drv-XXXXXX";
int main(void) {
    if (!mkdtemp(folder) || !mkdtemp(shm)) return 2;
    setup_pki(folder);
    long long base = (long long)time(NULL) * 1000 - 2592000000LL / 2;
    enum { N = 400 };
    static char *items[2][N];
    for (int i = 0; i < N; i++) { items[0][i] = signed_transaction(i / 4, i % 4, base); items[1][i] = signed_notification(i / 4, i % 4, base); }
    gatekit_store *s = open_store(shm, "drv.sqlite");
    for (int kind = 0; kind < 2; kind++)
        for (int i = 0; i < N; i += 100)
            if (ledger_ingest_batch(NULL, s, kind ? GATEKIT_JWS_NOTIFICATION : GATEKIT_JWS_TRANSACTION, (const char *const *)&items[kind][i], 100, &options) < 0) { fprintf(stderr, "%s\n", gatekit_last_error()); return 1; }
    gatekit_ledger_query q;
    if (ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION) != 0) return 1;
    q.environment = "Sandbox";
    q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    for (int i = 0; i < 2000; i++) { gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION}; if (ledger_is_entitled(&e, s, &q, "1000000007", "pro.monthly") < 0) return 1; }
    gatekit_store_close(s);
    char cmd[200]; snprintf(cmd, sizeof cmd, "rm -rf %s %s", folder, shm); return system(cmd);
}

/* both_stores.c: a C host asks the ledger the quick start left (examples/both_stores.py, or
 * the tool's steps in docs/play.md) one question — is this user entitled to this entitlement,
 * whichever store she paid in? — and prints the answer's JSON, which names the store.
 *
 *   cc both_stores.c $(pkg-config --cflags --libs gatekit) -o both_stores
 *   ./both_stores STORE APP_USER ENTITLEMENT [--test-signed]
 *
 * Exit 0: entitled now; 3: not entitled (the JSON says why); 1: an error. --test-signed asks
 * the test data of both stores (Apple data signed by a test PKI, a license tester's Play
 * purchase), as the quick start holds. */
#include <gatekit.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 4 || (argc == 5 && strcmp(argv[4], "--test-signed") != 0) || argc > 5) {
        fprintf(stderr, "usage: %s STORE APP_USER ENTITLEMENT [--test-signed]\n", argv[0]);
        return 2;
    }
    gatekit_store *store = NULL;
    /* A question never creates a store: one that is not there is an error here. */
    int rc = gatekit_store_open_flags(&store, argv[1], NULL, GATEKIT_STORE_EXISTING);
    if (rc < 0) {
        fprintf(stderr, "cannot open %s: %s (%s)\n", argv[1], gatekit_strerror(rc), gatekit_last_error());
        return 1;
    }
    gatekit_ledger_query query;
    if ((rc = ledger_query_init(&query, GATEKIT_LEDGER_QUERY_VERSION)) < 0) {
        fprintf(stderr, "%s\n", gatekit_last_error());
        gatekit_store_close(store);
        return 1;
    }
    query.environment = "Production";  /* Play's purchases are production purchases */
    query.flags = GATEKIT_LEDGER_APP_USER | (argc == 5 ? GATEKIT_LEDGER_TEST_SIGNED : 0);
    char *json = NULL;
    rc = ledger_entitlement(&json, store, &query, argv[2], argv[3]);
    if (rc < 0) {
        fprintf(stderr, "ledger_entitlement: %s (%s)\n", gatekit_strerror(rc), gatekit_last_error());
        gatekit_store_close(store);
        return 1;
    }
    puts(json);
    gatekit_free(json);
    gatekit_store_close(store);
    return rc == 1 ? 0 : 3;
}

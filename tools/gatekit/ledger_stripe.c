/* gatekit ledger ingest --store-kind stripe: what Stripe's API answered about a Subscription or a
 * Checkout Session, recorded in the store's ledger beside the stores' purchases
 * (include/gatekit/ledger_stripe.h). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* What one Stripe ingest records. */
typedef struct stripe_answer {
    unsigned char *data;
    size_t len;
    long long answered_ms;
    gatekit_ledger_stripe_options options;
} stripe_answer;

static int record_stripe(char **json, gatekit_store *store, void *context) {
    const stripe_answer *a = context;
    return ledger_ingest_stripe(json, store, a->data, a->len, a->answered_ms, &a->options);
}

int gk_ledger_stripe_ingest(gk_cli *cli, int argc, char **argv) {
    const char *who = "gatekit ledger ingest --store-kind stripe";
    const char *store_kind = NULL, *answered = NULL, *grace = NULL, *key = NULL, *file = NULL;
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--store-kind", &store_kind)) || (r = gk_option(argc, argv, &i, "--answered-ms", &answered)) ||
            (r = gk_option(argc, argv, &i, "--past-due-grace-ms", &grace)) ||
            (r = gk_option(argc, argv, &i, "--account-metadata-key", &key))) {
            if (r < 0) return gk_usage(gk_ledger_usage);
            continue;
        }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || file) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_ledger_usage);
        }
        file = argv[i];
    }
    if (gk_missing(who, "FILE (or - for standard input)", file)) return gk_usage(gk_ledger_usage);
    stripe_answer answer = {0};
    int rc = ledger_stripe_options_init(&answer.options, GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION);
    if (rc < 0) return gk_fail("ledger_stripe_options_init", rc);
    if (answered && (answer.answered_ms = gk_number(answered)) <= 0) {
        fprintf(stderr, "%s: --answered-ms must be Unix milliseconds (1 to 19 digits)\n", who);
        return GK_EXIT_USAGE;
    }
    if (grace && (answer.options.past_due_grace_ms = gk_number(grace)) < 0) {
        fprintf(stderr, "%s: --past-due-grace-ms must be 0 (none) or a length in ms\n", who);
        return GK_EXIT_USAGE;
    }
    answer.options.account_metadata_key = key;
    if ((answer.data = gk_read_data(who, file, &answer.len)) == NULL) return GK_EXIT_ERROR;
    char *json = NULL;
    rc = gk_record(cli, record_stripe, &answer, &json);
    free(answer.data);
    if (rc == GK_NOT_OPENED) return GK_EXIT_ERROR;
    if (rc < 0) return gk_fail("ledger ingest", rc);
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

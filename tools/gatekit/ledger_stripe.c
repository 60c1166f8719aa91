/* gatekit ledger ingest --store-kind stripe: what Stripe's API answered about a Subscription, a
 * Checkout Session, an Invoice, a Charge or a Dispute, recorded in the store's ledger beside the stores' purchases; gatekit ledger
 * refresh-stripe: the object read from Stripe and recorded; gatekit ledger sync-stripe: the ledger
 * healed from Stripe's lists (include/gatekit/ledger_stripe.h). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The ledger options the three commands share. */
typedef struct stripe_option_args {
    const char *grace, *key, *disputes;
} stripe_option_args;

/* 1 when argv[*i] is one of the shared options (its value taken), -1 when its value is
 * missing, 0 when it is another argument. */
static int stripe_option(int argc, char **argv, int *i, stripe_option_args *a) {
    int r = 0;
    if ((r = gk_option(argc, argv, i, "--past-due-grace-ms", &a->grace)) || (r = gk_option(argc, argv, i, "--account-metadata-key", &a->key)) ||
        (r = gk_option(argc, argv, i, "--disputes", &a->disputes))) {
        return r;
    }
    return 0;
}

/* The options from the shared arguments: GK_EXIT_OK, or GK_EXIT_USAGE / GK_EXIT_ERROR after printing why. */
static int stripe_options(const char *who, const stripe_option_args *a, gatekit_ledger_stripe_options *options) {
    int rc = ledger_stripe_options_init(options, GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION);
    if (rc < 0) return gk_fail("ledger_stripe_options_init", rc);
    if (a->grace && (options->past_due_grace_ms = gk_number(a->grace)) < 0) {
        fprintf(stderr, "%s: --past-due-grace-ms must be 0 (none) or a length in ms\n", who);
        return GK_EXIT_USAGE;
    }
    options->account_metadata_key = a->key;
    if (a->disputes) {
        static const char *const names[] = {"opened", "lost", "never"};
        static const int policies[] = {GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_OPENED, GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_LOST,
                                       GATEKIT_STRIPE_DISPUTES_NEVER};
        size_t n = 0;
        while (n < 3 && strcmp(a->disputes, names[n]) != 0) n++;
        if (n == 3) {
            fprintf(stderr, "%s: --disputes takes opened, lost or never, not %s\n", who, a->disputes);
            return GK_EXIT_USAGE;
        }
        options->dispute_policy = policies[n];
    }
    return GK_EXIT_OK;
}

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
    const char *store_kind = NULL, *answered = NULL, *file = NULL;
    stripe_option_args shared = {0};
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--store-kind", &store_kind)) || (r = gk_option(argc, argv, &i, "--answered-ms", &answered)) ||
            (r = stripe_option(argc, argv, &i, &shared))) {
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
    int rc = stripe_options(who, &shared, &answer.options);
    if (rc != GK_EXIT_OK) return rc;
    if (answered && (answer.answered_ms = gk_number(answered)) <= 0) {
        fprintf(stderr, "%s: --answered-ms must be Unix milliseconds (1 to 19 digits)\n", who);
        return GK_EXIT_USAGE;
    }
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

/* What one refresh records: the object Stripe answers about. */
typedef struct stripe_refresh {
    gatekit_stripe_client *client;
    const char *object_id;
    gatekit_ledger_stripe_options options;
} stripe_refresh;

static int record_refresh(char **json, gatekit_store *store, void *context) {
    const stripe_refresh *r = context;
    return ledger_refresh_stripe(json, store, r->client, r->object_id, &r->options);
}

int gk_ledger_stripe_refresh(gk_cli *cli, int argc, char **argv) {
    const char *who = "gatekit ledger refresh-stripe";
    const char *object_id = NULL;
    stripe_option_args shared = {0};
    gk_stripe_client_args client_args = {0};
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_stripe_client_option(argc, argv, &i, &client_args)) || (r = stripe_option(argc, argv, &i, &shared))) {
            if (r < 0) return gk_usage(gk_ledger_usage);
            continue;
        }
        if (argv[i][0] == '-' || object_id) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_ledger_usage);
        }
        object_id = argv[i];
    }
    if (gk_missing(who, "OBJECT_ID (sub_…, cs_…, in_…, ch_…, re_… or du_…)", object_id)) return gk_usage(gk_ledger_usage);
    stripe_refresh refresh = {.object_id = object_id};
    int rc = stripe_options(who, &shared, &refresh.options);
    if (rc != GK_EXIT_OK) return rc;
    if (!(refresh.client = gk_stripe_client(who, &client_args))) return GK_EXIT_ERROR;
    char *json = NULL;
    rc = gk_record(cli, record_refresh, &refresh, &json);
    stripe_client_free(refresh.client);
    if (rc == GK_NOT_OPENED) return GK_EXIT_ERROR;
    return gk_stripe_answer(who, rc, json);
}

int gk_ledger_stripe_sync(gk_cli *cli, int argc, char **argv) {
    const char *who = "gatekit ledger sync-stripe";
    const char *budget = NULL, *pages = NULL;
    stripe_option_args shared = {0};
    gk_stripe_client_args client_args = {0};
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_stripe_client_option(argc, argv, &i, &client_args)) || (r = stripe_option(argc, argv, &i, &shared)) ||
            (r = gk_option(argc, argv, &i, "--budget-ms", &budget)) || (r = gk_option(argc, argv, &i, "--max-pages", &pages))) {
            if (r < 0) return gk_usage(gk_ledger_usage);
            continue;
        }
        fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
        return gk_usage(gk_ledger_usage);
    }
    gatekit_ledger_stripe_sync_options sync;
    gatekit_ledger_stripe_options options;
    int rc = ledger_stripe_sync_options_init(&sync, GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_VERSION);
    if (rc < 0) return gk_fail(who, rc);
    if ((rc = stripe_options(who, &shared, &options)) != GK_EXIT_OK) return rc;
    long long b = budget ? gk_number(budget) : 0, p = pages ? gk_number(pages) : 0;
    if (b < 0 || p < 0 || p > 1000000) {
        fprintf(stderr, "%s: --budget-ms and --max-pages are numbers (0 or more)\n", who);
        return GK_EXIT_USAGE;
    }
    sync.budget_ms = b;
    sync.max_pages = (int)p;
    gatekit_stripe_client *client = gk_stripe_client(who, &client_args);
    if (!client) return GK_EXIT_ERROR;
    gatekit_store *store = gk_store(cli);
    if (!store) {
        stripe_client_free(client);
        return GK_EXIT_ERROR;
    }
    char *json = NULL;
    rc = ledger_sync_stripe(&json, store, client, &sync, &options);
    stripe_client_free(client);
    return gk_stripe_answer(who, rc, json);
}

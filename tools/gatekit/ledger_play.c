/* gatekit ledger ingest --store-kind play: what the Play Developer API answered, recorded in the
 * store's ledger beside Apple's purchases (include/gatekit/ledger_play.h). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The store kind argv names ("" when --store-kind has no value), NULL when none: Apple's data. */
const char *gk_ledger_store_kind(int argc, char **argv) {
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--store-kind") == 0) return i + 1 < argc ? argv[i + 1] : "";
    return NULL;
}

/* What one Play ingest records: an answer of the Play Developer API for one token. */
typedef struct play_answer {
    int subscription;        /* 0: a one-time product */
    const char *package;
    const char *product_id;  /* a v1 products.get answer's product; NULL: productsv2's answer */
    const char *token;
    unsigned char *data;
    size_t len;
    long long answered_ms;
} play_answer;

static int record_play(char **json, gatekit_store *store, void *context) {
    const play_answer *a = context;
    if (a->subscription) return ledger_ingest_play_subscription(json, store, a->package, a->token, a->data, a->len, a->answered_ms);
    if (a->product_id) return ledger_ingest_play_product_v1(json, store, a->package, a->product_id, a->token, a->data, a->len, a->answered_ms);
    return ledger_ingest_play_product(json, store, a->package, a->token, a->data, a->len, a->answered_ms);
}

int gk_ledger_play_ingest(gk_cli *cli, int argc, char **argv) {
    const char *who = "gatekit ledger ingest --store-kind play";
    const char *store_kind = NULL, *type = NULL, *package = NULL, *token = NULL, *answered = NULL, *product_id = NULL, *file = NULL;
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--store-kind", &store_kind)) || (r = gk_option(argc, argv, &i, "--type", &type)) ||
            (r = gk_option(argc, argv, &i, "--package", &package)) || (r = gk_option(argc, argv, &i, "--token", &token)) ||
            (r = gk_option(argc, argv, &i, "--answered-ms", &answered)) || (r = gk_option(argc, argv, &i, "--product-id", &product_id))) {
            if (r < 0) return gk_usage(gk_ledger_usage);
            continue;
        }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || file) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_ledger_usage);
        }
        file = argv[i];
    }
    if (!store_kind || strcmp(store_kind, "play") != 0) {
        fprintf(stderr, "gatekit ledger ingest: --store-kind is play or stripe (Apple's data needs none), not %s\n", store_kind ? store_kind : "given");
        return gk_usage(gk_ledger_usage);
    }
    if (gk_missing(who, "--type", type) || gk_missing(who, "--package", package) || gk_missing(who, "--token", token) ||
        gk_missing(who, "FILE (or - for standard input)", file))
        return gk_usage(gk_ledger_usage);
    static const char *const types[] = {"subscription", "product", NULL};
    if (!gk_is_one_of(type, types)) {
        const char *near = gk_nearest(type, types);
        fprintf(stderr, "%s: --type %s is not subscription or product%s%s%s\n", who, type, near ? " (did you mean " : "",
                near ? near : "", near ? "?)" : "");
        return gk_usage(gk_ledger_usage);
    }
    if (product_id && strcmp(type, "product") != 0) {
        fprintf(stderr, "%s: --product-id names the product of a purchases.products.get answer (--type product), not a subscription's\n", who);
        return gk_usage(gk_ledger_usage);
    }
    long long answered_ms = 0;
    if (answered && (answered_ms = gk_number(answered)) <= 0) {
        fprintf(stderr, "%s: --answered-ms must be Unix milliseconds (1 to 19 digits)\n", who);
        return GK_EXIT_USAGE;
    }
    play_answer answer = {.subscription = strcmp(type, "subscription") == 0, .package = package, .product_id = product_id, .token = token,
                          .answered_ms = answered_ms};
    if ((answer.data = gk_read_data(who, file, &answer.len)) == NULL) return GK_EXIT_ERROR;
    char *json = NULL;
    int rc = gk_record(cli, record_play, &answer, &json);
    free(answer.data);
    if (rc == GK_NOT_OPENED) return GK_EXIT_ERROR;
    if (rc < 0) return gk_fail("ledger ingest", rc);
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

int gk_ledger_play_sync(gk_cli *cli, int argc, char **argv) {
    const char *who = "gatekit ledger sync-play";
    const char *package = NULL, *account = NULL, *base_url = NULL, *ca_file = NULL, *timeout = NULL, *retries = NULL;
    const char *budget = NULL, *pages = NULL, *refreshes = NULL;
    int metadata_server = 0;
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if (strcmp(argv[i], "--metadata-server") == 0) { metadata_server = 1; continue; }
        if ((r = gk_option(argc, argv, &i, "--package", &package)) || (r = gk_option(argc, argv, &i, "--service-account", &account)) ||
            (r = gk_option(argc, argv, &i, "--base-url", &base_url)) || (r = gk_option(argc, argv, &i, "--ca-file", &ca_file)) ||
            (r = gk_option(argc, argv, &i, "--timeout", &timeout)) || (r = gk_option(argc, argv, &i, "--retries", &retries)) ||
            (r = gk_option(argc, argv, &i, "--budget-ms", &budget)) || (r = gk_option(argc, argv, &i, "--max-pages", &pages)) ||
            (r = gk_option(argc, argv, &i, "--max-refreshes", &refreshes))) {
            if (r < 0) return gk_usage(gk_ledger_usage);
            continue;
        }
        fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
        return gk_usage(gk_ledger_usage);
    }
    if (gk_missing(who, "--package", package)) return gk_usage(gk_ledger_usage);
    gatekit_ledger_play_sync_options o;
    int rc = ledger_play_sync_options_init(&o, GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_VERSION);
    if (rc < 0) return gk_fail("ledger_play_sync_options_init", rc);
    long long b = budget ? gk_number(budget) : 0, p = pages ? gk_number(pages) : 0, n = refreshes ? gk_number(refreshes) : o.max_refreshes;
    if (b < 0 || p < 0 || p > 1000000 || n < 0 || n > 1000000) {
        fprintf(stderr, "%s: --budget-ms, --max-pages and --max-refreshes are numbers (0 or more)\n", who);
        return GK_EXIT_USAGE;
    }
    o.budget_ms = b;
    o.max_pages = (int)p;
    o.max_refreshes = (int)n;
    gatekit_play_client *client = gk_play_client(package, account, metadata_server, base_url, ca_file, timeout, retries);
    if (!client) return GK_EXIT_ERROR;
    gatekit_store *store = gk_store(cli);
    if (!store) { play_client_free(client); return GK_EXIT_ERROR; }
    char *json = NULL;
    rc = ledger_sync_play(&json, store, client, &o);
    play_client_free(client);
    if (rc < 0) {
        int code = gk_fail("ledger sync-play", rc);
        return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
    }
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

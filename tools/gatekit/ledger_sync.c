/* gatekit ledger sync | sync-state | refresh: the ledger kept in step with Apple's App Store
 * Server API (include/gatekit/ledger_sync.h), for a systemd timer, cron and support tools. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    gk_client_options client;
    gk_signed_options s;  /* --at: the certificate-check time, as for ledger ingest */
    const char *since, *until, *budget, *max_pages, *lease, *customer;
    int count;
} sync_args;

static int parse(const char *who, int argc, char **argv, sync_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_client_option(argc, argv, &i, &a->client)) || (r = gk_signed_option(argc, argv, &i, &a->s)) ||
            (r = gk_option(argc, argv, &i, "--since", &a->since)) || (r = gk_option(argc, argv, &i, "--until", &a->until)) ||
            (r = gk_option(argc, argv, &i, "--budget", &a->budget)) || (r = gk_option(argc, argv, &i, "--max-pages", &a->max_pages)) ||
            (r = gk_option(argc, argv, &i, "--lease", &a->lease))) {
            if (r < 0) return -1;
            continue;
        }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || a->count == 1) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return -1;
        }
        a->customer = argv[i];
        a->count++;
    }
    return 0;
}

/* An instant option in Unix ms (0 when absent); -1 after printing why. */
static long long instant_ms(const char *who, const char *name, const char *value) {
    if (!value) return 0;
    long long ms = gk_parse_time_ms(value);
    if (ms <= 0) fprintf(stderr, "%s: %s must be Unix seconds or YYYY-MM-DDTHH:MM:SSZ\n", who, name);
    return ms <= 0 ? -1 : ms;
}

/* A whole number option within [1, max] (0 when absent); -1 after printing why. */
static long long count_of(const char *who, const char *name, const char *value, long long max) {
    if (!value) return 0;
    long long n = gk_number(value);
    if (n < 1 || n > max) fprintf(stderr, "%s: %s must be 1 to %lld\n", who, name, max);
    return n < 1 || n > max ? -1 : n;
}

static int report(const char *who, int rc, char *json) {
    if (rc < 0) {
        int code = gk_fail(who, rc);
        return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
    }
    if (json) puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

/* sync and refresh: a client, the verification options, then the call. */
static int with_client(gk_cli *cli, const char *command, const sync_args *a) {
    char who[64];
    snprintf(who, sizeof who, "gatekit ledger %s", command);
    int refresh = strcmp(command, "refresh") == 0;
    if (gk_missing_client_option(who, &a->client) || gk_missing(who, "--bundle-id", a->s.bundle_id) ||
        gk_missing(who, "--environment", a->s.environment) || (refresh && gk_missing(who, "CUSTOMER", a->customer)))
        return gk_usage(gk_ledger_usage);
    if (!refresh && a->count) {
        fprintf(stderr, "%s: unexpected argument %s\n", who, a->customer);
        return gk_usage(gk_ledger_usage);
    }
    if (gk_check_environment(who, a->s.environment)) return GK_EXIT_USAGE;
    gatekit_ledger_sync_options o;
    int rc = ledger_sync_options_init(&o, GATEKIT_LEDGER_SYNC_OPTIONS_VERSION);
    if (rc < 0) return gk_fail("ledger_sync_options_init", rc);
    long long budget = count_of(who, "--budget (ms)", a->budget, 86400000), pages = count_of(who, "--max-pages", a->max_pages, 1000000);
    long long lease = count_of(who, "--lease (ms)", a->lease, 86400000);
    if ((o.since_ms = instant_ms(who, "--since", a->since)) < 0 || (o.until_ms = instant_ms(who, "--until", a->until)) < 0 ||
        budget < 0 || pages < 0 || lease < 0)
        return GK_EXIT_USAGE;
    o.budget_ms = budget;
    o.max_pages = (int)pages;
    if (lease) o.lease_ms = lease;

    gatekit_jws_options verify;
    unsigned char *anchor = NULL;
    int bad = gk_jws_options(who, &a->s, 0, &verify, &anchor);
    if (bad) return bad;
    int status = GK_EXIT_ERROR;
    gatekit_store *store = gk_store(cli);
    gatekit_appstore_client *client = store ? gk_make_client(who, &a->client, a->s.bundle_id, a->s.environment, NULL) : NULL;
    if (client) {
        char *json = NULL;
        o.verify = &verify;
        rc = refresh ? ledger_refresh(&json, store, client, &verify, a->customer)
                     : ledger_sync_notifications(&json, store, client, &o);
        status = report(who, rc, json);
        appstore_client_free(client);
    }
    free(anchor);
    return status;
}

int gk_ledger_sync(gk_cli *cli, int argc, char **argv) {
    const char *command = argv[1];
    int state = strcmp(command, "sync-state") == 0;
    if (!state && strcmp(command, "sync") != 0 && strcmp(command, "refresh") != 0) return -1000;
    sync_args a = {0};
    if (parse("gatekit ledger", argc, argv, &a) < 0) return gk_usage(gk_ledger_usage);
    if (!state) return with_client(cli, command, &a);
    const char *who = "gatekit ledger sync-state";
    if (gk_missing(who, "--environment", a.s.environment)) return gk_usage(gk_ledger_usage);
    if (a.count) {
        fprintf(stderr, "%s: unexpected argument %s\n", who, a.customer);
        return gk_usage(gk_ledger_usage);
    }
    /* A Play sync's state goes by the name its report prints: play:<package>. */
    if (strncmp(a.s.environment, "play:", 5) != 0 && gk_check_environment(who, a.s.environment)) return GK_EXIT_USAGE;
    int missing;
    gatekit_store *store = gk_asked_store(cli, who, &missing);
    if (!store) return missing;
    char *json = NULL;
    int rc = ledger_sync_state(&json, store, a.s.environment);
    return report("gatekit ledger sync-state", rc, json);
}

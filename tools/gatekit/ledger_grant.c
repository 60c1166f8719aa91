/* gatekit ledger grant | revoke-grant: entitlements support gives by hand
 * (include/gatekit/ledger_grant.h). */
#include "cli.h"

#include <string.h>
#include <time.h>

/* An instant option: Unix seconds or YYYY-MM-DDTHH:MM:SSZ; 0 when absent, -1 (said) when bad. */
static long long instant(const char *who, const char *name, const char *value) {
    if (!value) return 0;
    long long ms = gk_parse_time_ms(value);
    if (ms <= 0) {
        fprintf(stderr, "%s: %s must be Unix seconds or YYYY-MM-DDTHH:MM:SSZ\n", who, name);
        return -1;
    }
    return ms;
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int gk_ledger_grant(gk_cli *cli, int argc, char **argv) {
    int revoke = strcmp(argv[1], "revoke-grant") == 0;
    const char *who = revoke ? "gatekit ledger revoke-grant" : "gatekit ledger grant";
    const char *environment = NULL, *user = NULL, *customer = NULL, *by = NULL, *note = NULL;
    const char *from = NULL, *until = NULL, *days = NULL, *at = NULL, *subject = NULL;
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--environment", &environment)) || (r = gk_option(argc, argv, &i, "--by", &by)) ||
            (r = gk_option(argc, argv, &i, "--note", &note)) ||
            (revoke ? (r = gk_option(argc, argv, &i, "--at", &at))
                    : ((r = gk_option(argc, argv, &i, "--app-user", &user)) || (r = gk_option(argc, argv, &i, "--customer", &customer)) ||
                       (r = gk_option(argc, argv, &i, "--from", &from)) || (r = gk_option(argc, argv, &i, "--until", &until)) ||
                       (r = gk_option(argc, argv, &i, "--days", &days))))) {
            if (r < 0) return gk_usage(gk_ledger_usage);
            continue;
        }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || subject) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_ledger_usage);
        }
        subject = argv[i];
    }
    if (gk_missing(who, "--environment", environment) || gk_missing(who, "--by", by)) return gk_usage(gk_ledger_usage);
    if (gk_check_environment(who, environment)) return GK_EXIT_USAGE;
    if (!subject) {
        fprintf(stderr, "%s: missing %s\n", who, revoke ? "GRANT_ID" : "ENTITLEMENT");
        return gk_usage(gk_ledger_usage);
    }
    if (!revoke && !user == !customer) {
        fprintf(stderr, "%s: name exactly one of --app-user and --customer\n", who);
        return gk_usage(gk_ledger_usage);
    }
    if (until && days) {
        fprintf(stderr, "%s: --until or --days, not both\n", who);
        return gk_usage(gk_ledger_usage);
    }
    long long from_ms = instant(who, "--from", from), until_ms = instant(who, "--until", until), at_ms = instant(who, "--at", at);
    if (from_ms < 0 || until_ms < 0 || at_ms < 0) return GK_EXIT_USAGE;
    if (days) {
        long long n = gk_number(days);
        if (n <= 0 || n > 36500) {
            fprintf(stderr, "%s: --days must be a number of days, 1 to 36500\n", who);
            return GK_EXIT_USAGE;
        }
        if (!from_ms) from_ms = now_ms();
        until_ms = from_ms + n * 86400000LL;
    }
    gatekit_store *store = gk_store(cli);
    if (!store) return GK_EXIT_ERROR;
    char *json = NULL;
    int rc = revoke ? ledger_revoke_grant(&json, store, environment, subject, at_ms, by, note)
                    : ledger_grant(&json, store, environment, subject, user, customer, from_ms, until_ms, by, note);
    if (rc < 0) {
        int code = gk_fail(who, rc);
        return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
    }
    puts(json);
    gatekit_free(json);
    /* A grant revoked before: nothing recorded, said by the exit status as unlink says it. */
    return revoke && rc == 0 ? GK_EXIT_NO : GK_EXIT_OK;
}

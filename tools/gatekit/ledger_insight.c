/* gatekit ledger metrics | metrics-refresh | report: the ledger's subscription metrics as
 * JSON, their day roll-up kept current, and the report as one self-contained HTML page. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *environment, *from, *to, *by, *split, *at, *at_ms, *customer, *output;
    int test_signed, app_user, follow;
} insight_args;

static int parse(int argc, char **argv, insight_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--environment", &a->environment)) || (r = gk_option(argc, argv, &i, "--from", &a->from)) ||
            (r = gk_option(argc, argv, &i, "--to", &a->to)) || (r = gk_option(argc, argv, &i, "--by", &a->by)) ||
            (r = gk_option(argc, argv, &i, "--split", &a->split)) || (r = gk_option(argc, argv, &i, "--at", &a->at)) ||
            (r = gk_option(argc, argv, &i, "--at-ms", &a->at_ms)) || (r = gk_option(argc, argv, &i, "--customer", &a->customer)) ||
            (r = gk_option(argc, argv, &i, "--output", &a->output))) {
            if (r < 0) return -1;
            continue;
        }
        if (strcmp(argv[i], "--test-signed") == 0) { a->test_signed = 1; continue; }
        if (strcmp(argv[i], "--app-user") == 0) { a->app_user = 1; continue; }
        if (strcmp(argv[i], "--follow") == 0) { a->follow = 1; continue; }
        fprintf(stderr, "gatekit ledger %s: unexpected argument %s\n", argv[1], argv[i]);
        return -1;
    }
    return 0;
}

/* The index of name in names (NULL-terminated), or -1 after saying what is accepted. */
static int named(const char *who, const char *option, const char *name, const char *const *names) {
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0) return i;
    fprintf(stderr, "%s: %s is one of", who, option);
    for (int i = 0; names[i]; i++) fprintf(stderr, " %s", names[i]);
    fprintf(stderr, ", not %s\n", name);
    return -1;
}

/* gatekit ledger metrics-refresh: once, or (--follow) every quarter of a second until SIGTERM
 * (a pass with nothing new is one small read that holds off no writer). */
static int refresh(gk_cli *cli, const insight_args *a) {
    const char *who = "gatekit ledger metrics-refresh";
    if (a->from || a->to || a->by || a->split || a->at || a->at_ms || a->customer || a->output || a->app_user) {
        fprintf(stderr, "%s: takes --environment, --test-signed and --follow only\n", who);
        return gk_usage(gk_ledger_usage);
    }
    if (gk_missing(who, "--environment", a->environment)) return gk_usage(gk_ledger_usage);
    if (gk_check_environment(who, a->environment)) return GK_EXIT_USAGE;
    gatekit_ledger_query q;
    int rc = ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION);
    if (rc < 0) return gk_fail("ledger_query_init", rc);
    q.environment = a->environment;
    q.flags = a->test_signed ? GATEKIT_LEDGER_TEST_SIGNED : 0;
    int missing;
    gatekit_store *store = gk_asked_store(cli, who, &missing);
    if (!store) return missing;
    if (!a->follow) {
        if ((rc = ledger_metrics_refresh(store, &q)) < 0) return gk_fail(who, rc);
        printf("%s: %s\n", who, rc == 1 ? "counted the items ingested since the last refresh" : "already current");
        return GK_EXIT_OK;
    }
    gk_catch_stop_signals();
    fprintf(stderr, "%s: keeping %s's roll-up current in %s until stopped (SIGTERM or Ctrl-C)\n", who, a->environment, gatekit_store_path(store));
    struct timespec tick = {0, 250 * 1000000L};
    while (!gk_stop_requested()) {
        if ((rc = ledger_metrics_refresh(store, &q)) < 0) return gk_fail(who, rc);
        if (rc == 0) nanosleep(&tick, NULL);
    }
    return GK_EXIT_OK;
}

int gk_ledger_insight(gk_cli *cli, int argc, char **argv) {
    const char *command = argv[1];
    int report = strcmp(command, "report") == 0;
    insight_args a = {0};
    if (strcmp(command, "metrics-refresh") == 0) {
        if (parse(argc, argv, &a) < 0) return gk_usage(gk_ledger_usage);
        return refresh(cli, &a);
    }
    if (!report && strcmp(command, "metrics") != 0) return -1000;
    const char *who = report ? "gatekit ledger report" : "gatekit ledger metrics";
    if (parse(argc, argv, &a) < 0) return gk_usage(gk_ledger_usage);
    if (a.follow) {
        fprintf(stderr, "%s: --follow is for ledger metrics-refresh\n", who);
        return gk_usage(gk_ledger_usage);
    }
    if (gk_missing(who, "--environment", a.environment) || gk_missing(who, "--from", a.from) || gk_missing(who, "--to", a.to))
        return gk_usage(gk_ledger_usage);
    if (!report && (a.customer || a.output || a.app_user)) {
        fprintf(stderr, "%s: %s is for ledger report\n", who, a.customer ? "--customer" : a.output ? "--output" : "--app-user");
        return gk_usage(gk_ledger_usage);
    }
    if (report && a.split) {
        fprintf(stderr, "%s: --split is for ledger metrics (the report shows the whole app)\n", who);
        return gk_usage(gk_ledger_usage);
    }
    if (gk_check_environment(who, a.environment)) return GK_EXIT_USAGE;
    static const char *const sizes[] = {"day", "week", "month", NULL};
    static const char *const splits[] = {"all", "product", "group", "entitlement", "storefront", "currency", "store", NULL};
    int size = named(who, "--by", a.by ? a.by : "month", sizes);
    int split = named(who, "--split", a.split ? a.split : "all", splits);
    if (size < 0 || split < 0) return GK_EXIT_USAGE;
    long long from = gk_parse_day_ms(a.from), to = gk_parse_day_ms(a.to);
    if (from < 0 || to < 0) {
        fprintf(stderr, "%s: --from and --to are YYYY-MM-DD, YYYY-MM-DDTHH:MM:SSZ or Unix seconds\n", who);
        return GK_EXIT_USAGE;
    }
    gatekit_ledger_query q;
    int rc = ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION);
    if (rc < 0) return gk_fail("ledger_query_init", rc);
    q.environment = a.environment;
    q.flags = (a.test_signed ? GATEKIT_LEDGER_TEST_SIGNED : 0) | (a.app_user ? GATEKIT_LEDGER_APP_USER : 0);
    if ((a.at_ms && (q.at_ms = gk_number(a.at_ms)) <= 0) || (a.at && (q.at_ms = gk_parse_day_ms(a.at)) <= 0)) {
        fprintf(stderr, "%s: --at is a time as for --from, --at-ms Unix milliseconds\n", who);
        return GK_EXIT_USAGE;
    }
    int missing;
    gatekit_store *store = gk_asked_store(cli, who, &missing);
    if (!store) return missing;
    char *text = NULL;
    rc = report ? ledger_report(&text, store, &q, from, to, GATEKIT_METRICS_DAY + size, a.customer)
                : ledger_metrics(&text, store, &q, from, to, GATEKIT_METRICS_DAY + size, split);
    if (rc < 0) {
        int code = gk_fail(who, rc);
        return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
    }
    if (!report && strstr(text, "\"onlyTestSigned\":true"))
        fprintf(stderr, "%s: every item the ledger holds for %s is test-signed, and these are App Store data's metrics: "
                "add --test-signed to see the test data's\n", who, a.environment);
    if (!report) {
        puts(text);
        gatekit_free(text);
        return GK_EXIT_OK;
    }
    int fd = gk_create_output(a.output);
    if (fd < 0) {
        gatekit_free(text);
        return GK_EXIT_ERROR;
    }
    size_t length = strlen(text);
    int failed = gk_write_all(fd, text, length) != 0;
    if (fd != STDOUT_FILENO && close(fd) != 0) failed = 1;
    gatekit_free(text);
    if (failed) {
        fprintf(stderr, "%s: writing %s: %s\n", who, a.output ? a.output : "standard output", strerror(errno));
        return GK_EXIT_ERROR;
    }
    if (fd != STDOUT_FILENO) printf("ledger report: %zu bytes written to %s\n", length, a.output);
    return GK_EXIT_OK;
}

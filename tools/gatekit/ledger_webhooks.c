/* gatekit ledger webhook-add | webhook-update | webhook-roll | webhooks | webhook-deliveries |
 * webhook-replay | deliver: the ledger's changes delivered to a team's backend
 * (include/gatekit/ledger_webhooks.h, docs/webhooks.md). */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_EVENT_TYPES = 32 };

static int failed(const char *who, int rc) {
    int code = gk_fail(who, rc);
    return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : rc == GATEKIT_ENOTFOUND ? GK_EXIT_NO : code;
}

/* rc and *out after the call that set them (never in one argument list: C does not order them). */
static int print_and_free(const char *who, int rc, char *out) {
    if (rc < 0) return failed(who, rc);
    if (!out) return gk_fail(who, GATEKIT_EINTERNAL);
    puts(out);
    gatekit_free(out);
    return GK_EXIT_OK;
}

/* A non-negative number option (absent: fallback); -1 after saying why. */
static long long amount(const char *who, const char *name, const char *value, long long fallback) {
    if (!value) return fallback;
    long long n = gk_number(value);
    if (n < 0) fprintf(stderr, "%s: %s must be a number (0 to 19 digits)\n", who, name);
    return n;
}

/* "a,b,c" split in place into names; the count, or -1 after saying why. */
static int split_types(const char *who, char *list, const char **names) {
    int n = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (n == MAX_EVENT_TYPES) {
            fprintf(stderr, "%s: at most %d event types\n", who, MAX_EVENT_TYPES);
            return -1;
        }
        names[n++] = name;
    }
    return n;
}

static int deliver(gatekit_store *store, const char *who, const gatekit_webhook_delivery_options *o, const char *budget, int follow) {
    if (!follow) {
        long long ms = amount(who, "--budget-ms", budget, 10000);
        if (ms < 0 || ms > 3600000) {
            if (ms >= 0) fprintf(stderr, "%s: --budget-ms is 0 to 3600000\n", who);
            return GK_EXIT_USAGE;
        }
        char *json = NULL;
        int rc = ledger_webhook_deliver(&json, store, o, (int)ms);
        return print_and_free(who, rc, json);
    }
    gatekit_webhook_delivery *running = NULL;
    int rc = ledger_webhook_delivery_start(&running, store, o);
    if (rc < 0) return failed(who, rc);
    gk_catch_stop_signals();
    fprintf(stderr, "%s: delivering from %s until stopped (SIGTERM or Ctrl-C)\n", who, gatekit_store_path(store));
    struct timespec tick = {0, 50 * 1000000L};
    while (!gk_stop_requested()) nanosleep(&tick, NULL);
    rc = ledger_webhook_delivery_stop(running);
    if (rc < 0) return failed(who, rc);
    return GK_EXIT_OK;
}

int gk_ledger_webhooks(gk_cli *cli, int argc, char **argv) {
    const char *command = argv[1];
    char who[64];
    snprintf(who, sizeof who, "gatekit ledger %s", command);
    const char *description = NULL, *url = NULL, *events = NULL, *overlap = NULL, *state = NULL, *after = NULL, *limit = NULL;
    const char *from_seq = NULL, *to_seq = NULL, *since = NULL, *until = NULL, *ca_file = NULL, *timeout = NULL;
    const char *give_up = NULL, *disable_after = NULL, *worker = NULL, *budget = NULL, *subject = NULL;
    int allow_private = 0, allow_loopback_http = 0, enable = 0, disable = 0, prometheus = 0, follow = 0;
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--description", &description)) || (r = gk_option(argc, argv, &i, "--url", &url)) ||
            (r = gk_option(argc, argv, &i, "--events", &events)) || (r = gk_option(argc, argv, &i, "--overlap-ms", &overlap)) ||
            (r = gk_option(argc, argv, &i, "--state", &state)) || (r = gk_option(argc, argv, &i, "--after", &after)) ||
            (r = gk_option(argc, argv, &i, "--limit", &limit)) || (r = gk_option(argc, argv, &i, "--from-seq", &from_seq)) ||
            (r = gk_option(argc, argv, &i, "--to-seq", &to_seq)) || (r = gk_option(argc, argv, &i, "--since", &since)) ||
            (r = gk_option(argc, argv, &i, "--until", &until)) || (r = gk_option(argc, argv, &i, "--ca-file", &ca_file)) ||
            (r = gk_option(argc, argv, &i, "--timeout", &timeout)) || (r = gk_option(argc, argv, &i, "--give-up-after-ms", &give_up)) ||
            (r = gk_option(argc, argv, &i, "--disable-after-ms", &disable_after)) || (r = gk_option(argc, argv, &i, "--worker", &worker)) ||
            (r = gk_option(argc, argv, &i, "--budget-ms", &budget))) {
            if (r < 0) return gk_usage(gk_ledger_usage);
            continue;
        }
        if (strcmp(argv[i], "--allow-private") == 0) { allow_private = 1; continue; }
        if (strcmp(argv[i], "--allow-loopback-http") == 0) { allow_loopback_http = 1; continue; }
        if (strcmp(argv[i], "--enable") == 0) { enable = 1; continue; }
        if (strcmp(argv[i], "--disable") == 0) { disable = 1; continue; }
        if (strcmp(argv[i], "--prometheus") == 0) { prometheus = 1; continue; }
        if (strcmp(argv[i], "--follow") == 0) { follow = 1; continue; }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || subject) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_ledger_usage);
        }
        subject = argv[i];
    }
    int takes_subject = strcmp(command, "webhooks") != 0 && strcmp(command, "deliver") != 0;
    if (takes_subject && !subject) {
        fprintf(stderr, "%s: missing %s\n", who, strcmp(command, "webhook-add") == 0 ? "URL" : "ENDPOINT_ID");
        return gk_usage(gk_ledger_usage);
    }
    if (!takes_subject && subject) {
        fprintf(stderr, "%s: unexpected argument %s\n", who, subject);
        return gk_usage(gk_ledger_usage);
    }
    if (enable && disable) {
        fprintf(stderr, "%s: --enable or --disable, not both\n", who);
        return gk_usage(gk_ledger_usage);
    }
    int flags = (allow_private ? GATEKIT_WEBHOOK_ALLOW_PRIVATE : 0) | (allow_loopback_http ? GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP : 0);

    gatekit_webhook_delivery_options o;
    int rc = ledger_webhook_delivery_options_init(&o, GATEKIT_WEBHOOK_DELIVERY_OPTIONS_VERSION);
    if (rc < 0) return gk_fail("ledger_webhook_delivery_options_init", rc);
    if (strcmp(command, "deliver") == 0) {
        long long t = amount(who, "--timeout", timeout, o.attempt_timeout_ms), g = amount(who, "--give-up-after-ms", give_up, o.give_up_after_ms);
        long long d = amount(who, "--disable-after-ms", disable_after, o.disable_after_ms);
        if (t < 0 || g < 0 || d < 0) return GK_EXIT_USAGE;
        if (t > INT_MAX) t = INT_MAX;  /* the library says what the range is */
        o.attempt_timeout_ms = (int)t;
        o.give_up_after_ms = g;
        o.disable_after_ms = d;
        o.ca_file = ca_file;
        o.worker = worker;
        o.flags = flags;
    }

    gatekit_store *store = gk_store(cli);
    if (!store) return GK_EXIT_ERROR;
    char *out = NULL;
    if (strcmp(command, "webhook-add") == 0) {
        const char *names[MAX_EVENT_TYPES];
        char *list = events ? strdup(events) : NULL;
        int n = list ? split_types(who, list, names) : 0;
        if (n < 0) { free(list); return GK_EXIT_USAGE; }
        rc = ledger_webhook_endpoint_add(&out, store, subject, n ? names : NULL, (size_t)n, description, flags);
        free(list);
        return print_and_free(who, rc, out);
    }
    if (strcmp(command, "webhook-update") == 0) {
        /* The change as JSON: each given member, its text escaped by the library's reader of it. */
        char *change = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&change, &len);
        if (!f) return gk_fail(who, GATEKIT_ENOMEM);
        fputc('{', f);
        const char *sep = "";
        const char *texts[][2] = {{"url", url}, {"description", description}};
        for (int k = 0; k < 2; k++) {
            if (!texts[k][1]) continue;
            fprintf(f, "%s\"%s\":\"", sep, texts[k][0]);
            for (const unsigned char *c = (const unsigned char *)texts[k][1]; *c; c++) {
                if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
                else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
                else fputc(*c, f);
            }
            fputc('"', f);
            sep = ",";
        }
        if (events) {
            fprintf(f, "%s\"eventTypes\":[", sep);
            const char *names[MAX_EVENT_TYPES];
            char *list = strdup(events);
            int n = list ? split_types(who, list, names) : -1;
            for (int k = 0; k < n; k++) fprintf(f, "%s\"%s\"", k ? "," : "", strpbrk(names[k], "\"\\") ? "?" : names[k]);
            free(list);
            fputc(']', f);
            sep = ",";
            if (n < 0) { fclose(f); free(change); return GK_EXIT_USAGE; }
        }
        if (enable || disable) fprintf(f, "%s\"enabled\":%s", sep, enable ? "true" : "false");
        fputc('}', f);
        fclose(f);
        rc = ledger_webhook_endpoint_update(&out, store, subject, change, flags);
        free(change);
        return print_and_free(who, rc, out);
    }
    if (strcmp(command, "webhook-roll") == 0) {
        long long ms = amount(who, "--overlap-ms", overlap, 86400000);
        if (ms < 0) return GK_EXIT_USAGE;
        rc = ledger_webhook_secret_roll(&out, store, subject, ms);
        return print_and_free(who, rc, out);
    }
    if (strcmp(command, "webhooks") == 0) {
        rc = prometheus ? ledger_webhook_metrics(&out, store) : ledger_webhook_report(&out, store);
        if (rc < 0) return failed(who, rc);
        fputs(out, stdout);
        if (!prometheus) fputc('\n', stdout);
        gatekit_free(out);
        return GK_EXIT_OK;
    }
    if (strcmp(command, "webhook-deliveries") == 0) {
        long long a = amount(who, "--after", after, 0), n = amount(who, "--limit", limit, 100);
        if (a < 0 || n < 0) return GK_EXIT_USAGE;
        rc = ledger_webhook_deliveries(&out, store, subject, state, a, n > INT_MAX ? INT_MAX : (int)n);
        return print_and_free(who, rc, out);
    }
    if (strcmp(command, "webhook-replay") == 0) {
        long long from = amount(who, "--from-seq", from_seq, 0), to = amount(who, "--to-seq", to_seq, LLONG_MAX);
        long long since_ms = since ? gk_parse_time_ms(since) : 0, until_ms = until ? gk_parse_time_ms(until) : LLONG_MAX;
        if (from < 0 || to < 0) return GK_EXIT_USAGE;
        if (since_ms < 0 || until_ms <= 0) {
            fprintf(stderr, "%s: --since and --until are Unix seconds or YYYY-MM-DDTHH:MM:SSZ\n", who);
            return GK_EXIT_USAGE;
        }
        rc = ledger_webhook_replay(store, subject, from, to, since_ms, until_ms);
        if (rc < 0) return failed(who, rc);
        printf("{\"queued\":%d}\n", rc);
        return GK_EXIT_OK;
    }
    return deliver(store, who, &o, budget, follow);
}

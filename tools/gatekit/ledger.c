/* gatekit ledger: ingest verified App Store data into the store's entitlement ledger and ask
 * it who is entitled to what. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char gk_ledger_usage[] =
    "gatekit ledger ingest --type notification|transaction|renewal-info|app-transaction|receipt\n"
    "                      --bundle-id ID --environment Production|Sandbox|Xcode|LocalTesting\n"
    "                      [--app-apple-id N] [--at TIME|now] [--test-anchor CERT [--test-production]] FILE|-\n"
    "    verifies the signed data (a receipt: validates it) and records it; prints what it did as\n"
    "    JSON (\"outcome\": new, duplicate or superseded); refused data as jws verify (exit 10,\n"
    "    11, 12). --at: the certificate-check time, Unix\n"
    "    seconds, YYYY-MM-DDTHH:MM:SSZ or now (default: the payload's signedDate).\n"
    "gatekit ledger entitled --environment ENV [--test-signed] [--app-user] [--at TIME | --at-ms MS] CUSTOMER PRODUCT|GROUP\n"
    "    the answer as JSON; exit 0 when entitled, 3 when not\n"
    "gatekit ledger status   --environment ENV [--test-signed] [--at …] CUSTOMER [GROUP]\n"
    "    the subscriptions as Apple's \"Get All Subscription Statuses\" returns them\n"
    "gatekit ledger active   --environment ENV [--test-signed] [--at …] CUSTOMER\n"
    "    every product the customer is entitled to\n"
    "gatekit ledger eligible --environment ENV [--test-signed] [--at …] CUSTOMER GROUP\n"
    "    exit 0 when the group's introductory offer may be shown, 3 when not\n"
    "gatekit ledger history  --environment ENV [--test-signed] [CUSTOMER]\n"
    "    every ingested item and status change as JSON\n"
    "gatekit ledger catalog  declare [--at TIME | --at-ms MS] FILE|-\n"
    "    declares the app's products: their entitlement names, groups, types and non-renewing\n"
    "    terms (JSON, docs/ledger.md), in effect from --at (default now); PRODUCT|GROUP above\n"
    "    may then be an entitlement name\n"
    "gatekit ledger catalog  [--at TIME | --at-ms MS]\n"
    "    the catalog in effect at that instant (default now) as JSON\n"
    "gatekit ledger link     --environment ENV APP_USER CUSTOMER\n"
    "gatekit ledger unlink   --environment ENV APP_USER CUSTOMER\n"
    "    your own user id linked to (or unlinked from) a customer; a customer belongs to one app\n"
    "    account at a time (linking it elsewhere prints \"transferred\"); unlink exits 3 when\n"
    "    there was no such link. --app-user on a question: CUSTOMER is your user id\n"
    "gatekit ledger links    --environment ENV [APP_USER] [--customer CUSTOMER] [--at …]\n"
    "    the links in effect (default now) and every change, as JSON\n"
    "gatekit ledger changes  [--after SEQ] [--limit N] [--follow]\n"
    "    the change feed: every change of an answer after SEQ as JSON; --follow prints each\n"
    "    change as one JSON line as it comes, until stopped\n"
    "gatekit ledger sync     KEY_OPTIONS --bundle-id ID --environment ENV [--app-apple-id N]\n"
    "                      [--test-anchor CERT] [--since TIME] [--until TIME] [--budget MS]\n"
    "                      [--max-pages N] [--lease MS]\n"
    "    ingests every notification Apple attempted to send since the last sync (Get\n"
    "    Notification History), lost ones included; resumable, one host at a time; prints the\n"
    "    report as JSON (\"outcome\": done, partial or busy). For a systemd timer or cron\n"
    "gatekit ledger refresh  KEY_OPTIONS --bundle-id ID --environment ENV [...] CUSTOMER\n"
    "    one customer from Apple's transaction history and subscription statuses\n"
    "gatekit ledger sync-state --environment ENV\n"
    "    the checkpoint (\"syncedUntil\"), a window part-way, a lease held\n"
    "gatekit ledger metrics  --environment ENV [--test-signed] --from DATE --to DATE [--by day|week|month]\n"
    "                      [--split all|product|group|entitlement|storefront|currency] [--at …]\n"
    "    subscription metrics for [--from, --to) as JSON (docs/ledger.md, \"Metrics\"): active,\n"
    "    trials, paid subscribers, new, renewed, converted, recovered, expired by cause, refunds,\n"
    "    revenue and MRR per currency, cohorts; DATE: YYYY-MM-DD (UTC) or a time as for --at\n"
    "gatekit ledger report   --environment ENV [--test-signed] --from DATE --to DATE [--by …] [--at …]\n"
    "                      [--customer CUSTOMER [--app-user]] [--output FILE.html]\n"
    "    the report as one self-contained HTML page (no script, no network): the app view, or\n"
    "    with --customer that customer's timelines and entitlement; --output: a new file (mode\n"
    "    0600), default standard output\n"
    "KEY_OPTIONS: --key FILE.p8 --key-id ID --issuer-id ID [--base-url URL --ca-file PEM]\n"
    "[--timeout MS --retries N], as gatekit api. --at: the certificate-check time, as for ingest.\n"
    "A customer is an app account token or an original transaction id. --at / --at-ms ask as of\n"
    "that instant (only what Apple had signed by then counts); default now. --test-signed asks\n"
    "about data accepted under a test anchor, never mixed with App Store data.";

typedef struct {
    gk_signed_options s;  /* --at: for ingest the certificate-check time, for questions the instant asked about */
    const char *type, *at_ms, *customer, *after, *limit;
    const char *positional[3];
    int count, test_signed, app_user, follow;
} ledger_args;

static int parse(int argc, char **argv, ledger_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--type", &a->type)) || (r = gk_option(argc, argv, &i, "--at-ms", &a->at_ms)) ||
            (r = gk_option(argc, argv, &i, "--customer", &a->customer)) || (r = gk_option(argc, argv, &i, "--after", &a->after)) ||
            (r = gk_option(argc, argv, &i, "--limit", &a->limit)) || (r = gk_signed_option(argc, argv, &i, &a->s))) {
            if (r < 0) return -1;
            continue;
        }
        if (strcmp(argv[i], "--test-signed") == 0) { a->test_signed = 1; continue; }
        if (strcmp(argv[i], "--app-user") == 0) { a->app_user = 1; continue; }
        if (strcmp(argv[i], "--follow") == 0) { a->follow = 1; continue; }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || a->count == 3) {
            fprintf(stderr, "gatekit ledger: unexpected argument %s\n", argv[i]);
            return -1;
        }
        a->positional[a->count++] = argv[i];
    }
    return 0;
}

static int ingest(gk_cli *cli, const ledger_args *a) {
    const char *who = "gatekit ledger ingest";
    if (gk_missing(who, "--type", a->type) || gk_missing(who, "--bundle-id", a->s.bundle_id) ||
        gk_missing(who, "--environment", a->s.environment) || gk_missing(who, "FILE (or - for standard input)", a->count ? a->positional[0] : NULL))
        return gk_usage(gk_ledger_usage);
    if (a->count != 1) return gk_usage(gk_ledger_usage);
    int receipt = strcmp(a->type, "receipt") == 0;
    int kind = receipt ? 0 : gk_jws_kind(who, "--type", a->type);
    if (kind < 0) return gk_usage(gk_ledger_usage);
    if (kind == GATEKIT_JWS_REALTIME_REQUEST) {
        fprintf(stderr, "%s: a realtime request changes no entitlement and is not recorded\n", who);
        return gk_usage(gk_ledger_usage);
    }
    /* The receipt options take the same bundle id, time and anchor as the JWS ones. */
    gatekit_jws_options o;
    unsigned char *anchor = NULL;
    int bad = gk_jws_options(who, &a->s, 1, &o, &anchor);
    if (bad) return bad;
    gatekit_store *store = gk_store(cli);
    if (!store) { free(anchor); return GK_EXIT_ERROR; }
    char *json = NULL;
    int rc;
    if (receipt) {
        size_t len = 0;
        unsigned char *data = gk_read_all(a->positional[0], &len);
        if (!data) { free(anchor); return GK_EXIT_ERROR; }
        gatekit_receipt_options ro;
        if ((rc = receipt_options_init(&ro, GATEKIT_RECEIPT_OPTIONS_VERSION)) < 0) {
            free(data);
            free(anchor);
            return gk_fail("receipt_options_init", rc);
        }
        ro.bundle_id = o.bundle_id;
        ro.verify_time = o.verify_time;
        ro.test_anchor_der = o.test_anchor_der;
        ro.test_anchor_len = o.test_anchor_len;
        rc = ledger_ingest_receipt(&json, store, data, len, &ro);
        free(data);
    } else {
        char *text = gk_load_text(a->positional[0]);
        if (!text) { free(anchor); return GK_EXIT_ERROR; }
        if (kind == GATEKIT_JWS_NOTIFICATION) rc = ledger_ingest_notification(&json, store, text, &o);
        else if (kind == GATEKIT_JWS_TRANSACTION) rc = ledger_ingest_transaction(&json, store, text, &o);
        else if (kind == GATEKIT_JWS_RENEWAL_INFO) rc = ledger_ingest_renewal_info(&json, store, text, &o);
        else rc = ledger_ingest_app_transaction(&json, store, text, &o);
        free(text);
    }
    free(anchor);
    if (rc <= -100 && rc > -400) return gk_refused("ledger ingest", rc);  /* the data itself was refused */
    if (rc < 0) return gk_fail("ledger ingest", rc);
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

/* gatekit ledger catalog [declare FILE|-]: the instant is --at / --at-ms (0: now). */
static int catalog(gk_cli *cli, const ledger_args *a, long long at_ms) {
    int declare = a->count > 0 && strcmp(a->positional[0], "declare") == 0;
    if (a->s.environment || a->test_signed || (declare ? a->count != 2 : a->count != 0)) return gk_usage(gk_ledger_usage);
    gatekit_store *store = declare ? gk_store(cli) : gk_question_store(cli);
    if (!store) return GK_EXIT_ERROR;
    if (declare) {
        char *text = gk_load_text(a->positional[1]);
        if (!text) return GK_EXIT_ERROR;
        int rc = ledger_declare_catalog(store, text, at_ms);
        free(text);
        if (rc < 0) {
            int code = gk_fail("ledger catalog declare", rc);
            return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
        }
    }
    char *json = NULL;
    int rc = ledger_catalog(&json, store, declare ? 0 : at_ms);
    if (rc < 0) return gk_fail("ledger catalog", rc);
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

/* gatekit ledger link|unlink ENV APP_USER CUSTOMER, links [APP_USER] [--customer C]. */
static int accounts(gk_cli *cli, const char *command, const ledger_args *a, long long at_ms) {
    int links = strcmp(command, "links") == 0;
    if (gk_missing("gatekit ledger", "--environment", a->s.environment)) return gk_usage(gk_ledger_usage);
    if (gk_check_environment("gatekit ledger", a->s.environment)) return GK_EXIT_USAGE;
    if (links ? a->count > 1 : (a->count != 2 || a->customer)) {
        if (!links && a->count < 2) fprintf(stderr, "gatekit ledger %s: missing %s\n", command, a->count ? "CUSTOMER" : "APP_USER");
        return gk_usage(gk_ledger_usage);
    }
    gatekit_store *store = links ? gk_question_store(cli) : gk_store(cli);
    if (!store) return GK_EXIT_ERROR;
    char *json = NULL;
    int rc = links ? ledger_links(&json, store, a->s.environment, a->count ? a->positional[0] : NULL, a->customer, at_ms)
           : strcmp(command, "link") == 0 ? ledger_link(store, a->s.environment, a->positional[0], a->positional[1])
           : ledger_unlink(store, a->s.environment, a->positional[0], a->positional[1]);
    if (rc < 0) {
        int code = gk_fail(command, rc);
        return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
    }
    if (links) {
        puts(json);
        gatekit_free(json);
        return GK_EXIT_OK;
    }
    if (strcmp(command, "link") == 0) puts(rc == 2 ? "transferred" : rc == 1 ? "linked" : "unchanged");
    else puts(rc == 1 ? "unlinked" : "not linked");
    return strcmp(command, "unlink") == 0 && rc == 0 ? GK_EXIT_NO : GK_EXIT_OK;
}

/* Prints each change of a ledger_changes() document on its own line (JSON lines). Returns the
 * number printed; *last receives the document's cursor. */
static int print_changes(const char *json, long long *last) {
    int printed = 0;
    const char *p = strstr(json, "\"changes\":[");
    if (!p) return 0;
    p += strlen("\"changes\":[");
    while (*p == '{') {
        /* The object's end: the brace that closes it, outside strings (an app user id may hold
         * any character, escaped only where JSON says). */
        const char *end = p;
        int depth = 0, in_string = 0;
        for (; *end; end++) {
            if (in_string) {
                if (*end == '\\' && end[1]) end++;
                else if (*end == '"') in_string = 0;
            } else if (*end == '"') {
                in_string = 1;
            } else if (*end == '{' || *end == '[') {
                depth++;
            } else if ((*end == '}' || *end == ']') && --depth == 0) {
                break;
            }
        }
        if (!*end) break;
        printf("%.*s\n", (int)(end - p + 1), p);
        printed++;
        p = end + 1;
        if (*p == ',') p++;
    }
    const char *cursor = strstr(json, "\"last\":");
    if (cursor) *last = strtoll(cursor + 7, NULL, 10);
    fflush(stdout);
    return printed;
}

/* gatekit ledger changes [--after N] [--limit N] [--follow]. */
static int changes(gk_cli *cli, const ledger_args *a) {
    if (a->count || a->s.environment) return gk_usage(gk_ledger_usage);
    long long after = a->after ? gk_number(a->after) : 0, limit = a->limit ? gk_number(a->limit) : 1000;
    if (after < 0 || limit < 1 || limit > 10000) {
        fprintf(stderr, "gatekit ledger changes: --after is a sequence number (0 or more), --limit 1 to 10000\n");
        return GK_EXIT_USAGE;
    }
    gatekit_store *store = a->follow ? gk_store(cli) : gk_question_store(cli);
    if (!store) return GK_EXIT_ERROR;
    for (;;) {
        char *json = NULL;
        int rc = ledger_changes(&json, store, after, (int)limit);
        if (rc < 0) return gk_fail("ledger changes", rc);
        if (!a->follow) {
            puts(json);
            gatekit_free(json);
            return GK_EXIT_OK;
        }
        int printed = print_changes(json, &after);
        gatekit_free(json);
        if (printed == 0 && (rc = ledger_wait_changes(store, after, 30000)) < 0) return gk_fail("ledger changes --follow", rc);
    }
}

int gk_cmd_ledger(gk_cli *cli, int argc, char **argv) {
    if (argc < 2) return gk_usage(gk_ledger_usage);
    const char *command = argv[1];
    int synced = gk_ledger_sync(cli, argc, argv);
    if (synced != -1000) return synced;
    int insight = gk_ledger_insight(cli, argc, argv);
    if (insight != -1000) return insight;
    ledger_args a = {0};
    if (parse(argc, argv, &a) < 0) return gk_usage(gk_ledger_usage);
    if (strcmp(command, "ingest") == 0) return ingest(cli, &a);

    gatekit_ledger_query q;
    int init = ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION);
    if (init < 0) return gk_fail("ledger_query_init", init);
    q.environment = a.s.environment;
    q.flags = (a.test_signed ? GATEKIT_LEDGER_TEST_SIGNED : 0) | (a.app_user ? GATEKIT_LEDGER_APP_USER : 0);
    if (a.at_ms && (q.at_ms = gk_number(a.at_ms)) <= 0) {
        fprintf(stderr, "gatekit ledger: --at-ms must be Unix milliseconds (1 to 19 digits)\n");
        return GK_EXIT_USAGE;
    }
    if (a.s.at && (q.at_ms = gk_parse_time_ms(a.s.at)) <= 0) {
        fprintf(stderr, "gatekit ledger: --at must be Unix seconds or YYYY-MM-DDTHH:MM:SSZ, within what milliseconds hold\n");
        return GK_EXIT_USAGE;
    }
    if (strcmp(command, "catalog") == 0) return catalog(cli, &a, q.at_ms);
    if (strcmp(command, "changes") == 0) return changes(cli, &a);
    if (a.after || a.limit || a.follow) return gk_usage(gk_ledger_usage);
    if (strcmp(command, "link") == 0 || strcmp(command, "unlink") == 0 || strcmp(command, "links") == 0)
        return accounts(cli, command, &a, q.at_ms);
    if (a.customer) return gk_usage(gk_ledger_usage);
    if (gk_missing("gatekit ledger", "--environment", a.s.environment)) return gk_usage(gk_ledger_usage);
    if (gk_check_environment("gatekit ledger", a.s.environment)) return GK_EXIT_USAGE;
    const char *customer = a.count > 0 ? a.positional[0] : NULL;
    const char *subject = a.count > 1 ? a.positional[1] : NULL;
    int entitled = strcmp(command, "entitled") == 0, eligible = strcmp(command, "eligible") == 0;
    int status = strcmp(command, "status") == 0, active = strcmp(command, "active") == 0;
    int history = strcmp(command, "history") == 0;
    if (!(entitled || eligible || status || active || history)) return gk_usage(gk_ledger_usage);
    int needed = entitled || eligible ? 2 : history ? 0 : 1;
    int allowed = entitled || eligible || status ? 2 : 1;
    if (a.count < needed) {
        fprintf(stderr, "gatekit ledger %s: missing %s\n", command, a.count == 0 && needed > 0 ? "CUSTOMER" : eligible ? "GROUP" : "PRODUCT|GROUP");
        return gk_usage(gk_ledger_usage);
    }
    if (a.count > allowed) return gk_usage(gk_ledger_usage);
    gatekit_store *store = gk_question_store(cli);
    if (!store) return GK_EXIT_ERROR;

    char *json = NULL;
    int rc;
    if (entitled) rc = ledger_entitlement(&json, store, &q, customer, subject);
    else if (eligible) rc = ledger_intro_eligible(store, &q, customer, subject);
    else if (status) rc = ledger_subscription_status(&json, store, &q, customer, subject);
    else if (active) rc = ledger_active(&json, store, &q, customer);
    else rc = ledger_history(&json, store, &q, customer);
    if (rc < 0) {
        int code = gk_fail(command, rc);
        return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
    }
    if (json) puts(json);
    else puts(rc == 1 ? "eligible" : "not eligible");
    gatekit_free(json);
    return (entitled || eligible) && rc == 0 ? GK_EXIT_NO : GK_EXIT_OK;
}

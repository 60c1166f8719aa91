/* gatekit ledger: ingest verified App Store data into the store's entitlement ledger and ask
 * it who is entitled to what. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_ledger_subcommands[] = {"ingest", "entitled", "status", "active", "eligible", "history", "catalog", "link", "unlink", "links", "changes", "sync", "sync-state", "refresh", "sync-play", "refresh-stripe", "sync-stripe", "grant", "revoke-grant", "metrics", "metrics-refresh", "report", "webhook-add", "webhook-update", "webhook-roll", "webhooks", "webhook-deliveries", "webhook-replay", "deliver", NULL};

const char gk_ledger_usage[] =
    "gatekit ledger ingest --type notification|transaction|renewal-info|app-transaction|receipt\n"
    "                      --bundle-id ID --environment Production|Sandbox|Xcode|LocalTesting\n"
    "                      [--app-apple-id N] [--at TIME|now] [--test-anchor CERT [--test-production]] FILE|-\n"
    "    verifies the signed data (a receipt: validates it) and records it; prints what it did as\n"
    "    JSON (\"outcome\": new, duplicate or superseded); refused data as jws verify (exit 10,\n"
    "    11, 12). --at: the certificate-check time, Unix\n"
    "    seconds, YYYY-MM-DDTHH:MM:SSZ or now (default: the payload's signedDate).\n"
    "gatekit ledger ingest --store-kind play --type subscription|product --package NAME --token TOKEN\n"
    "                      [--product-id ID] [--answered-ms MS] FILE|-\n"
    "    records what the Play Developer API answered for the purchase token (`gatekit play\n"
    "    subscription TOKEN` or `product-v2 TOKEN` output, exactly as Google sent it; with\n"
    "    --product-id, `product ID TOKEN`'s: purchases.products.get, v1); prints what it did as\n"
    "    JSON. --answered-ms: when Google answered (Unix ms), default now. Asked as Apple's\n"
    "    purchases are, in --environment Production (a license tester's: --test-signed).\n"
    "gatekit ledger ingest --store-kind stripe [--past-due-grace-ms MS] [--account-metadata-key KEY]\n"
    "                      [--disputes opened|lost|never] [--answered-ms MS] FILE|-\n"
    "    records what Stripe's API answered: a Subscription; a Checkout Session read with\n"
    "    expand[]=line_items (and expand[]=payment_intent); an Invoice with expand[]=payments\n"
    "    (what its payments paid for); a Charge with expand[]=refunds (refunded whole: revoked);\n"
    "    a Dispute — exactly as Stripe sent it; prints what it did as JSON. Live purchases are\n"
    "    asked in --environment Production, test mode's in Sandbox. --past-due-grace-ms: access a\n"
    "    past_due subscription keeps after the period paid for (default: the whole period Stripe\n"
    "    collects for; 0: none). --account-metadata-key: the metadata key holding your user id\n"
    "    (default app_user_id). --disputes: a dispute revokes when opened (default), only once\n"
    "    lost, or never. docs/stripe.md.\n"
    "gatekit ledger refresh-stripe OBJECT_ID --api-key-file FILE [--base-url URL --ca-file PEM] [--timeout MS]\n"
    "                              [--retries N] [--past-due-grace-ms MS] [--account-metadata-key KEY]\n"
    "                              [--disputes opened|lost|never]\n"
    "    reads the subscription (sub_…), Checkout Session (cs_…), invoice (in_…), charge (ch_…),\n"
    "    refund's charge (re_…) or dispute (du_…) from Stripe with your key and records the answer\n"
    "    as ingest --store-kind stripe does; prints what it did as JSON.\n"
    "gatekit ledger sync-stripe --api-key-file FILE [--base-url URL --ca-file PEM] [--budget-ms MS] [--max-pages N]\n"
    "                           [--past-due-grace-ms MS] [--account-metadata-key KEY] [--disputes opened|lost|never]\n"
    "    heals the ledger's Stripe purchases of the key's mode: the first time every subscription,\n"
    "    then the Events list from the checkpoint, each event's object read back from Stripe and\n"
    "    recorded; prints the report as JSON (\"outcome\": done, partial or busy).\n"
    "gatekit ledger sync-play --package NAME [--service-account FILE | --metadata-server] [--base-url URL --ca-file PEM]\n"
    "                         [--budget-ms MS] [--max-pages N] [--max-refreshes N]\n"
    "    heals the ledger's Google Play purchases: the voided-purchases list from the checkpoint,\n"
    "    then a refresh of every token whose answer may have changed; prints the report as JSON;\n"
    "    \"outcome\": done, partial (stopped by a limit: call again) or busy (another host syncs).\n"
    "gatekit ledger entitled --environment ENV [--test-signed] [--app-user] [--at TIME | --at-ms MS] CUSTOMER PRODUCT|GROUP\n"
    "    the answer as JSON; exit 0 when entitled, 3 when not (a name the catalog in effect does\n"
    "    not know is \"unknown-name\", with the nearest it knows)\n"
    "gatekit ledger status   --environment ENV [--test-signed] [--at …] CUSTOMER [GROUP]\n"
    "    the subscriptions as Apple's \"Get All Subscription Statuses\" returns them\n"
    "gatekit ledger active   --environment ENV [--test-signed] [--at …] CUSTOMER\n"
    "    every product the customer is entitled to\n"
    "gatekit ledger eligible --environment ENV [--test-signed] [--at …] CUSTOMER GROUP\n"
    "    exit 0 when the group's introductory offer may be shown, 3 when not\n"
    "gatekit ledger history  --environment ENV [--test-signed] [CUSTOMER]\n"
    "    every ingested item and status change as JSON\n"
    "gatekit ledger catalog  declare [--check] [--at TIME | --at-ms MS] FILE|-\n"
    "    declares the app's products: their entitlement names, groups, types and non-renewing\n"
    "    terms (JSON, docs/ledger.md), in effect from --at (default now); PRODUCT|GROUP above\n"
    "    may then be an entitlement name. Prints the catalog; on stderr, a warning for each\n"
    "    likely mistake against the purchases the ledger holds (a product nobody bought next to\n"
    "    one it is a typo of, a bought product left out, a name a bought product loses).\n"
    "    --check: declares nothing; prints what declaring would change as JSON, exit 3 when it\n"
    "    warns\n"
    "gatekit ledger catalog  [--at TIME | --at-ms MS]\n"
    "    the catalog in effect at that instant (default now) as JSON\n"
    "gatekit ledger link     --environment ENV APP_USER CUSTOMER\n"
    "gatekit ledger unlink   --environment ENV APP_USER CUSTOMER\n"
    "    your own user id linked to (or unlinked from) a customer; a customer belongs to one app\n"
    "    account at a time (linking it elsewhere prints \"transferred\"); unlink exits 3 when\n"
    "    there was no such link. --app-user on a question: CUSTOMER is your user id\n"
    "gatekit ledger links    --environment ENV [APP_USER] [--customer CUSTOMER] [--at …]\n"
    "    the links in effect (default now) and every change, as JSON\n"
    "gatekit ledger grant    --environment ENV --app-user APP_USER|--customer CUSTOMER --by WHO [--note WHY]\n"
    "                        [--from TIME] [--until TIME | --days N] ENTITLEMENT\n"
    "    gives the entitlement by hand (support), from --from (default now) until --until, for\n"
    "    --days, or for good; answered like a purchase with \"store\": \"grant\", never counted\n"
    "    as revenue; prints the grant as JSON (its \"grantId\")\n"
    "gatekit ledger revoke-grant --environment ENV --by WHO [--note WHY] [--at TIME] GRANT_ID\n"
    "    ends the grant from --at (default now); exits 3 when it was revoked before\n"
    "gatekit ledger changes  [--after SEQ] [--limit N] [--follow]\n"
    "    the change feed: every change of an answer after SEQ as JSON; --follow prints each\n"
    "    change as one JSON line as it comes, and each notice (an endpoint disabled: an object\n"
    "    with \"kind\"), until stopped\n"
    "gatekit ledger sync     KEY_OPTIONS --bundle-id ID --environment ENV [--app-apple-id N]\n"
    "                      [--test-anchor CERT] [--since TIME] [--until TIME] [--budget MS]\n"
    "                      [--max-pages N] [--lease MS]\n"
    "    ingests every notification Apple attempted to send since the last sync (Get\n"
    "    Notification History), lost ones included; resumable, one host at a time; prints the\n"
    "    report as JSON (\"outcome\": done, partial or busy). For a systemd timer or cron\n"
    "gatekit ledger refresh  KEY_OPTIONS --bundle-id ID --environment ENV [...] CUSTOMER\n"
    "    one customer from Apple's transaction history and subscription statuses\n"
    "gatekit ledger sync-state --environment ENV|play:PACKAGE\n"
    "    the checkpoint (\"syncedUntil\"), a window part-way, a lease held (a Play sync's by play:PACKAGE)\n"
    "gatekit ledger metrics  --environment ENV [--test-signed] --from DATE --to DATE [--by day|week|month]\n"
    "                      [--split all|product|group|entitlement|storefront|currency|store] [--at …]\n"
    "    subscription metrics for [--from, --to) as JSON (docs/ledger.md, \"Metrics\"): active,\n"
    "    trials, paid subscribers, new, renewed, converted, recovered, expired by cause, refunds,\n"
    "    revenue and MRR per currency, cohorts; DATE: YYYY-MM-DD (UTC) or a time as for --at\n"
    "gatekit ledger metrics-refresh --environment ENV [--test-signed] [--follow]\n"
    "    brings the metrics' day roll-up up to date with what was ingested, so no question waits\n"
    "    for it; --follow: a worker that keeps it current until SIGTERM (docs/ledger.md)\n"
    "gatekit ledger report   --environment ENV [--test-signed] --from DATE --to DATE [--by …] [--at …]\n"
    "                      [--customer CUSTOMER [--app-user]] [--output FILE.html]\n"
    "    the report as one self-contained HTML page (no script, no network): the app view, or\n"
    "    with --customer that customer's timelines and entitlement; --output: a new file (mode\n"
    "    0600), default standard output\n"
    "gatekit ledger webhook-add [--events TYPE,TYPE…] [--description TEXT] [--allow-private] [--allow-loopback-http] URL\n"
    "    registers a team's webhook endpoint (https://) for those event types (default every\n"
    "    type, docs/webhooks.md); prints it as JSON with its \"secret\", shown this once.\n"
    "    --allow-private: a receiver on a private or loopback address; --allow-loopback-http: a\n"
    "    plain http:// receiver on loopback (tests; deliver needs it too)\n"
    "gatekit ledger webhook-update [--url URL] [--events …] [--description TEXT] [--enable|--disable] [--allow-private] [--allow-loopback-http] ENDPOINT_ID\n"
    "gatekit ledger webhook-roll [--overlap-ms MS] ENDPOINT_ID\n"
    "    a new secret; the old one signs too for --overlap-ms (default a day, at most 7 days)\n"
    "gatekit ledger webhooks [--prometheus]\n"
    "    every endpoint with its deliveries pending, oldest pending age, delivered, dead,\n"
    "    attempts, last success as JSON; --prometheus: as Prometheus text for a scrape\n"
    "gatekit ledger webhook-deliveries [--state pending|delivered|dead|not-wanted] [--after SEQ] [--limit N] ENDPOINT_ID\n"
    "    the endpoint's deliveries with every attempt (status, time, an excerpt of the answer)\n"
    "gatekit ledger webhook-replay [--from-seq N] [--to-seq N] [--since TIME] [--until TIME] ENDPOINT_ID\n"
    "    queues again the events of that range, whatever became of them; prints {\"queued\":N}\n"
    "gatekit ledger deliver [--ca-file PEM] [--allow-private] [--allow-loopback-http] [--timeout MS] [--give-up-after-ms MS]\n"
    "                       [--disable-after-ms MS] [--worker NAME] [--budget-ms MS | --follow]\n"
    "    sends the deliveries that are due (signed Standard Webhooks; retried with backoff for 3\n"
    "    days) until none is or --budget-ms (default 10000) passed, printing what it did as JSON;\n"
    "    --follow: a worker that delivers as changes are recorded until SIGTERM. Several workers,\n"
    "    on several hosts, share the work\n"
    "KEY_OPTIONS: --key FILE.p8 --key-id ID --issuer-id ID [--base-url URL --ca-file PEM]\n"
    "[--timeout MS --retries N], as gatekit api. --at: the certificate-check time, as for ingest.\n"
    "A customer is an app account token or an original transaction id. --at / --at-ms ask as of\n"
    "that instant (only what Apple had signed by then counts); default now. --test-signed asks\n"
    "about data accepted under a test anchor, never mixed with App Store data. Questions never\n"
    "create a store: asked of one that does not exist, they say so and exit 3.";

typedef struct {
    gk_signed_options s;  /* --at: for ingest the certificate-check time, for questions the instant asked about */
    const char *type, *at_ms, *customer, *after, *limit;
    const char *positional[3];
    int count, test_signed, app_user, follow, check;
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
        if (strcmp(argv[i], "--check") == 0) { a->check = 1; continue; }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || a->count == 3) {
            fprintf(stderr, "gatekit ledger %s: unexpected argument %s\n", argv[1], argv[i]);
            return -1;
        }
        a->positional[a->count++] = argv[i];
    }
    return 0;
}

/* What one Apple ingest records: a receipt's bytes (kind -1) or a JWS's text. */
typedef struct apple_data {
    int kind;
    unsigned char *bytes;
    size_t len;
    const gatekit_jws_options *options;
} apple_data;

static int record_apple(char **json, gatekit_store *store, void *context) {
    const apple_data *d = context;
    const gatekit_jws_options *o = d->options;
    if (d->kind < 0) {
        /* The receipt options take the same bundle id, time and anchor as the JWS ones. */
        gatekit_receipt_options ro;
        int rc = receipt_options_init(&ro, GATEKIT_RECEIPT_OPTIONS_VERSION);
        if (rc < 0) return rc;
        ro.bundle_id = o->bundle_id;
        ro.verify_time = o->verify_time;
        ro.test_anchor_der = o->test_anchor_der;
        ro.test_anchor_len = o->test_anchor_len;
        return ledger_ingest_receipt(json, store, d->bytes, d->len, &ro);
    }
    const char *text = (const char *)d->bytes;
    if (d->kind == GATEKIT_JWS_NOTIFICATION) return ledger_ingest_notification(json, store, text, o);
    if (d->kind == GATEKIT_JWS_TRANSACTION) return ledger_ingest_transaction(json, store, text, o);
    if (d->kind == GATEKIT_JWS_RENEWAL_INFO) return ledger_ingest_renewal_info(json, store, text, o);
    return ledger_ingest_app_transaction(json, store, text, o);
}

static int ingest(gk_cli *cli, const ledger_args *a) {
    const char *who = "gatekit ledger ingest";
    if (gk_missing(who, "--type", a->type) || gk_missing(who, "--bundle-id", a->s.bundle_id) ||
        gk_missing(who, "--environment", a->s.environment) || gk_missing(who, "FILE (or - for standard input)", a->count ? a->positional[0] : NULL))
        return gk_usage(gk_ledger_usage);
    if (a->count != 1) {
        fprintf(stderr, "%s: takes one FILE (or -), not %d\n", who, a->count);
        return gk_usage(gk_ledger_usage);
    }
    static const char *const kinds[] = {"notification", "transaction", "renewal-info", "app-transaction", "receipt", NULL};
    if (!gk_is_one_of(a->type, kinds) && strcmp(a->type, "realtime-request") != 0) {
        const char *near = gk_nearest(a->type, kinds);
        fprintf(stderr, "%s: --type %s is not notification, transaction, renewal-info, app-transaction or receipt%s%s%s\n", who,
                a->type, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return gk_usage(gk_ledger_usage);
    }
    int receipt = strcmp(a->type, "receipt") == 0;
    int kind = receipt ? 0 : gk_jws_kind(who, "--type", a->type);
    if (kind < 0) return gk_usage(gk_ledger_usage);
    if (kind == GATEKIT_JWS_REALTIME_REQUEST) {
        fprintf(stderr, "%s: a realtime request changes no entitlement and is not recorded\n", who);
        return gk_usage(gk_ledger_usage);
    }
    gatekit_jws_options o;
    unsigned char *anchor = NULL;
    int bad = gk_jws_options(who, &a->s, 1, &o, &anchor);
    if (bad) return bad;
    apple_data d = {.kind = receipt ? -1 : kind, .options = &o};
    /* A JWS is read as text, its surrounding white space removed: the receipt as bytes. */
    if ((d.bytes = gk_read_data(who, a->positional[0], &d.len)) == NULL) { free(anchor); return GK_EXIT_ERROR; }
    if (!receipt) {
        char *text = gk_text(d.bytes, d.len);
        free(d.bytes);
        if ((d.bytes = (unsigned char *)text) == NULL) { free(anchor); return GK_EXIT_ERROR; }
    }
    char *json = NULL;
    int rc = gk_record(cli, record_apple, &d, &json);
    free(d.bytes);
    free(anchor);
    if (rc == GK_NOT_OPENED) return GK_EXIT_ERROR;
    if (rc <= -100 && rc > -400) return gk_refused("ledger ingest", rc);  /* the data itself was refused */
    if (rc < 0) return gk_fail("ledger ingest", rc);
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

static void print_warning(const char *warning, void *who) {
    fprintf(stderr, "%s: warning: %s\n", (const char *)who, warning);
}

/* gatekit ledger catalog [declare [--check] FILE|-]: the instant is --at / --at-ms (0: now). */
static int catalog(gk_cli *cli, const ledger_args *a, long long at_ms) {
    int declare = a->count > 0 && strcmp(a->positional[0], "declare") == 0;
    const char *who = declare ? "gatekit ledger catalog declare" : "gatekit ledger catalog";
    if (a->s.environment || a->test_signed) {
        fprintf(stderr, "%s: %s does not apply: a catalog is the app's, for every environment\n", who, a->s.environment ? "--environment" : "--test-signed");
        return gk_usage(gk_ledger_usage);
    }
    if (declare ? a->count != 2 : a->count != 0) {
        if (declare && a->count < 2) fprintf(stderr, "%s: missing FILE (or - for standard input)\n", who);
        else fprintf(stderr, "%s: unexpected argument %s\n", who, a->positional[declare ? 2 : 0]);
        return gk_usage(gk_ledger_usage);
    }
    if (a->check && !declare) {
        fprintf(stderr, "%s: --check goes with declare (catalog declare --check FILE)\n", who);
        return gk_usage(gk_ledger_usage);
    }
    /* A check creates nothing: without a store it checks against an empty ledger (no warning). */
    int status = GK_EXIT_ERROR;
    gatekit_store *store = a->check ? gk_question_store(cli) : declare ? gk_store(cli) : gk_asked_store(cli, who, &status);
    if (!store) return status;
    if (declare) {
        char *text = gk_load_text(a->positional[1]);
        if (!text) return GK_EXIT_ERROR;
        char *report = NULL;
        int rc = ledger_declare_catalog_report(&report, store, text, at_ms, a->check ? GATEKIT_CATALOG_CHECK_ONLY : 0);
        free(text);
        if (rc < 0) {
            int code = gk_fail(who, rc);
            return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
        }
        int warnings = gk_json_each_string(report, "warnings", print_warning, (void *)who);
        if (a->check) {
            puts(report);
            gatekit_free(report);
            return warnings ? GK_EXIT_NO : GK_EXIT_OK;
        }
        gatekit_free(report);
    }
    char *json = NULL;
    int rc = ledger_catalog(&json, store, declare ? 0 : at_ms);
    if (rc < 0) return gk_fail(who, rc);
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

/* gatekit ledger link|unlink ENV APP_USER CUSTOMER, links [APP_USER] [--customer C]. */
static int accounts(gk_cli *cli, const char *command, const ledger_args *a, long long at_ms) {
    int links = strcmp(command, "links") == 0;
    char who[64];
    snprintf(who, sizeof who, "gatekit ledger %s", command);
    if (gk_missing(who, "--environment", a->s.environment)) return gk_usage(gk_ledger_usage);
    if (gk_check_environment(who, a->s.environment)) return GK_EXIT_USAGE;
    if (links ? a->count > 1 : (a->count != 2 || a->customer)) {
        if (!links && a->count < 2) fprintf(stderr, "%s: missing %s\n", who, a->count ? "CUSTOMER" : "APP_USER");
        else if (!links && a->customer) fprintf(stderr, "%s: --customer is for ledger links; the customer is the second argument\n", who);
        else fprintf(stderr, "%s: unexpected argument %s\n", who, a->positional[links ? 1 : 2]);
        return gk_usage(gk_ledger_usage);
    }
    int status = GK_EXIT_ERROR;
    gatekit_store *store = links ? gk_asked_store(cli, who, &status) : gk_store(cli);
    if (!store) return status;
    char *json = NULL;
    int rc = links ? ledger_links(&json, store, a->s.environment, a->count ? a->positional[0] : NULL, a->customer, at_ms)
           : strcmp(command, "link") == 0 ? ledger_link(store, a->s.environment, a->positional[0], a->positional[1])
           : ledger_unlink(store, a->s.environment, a->positional[0], a->positional[1]);
    if (rc < 0) {
        int code = gk_fail(who, rc);
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

/* Prints each object of the JSON array that starts at p ('['), one a line; *printed counts
 * them. Returns what follows the array (NULL if it does not end). */
static const char *print_objects(const char *p, int *printed) {
    p++;
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
        if (!*end) return NULL;
        printf("%.*s\n", (int)(end - p + 1), p);
        (*printed)++;
        p = end + 1;
        if (*p == ',') p++;
    }
    return *p == ']' ? p + 1 : NULL;
}

/* Prints each change of a ledger_changes() document on its own line (JSON lines), then each
 * notice (an object with "kind"). Returns the number printed; *last receives the document's
 * cursor. The document is {"version":1,"changes":[...],"notices":[...],"last":N}: each member
 * is looked for where the one before it ended, never inside a string. */
static int print_changes(const char *json, long long *last) {
    int printed = 0;
    const char *p = strstr(json, "\"changes\":[");
    if (!p) return 0;
    p = print_objects(p + strlen("\"changes\":"), &printed);
    if (p && strncmp(p, ",\"notices\":[", strlen(",\"notices\":[")) == 0) p = print_objects(p + strlen(",\"notices\":"), &printed);
    if (p && strncmp(p, ",\"last\":", strlen(",\"last\":")) == 0) *last = strtoll(p + strlen(",\"last\":"), NULL, 10);
    fflush(stdout);
    return printed;
}

/* gatekit ledger changes [--after N] [--limit N] [--follow]. */
static int changes(gk_cli *cli, const ledger_args *a) {
    const char *who = "gatekit ledger changes";
    if (a->count || a->s.environment) {
        if (a->count) fprintf(stderr, "%s: unexpected argument %s\n", who, a->positional[0]);
        else fprintf(stderr, "%s: --environment does not apply: the feed holds every environment's changes\n", who);
        return gk_usage(gk_ledger_usage);
    }
    long long after = a->after ? gk_number(a->after) : 0, limit = a->limit ? gk_number(a->limit) : 1000;
    if (after < 0 || limit < 1 || limit > 10000) {
        fprintf(stderr, "gatekit ledger changes: --after is a sequence number (0 or more), --limit 1 to 10000\n");
        return GK_EXIT_USAGE;
    }
    /* --follow too: a store that does not exist is a mistake (--app-id, --store), not one to wait on. */
    int status;
    gatekit_store *store = gk_asked_store(cli, who, &status);
    if (!store) return status;
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
    if (argc < 2) {
        fprintf(stderr, "gatekit ledger: missing the subcommand\n");
        return gk_usage(gk_ledger_usage);
    }
    const char *command = argv[1];
    int synced = gk_ledger_sync(cli, argc, argv);
    if (synced != -1000) return synced;
    int insight = gk_ledger_insight(cli, argc, argv);
    if (insight != -1000) return insight;
    const char *store_kind = strcmp(command, "ingest") == 0 ? gk_ledger_store_kind(argc, argv) : NULL;
    if (store_kind) return strcmp(store_kind, "stripe") == 0 ? gk_ledger_stripe_ingest(cli, argc, argv) : gk_ledger_play_ingest(cli, argc, argv);
    if (strcmp(command, "sync-play") == 0) return gk_ledger_play_sync(cli, argc, argv);
    if (strcmp(command, "refresh-stripe") == 0) return gk_ledger_stripe_refresh(cli, argc, argv);
    if (strcmp(command, "sync-stripe") == 0) return gk_ledger_stripe_sync(cli, argc, argv);
    if (strcmp(command, "grant") == 0 || strcmp(command, "revoke-grant") == 0) return gk_ledger_grant(cli, argc, argv);
    if (strncmp(command, "webhook", 7) == 0 || strcmp(command, "deliver") == 0) return gk_ledger_webhooks(cli, argc, argv);
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
    if (a.check) {
        fprintf(stderr, "gatekit ledger %s: --check is for ledger catalog declare\n", command);
        return gk_usage(gk_ledger_usage);
    }
    if (strcmp(command, "changes") == 0) return changes(cli, &a);
    if (a.after || a.limit || a.follow) {
        fprintf(stderr, "gatekit ledger %s: %s is for ledger changes\n", command, a.after ? "--after" : a.limit ? "--limit" : "--follow");
        return gk_usage(gk_ledger_usage);
    }
    if (strcmp(command, "link") == 0 || strcmp(command, "unlink") == 0 || strcmp(command, "links") == 0)
        return accounts(cli, command, &a, q.at_ms);
    char who[64];
    snprintf(who, sizeof who, "gatekit ledger %s", command);
    if (a.customer) {
        fprintf(stderr, "%s: --customer is for ledger links and report; CUSTOMER is an argument here\n", who);
        return gk_usage(gk_ledger_usage);
    }
    if (gk_missing(who, "--environment", a.s.environment)) return gk_usage(gk_ledger_usage);
    if (gk_check_environment(who, a.s.environment)) return GK_EXIT_USAGE;
    const char *customer = a.count > 0 ? a.positional[0] : NULL;
    const char *subject = a.count > 1 ? a.positional[1] : NULL;
    int entitled = strcmp(command, "entitled") == 0, eligible = strcmp(command, "eligible") == 0;
    int status = strcmp(command, "status") == 0, active = strcmp(command, "active") == 0;
    int history = strcmp(command, "history") == 0;
    if (!(entitled || eligible || status || active || history)) {
        fprintf(stderr, "gatekit ledger: unknown subcommand %s\n", command);
        return gk_usage(gk_ledger_usage);
    }
    int needed = entitled || eligible ? 2 : history ? 0 : 1;
    int allowed = entitled || eligible || status ? 2 : 1;
    if (a.count < needed) {
        fprintf(stderr, "gatekit ledger %s: missing %s\n", command, a.count == 0 && needed > 0 ? "CUSTOMER" : eligible ? "GROUP" : "PRODUCT|GROUP");
        return gk_usage(gk_ledger_usage);
    }
    if (a.count > allowed) {
        fprintf(stderr, "%s: unexpected argument %s\n", who, a.positional[allowed]);
        return gk_usage(gk_ledger_usage);
    }
    int missing;
    gatekit_store *store = gk_asked_store(cli, who, &missing);
    if (!store) return missing;

    char *json = NULL;
    int rc;
    if (entitled) rc = ledger_entitlement(&json, store, &q, customer, subject);
    else if (eligible) rc = ledger_intro_eligible(store, &q, customer, subject);
    else if (status) rc = ledger_subscription_status(&json, store, &q, customer, subject);
    else if (active) rc = ledger_active(&json, store, &q, customer);
    else rc = ledger_history(&json, store, &q, customer);
    if (rc < 0) {
        int code = gk_fail(who, rc);
        return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : code;
    }
    if (entitled && json && strstr(json, "\"reason\":\"unknown-name\"")) {
        char *near = gk_json_string_member(json, "didYouMean");
        fprintf(stderr, "%s: the catalog in effect names no product, group or entitlement \"%s\"", who, subject);
        if (near) fprintf(stderr, " (did you mean \"%s\"?)", near);
        fprintf(stderr, "; `gatekit ledger catalog` shows the names it knows\n");
        free(near);
    }
    if (json) puts(json);
    else puts(rc == 1 ? "eligible" : "not eligible");
    gatekit_free(json);
    return (entitled || eligible) && rc == 0 ? GK_EXIT_NO : GK_EXIT_OK;
}

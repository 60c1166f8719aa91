/* gatekit play: Google Play's side — the Play Developer API through the library's client
 * (a service account's OAuth, HTTPS, Google's errors, retries) and the verification of a
 * real-time developer notification push from its headers and body. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char gk_play_usage[] =
    "gatekit play COMMAND [ARGUMENTS] CLIENT_OPTIONS\n"
    "commands (the Play Developer API, Android Publisher v3):\n"
    "  subscription TOKEN                          purchases.subscriptionsv2.get\n"
    "  product PRODUCT_ID TOKEN                    purchases.products.get\n"
    "  product-v2 TOKEN                            purchases.productsv2.getproductpurchasev2\n"
    "  voided [--start-time T] [--end-time T] [--subscriptions] [--max-results N] [--page-token T]\n"
    "         [--partial-refunds]                  purchases.voidedpurchases.list (one page)\n"
    "  acknowledge subscription|product PRODUCT_ID TOKEN [--developer-payload TEXT]\n"
    "  consume PRODUCT_ID TOKEN                    purchases.products.consume\n"
    "  revoke TOKEN [--refund full|prorated] [--item PRODUCT_ID]   subscriptionsv2.revoke\n"
    "  cancel TOKEN [--type USER_REQUESTED_STOP_RENEWALS|DEVELOPER_REQUESTED_STOP_PAYMENTS]\n"
    "  defer TOKEN --request FILE                  subscriptionsv2.defer (Google's request as JSON)\n"
    "  order ORDER_ID...                           orders.get (one id), orders.batchget (more)\n"
    "CLIENT_OPTIONS: --package NAME [--service-account FILE (the JSON key; default: the file\n"
    "GOOGLE_APPLICATION_CREDENTIALS names) | --metadata-server (no key: the machine's metadata\n"
    "server, GCE_METADATA_HOST)] [--base-url URL --ca-file PEM (a stand-in or proxy) --timeout MS\n"
    "--retries N]. T: Unix seconds or YYYY-MM-DDTHH:MM:SSZ.\n"
    "  verify-push --headers FILE --body FILE --package NAME --audience URL --email SERVICE_ACCOUNT\n"
    "              [--issuer ISSUER] [--keys-url URL | --keys FILE] [--ca-file PEM]\n"
    "              a Pub/Sub push (its header lines, its body) verified as Google's for the app; prints\n"
    "              the notification's JSON. --issuer trusts a test issuer instead of Google; keys from\n"
    "              anywhere but Google's make test data unless --issuer names Google's issuer.\n"
    "Exit 0 with the answer's JSON on stdout (nothing when it has no body); 1 when the call fails: for\n"
    "Google's errors stdout has {\"httpStatus\",\"code\",\"status\",\"message\",\"reason\",\"retryable\",\"retryAfter\"};\n"
    "2 usage; verify-push: 10 when the body is not a push envelope with a notification, 11 when the\n"
    "push is not authentic (token, signature, issuer, audience, email, expiry, or another package).";

const char *const gk_play_subcommands[] = {"subscription", "product", "product-v2", "voided", "acknowledge", "consume", "revoke",
                                             "cancel", "defer", "order", "verify-push", NULL};

typedef struct {
    const char *package, *account, *base_url, *ca_file, *timeout, *retries;
    const char *start_time, *end_time, *max_results, *page_token, *developer_payload, *refund, *item, *type, *request;
    const char *headers, *body, *audience, *email, *issuer, *keys_url, *keys;
    const char *positional[8];
    int npositional, subscriptions, partial_refunds, metadata_server;
} play_args;

static int parse(int argc, char **argv, play_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if (strcmp(argv[i], "--subscriptions") == 0) { a->subscriptions = 1; continue; }
        if (strcmp(argv[i], "--partial-refunds") == 0) { a->partial_refunds = 1; continue; }
        if (strcmp(argv[i], "--metadata-server") == 0) { a->metadata_server = 1; continue; }
        const struct { const char *name; const char **value; } options[] = {
            {"--package", &a->package}, {"--service-account", &a->account}, {"--base-url", &a->base_url}, {"--ca-file", &a->ca_file},
            {"--timeout", &a->timeout}, {"--retries", &a->retries}, {"--start-time", &a->start_time}, {"--end-time", &a->end_time},
            {"--max-results", &a->max_results}, {"--page-token", &a->page_token}, {"--developer-payload", &a->developer_payload},
            {"--refund", &a->refund}, {"--item", &a->item}, {"--type", &a->type}, {"--request", &a->request}, {"--headers", &a->headers},
            {"--body", &a->body}, {"--audience", &a->audience}, {"--email", &a->email}, {"--issuer", &a->issuer},
            {"--keys-url", &a->keys_url}, {"--keys", &a->keys},
        };
        for (size_t k = 0; k < sizeof options / sizeof options[0] && r == 0; k++) r = gk_option(argc, argv, &i, options[k].name, options[k].value);
        if (r < 0) return -1;
        if (r > 0) continue;
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || a->npositional == 8) {
            fprintf(stderr, "gatekit play: unexpected argument %s\n", argv[i]);
            return -1;
        }
        a->positional[a->npositional++] = argv[i];
    }
    return 0;
}

/* The voided-purchases query as JSON (malloc'd), or NULL after printing why. */
static char *voided_query(const play_args *a) {
    long long start = a->start_time ? gk_parse_time_ms(a->start_time) : 0, end = a->end_time ? gk_parse_time_ms(a->end_time) : 0;
    long long max = a->max_results ? gk_number(a->max_results) : 0;
    if (start < 0 || end < 0 || max < 0 || max > 1000) {
        fprintf(stderr, "gatekit play voided: --start-time and --end-time are Unix seconds or YYYY-MM-DDTHH:MM:SSZ, --max-results 1 to 1000\n");
        return NULL;
    }
    size_t size = 256 + (a->page_token ? strlen(a->page_token) * 6 : 0);
    char *q = malloc(size);
    if (!q) return NULL;
    int n = snprintf(q, size, "{\"type\":%d", a->subscriptions ? 1 : 0);
    if (a->start_time) n += snprintf(q + n, size - (size_t)n, ",\"startTime\":%lld", start);
    if (a->end_time) n += snprintf(q + n, size - (size_t)n, ",\"endTime\":%lld", end);
    if (a->max_results) n += snprintf(q + n, size - (size_t)n, ",\"maxResults\":%lld", max);
    if (a->partial_refunds) n += snprintf(q + n, size - (size_t)n, ",\"includeQuantityBasedPartialRefund\":true");
    if (a->page_token) {
        n += snprintf(q + n, size - (size_t)n, ",\"token\":\"");
        for (const char *c = a->page_token; *c; c++) {  /* a page token is opaque: escape it as JSON */
            unsigned char ch = (unsigned char)*c;
            n += ch < 0x20 || ch == '"' || ch == '\\' ? snprintf(q + n, size - (size_t)n, "\\u%04x", ch) : snprintf(q + n, size - (size_t)n, "%c", ch);
        }
        n += snprintf(q + n, size - (size_t)n, "\"");
    }
    snprintf(q + n, size - (size_t)n, "}");
    return q;
}

/* A request body {"<member>":"<value>"} with value JSON-escaped, or NULL (value NULL: "{}"). */
static char *one_member(const char *prefix, const char *value, const char *suffix) {
    size_t size = strlen(prefix) + strlen(suffix) + (value ? strlen(value) * 6 : 0) + 1;
    char *body = malloc(size);
    if (!body) return NULL;
    int n = snprintf(body, size, "%s", prefix);
    for (const char *c = value; c && *c; c++) {
        unsigned char ch = (unsigned char)*c;
        n += ch < 0x20 || ch == '"' || ch == '\\' ? snprintf(body + n, size - (size_t)n, "\\u%04x", ch) : snprintf(body + n, size - (size_t)n, "%c", ch);
    }
    snprintf(body + n, size - (size_t)n, "%s", suffix);
    return body;
}

gatekit_play_client *gk_play_client(const char *package, const char *account, int metadata_server, const char *base_url,
                                    const char *ca_file, const char *timeout_ms, const char *retries) {
    gatekit_play_client_options o;
    int rc = play_client_options_init(&o, GATEKIT_PLAY_CLIENT_OPTIONS_VERSION);
    gatekit_play_client *client = NULL;
    if (rc == 0) {
        o.package_name = package;
        o.service_account_file = account;
        o.metadata_server = metadata_server;
        o.base_url = base_url;
        o.ca_file = ca_file;
        long long timeout = timeout_ms ? gk_number(timeout_ms) : o.timeout_ms, tries = retries ? gk_number(retries) : o.max_retries;
        o.timeout_ms = timeout > 600000 ? -1 : (int)timeout;  /* -1: refused by the library with the option's name */
        o.max_retries = tries > 10 ? -1 : (int)tries;
        rc = play_client_new(&client, &o);
    }
    if (rc < 0) gk_fail("play", rc);
    return client;
}

static gatekit_play_client *make_client(const play_args *a) {
    return gk_play_client(a->package, a->account, a->metadata_server, a->base_url, a->ca_file, a->timeout, a->retries);
}

/* The value of the Authorization line of an HTTP header block (malloc'd), or NULL. */
static char *authorization(const char *headers) {
    for (const char *line = headers; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (length > 14 && strncasecmp(line, "authorization:", 14) == 0) {
            const char *v = line + 14;
            while (*v == ' ' || *v == '\t') v++;
            size_t n = length - (size_t)(v - line);
            while (n > 0 && (v[n - 1] == '\r' || v[n - 1] == ' ')) n--;
            char *value = malloc(n + 1);
            if (value) { memcpy(value, v, n); value[n] = '\0'; }
            return value;
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

static int verify_push(const play_args *a) {
    const char *who = "gatekit play verify-push";
    if (gk_missing(who, "--headers", a->headers) || gk_missing(who, "--body", a->body) || gk_missing(who, "--package", a->package) ||
        gk_missing(who, "--audience", a->audience) || gk_missing(who, "--email", a->email))
        return gk_usage(gk_play_usage);
    size_t body_len = 0;
    char *headers = gk_load_text(a->headers), *keys = a->keys ? gk_load_text(a->keys) : NULL;
    unsigned char *body = gk_read_limited(a->body, (size_t)1 << 20, &body_len);
    char *bearer = headers ? authorization(headers) : NULL;
    if (headers && !bearer)
        fprintf(stderr, "%s: %s has no Authorization line: --headers is the request's headers as 'Name: value' lines, one a line (not JSON)\n",
                who, a->headers);
    int status = GK_EXIT_ERROR;
    if (headers && body && (!a->keys || keys)) {
        gatekit_play_push_options o;
        gatekit_play_push_verifier *v = NULL;
        char *out = NULL;
        int rc = play_push_options_init(&o, GATEKIT_PLAY_PUSH_OPTIONS_VERSION);
        if (rc == 0) {
            o.package_name = a->package;
            o.audience = a->audience;
            o.service_account_email = a->email;
            o.issuer = a->issuer;
            o.keys_url = a->keys_url;
            o.keys_json = keys;
            o.ca_file = a->ca_file;
            rc = play_push_verifier_new(&v, &o);
        }
        if (rc == 0) rc = play_verify_push(&out, v, bearer, body, body_len);
        if (rc == 0) {
            puts(out);
            status = GK_EXIT_OK;
        } else if (rc == GATEKIT_EPUSH_MESSAGE || rc == GATEKIT_ETOOLARGE) {
            fprintf(stderr, "%s: refused: %s\n", who, gatekit_last_error());
            status = GK_EXIT_MALFORMED;
        } else if (rc <= GATEKIT_EPUSH_TOKEN && rc >= GATEKIT_EPUSH_PACKAGE && rc != GATEKIT_EPUSH_KEYSET) {
            fprintf(stderr, "%s: refused: %s\n", who, gatekit_last_error());
            status = GK_EXIT_NOT_AUTHENTIC;
        } else {
            status = gk_fail("play verify-push", rc);
            if (rc == GATEKIT_EINVAL) status = GK_EXIT_USAGE;
        }
        gatekit_free(out);
        play_push_verifier_free(v);
    }
    free(headers);
    free(keys);
    free(body);
    free(bearer);
    return status;
}

/* Calls the API command; -1000: the arguments do not fit it (usage). */
static int call(gatekit_play_client *c, const char *command, const play_args *a, char **out, char **request) {
    const char *p0 = a->positional[0], *p1 = a->positional[1], *p2 = a->positional[2];
    int n = a->npositional;
    if (strcmp(command, "subscription") == 0 && n == 1) return play_subscription_get(out, c, p0);
    if (strcmp(command, "product") == 0 && n == 2) return play_product_get(out, c, p0, p1);
    if (strcmp(command, "product-v2") == 0 && n == 1) return play_product_get_v2(out, c, p0);
    if (strcmp(command, "consume") == 0 && n == 2) return play_product_consume(out, c, p0, p1);
    if (strcmp(command, "voided") == 0 && n == 0) {
        if (!(*request = voided_query(a))) return GATEKIT_EINVAL;
        return play_voided_purchases_list(out, c, *request);
    }
    if (strcmp(command, "acknowledge") == 0 && n == 3 && (strcmp(p0, "subscription") == 0 || strcmp(p0, "product") == 0)) {
        if (!(*request = a->developer_payload ? one_member("{\"developerPayload\":\"", a->developer_payload, "\"}") : one_member("{}", NULL, ""))) return GATEKIT_ENOMEM;
        return strcmp(p0, "subscription") == 0 ? play_subscription_acknowledge(out, c, p1, p2, *request) : play_product_acknowledge(out, c, p1, p2, *request);
    }
    if (strcmp(command, "revoke") == 0 && n == 1) {
        if (a->item) *request = one_member("{\"revocationContext\":{\"itemBasedRefund\":{\"productId\":\"", a->item, "\"}}}");
        else if (!a->refund || strcmp(a->refund, "full") == 0) *request = one_member("{\"revocationContext\":{\"fullRefund\":{}}}", NULL, "");
        else if (strcmp(a->refund, "prorated") == 0) *request = one_member("{\"revocationContext\":{\"proratedRefund\":{}}}", NULL, "");
        else return -1000;
        return *request ? play_subscription_revoke(out, c, p0, *request) : GATEKIT_ENOMEM;
    }
    if (strcmp(command, "cancel") == 0 && n == 1) {
        *request = one_member("{\"cancellationContext\":{\"cancellationType\":\"", a->type ? a->type : "USER_REQUESTED_STOP_RENEWALS", "\"}}");
        return *request ? play_subscription_cancel(out, c, p0, *request) : GATEKIT_ENOMEM;
    }
    if (strcmp(command, "defer") == 0 && n == 1 && a->request) {
        if (!(*request = gk_load_text(a->request))) return GATEKIT_EIO;
        return play_subscription_defer(out, c, p0, *request);
    }
    if (strcmp(command, "order") == 0 && n == 1) return play_order_get(out, c, p0);
    if (strcmp(command, "order") == 0 && n > 1) return play_orders_batch_get(out, c, a->positional, (size_t)n);
    return -1000;
}

int gk_cmd_play(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    if (argc < 2) return gk_usage(gk_play_usage);
    const char *command = argv[1];
    play_args a = {0};
    if (parse(argc, argv, &a) < 0) return gk_usage(gk_play_usage);
    if (strcmp(command, "verify-push") == 0) return verify_push(&a);
    const char *who = "gatekit play";
    if (gk_missing(who, "--package", a.package)) return gk_usage(gk_play_usage);
    gatekit_play_client *client = make_client(&a);
    if (!client) return GK_EXIT_ERROR;
    char *out = NULL, *request = NULL;
    int status = GK_EXIT_ERROR;
    int rc = call(client, command, &a, &out, &request);
    if (rc == -1000) {
        fprintf(stderr, "gatekit play %s: wrong arguments\n", command);
        status = gk_usage(gk_play_usage);
    } else if (rc < 0) {
        if (out) puts(out);  /* Google's error, as JSON */
        status = gk_fail(command, rc);
        if (rc == GATEKIT_EINVAL) status = GK_EXIT_USAGE;
    } else {
        if (out) puts(out);
        status = GK_EXIT_OK;
    }
    gatekit_free(out);
    free(request);
    play_client_free(client);
    return status;
}

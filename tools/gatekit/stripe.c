/* gatekit stripe verify-webhook: a Stripe webhook delivery verified as Stripe signs it; gatekit
 * stripe get|list: Stripe's API read with the merchant's key (include/gatekit/stripe.h). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char *const gk_stripe_subcommands[] = {"verify-webhook", "get", "list", NULL};

const char gk_stripe_usage[] =
    "gatekit stripe verify-webhook --secret-file FILE [--secret-file FILE] --signature HEADER\n"
    "                              [--tolerance SECONDS] [--at TIME] BODY|-\n"
    "    verifies one delivery: BODY the request's bytes as received, HEADER its Stripe-Signature\n"
    "    value, FILE the endpoint's signing secret (whsec_…; owner-only; two while one is\n"
    "    rolled); prints the event it carries as JSON. --tolerance: how far from this host's\n"
    "    clock (or --at, Unix seconds or YYYY-MM-DDTHH:MM:SSZ) the signing may lie, default 300.\n"
    "gatekit stripe get PATH [--query FORM] CLIENT\n"
    "gatekit stripe list PATH [--query FORM] [--max-pages N] CLIENT\n"
    "    reads Stripe's API: GET PATH (below /v1/, e.g. /v1/subscriptions/sub_123) with FORM\n"
    "    (form-encoded, e.g. expand%5B%5D=line_items); list follows every page (at most N, default\n"
    "    100) and prints {\"object\":\"list\",\"data\":[…],\"has_more\":…}. CLIENT is\n"
    "    --api-key-file FILE (a secret or restricted key, owner-only) [--base-url URL --ca-file PEM]\n"
    "    [--timeout MS] [--retries N]; every request pins Stripe-Version. Stripe's error answer is\n"
    "    printed as JSON with exit 1.\n"
    "exit status: 0 verified (read); 1 an error; 2 usage; 10 the header is malformed or the body\n"
    "is no event; 11 no signature matches (another secret, a changed body); 12 signed outside the\n"
    "tolerance.";

/* A secret file's text without its trailing newline; NULL after saying why. */
static char *read_secret(const char *path) {
    size_t len = 0;
    unsigned char *raw = gk_read_secret(path, &len);
    if (!raw) return NULL;
    while (len > 0 && (raw[len - 1] == '\n' || raw[len - 1] == '\r')) len--;
    char *text = gk_text(raw, len);
    free(raw);
    return text;
}

/* The client options argv names at argv[*i] (advancing *i): 1 taken, 0 not a client option,
 * -1 a missing value. */
int gk_stripe_client_option(int argc, char **argv, int *i, gk_stripe_client_args *a) {
    int r = 0;
    if ((r = gk_option(argc, argv, i, "--api-key-file", &a->key_file)) || (r = gk_option(argc, argv, i, "--base-url", &a->base_url)) ||
        (r = gk_option(argc, argv, i, "--ca-file", &a->ca_file)) || (r = gk_option(argc, argv, i, "--timeout", &a->timeout)) ||
        (r = gk_option(argc, argv, i, "--retries", &a->retries)))
        return r;
    return 0;
}

gatekit_stripe_client *gk_stripe_client(const char *who, const gk_stripe_client_args *a) {
    if (gk_missing(who, "--api-key-file", a->key_file)) return NULL;
    gatekit_stripe_client_options o;
    int rc = stripe_client_options_init(&o, GATEKIT_STRIPE_CLIENT_OPTIONS_VERSION);
    gatekit_stripe_client *client = NULL;
    if (rc == 0) {
        o.api_key_file = a->key_file;
        o.base_url = a->base_url;
        o.ca_file = a->ca_file;
        long long timeout = a->timeout ? gk_number(a->timeout) : o.timeout_ms, tries = a->retries ? gk_number(a->retries) : o.max_retries;
        o.timeout_ms = timeout > 600000 ? -1 : (int)timeout;  /* -1: refused by the library with the option's name */
        o.max_retries = tries > 10 ? -1 : (int)tries;
        rc = stripe_client_new(&client, &o);
    }
    if (rc < 0) gk_fail(who, rc);
    return client;
}

/* Prints what a call that asks Stripe wrote: the answer (0), or Stripe's error JSON (1). */
int gk_stripe_answer(const char *who, int rc, char *json) {
    if (json) puts(json);
    gatekit_free(json);
    if (rc >= 0) return GK_EXIT_OK;
    gk_fail(who, rc);
    return rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : GK_EXIT_ERROR;
}

static int read_api(int argc, char **argv) {
    int list = strcmp(argv[1], "list") == 0;
    const char *who = list ? "gatekit stripe list" : "gatekit stripe get";
    const char *path = NULL, *query = NULL, *pages = NULL;
    gk_stripe_client_args client_args = {0};
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_stripe_client_option(argc, argv, &i, &client_args)) || (r = gk_option(argc, argv, &i, "--query", &query)) ||
            (list && (r = gk_option(argc, argv, &i, "--max-pages", &pages)))) {
            if (r < 0) return gk_usage(gk_stripe_usage);
            continue;
        }
        if (argv[i][0] == '-' || path) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_stripe_usage);
        }
        path = argv[i];
    }
    if (gk_missing(who, "PATH", path)) return gk_usage(gk_stripe_usage);
    long long max_pages = pages ? gk_number(pages) : 100;
    if (max_pages < 1 || max_pages > 10000) {
        fprintf(stderr, "%s: --max-pages must be 1 to 10000\n", who);
        return GK_EXIT_USAGE;
    }
    gatekit_stripe_client *client = gk_stripe_client(who, &client_args);
    if (!client) return GK_EXIT_ERROR;
    char *json = NULL;
    int rc = list ? stripe_list(&json, client, path, query, (int)max_pages) : stripe_get(&json, client, path, query);
    stripe_client_free(client);
    return gk_stripe_answer(who, rc, json);
}

int gk_cmd_stripe(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    const char *who = "gatekit stripe verify-webhook";
    if (argc >= 2 && (strcmp(argv[1], "get") == 0 || strcmp(argv[1], "list") == 0)) return read_api(argc, argv);
    if (argc < 2 || strcmp(argv[1], "verify-webhook") != 0) return gk_usage(gk_stripe_usage);
    const char *files[8], *signature = NULL, *tolerance = NULL, *at = NULL, *body_path = NULL;
    size_t count = 0;
    for (int i = 2; i < argc; i++) {
        int r = 0;
        const char *file = NULL;
        if ((r = gk_option(argc, argv, &i, "--secret-file", &file))) {
            if (r < 0) return gk_usage(gk_stripe_usage);
            if (count == sizeof files / sizeof files[0]) {
                fprintf(stderr, "%s: at most 8 --secret-file\n", who);
                return GK_EXIT_USAGE;
            }
            files[count++] = file;
            continue;
        }
        if ((r = gk_option(argc, argv, &i, "--signature", &signature)) || (r = gk_option(argc, argv, &i, "--tolerance", &tolerance)) ||
            (r = gk_option(argc, argv, &i, "--at", &at))) {
            if (r < 0) return gk_usage(gk_stripe_usage);
            continue;
        }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || body_path) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_stripe_usage);
        }
        body_path = argv[i];
    }
    if (!count) { fprintf(stderr, "%s: missing --secret-file\n", who); return gk_usage(gk_stripe_usage); }
    if (gk_missing(who, "--signature", signature)) return gk_usage(gk_stripe_usage);
    if (!body_path) { fprintf(stderr, "%s: missing BODY\n", who); return gk_usage(gk_stripe_usage); }
    long long tolerance_s = tolerance ? gk_number(tolerance) : 0;
    if (tolerance && (tolerance_s <= 0 || tolerance_s > 86400)) {
        fprintf(stderr, "%s: --tolerance must be 1 to 86400 seconds\n", who);
        return GK_EXIT_USAGE;
    }
    long long now_s = 0;
    if (at && (now_s = gk_parse_time(at)) <= 0) {
        fprintf(stderr, "%s: --at must be Unix seconds or YYYY-MM-DDTHH:MM:SSZ\n", who);
        return GK_EXIT_USAGE;
    }
    char *secrets[8] = {0};
    int status = GK_EXIT_ERROR;
    size_t body_len = 0;
    unsigned char *body = NULL;
    for (size_t i = 0; i < count; i++)
        if (!(secrets[i] = read_secret(files[i]))) goto done;
    if (!(body = gk_read_all(body_path, &body_len))) goto done;
    char *json = NULL;
    int rc = stripe_verify_webhook(&json, signature, body, body_len, (const char *const *)secrets, count, (int)tolerance_s, now_s);
    if (rc == GATEKIT_OK) {
        puts(json);
        gatekit_free(json);
        status = GK_EXIT_OK;
    } else {
        gk_fail(who, rc);
        status = rc == GATEKIT_ESTRIPE_SIGNATURE ? GK_EXIT_NOT_AUTHENTIC
               : rc == GATEKIT_ESTRIPE_TIMESTAMP ? GK_EXIT_OTHER_ENVIRONMENT
               : rc == GATEKIT_ESTRIPE_SIGNATURE_HEADER || rc == GATEKIT_ESTRIPE_EVENT ? GK_EXIT_MALFORMED
               : rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : GK_EXIT_ERROR;
    }
done:
    for (size_t i = 0; i < count; i++) free(secrets[i]);
    free(body);
    return status;
}

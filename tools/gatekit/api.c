/* gatekit api: every endpoint of the App Store Server API, by Apple's method names (dashes for
 * underscores), through the library's client: signed requests, HTTPS, Apple's errors, retries,
 * and every signed member of the answer verified and decoded unless --raw. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char gk_api_usage[] =
    "gatekit api ENDPOINT [ARGUMENTS] KEY_OPTIONS --environment Production|Sandbox|LocalTesting [OPTIONS]\n"
    "endpoints (Apple's AppStoreServerAPIClient methods):\n"
    "  get-transaction-info ID                    get-app-transaction-info ID\n"
    "  get-transaction-history ID [--revision R] [--request FILE] [--history-version 1|2 (default 2)]\n"
    "  get-all-subscription-statuses ID [--status 1..5]...   get-refund-history ID [--revision R]\n"
    "  look-up-order-id ORDER_ID                  finish-transaction ID\n"
    "  send-consumption-information ID --request FILE   send-consumption-data ID --request FILE\n"
    "  set-app-account-token ORIGINAL_ID --request FILE\n"
    "  extend-subscription-renewal-date ORIGINAL_ID --request FILE\n"
    "  extend-renewal-date-for-all-active-subscribers --request FILE\n"
    "  get-status-of-subscription-renewal-date-extensions REQUEST_ID PRODUCT_ID\n"
    "  get-notification-history --request FILE [--pagination-token T]\n"
    "  request-test-notification                  get-test-notification-status TOKEN\n"
    "  upload-image UUID --image FILE.png [--image-size FULL_SIZE|BULLET_POINT]   delete-image UUID   get-image-list\n"
    "  upload-message UUID --request FILE         delete-message UUID       get-message-list\n"
    "  configure-default-message PRODUCT LOCALE --request FILE\n"
    "  delete-default-message PRODUCT LOCALE      get-default-message PRODUCT LOCALE\n"
    "  configure-realtime-url --request FILE      delete-realtime-url       get-realtime-url\n"
    "  initiate-performance-test --request FILE   get-performance-test-results REQUEST_ID\n"
    "KEY_OPTIONS: --key FILE (the App Store Connect .p8) --key-id ID --issuer-id ID --bundle-id ID.\n"
    "--request FILE|-: Apple's request object as JSON. Answers' signed members are verified and decoded\n"
    "(--app-apple-id for Production, --test-anchor CERT for test data); --raw prints Apple's body as sent.\n"
    "OPTIONS: --base-url URL and --ca-file PEM (a stand-in or proxy), --timeout MS, --retries N.\n"
    "Exit 0 with the answer's JSON on stdout (nothing when it has no body); 1 when the call fails: for\n"
    "Apple's errors stdout has {\"httpStatus\",\"errorCode\",\"errorMessage\",\"retryable\",\"retryAfter\"};\n"
    "2 usage; 10, 11, 12 when a signed member of the answer is refused (as gatekit jws verify).";

typedef struct {
    const char *revision, *request, *history_version, *pagination_token, *image, *image_size;
    const char *positional[3];
    int npositional, raw, statuses[5], nstatuses;
    gk_client_options client;
    gk_signed_options verify;
} api_args;

int gk_client_option(int argc, char **argv, int *i, gk_client_options *c) {
    int r = 0;
    if ((r = gk_option(argc, argv, i, "--key", &c->key)) || (r = gk_option(argc, argv, i, "--key-id", &c->key_id)) ||
        (r = gk_option(argc, argv, i, "--issuer-id", &c->issuer_id)) || (r = gk_option(argc, argv, i, "--base-url", &c->base_url)) ||
        (r = gk_option(argc, argv, i, "--ca-file", &c->ca_file)) || (r = gk_option(argc, argv, i, "--timeout", &c->timeout)) ||
        (r = gk_option(argc, argv, i, "--retries", &c->retries)))
        return r;
    return 0;
}

int gk_missing_client_option(const char *who, const gk_client_options *c) {
    return gk_missing(who, "--key", c->key) || gk_missing(who, "--key-id", c->key_id) || gk_missing(who, "--issuer-id", c->issuer_id);
}

gatekit_appstore_client *gk_make_client(const char *who, const gk_client_options *c, const char *bundle_id,
                                        const char *environment, const gatekit_jws_options *verify) {
    gatekit_appstore_key *key = gk_load_appstore_key(c->key, c->key_id, c->issuer_id, bundle_id);
    if (!key) return NULL;
    gatekit_appstore_client_options o;
    gatekit_appstore_client *client = NULL;
    int rc;
    if ((rc = appstore_client_options_init(&o, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION)) == 0) {
        o.environment = environment;
        o.base_url = c->base_url;
        o.ca_file = c->ca_file;
        /* Out of range (or not a number): -1, which the library refuses with the option's name. */
        long long timeout = c->timeout ? gk_number(c->timeout) : o.timeout_ms, retries = c->retries ? gk_number(c->retries) : o.max_retries;
        o.timeout_ms = timeout > 600000 ? -1 : (int)timeout;
        o.max_retries = retries > 10 ? -1 : (int)retries;
        o.verify = verify;
        rc = appstore_client_new(&client, key, &o);
    }
    appstore_key_free(key);
    if (rc < 0) gk_fail(who, rc);
    return client;
}

static int parse(int argc, char **argv, api_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        const char *status = NULL;
        if (strcmp(argv[i], "--raw") == 0) {
            a->raw = 1;
            continue;
        }
        if ((r = gk_client_option(argc, argv, &i, &a->client)) || (r = gk_option(argc, argv, &i, "--revision", &a->revision)) ||
            (r = gk_option(argc, argv, &i, "--request", &a->request)) ||
            (r = gk_option(argc, argv, &i, "--history-version", &a->history_version)) ||
            (r = gk_option(argc, argv, &i, "--pagination-token", &a->pagination_token)) ||
            (r = gk_option(argc, argv, &i, "--image", &a->image)) || (r = gk_option(argc, argv, &i, "--image-size", &a->image_size)) ||
            (r = gk_signed_option(argc, argv, &i, &a->verify))) {
            if (r < 0) return -1;
            continue;
        }
        if ((r = gk_option(argc, argv, &i, "--status", &status))) {
            long long n = r < 0 ? -1 : gk_number(status);
            if (n < 1 || n > 5 || a->nstatuses == 5) {
                fprintf(stderr, "gatekit api: --status is one of Apple's subscription statuses, 1 to 5, at most five times\n");
                return -1;
            }
            a->statuses[a->nstatuses++] = (int)n;
            continue;
        }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || a->npositional == 3) {
            fprintf(stderr, "gatekit api: unexpected argument %s\n", argv[i]);
            return -1;
        }
        a->positional[a->npositional++] = argv[i];
    }
    return 0;
}

/* Apple's AppStoreServerAPIClient methods, as the tool names them. */
const char *const gk_api_subcommands[] = {
    "get-transaction-info", "get-transaction-history", "get-all-subscription-statuses", "get-refund-history",
    "look-up-order-id", "get-app-transaction-info", "finish-transaction", "send-consumption-information",
    "send-consumption-data", "set-app-account-token", "extend-subscription-renewal-date",
    "extend-renewal-date-for-all-active-subscribers", "get-status-of-subscription-renewal-date-extensions",
    "get-notification-history", "request-test-notification", "get-test-notification-status", "upload-image",
    "delete-image", "get-image-list", "upload-message", "delete-message", "get-message-list",
    "configure-default-message", "delete-default-message", "get-default-message", "configure-realtime-url",
    "delete-realtime-url", "get-realtime-url", "initiate-performance-test", "get-performance-test-results", NULL,
};

int gk_is_api_endpoint(const char *name) {
    return gk_is_one_of(name, gk_api_subcommands);
}

/* Calls the endpoint named e with the parsed arguments; -1000: no such endpoint. */
static int call(gatekit_appstore_client *c, const char *e, const api_args *a, const char *request, const unsigned char *image,
                size_t image_len, char **out, char **decoded) {
    const char *p0 = a->positional[0], *p1 = a->positional[1];
    if (strcmp(e, "get-transaction-info") == 0) return appstore_get_transaction_info(out, decoded, c, p0);
    if (strcmp(e, "get-transaction-history") == 0) {
        long long version = a->history_version ? gk_number(a->history_version) : 2;
        return appstore_get_transaction_history(out, decoded, c, p0, a->revision, request, (int)(version == 1 || version == 2 ? version : 0));
    }
    if (strcmp(e, "get-all-subscription-statuses") == 0) return appstore_get_all_subscription_statuses(out, decoded, c, p0, a->statuses, (size_t)a->nstatuses);
    if (strcmp(e, "get-refund-history") == 0) return appstore_get_refund_history(out, decoded, c, p0, a->revision);
    if (strcmp(e, "look-up-order-id") == 0) return appstore_look_up_order_id(out, decoded, c, p0);
    if (strcmp(e, "get-app-transaction-info") == 0) return appstore_get_app_transaction_info(out, decoded, c, p0);
    if (strcmp(e, "finish-transaction") == 0) return appstore_finish_transaction(out, c, p0);
    if (strcmp(e, "send-consumption-information") == 0) return appstore_send_consumption_information(out, c, p0, request);
    if (strcmp(e, "send-consumption-data") == 0) return appstore_send_consumption_data(out, c, p0, request);
    if (strcmp(e, "set-app-account-token") == 0) return appstore_set_app_account_token(out, c, p0, request);
    if (strcmp(e, "extend-subscription-renewal-date") == 0) return appstore_extend_subscription_renewal_date(out, c, p0, request);
    if (strcmp(e, "extend-renewal-date-for-all-active-subscribers") == 0) return appstore_extend_renewal_date_for_all_active_subscribers(out, c, request);
    if (strcmp(e, "get-status-of-subscription-renewal-date-extensions") == 0)
        return appstore_get_status_of_subscription_renewal_date_extensions(out, c, p0, p1);
    if (strcmp(e, "get-notification-history") == 0) return appstore_get_notification_history(out, decoded, c, a->pagination_token, request);
    if (strcmp(e, "request-test-notification") == 0) return appstore_request_test_notification(out, c);
    if (strcmp(e, "get-test-notification-status") == 0) return appstore_get_test_notification_status(out, decoded, c, p0);
    if (strcmp(e, "upload-image") == 0) return appstore_upload_image(out, c, p0, image, image_len, a->image_size);
    if (strcmp(e, "delete-image") == 0) return appstore_delete_image(out, c, p0);
    if (strcmp(e, "get-image-list") == 0) return appstore_get_image_list(out, c);
    if (strcmp(e, "upload-message") == 0) return appstore_upload_message(out, c, p0, request);
    if (strcmp(e, "delete-message") == 0) return appstore_delete_message(out, c, p0);
    if (strcmp(e, "get-message-list") == 0) return appstore_get_message_list(out, c);
    if (strcmp(e, "configure-default-message") == 0) return appstore_configure_default_message(out, c, p0, p1, request);
    if (strcmp(e, "delete-default-message") == 0) return appstore_delete_default_message(out, c, p0, p1);
    if (strcmp(e, "get-default-message") == 0) return appstore_get_default_message(out, c, p0, p1);
    if (strcmp(e, "configure-realtime-url") == 0) return appstore_configure_realtime_url(out, c, request);
    if (strcmp(e, "delete-realtime-url") == 0) return appstore_delete_realtime_url(out, c);
    if (strcmp(e, "get-realtime-url") == 0) return appstore_get_realtime_url(out, c);
    if (strcmp(e, "initiate-performance-test") == 0) return appstore_initiate_performance_test(out, c, request);
    if (strcmp(e, "get-performance-test-results") == 0) return appstore_get_performance_test_results(out, c, p0);
    return -1000;
}

int gk_cmd_api(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    if (argc < 2) return gk_usage(gk_api_usage);
    const char *endpoint = argv[1];
    if (!gk_is_api_endpoint(endpoint)) {
        fprintf(stderr, "gatekit api: unknown endpoint %s\n", endpoint);
        return gk_usage(gk_api_usage);
    }
    api_args a = {0};
    if (parse(argc, argv, &a) < 0) return gk_usage(gk_api_usage);
    const char *who = "gatekit api";
    if (gk_missing_client_option(who, &a.client) || gk_missing(who, "--bundle-id", a.verify.bundle_id) ||
        gk_missing(who, "--environment", a.verify.environment))
        return gk_usage(gk_api_usage);
    if (gk_check_environment(who, a.verify.environment)) return GK_EXIT_USAGE;
    gatekit_jws_options verify;
    unsigned char *anchor = NULL;
    if (!a.raw) {
        int rc = gk_jws_options("gatekit api", &a.verify, 0, &verify, &anchor);
        if (rc != 0) return rc;
    }
    char *request = a.request ? gk_load_text(a.request) : NULL;
    size_t image_len = 0;
    unsigned char *image = a.image ? gk_read_all(a.image, &image_len) : NULL;
    int status = GK_EXIT_ERROR;
    gatekit_appstore_client *client = NULL;
    if ((!a.request || request) && (!a.image || image) && (client = gk_make_client("api", &a.client, a.verify.bundle_id, a.verify.environment, a.raw ? NULL : &verify))) {
        char *out = NULL, *decoded = NULL;
        int rc = call(client, endpoint, &a, request, image, image_len, &out, a.raw ? NULL : &decoded);
        if (rc == -1000) {
            fprintf(stderr, "gatekit api: %s is listed but not handled (a bug in the tool)\n", endpoint);
        } else if (rc <= -300 && rc > -400) {
            status = gk_refused(endpoint, rc);  /* a signed member of the answer did not verify */
        } else if (rc < 0) {
            if (out) puts(out);  /* Apple's error, as JSON */
            status = gk_fail(endpoint, rc);
            if (rc == GATEKIT_EINVAL) status = GK_EXIT_USAGE;  /* an argument the endpoint cannot send */
        } else {
            if (decoded || out) puts(decoded ? decoded : out);
            status = GK_EXIT_OK;
        }
        gatekit_free(out);
        gatekit_free(decoded);
        appstore_client_free(client);
    }
    free(request);
    free(image);
    free(anchor);
    return status;
}

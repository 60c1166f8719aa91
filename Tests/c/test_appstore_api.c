/* The App Store Server API client from C, against the local HTTPS stand-in that
 * scripts/with-appstore-standin.sh starts (Tests/standin/appstore_api_standin.py): every
 * endpoint once, with the request the stand-in received (method, path, query, body, a valid
 * bearer token: its log says "problem": null) and the answer; signed members verified with
 * the stand-in's test root; Apple's errors, 429 and retryable errors, retries and their limit;
 * answers that are not JSON, too long, slow or tampered; an untrusted server; path arguments
 * that try to leave their segment; options that cannot be used; one client shared by threads. */
#include "check.h"

#include <pthread.h>
#include <stdarg.h>
#include <sys/stat.h>

static const char *env(const char *name) { return getenv(name); }
static gatekit_appstore_key *key;
static gatekit_jws_options verify;
static unsigned char *anchor;
static size_t anchor_len;

/* The stand-in's last log line (malloc'd), or NULL. */
static char *last_request(void) {
    char *log = (char *)check_read_file(env("GATEKIT_TEST_APPSTORE_LOG"), NULL);
    if (!log) return NULL;
    size_t n = strlen(log);
    while (n > 0 && log[n - 1] == '\n') log[--n] = 0;
    char *start = strrchr(log, '\n');
    char *line = strdup(start ? start + 1 : log);
    free(log);
    return line;
}

/* The last request contains every one of the NULL-terminated fragments, and passed the check. */
static int request_had(const char *first, ...) {
    char *line = last_request();
    if (!line) return 0;
    int ok = strstr(line, "\"problem\": null") != NULL;
    if (!ok) fprintf(stderr, "  stand-in: %s\n", line);
    va_list ap;
    va_start(ap, first);
    for (const char *f = first; f && ok; f = va_arg(ap, const char *)) {
        if (!strstr(line, f)) {
            fprintf(stderr, "  the request lacks %s: %s\n", f, line);
            ok = 0;
        }
    }
    va_end(ap);
    free(line);
    return ok;
}

static gatekit_appstore_client *client_with(int verified, int retries, int timeout_ms, const char *ca_file) {
    gatekit_appstore_client_options o;
    if (appstore_client_options_init(&o, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION) != 0) return NULL;
    o.environment = "Sandbox";
    o.base_url = env("GATEKIT_TEST_APPSTORE_URL");
    o.ca_file = ca_file;
    o.max_retries = retries;
    if (timeout_ms) o.timeout_ms = timeout_ms;
    o.verify = verified ? &verify : NULL;
    gatekit_appstore_client *c = NULL;
    int rc = appstore_client_new(&c, key, &o);
    if (rc != 0) fprintf(stderr, "appstore_client_new: %d %s\n", rc, gatekit_last_error());
    return c;
}

static void test_every_endpoint(gatekit_appstore_client *c) {
    char *json = NULL, *decoded = NULL;
#define RUN(call) do { json = decoded = NULL; CHECK_RC(call, 0); } while (0)
#define DONE() do { gatekit_free(json); gatekit_free(decoded); json = decoded = NULL; } while (0)
    RUN(appstore_get_transaction_info(&json, &decoded, c, "1234"));
    CHECK(request_had("\"method\": \"GET\", \"path\": \"/inApps/v1/transactions/1234\"", "\"accept\": \"application/json\"", NULL));
    CHECK(json && strstr(json, "\"signedTransactionInfo\": \"ey"));
    CHECK(decoded && strstr(decoded, "\"signedTransactionInfo\":{\"transactionId\":\"23456\""));
    CHECK(decoded && strstr(decoded, "\"testSigned\":true"));
    DONE();

    RUN(appstore_get_transaction_history(&json, &decoded, c, "1234", "rev-1", "{\"startDate\":1698148800000,\"productIds\":[\"a\",\"b\"],"
                                         "\"productTypes\":[\"AUTO_RENEWABLE\"],\"sort\":\"DESCENDING\",\"revoked\":false}", 2));
    CHECK(request_had("\"path\": \"/inApps/v2/history/1234\"", "[\"revision\", \"rev-1\"], [\"startDate\", \"1698148800000\"], "
                      "[\"productId\", \"a\"], [\"productId\", \"b\"], [\"productType\", \"AUTO_RENEWABLE\"], [\"sort\", \"DESCENDING\"], "
                      "[\"revoked\", \"false\"]", NULL));
    CHECK(decoded && strstr(decoded, "\"signedTransactions\":[{") && strstr(decoded, "\"hasMore\":true"));
    DONE();
    CHECK_RC(appstore_get_transaction_history(&json, NULL, c, "1234", NULL, "{\"unknown\":1}", 2), GATEKIT_EINVAL);
    CHECK_RC(appstore_get_transaction_history(&json, NULL, c, "1234", NULL, NULL, 3), GATEKIT_EINVAL);
    RUN(appstore_get_transaction_history(&json, NULL, c, "1234", NULL, NULL, 1));
    CHECK(request_had("\"path\": \"/inApps/v1/history/1234\", \"query\": []", NULL));
    DONE();

    int statuses[] = {1, 4};
    RUN(appstore_get_all_subscription_statuses(&json, &decoded, c, "77", statuses, 2));
    CHECK(request_had("\"path\": \"/inApps/v1/subscriptions/77\", \"query\": [[\"status\", \"1\"], [\"status\", \"4\"]]", NULL));
    CHECK(decoded && strstr(decoded, "\"lastTransactions\":[{\"status\":1,\"originalTransactionId\":\"3749183\",\"signedTransactionInfo\":{"));
    CHECK(decoded && strstr(decoded, "\"signedRenewalInfo\":{"));
    DONE();
    int bad_status = 6;
    CHECK_RC(appstore_get_all_subscription_statuses(&json, NULL, c, "77", &bad_status, 1), GATEKIT_EINVAL);

    RUN(appstore_get_refund_history(&json, &decoded, c, "88", "r2"));
    CHECK(request_had("\"GET\", \"path\": \"/inApps/v2/refund/lookup/88\", \"query\": [[\"revision\", \"r2\"]]", NULL));
    DONE();
    RUN(appstore_look_up_order_id(&json, &decoded, c, "W002182"));
    CHECK(request_had("\"path\": \"/inApps/v1/lookup/W002182\"", NULL));
    CHECK(json && strstr(json, "\"status\": 1"));
    DONE();
    RUN(appstore_get_app_transaction_info(&json, &decoded, c, "99"));
    CHECK(request_had("\"path\": \"/inApps/v1/transactions/appTransactions/99\"", NULL));
    CHECK(decoded && strstr(decoded, "\"signedAppTransactionInfo\":{\"receiptType\":\"Sandbox\""));
    DONE();
    RUN(appstore_finish_transaction(&json, c, "55"));
    CHECK(request_had("\"method\": \"POST\", \"path\": \"/inApps/v1/transactions/55/finish\"", "\"body\": null", NULL));
    CHECK(json == NULL);
    RUN(appstore_send_consumption_information(&json, c, "56", "{\"customerConsented\":true,\"sampleContentProvided\":false,\"deliveryStatus\":\"DELIVERED\"}"));
    CHECK(request_had("\"PUT\", \"path\": \"/inApps/v2/transactions/consumption/56\"", "\"contentType\": \"application/json\"",
                      "\\\"deliveryStatus\\\":\\\"DELIVERED\\\"", NULL));
    RUN(appstore_send_consumption_data(&json, c, "57", "{\"customerConsented\":true,\"consumptionStatus\":1,\"platform\":1,"
                                       "\"sampleContentProvided\":false,\"deliveryStatus\":0}"));
    CHECK(request_had("\"path\": \"/inApps/v1/transactions/consumption/57\"", NULL));
    RUN(appstore_set_app_account_token(&json, c, "58", "{\"appAccountToken\":\"7389a31a-fb6d-4569-a2a6-db7d85d84813\"}"));
    CHECK(request_had("\"PUT\", \"path\": \"/inApps/v1/transactions/58/appAccountToken\"", NULL));
    RUN(appstore_extend_subscription_renewal_date(&json, c, "59", "{\"extendByDays\":45,\"extendReasonCode\":1,\"requestIdentifier\":\"fdf964a4\"}"));
    CHECK(request_had("\"PUT\", \"path\": \"/inApps/v1/subscriptions/extend/59\"", NULL));
    CHECK(json && strstr(json, "\"effectiveDate\": 1698148900000"));
    DONE();
    RUN(appstore_extend_renewal_date_for_all_active_subscribers(&json, c, "{\"extendByDays\":45,\"extendReasonCode\":1,"
                                                                "\"requestIdentifier\":\"fdf964a4\",\"productId\":\"com.example.product\"}"));
    CHECK(request_had("\"POST\", \"path\": \"/inApps/v1/subscriptions/extend/mass\"", NULL));
    CHECK(json && strstr(json, "758883e8-151b-47b7-abd0-60c4d804c2f5"));
    DONE();
    RUN(appstore_get_status_of_subscription_renewal_date_extensions(&json, c, "20fba8a0-2b80-4a7d-a17f-85c1854727f8", "com.example.product"));
    CHECK(request_had("\"path\": \"/inApps/v1/subscriptions/extend/mass/com.example.product/20fba8a0-2b80-4a7d-a17f-85c1854727f8\"", NULL));
    DONE();

    RUN(appstore_get_notification_history(&json, &decoded, c, "tok-1", "{\"startDate\":1698148900000,\"endDate\":1698148950000,\"onlyFailures\":true}"));
    CHECK(request_had("\"POST\", \"path\": \"/inApps/v1/notifications/history\", \"query\": [[\"paginationToken\", \"tok-1\"]]", NULL));
    CHECK(decoded && strstr(decoded, "\"signedPayload\":{\"notificationType\":\"SUBSCRIBED\""));
    DONE();
    RUN(appstore_request_test_notification(&json, c));
    CHECK(request_had("\"POST\", \"path\": \"/inApps/v1/notifications/test\"", NULL));
    CHECK(json && strstr(json, "ce3af791-365e-4c60-841b-1674b43c1609"));
    DONE();
    RUN(appstore_get_test_notification_status(&json, &decoded, c, "ce3af791-365e-4c60-841b-1674b43c1609"));
    CHECK(request_had("\"path\": \"/inApps/v1/notifications/test/ce3af791-365e-4c60-841b-1674b43c1609\"", NULL));
    CHECK(decoded && strstr(decoded, "\"sendAttempts\":[{\"attemptDate\":1698148900000"));
    DONE();

    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0};
    RUN(appstore_upload_image(&json, c, "A1B2C3D4-E5F6-7890-A1B2-C3D4E5F67890", png, sizeof png, "FULL_SIZE"));
    CHECK(request_had("\"PUT\", \"path\": \"/inApps/v1/messaging/image/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890\"",
                      "[[\"imageSize\", \"FULL_SIZE\"]]", "\"contentType\": \"image/png\"", "\"bodyBase64\": \"iVBORw0KGgoAAA==\"", NULL));
    CHECK_RC(appstore_upload_image(&json, c, "not-a-uuid", png, sizeof png, NULL), GATEKIT_EINVAL);
    CHECK_RC(appstore_upload_image(&json, c, "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", png, sizeof png, "HUGE"), GATEKIT_EINVAL);
    RUN(appstore_delete_image(&json, c, "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"));
    CHECK(request_had("\"DELETE\", \"path\": \"/inApps/v1/messaging/image/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890\"", NULL));
    RUN(appstore_get_image_list(&json, c));
    CHECK(request_had("\"GET\", \"path\": \"/inApps/v1/messaging/image/list\"", NULL));
    CHECK(json && strstr(json, "\"imageState\": \"APPROVED\""));
    DONE();
    RUN(appstore_upload_message(&json, c, "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", "{\"header\":\"Stay\",\"body\":\"Please\"}"));
    CHECK(request_had("\"PUT\", \"path\": \"/inApps/v1/messaging/message/a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890\"", NULL));
    RUN(appstore_delete_message(&json, c, "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"));
    CHECK(request_had("\"DELETE\", \"path\": \"/inApps/v1/messaging/message/", NULL));
    RUN(appstore_get_message_list(&json, c));
    CHECK(json && strstr(json, "\"messageState\": \"APPROVED\""));
    DONE();
    RUN(appstore_configure_default_message(&json, c, "com.example.product", "en-US", "{\"messageIdentifier\":\"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890\"}"));
    CHECK(request_had("\"PUT\", \"path\": \"/inApps/v1/messaging/default/com.example.product/en-US\"", NULL));
    RUN(appstore_delete_default_message(&json, c, "com.example.product", "en-US"));
    CHECK(request_had("\"DELETE\", \"path\": \"/inApps/v1/messaging/default/com.example.product/en-US\"", NULL));
    RUN(appstore_get_default_message(&json, c, "com.example.product", "en-US"));
    CHECK(json && strstr(json, "\"messageIdentifier\": \"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890\""));
    DONE();
    RUN(appstore_configure_realtime_url(&json, c, "{\"realtimeURL\":\"https://example.com/realtime\"}"));
    CHECK(request_had("\"PUT\", \"path\": \"/inApps/v1/messaging/realtime/url\"", NULL));
    RUN(appstore_delete_realtime_url(&json, c));
    CHECK(request_had("\"DELETE\", \"path\": \"/inApps/v1/messaging/realtime/url\"", "\"body\": null", NULL));
    RUN(appstore_get_realtime_url(&json, c));
    CHECK(json && strstr(json, "https://example.com/realtime"));
    DONE();
    RUN(appstore_initiate_performance_test(&json, c, "{\"originalTransactionId\":\"1234\"}"));
    CHECK(request_had("\"POST\", \"path\": \"/inApps/v1/messaging/performanceTest\"", NULL));
    CHECK(json && strstr(json, "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d"));
    DONE();
    RUN(appstore_get_performance_test_results(&json, c, "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d"));
    CHECK(request_had("\"path\": \"/inApps/v1/messaging/performanceTest/result/c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d\"", NULL));
    CHECK(json && strstr(json, "\"result\": \"PASS\""));
    DONE();

    /* A request body must be one JSON object. */
    CHECK_RC(appstore_configure_realtime_url(&json, c, "[1]"), GATEKIT_EINVAL);
    CHECK_RC(appstore_configure_realtime_url(&json, c, "{oops"), GATEKIT_EINVAL);
#undef RUN
#undef DONE
}

static void test_errors_and_retries(void) {
    gatekit_appstore_client *c = client_with(1, 2, 0, env("GATEKIT_TEST_APPSTORE_CA"));
    char *json = NULL, *decoded = NULL;
    CHECK_RC(appstore_get_transaction_info(&json, &decoded, c, "error-4040010"), GATEKIT_EAPPSTORE_API);
    CHECK_STR(json, "{\"httpStatus\":404,\"errorCode\":4040010,\"errorMessage\":\"Transaction id not found.\",\"retryable\":false,\"retryAfter\":null}");
    CHECK(decoded == NULL);
    CHECK(strstr(gatekit_last_error(), "HTTP 404, Apple error 4040010") != NULL);
    gatekit_free(json);
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "error-text"), GATEKIT_EAPPSTORE_API);
    CHECK_STR(json, "{\"httpStatus\":500,\"errorCode\":null,\"errorMessage\":null,\"retryable\":false,\"retryAfter\":null}");
    gatekit_free(json);
    CHECK_RC(appstore_get_transaction_info(NULL, NULL, c, "error-4040010"), GATEKIT_EAPPSTORE_API);  /* outputs not wanted */

    /* 429 with Retry-After: 1, once: the client waits and succeeds. */
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "ratelimit-1-c"), 0);
    CHECK(request_had("ratelimit-1-c", NULL));
    gatekit_free(json);
    /* Apple's retryable 5000001 twice, then success: within two retries. */
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "retryable-2-c"), 0);
    gatekit_free(json);
    /* Three 500s exhaust two retries: the failure says it is retryable. */
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "retryable-3-d"), GATEKIT_EAPPSTORE_API);
    CHECK(json && strstr(json, "\"errorCode\":5000001") && strstr(json, "\"retryable\":true"));
    gatekit_free(json);
    appstore_client_free(c);

    /* No retries: 429 comes back with its Retry-After. */
    c = client_with(1, 0, 0, env("GATEKIT_TEST_APPSTORE_CA"));
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "ratelimit-1-e"), GATEKIT_EAPPSTORE_API);
    CHECK_STR(json, "{\"httpStatus\":429,\"errorCode\":4290000,\"errorMessage\":\"Rate limit exceeded.\",\"retryable\":true,\"retryAfter\":1}");
    gatekit_free(json);

    /* Signed members that fail verification fail the call, named by their path. */
    CHECK_RC(appstore_get_transaction_info(&json, &decoded, c, "tampered"), GATEKIT_EJWS_SIGNATURE);
    CHECK(json == NULL && decoded == NULL);
    CHECK(strncmp(gatekit_last_error(), "appstore_get_transaction_info: signedTransactionInfo: ", 54) == 0);
    CHECK_RC(appstore_look_up_order_id(&json, NULL, c, "wrongbundle"), GATEKIT_EJWS_BUNDLE_ID);
    CHECK(strstr(gatekit_last_error(), "signedTransactions[0]: bundleId") != NULL);
    CHECK_RC(appstore_get_all_subscription_statuses(&json, NULL, c, "tampered", NULL, 0), GATEKIT_EJWS_SIGNATURE);
    CHECK(strstr(gatekit_last_error(), "data[0].lastTransactions[0].signedTransactionInfo") != NULL);
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "garbage"), GATEKIT_EAPPSTORE_RESPONSE);
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "huge"), GATEKIT_EAPPSTORE_RESPONSE);
    appstore_client_free(c);

    /* Raw mode: signed members come back as sent, nothing decoded. */
    c = client_with(0, 0, 0, env("GATEKIT_TEST_APPSTORE_CA"));
    CHECK_RC(appstore_get_transaction_info(&json, &decoded, c, "tampered"), 0);
    CHECK(json && strstr(json, "\"signedTransactionInfo\": \"ey") && decoded == NULL);
    gatekit_free(json);
    appstore_client_free(c);

    /* A slow server meets the timeout: no answer, never retried. */
    c = client_with(1, 2, 500, env("GATEKIT_TEST_APPSTORE_CA"));
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "slow"), GATEKIT_EAPPSTORE_TRANSPORT);
    CHECK(json == NULL && strstr(gatekit_last_error(), "timed out") != NULL);
    appstore_client_free(c);

    /* The stand-in's certificate is not trusted without its CA. */
    c = client_with(1, 0, 0, NULL);
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "1"), GATEKIT_EAPPSTORE_TRANSPORT);
    CHECK(strstr(gatekit_last_error(), "certificate") != NULL);
    appstore_client_free(c);
}

static void test_path_arguments_stay_in_their_segment(gatekit_appstore_client *c) {
    char *json = NULL;
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, "../../v1/lookup/x?y=1#z"), 0);
    CHECK(request_had("\"path\": \"/inApps/v1/transactions/..%2F..%2Fv1%2Flookup%2Fx%3Fy%3D1%23z\", \"query\": []", NULL));
    gatekit_free(json);
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, ".."), 0);
    CHECK(request_had("\"path\": \"/inApps/v1/transactions/%2E%2E\"", NULL));
    gatekit_free(json);
    CHECK_RC(appstore_get_default_message(&json, c, "p/q", "en US"), 0);
    CHECK(request_had("\"path\": \"/inApps/v1/messaging/default/p%2Fq/en%20US\"", NULL));
    gatekit_free(json);
    CHECK_RC(appstore_get_transaction_info(&json, NULL, c, ""), GATEKIT_EINVAL);
}

static void test_options(void) {
    gatekit_appstore_client_options o;
    gatekit_appstore_client *c = NULL;
    CHECK_RC(appstore_client_options_init(&o, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION), 0);
    CHECK(o.timeout_ms == 30000 && o.connect_timeout_ms == 10000 && o.max_retries == 2 && o.max_retry_wait_ms == 30000);
    CHECK_RC(appstore_client_options_init(&o, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION + 1), GATEKIT_EVERSION);
    CHECK_RC(appstore_client_options_init(&o, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION), 0);
    CHECK(o.user_agent == NULL);
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EINVAL);  /* no environment */
    o.environment = "Sandbox";
    o.user_agent = "";
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EINVAL);
    o.user_agent = "agent\r\nX-Injected: 1";  /* a header of its own */
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "user_agent") != NULL);
    o.version = 1;  /* a version-1 host has no user_agent member: whatever follows is not read */
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_OK);
    appstore_client_free(c);
    c = NULL;
    o.version = GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION;
    o.user_agent = "app-store-server-library/python (gatekit)";
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_OK);
    appstore_client_free(c);
    c = NULL;
    o.user_agent = NULL;
    o.environment = NULL;
    o.environment = "Xcode";
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EINVAL);
    o.environment = "Production";
    o.verify = &verify;  /* a Sandbox verifier */
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EINVAL);
    o.verify = NULL;
    o.base_url = "http://127.0.0.1:1";
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EINVAL);
    o.base_url = NULL;
    o.max_retries = 11;
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EINVAL);
    o.max_retries = 0;
    o.ca_file = "/nonexistent/ca.pem";
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_ENOTFOUND);
    char folder[] = "/tmp/gatekit-c-api-XXXXXX";
    CHECK(mkdtemp(folder) != NULL);
    const char *open_ca = check_path_in(folder, "ca.pem");
    FILE *f = fopen(open_ca, "w");
    if (f) fclose(f);
    chmod(open_ca, 0666);
    o.ca_file = open_ca;
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EUNSAFE);
    const char *link = check_path_in(folder, "link.pem");
    CHECK(symlink(env("GATEKIT_TEST_APPSTORE_CA"), link) == 0);
    o.ca_file = link;
    CHECK_RC(appstore_client_new(&c, key, &o), GATEKIT_EUNSAFE);
    CHECK(strstr(gatekit_last_error(), "symbolic link") != NULL);
    unlink(link);
    unlink(open_ca);
    rmdir(folder);
    o.ca_file = NULL;
    CHECK_RC(appstore_client_new(&c, key, &o), 0);  /* Apple's production URL; nothing is sent */
    appstore_client_free(c);

    /* A key without an issuer id cannot sign API tokens. */
    size_t pem_len = 0;
    unsigned char *pem = check_read_file(env("GATEKIT_TEST_APPSTORE_KEY"), &pem_len);
    gatekit_appstore_key *no_issuer = NULL;
    CHECK_RC(appstore_key_load(&no_issuer, pem, pem_len, "K", NULL, "com.example"), 0);
    CHECK_RC(appstore_client_new(&c, no_issuer, &o), GATEKIT_EINVAL);
    appstore_key_free(no_issuer);
    free(pem);
}

/* One client, four threads, 50 calls each: every call answered and verified. */
static gatekit_appstore_client *shared_client;
static void *worker(void *arg) {
    int *failures = arg;
    for (int i = 0; i < 50; i++) {
        char *json = NULL, *decoded = NULL;
        if (appstore_get_transaction_info(&json, &decoded, shared_client, "4321") != 0 || !decoded ||
            !strstr(decoded, "\"transactionId\":\"23456\"")) (*failures)++;
        gatekit_free(json);
        gatekit_free(decoded);
    }
    return NULL;
}

static void test_threads(void) {
    shared_client = client_with(1, 0, 0, env("GATEKIT_TEST_APPSTORE_CA"));
    pthread_t t[4];
    int failures[4] = {0};
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, &failures[i]);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK(failures[0] + failures[1] + failures[2] + failures[3] == 0);
    appstore_client_free(shared_client);
}

int main(void) {
    if (!env("GATEKIT_TEST_APPSTORE_URL")) {
        if (env("GATEKIT_REQUIRE_APPSTORE") && strcmp(env("GATEKIT_REQUIRE_APPSTORE"), "1") == 0) {
            fprintf(stderr, "test_appstore_api: GATEKIT_REQUIRE_APPSTORE=1 but no stand-in (scripts/with-appstore-standin.sh)\n");
            return 1;
        }
        printf("SKIP: test_appstore_api needs the App Store Server API stand-in (make test starts it: scripts/with-appstore-standin.sh)\n");
        return 0;
    }
    size_t pem_len = 0;
    unsigned char *pem = check_read_file(env("GATEKIT_TEST_APPSTORE_KEY"), &pem_len);
    CHECK_RC(appstore_key_load(&key, pem, pem_len, env("GATEKIT_TEST_APPSTORE_KEY_ID"), env("GATEKIT_TEST_APPSTORE_ISSUER"),
                               env("GATEKIT_TEST_APPSTORE_BUNDLE_ID")), 0);
    free(pem);
    anchor = check_read_file(env("GATEKIT_TEST_APPSTORE_ANCHOR"), &anchor_len);
    CHECK_RC(jws_options_init(&verify, GATEKIT_JWS_OPTIONS_VERSION), 0);
    verify.bundle_id = env("GATEKIT_TEST_APPSTORE_BUNDLE_ID");
    verify.environment = "Sandbox";
    verify.test_anchor_der = anchor;
    verify.test_anchor_len = anchor_len;

    gatekit_appstore_client *c = client_with(1, 0, 0, env("GATEKIT_TEST_APPSTORE_CA"));
    CHECK(c != NULL);
    if (c) {
        test_every_endpoint(c);
        test_path_arguments_stay_in_their_segment(c);
        appstore_client_free(c);
    }
    test_errors_and_retries();
    test_options();
    test_threads();
    appstore_key_free(key);
    free(anchor);
    return check_report("test_appstore_api");
}

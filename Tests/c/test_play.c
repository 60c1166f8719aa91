/* Google Play from C. Offline: a push from the test issuer verified against its key set, and
 * each check's code for a forged, expired, foreign or malformed push. Against the local HTTPS
 * stand-in scripts/with-play-standin.sh starts (python/gatekit/standin/play.py): the
 * service account's token exchange and every endpoint's request as the stand-in received it
 * (its log says "problem": null), Google's error JSON, a 429 retried, an untrusted server, a
 * key file another user could replace, and one client shared by threads. */
#include "check.h"

#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

static const char *package = "com.example.app", *audience = "https://rtdn.example.com/play",
                  *email = "push@example.iam.gserviceaccount.com", *test_issuer_name = "https://oidc.test.gatekit.invalid";

/* A Pub/Sub push body carrying notification (base64 by the shell-free encoder below). */
static char *push_body(const char *notification, const char *message_id) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(notification), o = 0;
    char *data = malloc((n + 2) / 3 * 4 + 1);
    const unsigned char *b = (const unsigned char *)notification;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        data[o++] = alphabet[v >> 18 & 63];
        data[o++] = alphabet[v >> 12 & 63];
        data[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        data[o++] = i + 2 < n ? alphabet[v & 63] : '=';
    }
    data[o] = 0;
    size_t size = o + strlen(message_id) + 200;
    char *body = malloc(size);
    snprintf(body, size, "{\"message\":{\"data\":\"%s\",\"messageId\":\"%s\"},\"subscription\":\"projects/p/subscriptions/s\"}", data, message_id);
    free(data);
    return body;
}

static const char *purchased =
    "{\"version\":\"1.0\",\"packageName\":\"com.example.app\",\"eventTimeMillis\":\"1767225600000\","
    "\"subscriptionNotification\":{\"version\":\"1.0\",\"notificationType\":4,\"purchaseToken\":\"tok\"}}";

static int verify(gatekit_play_push_verifier *v, const char *authorization, const char *notification, const char *message_id, char **out) {
    char *body = push_body(notification, message_id);
    int rc = play_verify_push(out, v, authorization, body, strlen(body));
    free(body);
    return rc;
}

static void test_push_verification_offline(void) {
    gatekit_play_test_issuer *issuer = NULL, *other = NULL;
    char *keys = NULL, *bearer = NULL, *foreign = NULL, *out = NULL;
    CHECK_RC(play_test_issuer_new(&issuer, NULL), GATEKIT_OK);
    CHECK_RC(play_test_issuer_new(&other, NULL), GATEKIT_OK);
    CHECK_RC(play_test_issuer_keys(&keys, issuer), GATEKIT_OK);
    CHECK_RC(play_test_issuer_sign_push(&bearer, issuer, audience, email, 3600), GATEKIT_OK);
    CHECK_RC(play_test_issuer_sign_push(&foreign, other, audience, email, 3600), GATEKIT_OK);
    CHECK(bearer && strncmp(bearer, "Bearer ey", 9) == 0);

    gatekit_play_push_options o = GATEKIT_PLAY_PUSH_OPTIONS_INIT;
    o.package_name = package;
    o.audience = audience;
    o.service_account_email = email;
    o.issuer = test_issuer_name;
    o.keys_json = keys;
    gatekit_play_push_verifier *v = NULL;
    CHECK_RC(play_push_verifier_new(&v, &o), GATEKIT_OK);
    CHECK_RC(verify(v, bearer, purchased, "1", &out), GATEKIT_OK);
    CHECK(out && strstr(out, "\"kind\":\"subscription\"") && strstr(out, "\"notificationTypeName\":\"SUBSCRIPTION_PURCHASED\""));
    CHECK(out && strstr(out, "\"testSigned\":true") && strstr(out, "\"duplicate\":false") && strstr(out, "\"messageId\":\"1\""));
    gatekit_free(out);
    out = NULL;
    CHECK_RC(verify(v, bearer, purchased, "1", &out), GATEKIT_OK);
    CHECK(out && strstr(out, "\"duplicate\":true"));
    gatekit_free(out);
    out = NULL;

    CHECK_RC(verify(v, NULL, purchased, "2", &out), GATEKIT_EPUSH_TOKEN);
    CHECK(out == NULL);
    CHECK_RC(verify(v, "Bearer not-a-jwt", purchased, "2", &out), GATEKIT_EPUSH_TOKEN);
    CHECK_RC(verify(v, foreign, purchased, "2", &out), GATEKIT_EPUSH_KEY);  /* another issuer's key: its kid is unknown here */
    char *tampered = strdup(bearer);
    tampered[strlen(tampered) - 5] = tampered[strlen(tampered) - 5] == 'A' ? 'B' : 'A';
    CHECK_RC(verify(v, tampered, purchased, "2", &out), GATEKIT_EPUSH_SIGNATURE);
    free(tampered);
    CHECK_RC(verify(v, bearer, "{\"version\":\"1.0\",\"packageName\":\"com.attacker\",\"eventTimeMillis\":\"1\",\"testNotification\":{}}", "3", &out),
             GATEKIT_EPUSH_PACKAGE);
    CHECK_RC(verify(v, bearer, "not json", "4", &out), GATEKIT_EPUSH_MESSAGE);
    CHECK_RC(play_verify_push(&out, v, bearer, "{", 1), GATEKIT_EPUSH_MESSAGE);
    CHECK_RC(play_verify_push(&out, v, bearer, NULL, 5), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "play_verify_push") != NULL);

    /* Google's issuer (the default) does not take the test issuer's pushes, even with its keys. */
    gatekit_play_push_options google = o;
    google.issuer = NULL;
    gatekit_play_push_verifier *g = NULL;
    CHECK_RC(play_push_verifier_new(&g, &google), GATEKIT_OK);
    CHECK_RC(verify(g, bearer, purchased, "5", &out), GATEKIT_EPUSH_CLAIMS);
    CHECK(strstr(gatekit_last_error(), "accounts.google.com") != NULL);

    gatekit_play_push_options wrong = o;
    wrong.audience = "https://other.example.com";
    gatekit_play_push_verifier *w = NULL;
    CHECK_RC(play_push_verifier_new(&w, &wrong), GATEKIT_OK);
    CHECK_RC(verify(w, bearer, purchased, "6", &out), GATEKIT_EPUSH_CLAIMS);

    gatekit_play_push_options bad = o;
    bad.version = 99;
    CHECK_RC(play_push_verifier_new(&w, &bad), GATEKIT_EVERSION);
    bad = o;
    bad.max_token_age_s = 0;
    CHECK_RC(play_push_verifier_new(&w, &bad), GATEKIT_EINVAL);
    play_push_verifier_free(w);
    play_push_verifier_free(g);
    play_push_verifier_free(v);
    play_test_issuer_free(issuer);
    play_test_issuer_free(other);
    gatekit_free(keys);
    gatekit_free(bearer);
    gatekit_free(foreign);
}

/* The stand-in's last API log line contains fragment and passed its check. */
static int last_request_had(const char *fragment) {
    char *log = (char *)check_read_file(getenv("GATEKIT_TEST_PLAY_LOG"), NULL);
    if (!log) return 0;
    size_t n = strlen(log);
    while (n > 0 && log[n - 1] == '\n') log[--n] = 0;
    char *line = strrchr(log, '\n');
    line = line ? line + 1 : log;
    int ok = strstr(line, "\"problem\": null") && strstr(line, fragment);
    if (!ok) fprintf(stderr, "  stand-in: %s (wanted %s)\n", line, fragment);
    free(log);
    return ok;
}

static gatekit_play_client *client_with(const char *ca_file, int retries) {
    gatekit_play_client_options o = GATEKIT_PLAY_CLIENT_OPTIONS_INIT;
    o.package_name = getenv("GATEKIT_TEST_PLAY_PACKAGE");
    o.service_account_file = getenv("GATEKIT_TEST_PLAY_SERVICE_ACCOUNT");
    o.base_url = getenv("GATEKIT_TEST_PLAY_URL");
    o.ca_file = ca_file;
    o.max_retries = retries;
    gatekit_play_client *c = NULL;
    CHECK_RC(play_client_new(&c, &o), GATEKIT_OK);
    return c;
}

static gatekit_play_client *shared;
static void *worker(void *unused) {
    (void)unused;
    for (int i = 0; i < 10; i++) {
        char *out = NULL;
        if (play_voided_purchases_list(&out, shared, NULL) != 0) return (void *)1;
        gatekit_free(out);
    }
    return NULL;
}

static void test_the_api_against_the_standin(void) {
    const char *ca = getenv("GATEKIT_TEST_PLAY_CA");
    gatekit_play_client *c = client_with(ca, 2);
    char *out = NULL;
    if (!c) return;
    /* A day ago: Google (and the stand-in) refuse a startTime older than the 30 days it keeps. */
    char query[96], sent[96];
    long long day_ago = (long long)time(NULL) * 1000 - 86400000LL;
    snprintf(query, sizeof query, "{\"startTime\":%lld,\"type\":1}", day_ago);
    snprintf(sent, sizeof sent, "[\"startTime\", \"%lld\"], [\"type\", \"1\"]", day_ago);
    CHECK_RC(play_voided_purchases_list(&out, c, query), GATEKIT_OK);
    CHECK(out && out[0] == '{');
    CHECK(last_request_had(sent));
    gatekit_free(out);
    out = NULL;
    snprintf(query, sizeof query, "{\"startTime\":%lld,\"type\":1}", day_ago - 31 * 86400000LL);
    CHECK_RC(play_voided_purchases_list(&out, c, query), GATEKIT_EPLAY_API);
    CHECK(out && strstr(out, "\"httpStatus\":400"));
    gatekit_free(out);
    out = NULL;

    CHECK_RC(play_subscription_get(&out, c, "error-404-notFound"), GATEKIT_EPLAY_API);
    CHECK(out && strstr(out, "\"httpStatus\":404") && strstr(out, "\"status\":\"NOT_FOUND\"") && strstr(out, "\"reason\":\"notFound\""));
    CHECK(out && strstr(out, "\"retryable\":false"));
    CHECK(last_request_had("/purchases/subscriptionsv2/tokens/error-404-notFound"));
    gatekit_free(out);
    out = NULL;
    CHECK_RC(play_subscription_get(NULL, c, "error-410-purchaseTokenNoLongerValid"), GATEKIT_EPLAY_API);
    CHECK(strstr(gatekit_last_error(), "purchaseTokenNoLongerValid") != NULL);

    /* A 429 with Retry-After: 1, twice, then the answer (here Google's 404). */
    CHECK_RC(play_product_get(&out, c, "coins", "ratelimit-2-c"), GATEKIT_EPLAY_API);
    CHECK(out && strstr(out, "\"httpStatus\":404"));
    gatekit_free(out);
    out = NULL;

    CHECK_RC(play_subscription_revoke(&out, c, "a/../b", "{\"revocationContext\":{\"fullRefund\":{}}}"), GATEKIT_EPLAY_API);
    CHECK(last_request_had("/tokens/a%2F..%2Fb:revoke"));
    gatekit_free(out);
    out = NULL;
    CHECK_RC(play_subscription_revoke(&out, c, "t", "[]"), GATEKIT_EINVAL);
    CHECK_RC(play_voided_purchases_list(&out, c, "{\"starttime\":1}"), GATEKIT_EINVAL);
    const char *ids[] = {"GPA.1", "GPA.1"};
    CHECK_RC(play_orders_batch_get(&out, c, ids, 2), GATEKIT_EINVAL);

    shared = c;
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++) {
        void *failed = NULL;
        pthread_join(threads[i], &failed);
        CHECK(failed == NULL);
    }
    play_client_free(c);

    /* The system's CAs do not vouch for the stand-in. */
    gatekit_play_client *untrusting = client_with(NULL, 0);
    CHECK_RC(play_subscription_get(&out, untrusting, "t"), GATEKIT_EPLAY_TRANSPORT);
    play_client_free(untrusting);
}

static void test_key_files_another_user_could_replace(void) {
    char dir[] = "/tmp/gatekit-c-play-XXXXXX";
    if (!mkdtemp(dir)) return;
    char *account = NULL, path[128], link[128];
    CHECK_RC(play_test_service_account(&account, "a@b.iam.gserviceaccount.com", "https://127.0.0.1:1/token"), GATEKIT_OK);
    snprintf(path, sizeof path, "%s/key.json", dir);
    snprintf(link, sizeof link, "%s/link.json", dir);
    FILE *f = fopen(path, "w");
    if (f) { fputs(account ? account : "", f); fclose(f); }
    gatekit_free(account);
    gatekit_play_client_options o = GATEKIT_PLAY_CLIENT_OPTIONS_INIT;
    o.package_name = package;
    o.service_account_file = path;
    gatekit_play_client *c = NULL;
    chmod(path, 0600);
    CHECK_RC(play_client_new(&c, &o), GATEKIT_OK);
    play_client_free(c);
    chmod(path, 0666);
    CHECK_RC(play_client_new(&c, &o), GATEKIT_EUNSAFE);
    chmod(path, 0644);  /* world-readable: the private key has leaked */
    CHECK_RC(play_client_new(&c, &o), GATEKIT_EUNSAFE);
    CHECK(strstr(gatekit_last_error(), "can read it") != NULL);
    chmod(path, 0600);
    CHECK(symlink(path, link) == 0);
    o.service_account_file = link;
    CHECK_RC(play_client_new(&c, &o), GATEKIT_EUNSAFE);
    o.package_name = "com.example/../app";
    o.service_account_file = path;
    CHECK_RC(play_client_new(&c, &o), GATEKIT_EINVAL);
    unlink(link);
    unlink(path);
    rmdir(dir);
}

/* The test-purchase rule, as the Python models ask it (Architecture IV). */
static void test_the_test_purchase_rule(void) {
    const char *tester = "{\"kind\":\"androidpublisher#subscriptionPurchaseV2\",\"testPurchase\":{}}";
    const char *sale = "{\"kind\":\"androidpublisher#subscriptionPurchaseV2\"}";
    const char *v1 = "{\"kind\":\"androidpublisher#productPurchase\",\"purchaseType\":0}";
    CHECK(play_purchase_is_test(tester, strlen(tester), GATEKIT_PLAY_RESOURCE_SUBSCRIPTION_V2) == 1);
    CHECK(play_purchase_is_test(sale, strlen(sale), GATEKIT_PLAY_RESOURCE_SUBSCRIPTION_V2) == 0);
    CHECK(play_purchase_is_test(v1, strlen(v1), GATEKIT_PLAY_RESOURCE_PRODUCT) == 1);
    CHECK(play_purchase_is_test(v1, strlen(v1), GATEKIT_PLAY_RESOURCE_SUBSCRIPTION_V2) == GATEKIT_EPLAY_RESPONSE);
    CHECK(strstr(gatekit_last_error(), "kind") != NULL);
    CHECK(play_purchase_is_test(sale, strlen(sale), 9) == GATEKIT_EINVAL);
    CHECK(play_purchase_is_test(NULL, 0, GATEKIT_PLAY_RESOURCE_PRODUCT) == GATEKIT_EINVAL);
}

int main(void) {
    test_push_verification_offline();
    test_key_files_another_user_could_replace();
    test_the_test_purchase_rule();
    if (getenv("GATEKIT_TEST_PLAY_URL")) {
        test_the_api_against_the_standin();
    } else if (getenv("GATEKIT_REQUIRE_PLAY") && strcmp(getenv("GATEKIT_REQUIRE_PLAY"), "1") == 0) {
        fprintf(stderr, "GATEKIT_REQUIRE_PLAY=1 but no stand-in: run through scripts/with-play-standin.sh\n");
        check_failed++;
    } else {
        printf("SKIP: the Play Developer API against the stand-in (GATEKIT_TEST_PLAY_URL unset; make test starts one)\n");
    }
    return check_report("test_play");
}

/* The ledger kept in step with Apple (include/gatekit/ledger_sync.h) from C, against the local
 * HTTPS stand-in (scripts/with-appstore-standin.sh): the options and their defaults, every
 * argument a sync, a refresh or a refresher refuses, a history whose next page never changes
 * (refused, the pages before it kept, the checkpoint showing where it stopped), and a
 * question with a refresh budget: stale when nobody can be asked or the API is unreachable,
 * within the budget; the version 1 query and answer structs still read and filled as before.
 * The drop test (a year of lives, 30% of notifications lost, syncs killed and run twice at
 * once) is python/tests/test_ledger_sync.py, where the stand-in holds each test's history. */
#include "check.h"
#include "jws_signing.h"

static char folder[] = "/tmp/gatekit-c-ledger-sync-XXXXXX";
static const char *env(const char *name) { return getenv(name); }
static gatekit_appstore_key *key;
static const long long day = 86400000LL;

static gatekit_appstore_client *client_at(const char *base_url, int connect_timeout_ms) {
    gatekit_appstore_client_options o;
    if (appstore_client_options_init(&o, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION) != 0) return NULL;
    o.environment = "Sandbox";
    o.base_url = base_url;
    o.ca_file = env("GATEKIT_TEST_APPSTORE_CA");
    o.max_retries = 0;
    if (connect_timeout_ms) o.connect_timeout_ms = connect_timeout_ms;
    gatekit_appstore_client *c = NULL;
    int rc = appstore_client_new(&c, key, &o);
    if (rc != 0) fprintf(stderr, "appstore_client_new: %d %s\n", rc, gatekit_last_error());
    return c;
}

static gatekit_store *open_store(const char *name) {
    gatekit_store *s = NULL;
    CHECK_RC(check_store_open(&s, check_path_in(folder, name)), 0);
    return s;
}

static void test_options(void) {
    gatekit_ledger_sync_options o, fixed = GATEKIT_LEDGER_SYNC_OPTIONS_INIT;
    CHECK_RC(ledger_sync_options_init(&o, GATEKIT_LEDGER_SYNC_OPTIONS_VERSION), 0);
    CHECK(o.version == GATEKIT_LEDGER_SYNC_OPTIONS_VERSION && o.overlap_ms == 3600000 && o.lease_ms == 120000
          && o.verify == NULL && o.since_ms == 0 && o.until_ms == 0 && o.budget_ms == 0 && o.max_pages == 0);
    CHECK(memcmp(&o, &fixed, sizeof o) == 0);  /* the static initialiser gives the same defaults */
    CHECK_RC(ledger_sync_options_init(NULL, GATEKIT_LEDGER_SYNC_OPTIONS_VERSION), GATEKIT_EINVAL);
    CHECK_RC(ledger_sync_options_init(&o, 2), GATEKIT_EVERSION);
}

static void test_refusals(gatekit_store *s, gatekit_appstore_client *c, const gatekit_jws_options *verify) {
    gatekit_ledger_sync_options o;
    CHECK_RC(ledger_sync_options_init(&o, GATEKIT_LEDGER_SYNC_OPTIONS_VERSION), 0);
    char *json = (char *)"untouched";
    CHECK_RC(ledger_sync_notifications(&json, s, c, &o), GATEKIT_EINVAL);  /* no verify options */
    CHECK(json == NULL && strstr(gatekit_last_error(), "verify is NULL"));
    o.verify = verify;
    CHECK_RC(ledger_sync_notifications(NULL, NULL, c, &o), GATEKIT_EINVAL);
    CHECK_RC(ledger_sync_notifications(NULL, s, NULL, &o), GATEKIT_EINVAL);
    CHECK_RC(ledger_sync_notifications(NULL, s, c, NULL), GATEKIT_EINVAL);
    gatekit_jws_options production = *verify;
    production.environment = "Production";
    production.app_apple_id = 41234;
    gatekit_ledger_sync_options other = o;
    other.verify = &production;
    CHECK_RC(ledger_sync_notifications(NULL, s, c, &other), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "is not the client's") != NULL);
    struct { const char *what; long long *field; long long value; } bad[] = {
        {"lease_ms", &other.lease_ms, 50}, {"overlap_ms", &other.overlap_ms, 31 * day},
        {"budget_ms", &other.budget_ms, -1}, {"since_ms", &other.since_ms, -5},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        other = o;
        *bad[i].field = bad[i].value;
        CHECK_RC(ledger_sync_notifications(NULL, s, c, &other), GATEKIT_EINVAL);
        CHECK(strstr(gatekit_last_error(), bad[i].what) != NULL);
    }
    other = o;
    other.version = 9;
    CHECK_RC(ledger_sync_notifications(NULL, s, c, &other), GATEKIT_EVERSION);
    /* Refresh: an app account token the ledger knows nothing of cannot be asked about. */
    CHECK_RC(ledger_refresh(&json, s, c, verify, "7e3fb20b-4cdb-47cc-936d-000000000000"), GATEKIT_ENOTFOUND);
    CHECK(json == NULL);
    CHECK_RC(ledger_refresh(NULL, s, c, &production, "1000"), GATEKIT_EINVAL);
    CHECK_RC(ledger_refresh(NULL, s, c, verify, ""), GATEKIT_EINVAL);
    /* A refresher: verify options needed with a client, environments agreeing; NULL detaches. */
    CHECK_RC(ledger_set_refresher(s, c, NULL), GATEKIT_EINVAL);
    CHECK_RC(ledger_set_refresher(s, c, &production), GATEKIT_EINVAL);
    CHECK_RC(ledger_set_refresher(NULL, c, verify), GATEKIT_EINVAL);
    CHECK_RC(ledger_set_refresher(s, NULL, NULL), 0);
    CHECK_RC(ledger_sync_state(&json, s, "bogus"), GATEKIT_EINVAL);
    CHECK_RC(ledger_sync_state(NULL, s, "Sandbox"), GATEKIT_EINVAL);
}

/* The stand-in's own answer (Apple's documented example) says hasMore with the same token on
 * every page: the first page is ingested and kept with its checkpoint, the second refused. */
static void test_a_history_that_never_ends(gatekit_store *s, gatekit_appstore_client *c, const gatekit_jws_options *verify) {
    gatekit_ledger_sync_options o;
    CHECK_RC(ledger_sync_options_init(&o, GATEKIT_LEDGER_SYNC_OPTIONS_VERSION), 0);
    o.verify = verify;
    char *json = NULL;
    /* A budget of one page stops there: partial, and the lease is given back. Page one's two
     * records are one notification (one notificationUUID): one item kept. */
    o.max_pages = 1;
    CHECK_RC(ledger_sync_notifications(&json, s, c, &o), GATEKIT_LEDGER_SYNC_PARTIAL);
    CHECK(json && strstr(json, "\"outcome\":\"partial\"") && strstr(json, "\"pages\":1") && strstr(json, "\"items\":2")
          && strstr(json, "\"new\":1") && strstr(json, "\"duplicate\":1") && strstr(json, "\"window\":{"));
    gatekit_free(json);
    /* Going on from the page token kept: the next page names the same token again, a cycle;
     * the window is read again from its start three times, then the sync fails with the reason. */
    o.max_pages = 0;
    CHECK_RC(ledger_sync_notifications(&json, s, c, &o), GATEKIT_EAPPSTORE_RESPONSE);
    CHECK(json == NULL && strstr(gatekit_last_error(), "repeated an earlier page token") != NULL
          && strstr(gatekit_last_error(), "3 times") != NULL);
    CHECK_RC(ledger_sync_state(&json, s, "Sandbox"), 0);
    CHECK(json && strstr(json, "\"syncedUntil\":null") && strstr(json, "\"pages\":1") && !strstr(json, "leaseUntil"));
    gatekit_free(json);
    gatekit_ledger_query q;
    CHECK_RC(ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION), 0);
    q.environment = "Sandbox";
    q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    CHECK_RC(ledger_history(&json, s, &q, NULL), 0);
    CHECK(json && strstr(json, "\"kind\":\"notification\"") && strstr(json, "\"id\":1,") && !strstr(json, "\"id\":2,"));
    gatekit_free(json);
    /* The same with a transaction history whose revision never changes. */
    CHECK_RC(ledger_refresh(&json, s, c, verify, "1234"), GATEKIT_EAPPSTORE_RESPONSE);
    CHECK(json == NULL && strstr(gatekit_last_error(), "repeated an earlier revision") != NULL);
}

/* A subscription whose period ended a day ago with auto-renew on and nothing heard since. */
static void test_refresh_budget(gatekit_store *s) {
    size_t anchor_len = 0;
    unsigned char *anchor = pki_der("root", &anchor_len);
    gatekit_jws_options own = opts("com.example", "Sandbox", 0, anchor, anchor_len);
    own.verify_time = now_ms() / 1000;
    long long t = now_ms();
    char tx[1024];
    snprintf(tx, sizeof tx,
             "{\"transactionId\":\"8801\",\"originalTransactionId\":\"8800\",\"bundleId\":\"com.example\",\"productId\":\"pro.monthly\","
             "\"subscriptionGroupIdentifier\":\"21000001\",\"purchaseDate\":%lld,\"originalPurchaseDate\":%lld,\"expiresDate\":%lld,"
             "\"quantity\":1,\"type\":\"Auto-Renewable Subscription\",\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":%lld,"
             "\"environment\":\"Sandbox\",\"transactionReason\":\"PURCHASE\"}", t - 31 * day, t - 31 * day, t - day, t - 31 * day);
    char renewal[512];
    snprintf(renewal, sizeof renewal,
             "{\"originalTransactionId\":\"8800\",\"autoRenewProductId\":\"pro.monthly\",\"productId\":\"pro.monthly\","
             "\"autoRenewStatus\":1,\"signedDate\":%lld,\"environment\":\"Sandbox\"}", t - 31 * day);
    char *signed_tx = sign_with("ES256", tx, "leaf", chain3, 3), *signed_renewal = sign_with("ES256", renewal, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_tx, &own), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_ingest_renewal_info(NULL, s, signed_renewal, &own), GATEKIT_LEDGER_NEW);

    gatekit_ledger_query q;
    CHECK_RC(ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION), 0);
    q.environment = "Sandbox";
    q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    CHECK_RC(ledger_is_entitled(&e, s, &q, "8800", "pro.monthly"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_EXPIRED && e.stale == 0);  /* not asked: not stale */
    q.refresh_budget_ms = 2000;
    CHECK_RC(ledger_is_entitled(&e, s, &q, "8800", "pro.monthly"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_EXPIRED && e.stale == 1);  /* asked, nobody to ask */
    char *json = NULL;
    CHECK_RC(ledger_entitlement(&json, s, &q, "8800", "pro.monthly"), 0);
    CHECK(json && strstr(json, "\"reason\":\"expired\"") && strstr(json, "\"stale\":true"));
    gatekit_free(json);
    /* Nothing listens at port 1: the refresh fails at once and the answer is stale. */
    gatekit_appstore_client *nowhere = client_at("https://127.0.0.1:1", 1000);
    CHECK_RC(ledger_set_refresher(s, nowhere, &own), 0);
    appstore_client_free(nowhere);  /* the handle keeps its own reference */
    long long before = now_ms();
    CHECK_RC(ledger_is_entitled(&e, s, &q, "8800", "pro.monthly"), 0);
    CHECK(e.stale == 1 && now_ms() - before < 2000);
    /* A certain answer never asks: a product never bought is plainly no purchase, not stale. */
    CHECK_RC(ledger_is_entitled(&e, s, &q, "8800", "other.product"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NO_PURCHASE && e.stale == 0);
    /* Version 1 structs (0.1.0 hosts): the query has no budget, the answer no stale member. */
    struct { unsigned int version; const char *environment; long long at_ms; unsigned int flags; } v1 = {1, "Sandbox", 0, GATEKIT_LEDGER_TEST_SIGNED};
    gatekit_entitlement old = {.version = 1, .stale = 7};
    CHECK_RC(ledger_is_entitled(&old, s, (const gatekit_ledger_query *)&v1, "8800", "pro.monthly"), 0);
    CHECK(old.version == 1 && old.reason == GATEKIT_LEDGER_REASON_EXPIRED && old.stale == 7);
    q.refresh_budget_ms = 600001;
    CHECK_RC(ledger_is_entitled(&e, s, &q, "8800", "pro.monthly"), GATEKIT_EINVAL);
    CHECK_RC(ledger_set_refresher(s, NULL, NULL), 0);
    free(signed_tx);
    free(signed_renewal);
    free(anchor);
}

int main(void) {
    if (!env("GATEKIT_TEST_APPSTORE_URL")) {
        if (env("GATEKIT_REQUIRE_APPSTORE") && strcmp(env("GATEKIT_REQUIRE_APPSTORE"), "1") == 0) {
            fprintf(stderr, "test_ledger_sync: GATEKIT_REQUIRE_APPSTORE=1 but no stand-in (scripts/with-appstore-standin.sh)\n");
            return 1;
        }
        printf("SKIP: test_ledger_sync needs the App Store Server API stand-in (make test starts it: scripts/with-appstore-standin.sh)\n");
        return 0;
    }
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    if (signing_make_pki(folder) != 0) {
        printf("test_ledger_sync: the openssl CLI could not make the test PKI\n");
        return 1;
    }
    size_t pem_len = 0;
    unsigned char *pem = check_read_file(env("GATEKIT_TEST_APPSTORE_KEY"), &pem_len);
    CHECK_RC(appstore_key_load(&key, pem, pem_len, env("GATEKIT_TEST_APPSTORE_KEY_ID"), env("GATEKIT_TEST_APPSTORE_ISSUER"),
                               env("GATEKIT_TEST_APPSTORE_BUNDLE_ID")), 0);
    free(pem);
    size_t anchor_len = 0;
    unsigned char *standin_anchor = check_read_file(env("GATEKIT_TEST_APPSTORE_ANCHOR"), &anchor_len);
    gatekit_jws_options verify = opts(env("GATEKIT_TEST_APPSTORE_BUNDLE_ID"), "Sandbox", 0, standin_anchor, anchor_len);

    test_options();
    gatekit_appstore_client *c = client_at(env("GATEKIT_TEST_APPSTORE_URL"), 0);
    CHECK(c != NULL);
    if (c) {
        gatekit_store *s = open_store("refusals.sqlite");
        test_refusals(s, c, &verify);
        gatekit_store_close(s);
        s = open_store("endless.sqlite");
        test_a_history_that_never_ends(s, c, &verify);
        gatekit_store_close(s);
        appstore_client_free(c);
    }
    gatekit_store *s = open_store("budget.sqlite");
    test_refresh_budget(s);
    gatekit_store_close(s);

    appstore_key_free(key);
    free(standin_anchor);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_ledger_sync");
}

/* The entitlement ledger from C: ingestion of signed notifications, transactions, renewal
 * infos and receipts (made here with the throw-away PKI, and Apple's real receipts), the
 * outcomes, every query function and its JSON, the versioned structs, refusals, threads on
 * one handle, and the gatekit tool's ledger commands. */
#include "check.h"
#include "jws_signing.h"

#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-c-ledger-XXXXXX";
static const char *fixtures;
static unsigned char *anchor;
static size_t anchor_len;
static gatekit_jws_options options;
static const long long day = 86400000LL;

static char *tx_json(const char *tid, const char *original, const char *product, long long purchase, long long expires,
                     long long signed_ms, const char *extra) {
    char *s = malloc(2048);
    snprintf(s, 2048,
             "{\"transactionId\":\"%s\",\"originalTransactionId\":\"%s\",\"bundleId\":\"com.example\",\"productId\":\"%s\","
             "\"subscriptionGroupIdentifier\":\"21000001\",\"purchaseDate\":%lld,\"originalPurchaseDate\":%lld,"
             "\"expiresDate\":%lld,\"quantity\":1,\"type\":\"Auto-Renewable Subscription\",\"inAppOwnershipType\":\"PURCHASED\","
             "\"signedDate\":%lld,\"environment\":\"Sandbox\",\"transactionReason\":\"PURCHASE\"%s}",
             tid, original, product, purchase, purchase, expires, signed_ms, extra);
    return s;
}

static char *renewal_json(const char *original, long long signed_ms, const char *extra) {
    char *s = malloc(1024);
    snprintf(s, 1024,
             "{\"originalTransactionId\":\"%s\",\"autoRenewProductId\":\"pro.monthly\",\"productId\":\"pro.monthly\","
             "\"autoRenewStatus\":1,\"signedDate\":%lld,\"environment\":\"Sandbox\"%s}",
             original, signed_ms, extra);
    return s;
}

static char *notification(const char *type, const char *uuid, long long signed_ms, const char *tx, const char *renewal) {
    char *stx = tx ? sign_with("ES256", tx, "leaf", (const char *const[]){"leaf", "int", "root"}, 3) : NULL;
    char *srn = renewal ? sign_with("ES256", renewal, "leaf", (const char *const[]){"leaf", "int", "root"}, 3) : NULL;
    size_t n = 1024 + (stx ? strlen(stx) : 0) + (srn ? strlen(srn) : 0);
    char *payload = malloc(n);
    snprintf(payload, n,
             "{\"notificationType\":\"%s\",\"notificationUUID\":\"%s\",\"data\":{\"environment\":\"Sandbox\","
             "\"appAppleId\":41234,\"bundleId\":\"com.example\"%s%s%s%s%s%s},\"version\":\"2.0\",\"signedDate\":%lld}",
             type, uuid, stx ? ",\"signedTransactionInfo\":\"" : "", stx ? stx : "", stx ? "\"" : "",
             srn ? ",\"signedRenewalInfo\":\"" : "", srn ? srn : "", srn ? "\"" : "", signed_ms);
    char *jws = sign_with("ES256", payload, "leaf", chain3, 3);
    free(stx); free(srn); free(payload);
    return jws;
}

static gatekit_ledger_query query(long long at_ms) {
    gatekit_ledger_query q;
    CHECK_RC(ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION), 0);
    q.environment = "Sandbox";
    q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    q.at_ms = at_ms;
    return q;
}

static gatekit_store *open_store(const char *name) {
    gatekit_store *s = NULL;
    CHECK_RC(check_store_open(&s, check_path_in(folder, name)), 0);
    return s;
}

static void test_ingest_and_answer(void) {
    gatekit_store *s = open_store("ledger.sqlite");
    long long t = now_ms();
    char *tx = tx_json("501", "500", "pro.monthly", t - day, t + 29 * day, t - day, "");
    char *renewal = renewal_json("500", t - day, "");
    char *subscribed = notification("SUBSCRIBED", "c0a80101-0000-4000-8000-000000000001", t - day, tx, renewal);
    char *json = NULL;
    CHECK_RC(ledger_ingest_notification(&json, s, subscribed, &options), GATEKIT_LEDGER_NEW);
    CHECK(json && strstr(json, "\"outcome\":\"new\"") && strstr(json, "\"kind\":\"notification\"")
          && strstr(json, "\"customer\":\"500\"") && strstr(json, "\"notificationType\":\"SUBSCRIBED\"")
          && strstr(json, "\"statusChanges\":[{\"originalTransactionId\":\"500\",\"subscriptionGroupIdentifier\":\"21000001\",\"from\":null,\"to\":1}]"));
    gatekit_free(json);
    /* Again, without asking for the report: a duplicate, nothing written. */
    CHECK_RC(ledger_ingest_notification(NULL, s, subscribed, &options), GATEKIT_LEDGER_DUPLICATE);

    gatekit_ledger_query now = query(0);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    CHECK_RC(ledger_is_entitled(&e, s, &now, "500", "pro.monthly"), 1);
    CHECK(e.entitled == 1 && e.reason == GATEKIT_LEDGER_REASON_SUBSCRIPTION && e.status == GATEKIT_SUBSCRIPTION_ACTIVE
          && e.until_ms == t + 29 * day && e.since_ms == t - day && e.family_shared == 0);
    CHECK_RC(ledger_is_entitled(NULL, s, &now, "500", "21000001"), 1);  /* the group */
    CHECK_RC(ledger_is_entitled(&e, s, &now, "500", "other.product"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NO_PURCHASE && e.until_ms == 0);
    /* As of before the purchase was signed, nothing was known: the customer was unknown then. */
    gatekit_ledger_query before = query(t - 2 * day);
    CHECK_RC(ledger_is_entitled(&e, s, &before, "500", "pro.monthly"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_UNKNOWN_CUSTOMER);

    /* Billing fails: the renewal info says billing retry with a grace period. As of an instant
     * after expiry the customer is in the grace period; the refund then revokes. */
    char *grace = renewal_json("500", t, ",\"isInBillingRetryPeriod\":true,\"gracePeriodExpiresDate\":9999999999999");
    char *failed = notification("DID_FAIL_TO_RENEW", "c0a80101-0000-4000-8000-000000000002", t, NULL, grace);
    CHECK_RC(ledger_ingest_notification(NULL, s, failed, &options), GATEKIT_LEDGER_NEW);
    gatekit_ledger_query after_expiry = query(t + 30 * day);
    CHECK_RC(ledger_is_entitled(&e, s, &after_expiry, "500", "pro.monthly"), 1);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_GRACE_PERIOD && e.status == GATEKIT_SUBSCRIPTION_BILLING_GRACE_PERIOD
          && e.until_ms == 9999999999999LL);
    char refund_extra[128];
    snprintf(refund_extra, sizeof refund_extra, ",\"revocationDate\":%lld,\"revocationReason\":0", t);
    char *refunded = tx_json("501", "500", "pro.monthly", t - day, t + 29 * day, t, refund_extra);
    char *signed_refund = sign_with("ES256", refunded, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(&json, s, signed_refund, &options), GATEKIT_LEDGER_NEW);
    CHECK(json && strstr(json, "\"from\":1,\"to\":5"));
    gatekit_free(json);
    CHECK_RC(ledger_is_entitled(&e, s, &now, "500", "pro.monthly"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_REVOKED && e.status == GATEKIT_SUBSCRIPTION_REVOKED);
    /* The older version, arriving late, changes nothing. */
    char *signed_tx = sign_with("ES256", tx, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_tx, &options), GATEKIT_LEDGER_SUPERSEDED);
    CHECK_RC(ledger_is_entitled(NULL, s, &now, "500", "pro.monthly"), 0);

    /* The JSON answers. */
    CHECK_RC(ledger_entitlement(&json, s, &now, "500", "pro.monthly"), 0);
    CHECK(json && strstr(json, "\"version\":1,\"entitled\":false,\"reason\":\"revoked\",\"productId\":\"pro.monthly\""));
    gatekit_free(json);
    CHECK_RC(ledger_active(&json, s, &before, "500"), 0);
    CHECK_STR(json, "{\"version\":1,\"entitlements\":[]}");
    gatekit_free(json);
    gatekit_ledger_query mid = query(t - day / 2);
    CHECK_RC(ledger_active(&json, s, &mid, "500"), 0);
    CHECK(json && strstr(json, "\"productId\":\"pro.monthly\"") && strstr(json, "\"reason\":\"subscription\""));
    gatekit_free(json);
    CHECK_RC(ledger_subscription_status(&json, s, &now, "500", NULL), 0);
    CHECK(json && strstr(json, "\"status\":5,\"originalTransactionId\":\"500\",\"signedTransactionInfo\":\"")
          && strstr(json, signed_refund) && strstr(json, "\"signedRenewalInfo\":\""));
    gatekit_free(json);
    CHECK_RC(ledger_subscription_status(&json, s, &now, "500", "no-such-group"), 0);
    CHECK(json && strstr(json, "\"data\":[]"));
    gatekit_free(json);
    CHECK_RC(ledger_intro_eligible(s, &now, "500", "21000001"), 0);
    CHECK_RC(ledger_intro_eligible(s, &now, "500", "21000002"), 1);
    CHECK_RC(ledger_intro_eligible(s, &now, "nobody-known", "21000001"), 1);
    CHECK_RC(ledger_history(&json, s, &now, "500"), 0);
    CHECK(json && strstr(json, "\"notificationType\":\"SUBSCRIBED\"") && strstr(json, "\"outcome\":\"superseded\"")
          && strstr(json, "\"statusChanges\":[{\"originalTransactionId\":\"500\""));
    gatekit_free(json);

    /* Test-signed data never answers for App Store data: the answer says only test-signed
     * data matches (a product it does not cover is plainly no purchase; a customer the ledger
     * has never seen, an unknown customer). */
    gatekit_ledger_query genuine = now;
    genuine.flags = 0;
    CHECK_RC(ledger_is_entitled(&e, s, &genuine, "500", "pro.monthly"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_ONLY_TEST_SIGNED && e.until_ms == 0);
    CHECK_RC(ledger_is_entitled(&e, s, &genuine, "500", "not.sold"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NO_PURCHASE);
    CHECK_RC(ledger_is_entitled(&e, s, &genuine, "nobody-known", "pro.monthly"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_UNKNOWN_CUSTOMER);

    free(tx); free(renewal); free(subscribed); free(grace); free(failed); free(refunded); free(signed_refund); free(signed_tx);
    gatekit_store_close(s);
}

/* Every instant rule through the C API, one millisecond before, at and after (issue 32): expiry,
 * the grace period's end, a revocation. */
static void test_boundaries(void) {
    gatekit_store *s = open_store("boundaries.sqlite");
    long long t = now_ms() - 40 * day, expires = t + 30 * day, grace_end = t + 35 * day, revoked = t + 38 * day;
    char *tx = tx_json("901", "900", "pro.monthly", t, expires, t, "");
    char *signed_tx = sign_with("ES256", tx, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_tx, &options), GATEKIT_LEDGER_NEW);
    char extra[128];
    snprintf(extra, sizeof extra, ",\"isInBillingRetryPeriod\":true,\"gracePeriodExpiresDate\":%lld", grace_end);
    char *renewal = renewal_json("900", expires, extra);
    char *signed_renewal = sign_with("ES256", renewal, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_renewal_info(NULL, s, signed_renewal, &options), GATEKIT_LEDGER_NEW);
    struct { long long at; int entitled; int reason; } rows[] = {
        {expires - 1, 1, GATEKIT_LEDGER_REASON_SUBSCRIPTION}, {expires, 1, GATEKIT_LEDGER_REASON_GRACE_PERIOD},
        {grace_end - 1, 1, GATEKIT_LEDGER_REASON_GRACE_PERIOD}, {grace_end, 0, GATEKIT_LEDGER_REASON_BILLING_RETRY},
        {grace_end + 1, 0, GATEKIT_LEDGER_REASON_BILLING_RETRY},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gatekit_ledger_query q = query(rows[i].at);
        gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
        CHECK_RC(ledger_is_entitled(&e, s, &q, "900", "pro.monthly"), rows[i].entitled);
        CHECK(e.reason == rows[i].reason);
    }
    /* A refund signed later, revoking from `revoked`. */
    snprintf(extra, sizeof extra, ",\"revocationDate\":%lld,\"revocationReason\":0", revoked);
    char *refund = tx_json("901", "900", "pro.monthly", t, expires, revoked, extra);
    char *signed_refund = sign_with("ES256", refund, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_refund, &options), GATEKIT_LEDGER_NEW);
    long long at[] = {revoked - 1, revoked, revoked + 1};
    int reasons[] = {GATEKIT_LEDGER_REASON_BILLING_RETRY, GATEKIT_LEDGER_REASON_REVOKED, GATEKIT_LEDGER_REASON_REVOKED};
    for (int i = 0; i < 3; i++) {
        gatekit_ledger_query q = query(at[i]);
        gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
        CHECK_RC(ledger_is_entitled(&e, s, &q, "900", "pro.monthly"), 0);
        CHECK(e.reason == reasons[i]);
    }
    /* A non-renewing subscription: not yet purchased until its purchase, entitled until its expiry. */
    char nr[1024];
    snprintf(nr, sizeof nr,
             "{\"transactionId\":\"911\",\"originalTransactionId\":\"910\",\"bundleId\":\"com.example\",\"productId\":\"season.pass\","
             "\"purchaseDate\":%lld,\"originalPurchaseDate\":%lld,\"expiresDate\":%lld,\"quantity\":1,\"type\":\"Non-Renewing Subscription\","
             "\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":%lld,\"environment\":\"Sandbox\"}", t, t, expires, t);
    char *signed_nr = sign_with("ES256", nr, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_nr, &options), GATEKIT_LEDGER_NEW);
    struct { long long at; int entitled; int reason; } pass[] = {
        {t - 1, 0, GATEKIT_LEDGER_REASON_UNKNOWN_CUSTOMER},  /* as of before it was signed, nothing was known */
        {t, 1, GATEKIT_LEDGER_REASON_NON_RENEWING}, {expires - 1, 1, GATEKIT_LEDGER_REASON_NON_RENEWING},
        {expires, 0, GATEKIT_LEDGER_REASON_EXPIRED}, {expires + 1, 0, GATEKIT_LEDGER_REASON_EXPIRED},
    };
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
        gatekit_ledger_query q = query(pass[i].at);
        gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
        CHECK_RC(ledger_is_entitled(&e, s, &q, "910", "season.pass"), pass[i].entitled);
        CHECK(e.reason == pass[i].reason);
    }
    free(tx); free(signed_tx); free(renewal); free(signed_renewal); free(refund); free(signed_refund); free(signed_nr);
    gatekit_store_close(s);
}

static void test_refusals(void) {
    gatekit_store *s = open_store("refusals.sqlite");
    long long t = now_ms();
    char *tx = tx_json("601", "600", "pro.monthly", t - day, t + day, t - day, "");
    char *forged = sign_with("ES256", tx, "other_root", chain3, 3);
    char *json = (char *)0x1;
    CHECK_RC(ledger_ingest_transaction(&json, s, forged, &options), GATEKIT_EJWS_SIGNATURE);
    CHECK(json == NULL);
    gatekit_jws_options other = options;
    other.bundle_id = "com.other";
    char *good = sign_with("ES256", tx, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, good, &other), GATEKIT_EJWS_BUNDLE_ID);
    CHECK_RC(ledger_ingest_renewal_info(NULL, s, good, &options), GATEKIT_EJWS_PAYLOAD_FIELD);  /* a transaction is no renewal info */
    char *no_ids = sign_with("ES256", "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedDate\":1}", "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, no_ids, &options), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK(strstr(gatekit_last_error(), "keys on") != NULL);
    gatekit_ledger_query q = query(0);
    CHECK_RC(ledger_history(&json, s, &q, NULL), 0);
    CHECK(json && strstr(json, "\"items\":[]"));
    gatekit_free(json);

    gatekit_ledger_query bad = q;
    bad.version = 0;
    CHECK_RC(ledger_is_entitled(NULL, s, &bad, "600", "p"), GATEKIT_EVERSION);
    CHECK_RC(ledger_query_init(&bad, GATEKIT_LEDGER_QUERY_VERSION + 1), GATEKIT_EVERSION);
    bad = q;
    bad.flags = 0x80;
    CHECK_RC(ledger_is_entitled(NULL, s, &bad, "600", "p"), GATEKIT_EINVAL);
    bad = q;
    bad.environment = "Staging";
    CHECK_RC(ledger_is_entitled(NULL, s, &bad, "600", "p"), GATEKIT_EINVAL);
    bad = q;
    bad.at_ms = -5;
    CHECK_RC(ledger_is_entitled(NULL, s, &bad, "600", "p"), GATEKIT_EINVAL);
    gatekit_entitlement e = {.version = 7};
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "p"), GATEKIT_EVERSION);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "", "p"), GATEKIT_EINVAL);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "600", ""), GATEKIT_EINVAL);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "\xff\xfe", "p"), GATEKIT_EINVAL);
    free(tx); free(forged); free(good); free(no_ids);
    gatekit_store_close(s);
}

/* A batch: verified together, recorded in one transaction; failures reported in place. */
/* One endpoint for both environments: each notification verified with the options of the
 * environment it names (Production: the app Apple id), and kept apart. */
static void test_either_environment(void) {
    gatekit_store *s = open_store("environments.sqlite");
    long long t = now_ms();
    gatekit_jws_options production = options;
    production.environment = "Production";
    production.app_apple_id = 41234;
    production.flags = GATEKIT_JWS_TEST_PRODUCTION;  /* test-signed data, accepted as Production for this test */
    const gatekit_jws_options *both[] = {&production, &options}, *sandbox_only[] = {&options}, *twice[] = {&options, &options};
    char *tx = tx_json("701", "700", "pro.monthly", t - day, t + 29 * day, t - day, "");
    char *sandbox = notification("SUBSCRIBED", "c0a80101-0000-4000-8000-000000000701", t - day, tx, NULL);
    char *json = NULL;
    CHECK_RC(ledger_ingest_notification_any(&json, s, sandbox, both, 2), GATEKIT_LEDGER_NEW);
    CHECK(json && strstr(json, "\"environment\":\"Sandbox\""));
    gatekit_free(json);
    char payload[8192], prod_tx[2048];
    snprintf(prod_tx, sizeof prod_tx,
             "{\"transactionId\":\"801\",\"originalTransactionId\":\"800\",\"bundleId\":\"com.example\",\"productId\":\"pro.monthly\","
             "\"purchaseDate\":%lld,\"originalPurchaseDate\":%lld,\"quantity\":1,\"type\":\"Non-Consumable\","
             "\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":%lld,\"environment\":\"Production\"}", t - day, t - day, t - day);
    char *signed_prod_tx = sign_with("ES256", prod_tx, "leaf", chain3, 3);
    for (int app = 0; app < 2; app++) {
        snprintf(payload, sizeof payload,
                 "{\"notificationType\":\"ONE_TIME_CHARGE\",\"notificationUUID\":\"c0a80101-0000-4000-8000-00000000080%d\","
                 "\"data\":{\"environment\":\"Production\",\"appAppleId\":%d,\"bundleId\":\"com.example\","
                 "\"signedTransactionInfo\":\"%s\"},\"version\":\"2.0\",\"signedDate\":%lld}",
                 app, app ? 41234 : 999, signed_prod_tx, t - day);
        char *prod = sign_with("ES256", payload, "leaf", chain3, 3);
        /* Production's rule applies: another app's Apple id is refused; its own is recorded. */
        CHECK_RC(ledger_ingest_notification_any(NULL, s, prod, both, 2), app ? GATEKIT_LEDGER_NEW : GATEKIT_EJWS_APP_APPLE_ID);
        if (app) CHECK_RC(ledger_ingest_notification_any(NULL, s, prod, sandbox_only, 1), GATEKIT_EJWS_ENVIRONMENT);
        free(prod);
    }
    gatekit_ledger_query q = query(0);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "700", "pro.monthly"), 1);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "800", "pro.monthly"), 0);  /* Production's stays Production's */
    q.environment = "Production";
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "800", "pro.monthly"), 1);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "700", "pro.monthly"), 0);
    CHECK_RC(ledger_ingest_notification_any(NULL, s, sandbox, twice, 2), GATEKIT_EINVAL);
    CHECK_RC(ledger_ingest_notification_any(NULL, s, sandbox, both, 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_ingest_notification_any(NULL, s, "not.a.jws", both, 2), GATEKIT_EJWS_MALFORMED);
    free(tx); free(sandbox); free(signed_prod_tx);
    gatekit_store_close(s);
}

/* App accounts: the host's user ids linked to tokens and original transaction ids, questions
 * by app account, a transfer between app accounts, and Apple's transfer (a transaction
 * re-signed with another appAccountToken), which an app account linked to a token follows. */
static void test_app_accounts(void) {
    gatekit_store *s = open_store("accounts.sqlite");
    long long t = now_ms();
    const char *t1 = "9a0e8c8b-2f0a-4b7e-9d8e-000000000001", *t2 = "9a0e8c8b-2f0a-4b7e-9d8e-000000000002";
    char extra[128];
    snprintf(extra, sizeof extra, ",\"appAccountToken\":\"%s\"", t1);
    char *sub = tx_json("951", "950", "pro.monthly", t - day, t + 29 * day, t - day, extra);
    char *lifetime = tx_json("961", "960", "lifetime", t - day, t + 29 * day, t - day, "");
    char *signed_sub = sign_with("ES256", sub, "leaf", chain3, 3), *signed_lifetime = sign_with("ES256", lifetime, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_sub, &options), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_lifetime, &options), GATEKIT_LEDGER_NEW);

    CHECK_RC(ledger_link(s, "Sandbox", "alice", t1), 1);
    CHECK_RC(ledger_link(s, "Sandbox", "alice", "9A0E8C8B-2F0A-4B7E-9D8E-000000000001"), 0);  /* the same token */
    CHECK_RC(ledger_link(s, "Sandbox", "alice", "960"), 1);
    gatekit_ledger_query q = query(0);
    q.flags |= GATEKIT_LEDGER_APP_USER;
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    CHECK_RC(ledger_is_entitled(&e, s, &q, "alice", "pro.monthly"), 1);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_SUBSCRIPTION && e.until_ms == t + 29 * day);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "alice", "lifetime"), 1);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "bob", "lifetime"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_UNKNOWN_CUSTOMER);  /* an app account nothing is linked to */
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "960", "lifetime"), 0);  /* "960" is no app account's id */

    /* The lifetime purchase moves to bob: one app account at a time. */
    CHECK_RC(ledger_link(s, "Sandbox", "bob", "960"), 2);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "alice", "lifetime"), 0);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "bob", "lifetime"), 1);
    char *json = NULL;
    CHECK_RC(ledger_active(&json, s, &q, "bob"), 0);
    CHECK(json && strstr(json, "\"productId\":\"lifetime\"") && !strstr(json, "pro.monthly"));
    gatekit_free(json);
    CHECK_RC(ledger_links(&json, s, "Sandbox", NULL, "960", 0), 0);
    CHECK(json && strstr(json, "\"links\":[{\"appUserId\":\"bob\",\"customer\":\"960\"")
          && strstr(json, "{\"appUserId\":\"alice\",\"customer\":\"960\",\"linked\":false") && strstr(json, "\"cause\":\"transfer\""));
    gatekit_free(json);
    /* The feed hears of the move: the lifetime purchase's answer as it stands, bob's now. */
    CHECK_RC(ledger_changes(&json, s, 0, 100), 0);
    const char *moved_change = json ? strstr(json, "\"cause\":\"transfer\"") : NULL;
    CHECK(moved_change && strstr(json, "\"originalTransactionId\":\"960\",\"appUserIds\":[\"bob\"]")
          && !strstr(moved_change + 1, "\"cause\":\"transfer\""));
    gatekit_free(json);

    /* Apple's transfer: the subscription re-signed with another token leaves alice's token. */
    snprintf(extra, sizeof extra, ",\"appAccountToken\":\"%s\"", t2);
    char *moved = tx_json("951", "950", "pro.monthly", t - day, t + 29 * day, t - day / 2, extra);
    char *signed_moved = sign_with("ES256", moved, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_moved, &options), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "alice", "pro.monthly"), 0);
    CHECK_RC(ledger_link(s, "Sandbox", "carol", t2), 1);
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "carol", "pro.monthly"), 1);
    CHECK_RC(ledger_subscription_status(&json, s, &q, "carol", NULL), 0);
    CHECK(json && strstr(json, "\"originalTransactionId\":\"950\""));
    gatekit_free(json);
    CHECK_RC(ledger_intro_eligible(s, &q, "carol", "21000001"), 0);
    CHECK_RC(ledger_intro_eligible(s, &q, "alice", "21000001"), 1);
    CHECK_RC(ledger_history(&json, s, &q, "carol"), 0);
    CHECK(json && strstr(json, "\"originalTransactionIds\":[\"950\"]"));
    gatekit_free(json);
    CHECK_RC(ledger_history(&json, s, &q, NULL), GATEKIT_EINVAL);

    CHECK_RC(ledger_unlink(s, "Sandbox", "bob", "960"), 1);
    CHECK_RC(ledger_unlink(s, "Sandbox", "bob", "960"), 0);
    CHECK_RC(ledger_unlink(s, "Sandbox", "alice", "960"), 0);  /* it had moved to bob */
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "bob", "lifetime"), 0);
    CHECK_RC(ledger_links(&json, s, "Production", "alice", NULL, 0), 0);  /* environments are apart */
    CHECK(json && strstr(json, "\"links\":[]") && strstr(json, "\"changes\":[]"));
    gatekit_free(json);
    CHECK_RC(ledger_link(s, "Sandbox", "", "960"), GATEKIT_EINVAL);
    CHECK_RC(ledger_link(s, "bogus", "alice", "960"), GATEKIT_EINVAL);
    free(sub); free(lifetime); free(signed_sub); free(signed_lifetime); free(moved); free(signed_moved);
    gatekit_store_close(s);
}

/* The change feed: each change of an answer once, numbered, with its cause; a period ending
 * with nothing ingested is a change too, dated at its end, and wakes a waiting reader. */
static void test_change_feed(void) {
    gatekit_store *s = open_store("feed.sqlite");
    char *json = NULL;
    CHECK_RC(ledger_changes(&json, s, 0, 100), 0);
    CHECK_STR(json, "{\"version\":1,\"changes\":[],\"last\":0}");
    gatekit_free(json);
    CHECK_RC(ledger_wait_changes(s, 0, 0), 0);
    long long t = now_ms();
    CHECK_RC(ledger_link(s, "Sandbox", "dave", "970"), 1);
    char *tx = tx_json("971", "970", "pro.monthly", t - day, t + 29 * day, t - day, "");
    char *signed_tx = sign_with("ES256", tx, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_tx, &options), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_tx, &options), GATEKIT_LEDGER_DUPLICATE);
    CHECK_RC(ledger_wait_changes(s, 0, 1000), 1);
    CHECK_RC(ledger_changes(&json, s, 0, 100), 0);
    char expect[512];
    snprintf(expect, sizeof expect, "\"seq\":1,\"environment\":\"Sandbox\",\"testSigned\":true,\"originalTransactionId\":\"970\","
             "\"appUserIds\":[\"dave\"],\"store\":\"app-store\",\"productId\":\"pro.monthly\",\"entitled\":true,\"reason\":\"subscription\",\"status\":1,"
             "\"until\":%lld,", t + 29 * day);
    CHECK(json && strstr(json, expect) && strstr(json, "\"cause\":\"ingest\",\"item\":1,") && strstr(json, "\"last\":1}")
          && !strstr(json, "\"seq\":2"));
    gatekit_free(json);
    /* A refund: one more change. */
    char refund_extra[128];
    snprintf(refund_extra, sizeof refund_extra, ",\"revocationDate\":%lld,\"revocationReason\":0", t - day / 2);
    char *refunded = tx_json("971", "970", "pro.monthly", t - day, t + 29 * day, t - day / 2, refund_extra);
    char *signed_refund = sign_with("ES256", refunded, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_refund, &options), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_changes(&json, s, 1, 100), 0);
    CHECK(json && strstr(json, "\"seq\":2,") && strstr(json, "\"entitled\":false,\"reason\":\"revoked\",\"status\":5,")
          && strstr(json, "\"last\":2}"));
    gatekit_free(json);
    /* A period that ends in 1.2 s, with nothing ingested after: the waiting reader wakes at its
     * end, and the change is dated there. */
    long long ends = now_ms() + 1200;
    char *brief = tx_json("981", "980", "pro.monthly", t - day, ends, t - day, "");
    char *signed_brief = sign_with("ES256", brief, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_brief, &options), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_wait_changes(s, 3, 100), 0);  /* nothing yet */
    CHECK_RC(ledger_wait_changes(s, 3, 10000), 1);
    CHECK(now_ms() >= ends);
    CHECK_RC(ledger_changes(&json, s, 3, 100), 0);
    snprintf(expect, sizeof expect, "\"seq\":4,\"environment\":\"Sandbox\",\"testSigned\":true,\"originalTransactionId\":\"980\","
             "\"appUserIds\":[],\"store\":\"app-store\",\"productId\":\"pro.monthly\",\"entitled\":false,\"reason\":\"expired\",\"status\":2,\"at\":%lld,"
             "\"cause\":\"time\",\"recorded\":", ends);
    CHECK(json && strstr(json, expect) && strstr(json, "\"last\":4}"));
    gatekit_free(json);
    CHECK_RC(ledger_changes(&json, s, 0, 1), 0);  /* a page of one, and its cursor */
    CHECK(json && strstr(json, "\"seq\":1,") && !strstr(json, "\"seq\":2,") && strstr(json, "\"last\":1}"));
    gatekit_free(json);
    CHECK_RC(ledger_changes(&json, s, 0, 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_changes(&json, s, -1, 10), GATEKIT_EINVAL);
    CHECK_RC(ledger_wait_changes(s, 0, -1), GATEKIT_EINVAL);
    free(tx); free(signed_tx); free(refunded); free(signed_refund); free(brief); free(signed_brief);
    gatekit_store_close(s);
}

/* Hardening IV, 20: a handle closed while another thread is inside a batch on it. The batch
 * ends (recorded, or refused with a clear error) and nothing crashes; a call made on the handle
 * after its close is GATEKIT_EINVAL naming the closed handle, never a use of freed memory. */
typedef struct { gatekit_store *store; const char **items; size_t count; volatile int started; int rc; char error[512]; } close_race;

static void *batch_during_close(void *arg) {
    close_race *r = arg;
    r->started = 1;
    r->rc = ledger_ingest_batch(NULL, r->store, GATEKIT_JWS_TRANSACTION, r->items, r->count, &options);
    if (r->rc < 0) snprintf(r->error, sizeof r->error, "%s", gatekit_last_error());  /* the error is per thread */
    return NULL;
}

static void test_close_during_batch(void) {
    enum { M = 64 };
    long long t = now_ms();
    char *owned[M];
    const char *items[M];
    for (int k = 0; k < M; k++) {
        char tid[32], original[32];
        snprintf(tid, sizeof tid, "95%03d", k);
        snprintf(original, sizeof original, "950%03d", k);
        char *tx = tx_json(tid, original, "pro.monthly", t - day, t + 30 * day, t - day, "");
        items[k] = owned[k] = sign_with("ES256", tx, "leaf", chain3, 3);
        free(tx);
    }
    for (int round = 0; round < 4; round++) {
        char name[64];
        snprintf(name, sizeof name, "close-race-%d.sqlite", round);
        close_race r = {.store = open_store(name), .items = items, .count = M};
        pthread_t thread;
        CHECK(pthread_create(&thread, NULL, batch_during_close, &r) == 0);
        while (!r.started) sched_yield();
        usleep(1000 * (unsigned)(round * 3));  /* closed before, early in and well into the batch */
        gatekit_store_close(r.store);
        pthread_join(thread, NULL);
        CHECK(r.rc == M || r.rc == GATEKIT_EINVAL);
        if (r.rc == GATEKIT_EINVAL) CHECK(strstr(r.error, "closed") != NULL);
    }
    /* A call on a handle already closed: the reason, not a crash. */
    gatekit_store *closed = open_store("closed.sqlite");
    gatekit_store_close(closed);
    gatekit_ledger_query q = query(0);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    CHECK_RC(ledger_is_entitled(&e, closed, &q, "950000", "pro.monthly"), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "closed") != NULL);
    gatekit_store_close(closed);  /* closing twice: nothing happens */
    for (int k = 0; k < M; k++) free(owned[k]);
}

static void test_batch(void) {
    gatekit_store *s = open_store("batch.sqlite");
    long long t = now_ms();
    enum { N = 5 };
    const char *items[N + 2];
    char *owned[N + 1];
    for (int k = 0; k < N; k++) {
        char tid[32];
        snprintf(tid, sizeof tid, "90%d", k);
        char *tx = tx_json(tid, "900", "pro.monthly", t - (N - k) * day, t - (N - k) * day + 30 * day, t - (N - k) * day, "");
        items[k] = owned[k] = sign_with("ES256", tx, "leaf", chain3, 3);
        free(tx);
    }
    char *tx = tx_json("999", "900", "pro.monthly", t, t + day, t, "");
    items[N] = owned[N] = sign_with("ES256", tx, "other_root", chain3, 3);  /* forged */
    free(tx);
    items[N + 1] = items[0];  /* repeated in the same batch */
    char *json = NULL;
    CHECK_RC(ledger_ingest_batch(&json, s, GATEKIT_JWS_TRANSACTION, items, N + 2, &options), N);
    CHECK(json && strstr(json, "{\"error\":-307,\"message\":") && strstr(json, "\"outcome\":\"duplicate\""));
    gatekit_free(json);
    CHECK_RC(ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, items, N, &options), 0);  /* all duplicates now */
    gatekit_ledger_query q = query(0);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    CHECK_RC(ledger_is_entitled(&e, s, &q, "900", "pro.monthly"), 1);
    CHECK(e.until_ms == t - day + 30 * day);
    CHECK_RC(ledger_history(&json, s, &q, "900"), 0);
    int recorded = 0;
    for (const char *p = json; p && (p = strstr(p, "\"kind\":\"transaction\"")); p++) recorded++;
    CHECK(recorded == N);
    gatekit_free(json);
    /* A batch long enough for helper threads (8 items or more each): every result in its item's
     * place, whichever thread verified it and whenever it was recorded. */
    enum { M = 48 };
    const char *many[M];
    char *made[M];
    int forged = 0;
    for (int k = 0; k < M; k++) {
        char tid[32], original[32];
        snprintf(tid, sizeof tid, "93%02d", k);
        snprintf(original, sizeof original, "92%02d", k);
        char *body = tx_json(tid, original, "pro.monthly", t - day, t + 30 * day, t - day, "");
        int forge = k % 7 == 3;
        forged += forge;
        many[k] = made[k] = sign_with("ES256", body, forge ? "other_root" : "leaf", chain3, 3);
        free(body);
    }
    CHECK_RC(ledger_ingest_batch(&json, s, GATEKIT_JWS_TRANSACTION, many, M, &options), M - forged);
    const char *at = json ? strstr(json, "\"results\":[") : NULL;
    for (int k = 0; k < M && at; k++) {
        char mark[48];
        if (k % 7 == 3) snprintf(mark, sizeof mark, "{\"error\":-307,");
        else snprintf(mark, sizeof mark, "\"92%02d\"", k);
        at = strstr(at, mark);
        if (!at) fprintf(stderr, "test_batch: result %d (%s) is missing or out of order\n", k, mark);
        else at += strlen(mark);
    }
    CHECK(at != NULL);
    gatekit_free(json);
    for (int k = 0; k < M; k++) free(made[k]);
    CHECK_RC(ledger_ingest_batch(NULL, s, 9, items, 1, &options), GATEKIT_EINVAL);
    CHECK_RC(ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, NULL, 1, &options), GATEKIT_EINVAL);
    CHECK_RC(ledger_ingest_batch(NULL, s, GATEKIT_JWS_TRANSACTION, NULL, 0, &options), 0);
    for (int k = 0; k <= N; k++) free(owned[k]);
    gatekit_store_close(s);
}

/* The product catalog: entitlement names, a non-renewing term, catalogs over time. */
static void test_catalog(void) {
    gatekit_store *s = open_store("catalog.sqlite");
    long long t = now_ms();
    char *json = NULL;
    CHECK_RC(ledger_catalog(&json, s, 0), GATEKIT_OK);
    CHECK(json && strcmp(json, "{\"version\":1,\"products\":{}}") == 0);
    gatekit_free(json);
    char *tx = tx_json("601", "600", "pro.monthly", t - 10 * day, t + 20 * day, t - 10 * day, "");
    char *signed_tx = sign_with("ES256", tx, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_tx, &options), GATEKIT_LEDGER_NEW);
    char pass[1024];  /* a non-renewing subscription: Apple signs no end */
    snprintf(pass, sizeof pass,
             "{\"transactionId\":\"611\",\"originalTransactionId\":\"611\",\"bundleId\":\"com.example\",\"productId\":\"season.pass\","
             "\"purchaseDate\":%lld,\"originalPurchaseDate\":%lld,\"quantity\":1,\"type\":\"Non-Renewing Subscription\","
             "\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":%lld,\"environment\":\"Sandbox\"}", t - 10 * day, t - 10 * day, t - 10 * day);
    char *signed_pass = sign_with("ES256", pass, "leaf", chain3, 3);
    CHECK_RC(ledger_ingest_transaction(NULL, s, signed_pass, &options), GATEKIT_LEDGER_NEW);
    gatekit_ledger_query q = query(0);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    /* Without a catalog: product ids only, and a non-renewing subscription has no known end. */
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "pro"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NO_PURCHASE);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "611", "season.pass"), 1);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NON_RENEWING && e.until_ms == 0);

    const char *catalog = "{\"correction\":\"purchases predate it\",\"products\":{\"pro.monthly\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]},"
                          "\"season.pass\":{\"type\":\"non-renewing\",\"term\":\"P30D\",\"entitlements\":[\"pro\",\"extras\"]}}}";
    CHECK_RC(ledger_declare_catalog(s, catalog, t - 5 * day), GATEKIT_OK);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "pro"), 1);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_SUBSCRIPTION && e.until_ms == t + 20 * day);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "611", "extras"), 1);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NON_RENEWING && e.until_ms == t - 10 * day + 30 * day);
    q = query(t + 21 * day);  /* past the 30-day term */
    CHECK_RC(ledger_is_entitled(&e, s, &q, "611", "extras"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_EXPIRED);
    /* As of an instant before the catalog took effect: its names meant nothing yet. */
    q = query(t - 7 * day);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "pro"), 0);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "pro.monthly"), 1);
    CHECK_RC(ledger_catalog(&json, s, t - 7 * day), GATEKIT_OK);
    CHECK(json && strcmp(json, "{\"version\":1,\"products\":{}}") == 0);
    gatekit_free(json);
    q = query(0);
    CHECK_RC(ledger_active(&json, s, &q, "611"), GATEKIT_OK);
    CHECK(json && strstr(json, "\"productId\":\"season.pass\"") && strstr(json, "\"entitlements\":[\"pro\",\"extras\"]"));
    gatekit_free(json);
    CHECK_RC(ledger_catalog(&json, s, 0), GATEKIT_OK);
    char expected[128];
    snprintf(expected, sizeof expected, "{\"version\":1,\"effective\":%lld,", t - 5 * day);
    CHECK(json && strncmp(json, expected, strlen(expected)) == 0 && strstr(json, "\"term\":\"P30D\""));
    gatekit_free(json);
    /* A later catalog takes over from its instant; one that cannot be used is refused whole. */
    CHECK_RC(ledger_declare_catalog(s, "{\"products\":{\"pro.monthly\":{\"entitlements\":[\"premium\"]}}}", 0), GATEKIT_OK);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "premium"), 1);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "pro"), 0);
    q = query(t - 1 * day);  /* the first catalog was in effect then */
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "pro"), 1);
    const char *refused[] = {"{\"products\":{\"p\":{\"entitlement\":[\"pro\"]}}}", "{\"products\":{\"p\":{\"term\":\"P1M\"}}}",
                             "{\"products\":{\"p\":{\"type\":\"non-renewing\",\"term\":\"1 month\"}}}",
                             "{\"products\":{\"p\":{\"entitlements\":[\"pro\",\"pro\"]}}}", "{\"items\":{}}", "[]", "{"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) CHECK_RC(ledger_declare_catalog(s, refused[i], 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_declare_catalog(s, NULL, 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_declare_catalog(s, catalog, -1), GATEKIT_EINVAL);
    CHECK_RC(ledger_catalog(NULL, s, 0), GATEKIT_EINVAL);
    q = query(0);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "premium"), 1);  /* still the last good catalog */
    /* Issue 44: a typo'd product id, checked before it is declared; a name the catalog does not
     * know answers unknown-name, with the nearest name it knows. */
    CHECK_RC(ledger_is_entitled(&e, s, &q, "999", "premum"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_UNKNOWN_NAME);
    CHECK_RC(ledger_entitlement(&json, s, &q, "999", "premum"), GATEKIT_OK);
    CHECK(json && strstr(json, "\"reason\":\"unknown-name\",\"didYouMean\":\"premium\""));
    gatekit_free(json);
    const char *typo = "{\"products\":{\"pro.montly\":{\"entitlements\":[\"premium\"]},\"season.pass\":{\"type\":\"non-renewing\"}}}";
    CHECK_RC(ledger_declare_catalog_report(&json, s, typo, 0, GATEKIT_CATALOG_CHECK_ONLY), GATEKIT_OK);
    CHECK(json && strstr(json, "\"declared\":false") && strstr(json, "{\"product\":\"pro.montly\",\"didYouMean\":\"pro.monthly\"}")
          && strstr(json, "\"unnamedProducts\":[\"pro.monthly\"]")
          && strstr(json, "{\"product\":\"pro.monthly\",\"gained\":[],\"lost\":[\"premium\"]}"));
    gatekit_free(json);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "premium"), 1);  /* a check declares nothing */
    CHECK_RC(ledger_declare_catalog_report(&json, s, typo, 0, 0), GATEKIT_OK);
    CHECK(json && strstr(json, "\"declared\":true") && strstr(json, "\"warnings\":[\""));
    gatekit_free(json);
    CHECK_RC(ledger_is_entitled(&e, s, &q, "600", "premium"), 0);
    json = (char *)1;
    CHECK_RC(ledger_declare_catalog_report(&json, s, typo, 0, 0x80), GATEKIT_EINVAL);
    CHECK(json == NULL);
    CHECK_RC(ledger_declare_catalog_report(NULL, s, typo, 0, 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_declare_catalog_report(&json, s, "{", 0, 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_declare_catalog_report(&json, NULL, typo, 0, 0), GATEKIT_EINVAL);
    free(tx); free(signed_tx); free(signed_pass);
    gatekit_store_close(s);
}

static void test_receipts(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/receipts/apple/tp__hist2020-InAppReceiptTests.der", fixtures);
    size_t n = 0;
    unsigned char *data = check_read_file(path, &n);
    if (!data) { printf("SKIP: %s not found (set GATEKIT_FIXTURES): receipt ingestion not tested\n", path); return; }
    gatekit_store *s = open_store("receipts.sqlite");
    gatekit_receipt_options ro;
    CHECK_RC(receipt_options_init(&ro, GATEKIT_RECEIPT_OPTIONS_VERSION), 0);
    ro.bundle_id = "com.nutcall.app-dev";
    char *json = NULL;
    CHECK_RC(ledger_ingest_receipt(&json, s, data, n, &ro), GATEKIT_LEDGER_NEW);
    CHECK(json && strstr(json, "\"kind\":\"receipt\"") && strstr(json, "\"environment\":\"Sandbox\"") && strstr(json, "\"testSigned\":false"));
    gatekit_free(json);
    CHECK_RC(ledger_ingest_receipt(NULL, s, data, n, &ro), GATEKIT_LEDGER_DUPLICATE);
    ro.bundle_id = "com.other";
    CHECK_RC(ledger_ingest_receipt(NULL, s, data, n, &ro), GATEKIT_ERECEIPT_BUNDLE_ID);
    /* Every purchase's original transaction id is now a customer the ledger knows. */
    gatekit_receipt *r = NULL;
    ro.bundle_id = "com.nutcall.app-dev";
    CHECK_RC(receipt_validate(&r, data, n, &ro), 0);
    gatekit_ledger_query q;
    CHECK_RC(ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION), 0);
    q.environment = "Sandbox";
    int known = 0, count = receipt_purchase_count(r);
    for (int i = 0; i < count; i++) {
        gatekit_purchase p = {.version = GATEKIT_PURCHASE_VERSION};
        CHECK_RC(receipt_purchase(&p, r, (size_t)i), 0);
        CHECK_RC(ledger_history(&json, s, &q, p.original_transaction_id), 0);
        known += json && strstr(json, "\"kind\":\"receipt\"") != NULL;
        gatekit_free(json);
    }
    CHECK(count > 0 && known == count);
    const char *ids[] = {"never.bought"};
    CHECK_RC(receipt_intro_eligible(r, ids, 1), 1);
    gatekit_purchase first = {.version = GATEKIT_PURCHASE_VERSION};
    CHECK_RC(receipt_purchase(&first, r, 0), 0);
    const char *bought[] = {"never.bought", first.product_id};
    CHECK_RC(receipt_intro_eligible(r, bought, 2), 0);
    CHECK_RC(receipt_intro_eligible(r, NULL, 0), 1);
    CHECK_RC(receipt_intro_eligible(r, NULL, 1), GATEKIT_EINVAL);
    receipt_free(r);
    free(data);
    gatekit_store_close(s);
}

/* Many threads on one handle ingest the same items and ask at once: each item recorded once. */
enum { THREADS = 6, ITEMS = 12 };
static char *thread_items[ITEMS];
static gatekit_store *shared;
static int outcomes[THREADS][4];

static void *ingester(void *arg) {
    int id = (int)(intptr_t)arg;
    gatekit_ledger_query q = query(0);
    for (int k = 0; k < ITEMS; k++) {
        int rc = ledger_ingest_transaction(NULL, shared, thread_items[(k + id) % ITEMS], &options);
        if (rc >= 1 && rc <= 3) outcomes[id][rc]++; else outcomes[id][0]++;
        if (ledger_is_entitled(NULL, shared, &q, "700", "21000001") < 0) outcomes[id][0]++;
    }
    return NULL;
}

static void test_threads(void) {
    shared = open_store("threads.sqlite");
    long long t = now_ms();
    for (int k = 0; k < ITEMS; k++) {
        char tid[32];
        snprintf(tid, sizeof tid, "70%d", k);
        char *tx = tx_json(tid, "700", "pro.monthly", t - (ITEMS - k) * day, t - (ITEMS - k) * day + 30 * day, t - (ITEMS - k) * day, "");
        thread_items[k] = sign_with("ES256", tx, "leaf", chain3, 3);
        free(tx);
    }
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, ingester, (void *)(intptr_t)i);
    int fresh = 0, errors = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        fresh += outcomes[i][GATEKIT_LEDGER_NEW] + outcomes[i][GATEKIT_LEDGER_SUPERSEDED];
        errors += outcomes[i][0];
    }
    CHECK(errors == 0);
    CHECK(fresh == ITEMS);
    gatekit_ledger_query q = query(0);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    CHECK_RC(ledger_is_entitled(&e, shared, &q, "700", "pro.monthly"), 1);
    CHECK(e.until_ms == t - day + 30 * day);
    for (int k = 0; k < ITEMS; k++) free(thread_items[k]);
    gatekit_store_close(shared);
}

/* Metrics and the report (<gatekit/ledger_insight.h>): two subscriptions in 2025, worked out by
 * hand. 900: 9.99 USD from Jan 1, renewed Feb 1, that renewal refunded Feb 10. 910: 4.99 EUR
 * (DEU) from Jan 15, lapsed Feb 15 (no renewal info: cause "other"). */
static void test_insight(void) {
    gatekit_store *s = open_store("insight.sqlite");
    const long long jan1 = 1735689600000LL, feb1 = jan1 + 31 * day, mar1 = feb1 + 28 * day, apr1 = mar1 + 31 * day;
    const char *usd = ",\"price\":9990,\"currency\":\"USD\",\"storefront\":\"USA\"";
    char refund[256];
    snprintf(refund, sizeof refund, "%s,\"revocationDate\":%lld,\"revocationReason\":0,\"revocationType\":\"REFUND_FULL\"", usd, feb1 + 9 * day);
    char *texts[4] = {
        tx_json("901", "900", "pro.monthly", jan1, feb1, jan1, usd),
        tx_json("902", "900", "pro.monthly", feb1, mar1, feb1, usd),
        tx_json("902", "900", "pro.monthly", feb1, mar1, feb1 + 9 * day, refund),
        tx_json("911", "910", "pro.monthly", jan1 + 14 * day, feb1 + 14 * day, jan1 + 14 * day,
                ",\"price\":4990,\"currency\":\"EUR\",\"storefront\":\"DEU\""),
    };
    for (int i = 0; i < 4; i++) {
        char *jws = sign_with("ES256", texts[i], "leaf", chain3, 3);
        CHECK_RC(ledger_ingest_transaction(NULL, s, jws, &options), GATEKIT_LEDGER_NEW);
        free(jws);
        free(texts[i]);
    }
    gatekit_ledger_query q = query(apr1 - 1);
    char *json = NULL;
    CHECK_RC(ledger_metrics(&json, s, &q, jan1, apr1, GATEKIT_METRICS_MONTH, GATEKIT_METRICS_ALL), 0);
    CHECK(json && strstr(json, "\"buckets\":[1735689600000,1738368000000,1740787200000]")
          && strstr(json, "\"activeSubscriptions\":[2,0,0]") && strstr(json, "\"new\":[2,0,0]")
          && strstr(json, "\"renewals\":[0,1,0]") && strstr(json, "\"refunded\":[0,1,0]") && strstr(json, "\"expiredOther\":[0,1,0]")
          && strstr(json, "\"revenue\":{\"EUR\":[4990,0,0],\"USD\":[9990,9990,0]}")
          && strstr(json, "\"netRevenue\":{\"EUR\":[4990,0,0],\"USD\":[9990,0,0]}"));
    gatekit_free(json);
    json = NULL;
    CHECK_RC(ledger_metrics(&json, s, &q, jan1, apr1, GATEKIT_METRICS_MONTH, GATEKIT_METRICS_BY_STOREFRONT), 0);
    CHECK(json && strstr(json, "{\"key\":\"DEU\",\"activeSubscriptions\":[1,0,0]") && strstr(json, "{\"key\":\"USA\",\"activeSubscriptions\":[1,0,0]"));
    gatekit_free(json);
    /* As of Feb 5 the refund was not signed yet: February is read at that instant. */
    gatekit_ledger_query early = query(feb1 + 4 * day);
    json = NULL;
    CHECK_RC(ledger_metrics(&json, s, &early, jan1, apr1, GATEKIT_METRICS_MONTH, GATEKIT_METRICS_ALL), 0);
    CHECK(json && strstr(json, "\"activeSubscriptions\":[2,2]") && strstr(json, "\"refunded\":[0,0]"));
    gatekit_free(json);

    char *html = NULL;
    CHECK_RC(ledger_report(&html, s, &q, jan1, apr1, GATEKIT_METRICS_MONTH, NULL), 0);
    CHECK(html && strncmp(html, "<!DOCTYPE html>", 15) == 0 && strstr(html, "id=\"mrr-USD\"") && strstr(html, "id=\"mrr-EUR\"")
          && !strstr(html, "<script") && strstr(html, "</html>"));
    gatekit_free(html);
    html = NULL;
    CHECK_RC(ledger_report(&html, s, &q, jan1, apr1, GATEKIT_METRICS_MONTH, "900"), 0);
    CHECK(html && strstr(html, "Subscription 900") && strstr(html, ">Refunded<") && strstr(html, "href=\"#item-"));
    gatekit_free(html);

    /* Refusals name what was wrong. */
    json = NULL;
    CHECK_RC(ledger_metrics(&json, s, &q, jan1, apr1, 9, GATEKIT_METRICS_ALL), GATEKIT_EINVAL);
    CHECK(json == NULL && strstr(gatekit_last_error(), "granularity"));
    CHECK_RC(ledger_metrics(&json, s, &q, jan1, apr1, GATEKIT_METRICS_DAY, 42), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "dimension"));
    CHECK_RC(ledger_metrics(&json, s, &q, apr1, jan1, GATEKIT_METRICS_DAY, GATEKIT_METRICS_ALL), GATEKIT_EINVAL);
    CHECK_RC(ledger_metrics(&json, s, &q, 0, 30000 * day, GATEKIT_METRICS_DAY, GATEKIT_METRICS_ALL), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "10000"));
    gatekit_ledger_query by_user = q;
    by_user.flags |= GATEKIT_LEDGER_APP_USER;
    CHECK_RC(ledger_metrics(&json, s, &by_user, jan1, apr1, GATEKIT_METRICS_DAY, GATEKIT_METRICS_ALL), GATEKIT_EINVAL);
    CHECK_RC(ledger_report(&html, s, &by_user, jan1, apr1, GATEKIT_METRICS_DAY, NULL), GATEKIT_EINVAL);
    gatekit_store_close(s);
}

static int tool(const char *args, char *out, size_t cap) {
    char with_store[4096];
    snprintf(with_store, sizeof with_store, "--store '%s' %s", check_path_in(folder, "tool.sqlite"), args);
    return check_tool(with_store, out, cap);
}

static void test_tool(void) {
    if (!getenv("GATEKIT_TOOL")) { printf("SKIP: GATEKIT_TOOL not set: the tool's ledger commands not tested\n"); return; }
    long long t = now_ms();
    char *tx = tx_json("801", "800", "pro.monthly", t - day, t + 29 * day, t - day, "");
    char *jws = sign_with("ES256", tx, "leaf", chain3, 3);
    const char *file = check_path_in(folder, "tx.jws");
    FILE *f = fopen(file, "w");
    fputs(jws, f);
    fclose(f);
    static char out[65536];
    char args[2048];
    const char *common = "--environment Sandbox --bundle-id com.example";
    snprintf(args, sizeof args, "ledger ingest --type transaction %s --test-anchor '%s' --at now '%s'", common, pki("root.der"), file);
    CHECK_RC(tool(args, out, sizeof out), 0);
    CHECK(strstr(out, "\"outcome\":\"new\"") != NULL);
    CHECK_RC(tool(args, out, sizeof out), 0);
    CHECK(strstr(out, "\"outcome\":\"duplicate\"") != NULL);
    CHECK_RC(tool("ledger entitled --environment Sandbox --test-signed 800 pro.monthly", out, sizeof out), 0);
    CHECK(strstr(out, "\"reason\":\"subscription\"") != NULL);
    CHECK_RC(tool("ledger entitled --environment Sandbox --test-signed 800 other", out, sizeof out), 3);
    CHECK_RC(tool("ledger entitled --environment Sandbox 800 pro.monthly", out, sizeof out), 3);  /* App Store data only */
    CHECK_RC(tool("ledger status --environment Sandbox --test-signed 800", out, sizeof out), 0);
    CHECK(strstr(out, "\"status\":1") != NULL);
    CHECK_RC(tool("ledger active --environment Sandbox --test-signed 800", out, sizeof out), 0);
    CHECK(strstr(out, "pro.monthly") != NULL);
    CHECK_RC(tool("ledger eligible --environment Sandbox --test-signed 800 21000001", out, sizeof out), 3);
    CHECK_RC(tool("ledger eligible --environment Sandbox --test-signed 800 21000009", out, sizeof out), 0);
    CHECK_RC(tool("ledger history --environment Sandbox --test-signed 800", out, sizeof out), 0);
    CHECK(strstr(out, "\"kind\":\"transaction\"") != NULL);
    snprintf(args, sizeof args, "ledger entitled --environment Sandbox --test-signed --at-ms %lld 800 pro.monthly", t - 2 * day);
    CHECK_RC(tool(args, out, sizeof out), 3);
    CHECK_RC(tool("ledger entitled --environment Nowhere 800 p", out, sizeof out), 2);
    CHECK_RC(tool("ledger frobnicate", out, sizeof out), 2);
    /* The catalog: declared from a file, shown, and its names asked about. */
    const char *catalog = check_path_in(folder, "catalog.json");
    f = fopen(catalog, "w");
    fputs("{\"products\":{\"pro.monthly\":{\"type\":\"auto-renewable\",\"entitlements\":[\"pro\"]}}}", f);
    fclose(f);
    CHECK_RC(tool("ledger entitled --environment Sandbox --test-signed 800 pro", out, sizeof out), 3);
    snprintf(args, sizeof args, "ledger catalog declare '%s'", catalog);
    CHECK_RC(tool(args, out, sizeof out), 0);
    CHECK(strstr(out, "\"entitlements\":[\"pro\"]") != NULL);
    CHECK_RC(tool("ledger entitled --environment Sandbox --test-signed 800 pro", out, sizeof out), 0);
    CHECK(strstr(out, "\"entitlements\":[\"pro\"]") != NULL);
    CHECK_RC(tool("ledger catalog", out, sizeof out), 0);
    CHECK(strstr(out, "\"pro.monthly\"") != NULL);
    snprintf(args, sizeof args, "ledger catalog --at-ms %lld", t - 2 * day);
    CHECK_RC(tool(args, out, sizeof out), 0);
    CHECK(strstr(out, "\"products\":{}") != NULL);
    f = fopen(catalog, "w");
    fputs("{\"products\":{\"pro.monthly\":{\"term\":\"P1M\"}}}", f);
    fclose(f);
    snprintf(args, sizeof args, "ledger catalog declare '%s'", catalog);
    CHECK_RC(tool(args, out, sizeof out), 2);  /* a term on a product that is not non-renewing */
    CHECK_RC(tool("ledger catalog declare", out, sizeof out), 2);
    /* Support grants from the tool: a name the catalog gives, and a typo it refuses. */
    CHECK_RC(tool("ledger grant --environment Production --app-user alice --by support:jane --days 30 --note goodwill pro", out, sizeof out), 0);
    CHECK(strstr(out, "\"grantId\":\"grant-") && strstr(out, "\"until\":") && strstr(out, "\"note\":\"goodwill\""));
    char grant_id[64] = "";
    const char *id_at = strstr(out, "\"grantId\":\"");
    if (id_at) snprintf(grant_id, sizeof grant_id, "%.38s", id_at + strlen("\"grantId\":\""));
    CHECK_RC(tool("ledger entitled --environment Production --app-user alice pro", out, sizeof out), 0);
    CHECK(strstr(out, "\"store\":\"grant\"") != NULL);
    CHECK_RC(tool("ledger grant --environment Production --app-user alice --by support:jane por", out, sizeof out), 2);
    CHECK(strstr(out, "did you mean \"pro\"") != NULL);
    CHECK_RC(tool("ledger grant --environment Production --by support:jane pro", out, sizeof out), 2);
    snprintf(args, sizeof args, "ledger revoke-grant --environment Production --by support:bob '%s'", grant_id);
    CHECK_RC(tool(args, out, sizeof out), 0);
    CHECK_RC(tool(args, out, sizeof out), 3);  /* revoked before */
    CHECK_RC(tool("ledger entitled --environment Production --app-user alice pro", out, sizeof out), 3);
    /* Metrics and the report from the tool. */
    CHECK_RC(tool("ledger metrics --environment Sandbox --test-signed --from 2020-01-01 --to 2040-01-01 --by month --split product", out, sizeof out), 0);
    CHECK(strstr(out, "\"dimension\":\"product\"") && strstr(out, "{\"key\":\"pro.monthly\"") && strstr(out, "\"granularity\":\"month\""));
    CHECK_RC(tool("ledger metrics --environment Sandbox --from 2025-01-01 --to 2025-02-01 --by fortnight", out, sizeof out), 2);
    CHECK(strstr(out, "--by is one of day week month, not fortnight") != NULL);
    CHECK_RC(tool("ledger metrics --environment Sandbox --from yesterday --to 2025-02-01", out, sizeof out), 2);
    const char *page = check_path_in(folder, "report.html");
    snprintf(args, sizeof args, "ledger report --environment Sandbox --test-signed --from 2020-01-01 --to 2040-01-01 --customer 800 --output '%s'", page);
    CHECK_RC(tool(args, out, sizeof out), 0);
    CHECK(strstr(out, "bytes written to") != NULL);
    struct stat st;
    CHECK(stat(page, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size > 1000);
    CHECK_RC(tool(args, out, sizeof out), 1);  /* a new file only */
    CHECK(strstr(out, "cannot create") != NULL);
    free(tx);
    free(jws);
}

/* Support grants (<gatekit/ledger_grant.h>): given to an app account, answered like a purchase
 * with who gave it, revoked once, and refused when malformed. */
static void test_grants(void) {
    gatekit_store *s = open_store("grants.sqlite");
    char *json = NULL;
    CHECK_RC(ledger_grant(&json, s, "Production", "pro", "alice", NULL, 0, now_ms() + 30 * day, "support:jane", "outage"), GATEKIT_OK);
    CHECK(json && strstr(json, "\"grantId\":\"grant-") && strstr(json, "\"appUserId\":\"alice\"") && strstr(json, "\"revokedAt\":null"));
    char id[64] = "";
    const char *at = json ? strstr(json, "\"grantId\":\"") : NULL;
    if (at) snprintf(id, sizeof id, "%.38s", at + strlen("\"grantId\":\""));
    gatekit_free(json);
    json = NULL;
    gatekit_ledger_query q;
    CHECK_RC(ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION), 0);
    q.environment = "Production";
    q.flags = GATEKIT_LEDGER_APP_USER;
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "alice", "pro"), 1);
    CHECK_RC(ledger_entitlement(&json, s, &q, "alice", "pro"), 1);
    CHECK(json && strstr(json, "\"store\":\"grant\"") && strstr(json, "\"grantedBy\":\"support:jane\"") && strstr(json, "\"note\":\"outage\"")
          && strstr(json, "\"entitlements\":[\"pro\"]"));
    gatekit_free(json);
    json = NULL;
    CHECK_RC(ledger_revoke_grant(&json, s, "Production", id, 0, "support:bob", NULL), 1);
    CHECK(json && strstr(json, id) && !strstr(json, "\"revokedAt\":null"));
    gatekit_free(json);
    json = NULL;
    CHECK_RC(ledger_is_entitled(NULL, s, &q, "alice", "pro"), 0);
    CHECK_RC(ledger_revoke_grant(&json, s, "Production", id, 0, "support:bob", NULL), 0);  /* revoked before */
    gatekit_free(json);
    json = NULL;
    CHECK_RC(ledger_revoke_grant(&json, s, "Production", "grant-0", 0, "support:bob", NULL), GATEKIT_ENOTFOUND);
    CHECK(json == NULL && strstr(gatekit_last_error(), "no grant"));
    CHECK_RC(ledger_grant(&json, s, "Production", "pro", "alice", "1000", 0, 0, "support:jane", NULL), GATEKIT_EINVAL);
    CHECK(json == NULL && strstr(gatekit_last_error(), "exactly one of app_user_id and customer"));
    CHECK_RC(ledger_grant(&json, s, "Production", "pro", NULL, "1000", 2000, 1000, "support:jane", NULL), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "until_ms 1000 is not after"));
    CHECK_RC(ledger_grant(&json, s, "Production", "pro", NULL, "1000", 0, 0, "two\nlines", NULL), GATEKIT_EINVAL);
    CHECK_RC(ledger_grant(&json, s, "Production", "pro", NULL, "1000", -1, 0, "support:jane", NULL), GATEKIT_EINVAL);
    gatekit_store_close(s);
}

int main(void) {
    fixtures = getenv("GATEKIT_FIXTURES");
    if (!fixtures) fixtures = "../shared/fixtures";
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    if (signing_make_pki(folder) != 0) {
        printf("test_ledger: the openssl CLI could not make the test PKI\n");
        return 1;
    }
    char cmd[1024];
    anchor = pki_der("root", &anchor_len);
    options = opts("com.example", "Sandbox", 0, anchor, anchor_len);
    options.verify_time = now_ms() / 1000;

    test_ingest_and_answer();
    test_boundaries();
    test_refusals();
    test_either_environment();
    test_app_accounts();
    test_grants();
    test_change_feed();
    test_batch();
    test_close_during_batch();
    test_catalog();
    test_receipts();
    test_threads();
    test_insight();
    test_tool();

    free(anchor);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_ledger");
}

/* StoreKit 2 signed data (JWS) from C: Apple's vectors (mock signed data with the test
 * root as anchor, Xcode-signed data, x509 chain vectors, model payloads) and cases made
 * here with a throw-away PKI (openssl CLI): tampering, other algorithms, chain shapes,
 * verification time, nested notifications, entitlement, threads. */
#include "check.h"
#include "jws_signing.h"

#include <limits.h>

#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-c-jws-XXXXXX";
static const char *fixtures;
static int have_pki;

/* ---- small helpers ---------------------------------------------------------------- */

/* A fixture as a NUL-terminated string without trailing white space; NULL (with a printed
 * reason) when the fixtures folder is absent. */
static char *fixture(const char *relative) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fixtures, relative);
    size_t n = 0;
    char *text = (char *)check_read_file(path, &n);
    if (!text) { printf("SKIP: fixture %s not found (set GATEKIT_FIXTURES)\n", path); return NULL; }
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) text[--n] = 0;
    return text;
}

static unsigned char *fixture_bytes(const char *relative, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fixtures, relative);
    unsigned char *b = check_read_file(path, len);
    if (!b) printf("SKIP: fixture %s not found (set GATEKIT_FIXTURES)\n", path);
    return b;
}

static char *transaction_payload(long long signed_ms, const char *extra) {
    char *s = malloc(1024);
    snprintf(s, 1024,
             "{\"transactionId\":\"2000000123\",\"originalTransactionId\":\"2000000100\",\"bundleId\":\"com.example\","
             "\"productId\":\"pro.monthly\",\"purchaseDate\":%lld,\"expiresDate\":%lld,"
             "\"type\":\"Auto-Renewable Subscription\",\"environment\":\"Sandbox\",\"signedDate\":%lld%s}",
             signed_ms - 1000, signed_ms + 86400000LL, signed_ms, extra);
    return s;
}

/* ---- verification shorthands ---------------------------------------------------------- */

typedef int (*verify_fn)(char **, const char *, const gatekit_jws_options *);


/* Runs a verification; on success returns the JSON (caller frees), else NULL. rc gets the code. */
static char *run(verify_fn fn, const char *jws, const gatekit_jws_options *o, int *rc) {
    char *out = (char *)0x1;
    *rc = fn(&out, jws, o);
    if (*rc != 0) {
        CHECK(out == NULL);
        return NULL;
    }
    return out;
}

/* expected_json (an object) with GateKit's marking appended as the library documents it:
 * the identity is the SHA-256 of the JWS's payload bytes, computed here from the JWS. */
static char *marked(const char *expected_json, const char *jws, int test_signed) {
    char *payload64 = part(jws, 1);
    size_t n = 0;
    unsigned char *payload = unb64(payload64, strlen(payload64), &n);
    char id[GATEKIT_HASH_HEX_SIZE];
    if (eula_hash_bytes(id, payload, n) != 0) id[0] = 0;
    size_t len = strlen(expected_json) + 128;
    char *out = malloc(len);
    snprintf(out, len, "%.*s,\"gatekit\":{\"version\":1,\"identity\":\"%s\",\"testSigned\":%s}}",
             (int)strlen(expected_json) - 1, expected_json, id, test_signed ? "true" : "false");
    free(payload64);
    free(payload);
    return out;
}

static int code_of(verify_fn fn, const char *jws, const gatekit_jws_options *o) {
    int rc;
    char *out = run(fn, jws, o, &rc);
    gatekit_free(out);
    return rc;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_codes_and_options(void) {
    const int codes[] = {GATEKIT_EJWS_MALFORMED, GATEKIT_EJWS_ALGORITHM, GATEKIT_EJWS_CHAIN_LENGTH, GATEKIT_EJWS_UNTRUSTED,
                         GATEKIT_EJWS_LEAF_OID, GATEKIT_EJWS_INTERMEDIATE_OID, GATEKIT_EJWS_CERT_TIME, GATEKIT_EJWS_SIGNATURE,
                         GATEKIT_EJWS_BUNDLE_ID, GATEKIT_EJWS_APP_APPLE_ID, GATEKIT_EJWS_ENVIRONMENT, GATEKIT_EJWS_TEST_SIGNED,
                         GATEKIT_EJWS_CERTIFICATE, GATEKIT_EJWS_PAYLOAD_FIELD};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CHECK(codes[i] <= -300 && codes[i] >= -399);
        CHECK(strcmp(gatekit_strerror(codes[i]), "unknown error") != 0);
        for (size_t j = 0; j < i; j++) {
            CHECK(codes[i] != codes[j]);
            CHECK(strcmp(gatekit_strerror(codes[i]), gatekit_strerror(codes[j])) != 0);
        }
    }
    CHECK(jws_options_size() == sizeof(gatekit_jws_options));
    CHECK_RC(jws_options_init(NULL, GATEKIT_JWS_OPTIONS_VERSION), GATEKIT_EINVAL);
    gatekit_jws_options o;
    memset(&o, 0x5a, sizeof o);
    CHECK_RC(jws_options_init(&o, 99), GATEKIT_EVERSION);
    CHECK(o.version == 0x5a5a5a5au);   /* nothing written for an unknown version */
    CHECK_RC(jws_options_init(&o, GATEKIT_JWS_OPTIONS_VERSION), GATEKIT_OK);
    CHECK(o.version == GATEKIT_JWS_OPTIONS_VERSION);
    CHECK(o.bundle_id == NULL && o.environment == NULL && o.app_apple_id == 0 && o.verify_time == 0);
    CHECK(o.test_anchor_der == NULL && o.test_anchor_len == 0 && o.flags == 0);
    /* A version-1 caller's struct ends before flags: init for version 1 writes nothing past it. */
    memset(&o, 0x5a, sizeof o);
    CHECK_RC(jws_options_init(&o, 1), GATEKIT_OK);
    CHECK(o.version == 1 && o.test_anchor_len == 0 && o.flags == 0x5a5a5a5au);
    gatekit_jws_options literal = GATEKIT_JWS_OPTIONS_INIT;
    CHECK(literal.version == GATEKIT_JWS_OPTIONS_VERSION && literal.bundle_id == NULL && literal.flags == 0);
    CHECK_RC(jws_options_init(&o, GATEKIT_JWS_OPTIONS_VERSION), GATEKIT_OK);

    const char *jws = "a.b.c";
    char *out = NULL;
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);   /* no bundle id */
    CHECK(strstr(gatekit_last_error(), "bundle_id") != NULL);
    o.bundle_id = "com.example";
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);   /* no environment */
    o.environment = "production";
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);   /* unknown spelling */
    o.environment = "Production";
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);   /* Production needs app_apple_id */
    CHECK(strstr(gatekit_last_error(), "app_apple_id") != NULL);
    o.app_apple_id = -5;
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);
    o.app_apple_id = 1234;
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EJWS_MALFORMED);
    o.verify_time = -1;   /* an instant before 1970, as for receipts: no longer refused as an argument */
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EJWS_MALFORMED);
    o.verify_time = 0;
    o.flags = 0x80;
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "flags") != NULL);
    o.flags = 0;
    o.test_anchor_der = (const unsigned char *)"not a certificate";
    o.test_anchor_len = 17;
    CHECK_RC(jws_verify_transaction(&out, "a.b.c", &o), GATEKIT_EJWS_MALFORMED); /* shape is checked first */
    o.test_anchor_len = 0;
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);
    o.test_anchor_der = NULL;
    o.test_anchor_len = 10;
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EINVAL);
    o.test_anchor_len = 0;
    o.version = 99;
    CHECK_RC(jws_verify_transaction(&out, jws, &o), GATEKIT_EVERSION);
    o.version = GATEKIT_JWS_OPTIONS_VERSION;
    CHECK_RC(jws_verify_transaction(NULL, jws, &o), GATEKIT_EINVAL);
    CHECK_RC(jws_verify_transaction(&out, NULL, &o), GATEKIT_EINVAL);
    CHECK_RC(jws_verify_transaction(&out, jws, NULL), GATEKIT_EINVAL);
    CHECK_RC(jws_verify_renewal_info(&out, jws, NULL), GATEKIT_EINVAL);
    CHECK_RC(jws_verify_notification(&out, jws, NULL), GATEKIT_EINVAL);
    CHECK_RC(jws_verify_app_transaction(&out, jws, NULL), GATEKIT_EINVAL);
    CHECK_RC(jws_transaction_is_entitled(NULL, &o, NULL, 0), GATEKIT_EINVAL);
    CHECK_RC(jws_transaction_is_entitled(jws, &o, NULL, -1), GATEKIT_EINVAL);
    CHECK(out == NULL);

    /* 2 MiB of input: refused before any work. */
    size_t big = 2u << 20;
    char *huge = malloc(big + 1);
    memset(huge, 'A', big);
    huge[big] = 0;
    CHECK_RC(jws_verify_transaction(&out, huge, &o), GATEKIT_ETOOLARGE);
    free(huge);
    /* Non-ASCII and control bytes are malformed, never a crash. */
    CHECK_RC(jws_verify_transaction(&out, "\xff\xfe.\x01\x02.\x80", &o), GATEKIT_EJWS_MALFORMED);
    CHECK_RC(jws_verify_transaction(&out, "....", &o), GATEKIT_EJWS_MALFORMED);
    CHECK_RC(jws_verify_transaction(&out, "", &o), GATEKIT_EJWS_MALFORMED);
}

static void test_apple_mock_data(void) {
    size_t anchor_len = 0;
    unsigned char *anchor = fixture_bytes("jws/apple-test/certs/testCA.der", &anchor_len);
    char *notification = fixture("jws/apple-test/mock_signed_data/testNotification");
    char *transaction = fixture("jws/apple-test/mock_signed_data/transactionInfo");
    char *renewal = fixture("jws/apple-test/mock_signed_data/renewalInfo");
    char *wrong = fixture("jws/apple-test/mock_signed_data/wrongBundleId");
    char *missing = fixture("jws/apple-test/mock_signed_data/missingX5CHeaderClaim");
    char *legacy = fixture("jws/apple-test/mock_signed_data/legacyTransaction");
    if (!anchor || !notification || !transaction || !renewal || !wrong || !missing || !legacy) goto done;

    gatekit_jws_options sandbox = opts("com.example", "Sandbox", 0, anchor, anchor_len);
    int rc;
    char *json = run(jws_verify_notification, notification, &sandbox, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) {
        CHECK(strstr(json, "\"notificationType\":\"TEST\"") != NULL);
        CHECK(strstr(json, "\"signedDate\":1681314324000") != NULL);
        char *expected = marked("{\"data\":{\"appAppleId\":1234,\"environment\":\"Sandbox\",\"bundleId\":\"com.example\"},"
                                "\"notificationUUID\":\"9ad56bd2-0bc6-42e0-af24-fd996d87a1e6\",\"signedDate\":1681314324000,"
                                "\"notificationType\":\"TEST\"}", notification, 1);
        CHECK_STR(json, expected);
        free(expected);
    }
    gatekit_free(json);

    /* Sandbox data for a Production verifier gets Apple's verdict (another environment), with or
     * without the test-only flag; test-signed data that claims Production: test_generated. */
    gatekit_jws_options production = opts("com.example", "Production", 1234, anchor, anchor_len);
    CHECK_RC(code_of(jws_verify_notification, notification, &production), GATEKIT_EJWS_ENVIRONMENT);
    production.flags = GATEKIT_JWS_TEST_PRODUCTION;
    CHECK_RC(code_of(jws_verify_notification, notification, &production), GATEKIT_EJWS_ENVIRONMENT);
    CHECK(strstr(gatekit_last_error(), "Sandbox") != NULL);
    production.app_apple_id = 1235;
    CHECK_RC(code_of(jws_verify_notification, notification, &production), GATEKIT_EJWS_APP_APPLE_ID);
    CHECK(strstr(gatekit_last_error(), "1235") != NULL);

    json = run(jws_verify_transaction, transaction, &sandbox, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) {
        char *expected = marked("{\"environment\":\"Sandbox\",\"bundleId\":\"com.example\",\"signedDate\":1672956154000}", transaction, 1);
        CHECK_STR(json, expected);
        free(expected);
    }
    gatekit_free(json);
    json = run(jws_verify_renewal_info, renewal, &sandbox, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) {
        char *expected = marked("{\"environment\":\"Sandbox\",\"signedDate\":1672956154000}", renewal, 1);
        CHECK_STR(json, expected);
        free(expected);
    }
    gatekit_free(json);
    /* A transaction read as an app transaction has no receiptType: the environment differs. */
    CHECK_RC(code_of(jws_verify_app_transaction, transaction, &sandbox), GATEKIT_EJWS_ENVIRONMENT);

    gatekit_jws_options examplex = opts("com.examplex", "Sandbox", 0, anchor, anchor_len);
    CHECK_RC(code_of(jws_verify_notification, wrong, &examplex), GATEKIT_EJWS_BUNDLE_ID);
    CHECK(strstr(gatekit_last_error(), "com.example.wrong") != NULL);
    CHECK_RC(code_of(jws_verify_notification, missing, &sandbox), GATEKIT_EJWS_MALFORMED);
    CHECK(strstr(gatekit_last_error(), "x5c") != NULL);
    CHECK_RC(code_of(jws_verify_transaction, legacy, &sandbox), GATEKIT_EJWS_MALFORMED);

    /* The test chain without the test anchor: checked against Apple Root CA - G3, refused. */
    gatekit_jws_options real = opts("com.example", "Sandbox", 0, NULL, 0);
    CHECK_RC(code_of(jws_verify_transaction, transaction, &real), GATEKIT_EJWS_UNTRUSTED);
    CHECK(strstr(gatekit_last_error(), "Apple Root CA - G3") != NULL);

    /* Malformed parts of a real JWS. */
    char *h = part(transaction, 0), *p = part(transaction, 1), *s = part(transaction, 2);
    char buf[8192];
    snprintf(buf, sizeof buf, "%s.%s", h, p);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_MALFORMED);
    snprintf(buf, sizeof buf, "%s.%s.%s.%s", h, p, s, s);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_MALFORMED);
    snprintf(buf, sizeof buf, "%s=.%s.%s", h, p, s);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_MALFORMED);
    snprintf(buf, sizeof buf, "%s.%s.%s==", h, p, s);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_MALFORMED);
    snprintf(buf, sizeof buf, "%s.%s\n.%s", h, p, s);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_MALFORMED);
    snprintf(buf, sizeof buf, "%s..%s", h, s);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_MALFORMED);
    snprintf(buf, sizeof buf, "%s.%s.", h, p);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_MALFORMED);
    /* Truncated signature: well-formed base64url, 48 bytes. */
    s[64] = 0;
    snprintf(buf, sizeof buf, "%s.%s.%s", h, p, s);
    CHECK_RC(code_of(jws_verify_transaction, buf, &sandbox), GATEKIT_EJWS_SIGNATURE);
    free(h); free(p); free(s);
done:
    free(anchor); free(notification); free(transaction); free(renewal); free(wrong); free(missing); free(legacy);
}

static void test_xcode(void) {
    char *transaction = fixture("jws/apple-test/xcode/xcode-signed-transaction");
    char *renewal = fixture("jws/apple-test/xcode/xcode-signed-renewal-info");
    char *app = fixture("jws/apple-test/xcode/xcode-signed-app-transaction");
    size_t ca_len = 0;
    unsigned char *test_ca = fixture_bytes("jws/apple-test/certs/testCA.der", &ca_len);
    if (!transaction || !renewal || !app || !test_ca) goto done;
    const char *bundle = "com.example.naturelab.backyardbirds.example";
    size_t cert_len = 0;
    unsigned char *cert = x5c_cert(transaction, 0, &cert_len);
    CHECK(cert != NULL && cert_len > 100);
    if (!cert) goto done;

    /* Never returned unverified: no anchor, any environment. */
    const char *envs[] = {"Xcode", "LocalTesting", "Sandbox", "Production"};
    for (int i = 0; i < 4; i++) {
        gatekit_jws_options o = opts(bundle, envs[i], 1, NULL, 0);
        CHECK_RC(code_of(jws_verify_transaction, transaction, &o), GATEKIT_EJWS_TEST_SIGNED);
        CHECK_RC(code_of(jws_verify_renewal_info, renewal, &o), GATEKIT_EJWS_TEST_SIGNED);
        CHECK_RC(code_of(jws_verify_app_transaction, app, &o), GATEKIT_EJWS_TEST_SIGNED);
    }
    CHECK(strstr(gatekit_last_error(), "StoreKit Testing in Xcode") != NULL);
    /* Read unverified only when asked, only for Xcode / LocalTesting, and marked test-signed. */
    gatekit_jws_options unsigned_local = opts(bundle, "Xcode", 0, NULL, 0);
    unsigned_local.flags = GATEKIT_JWS_UNSIGNED_LOCAL;
    gatekit_jws *read = NULL;
    CHECK_RC(jws_verify(&read, GATEKIT_JWS_TRANSACTION, transaction, &unsigned_local), GATEKIT_OK);
    CHECK(read != NULL && jws_is_test_signed(read) == 1 && strstr(jws_json(read), "\"testSigned\":true") != NULL);
    jws_free(read);
    for (int i = 2; i < 4; i++) {
        gatekit_jws_options refused = opts(bundle, envs[i], 1, NULL, 0);
        refused.flags = GATEKIT_JWS_UNSIGNED_LOCAL;
        CHECK_RC(code_of(jws_verify_transaction, transaction, &refused), GATEKIT_EINVAL);
    }
    gatekit_jws_options with_anchor = opts(bundle, "Xcode", 0, cert, cert_len);
    with_anchor.flags = GATEKIT_JWS_UNSIGNED_LOCAL;
    CHECK_RC(code_of(jws_verify_transaction, transaction, &with_anchor), GATEKIT_EINVAL);
    gatekit_jws_options wrong_anchor = opts(bundle, "Xcode", 0, test_ca, ca_len);
    CHECK_RC(code_of(jws_verify_transaction, transaction, &wrong_anchor), GATEKIT_EJWS_UNTRUSTED);

    gatekit_jws_options xcode = opts(bundle, "Xcode", 0, cert, cert_len);
    int rc;
    char *json = run(jws_verify_transaction, transaction, &xcode, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) {
        CHECK(strstr(json, "\"purchaseDate\":1697679936049.7297") != NULL);  /* exact fractional text */
        CHECK(strstr(json, "\"transactionId\":\"0\"") != NULL);
        CHECK(strstr(json, "\"deviceVerificationNonce\":\"7edea87d-98f0-42d0-9682-49ca81022f73\"") != NULL);
    }
    gatekit_free(json);
    json = run(jws_verify_renewal_info, renewal, &xcode, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) CHECK(strstr(json, "\"renewalDate\":1700358336049.7297") != NULL);
    gatekit_free(json);
    json = run(jws_verify_app_transaction, app, &xcode, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) CHECK(strstr(json, "\"originalPurchaseDate\":-62135769600000") != NULL);
    gatekit_free(json);
    /* Entitled at its purchase time (+1 s), not after the expiry, not for another product. */
    CHECK_RC(jws_transaction_is_entitled(transaction, &xcode, "pass.premium", 1697679937000LL), 1);
    CHECK_RC(jws_transaction_is_entitled(transaction, &xcode, "pass.premium", 1700358336050LL), 0);
    CHECK_RC(jws_transaction_is_entitled(transaction, &xcode, "pass.other", 1697679937000LL), 0);
    /* The same answers from the JSON kept after verification, without verifying again. */
    json = run(jws_verify_transaction, transaction, &xcode, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) {
        CHECK_RC(jws_transaction_payload_is_entitled(json, "pass.premium", 1697679937000LL), 1);
        CHECK_RC(jws_transaction_payload_is_entitled(json, "pass.premium", 1697679936000LL), 0); /* before purchaseDate */
        CHECK_RC(jws_transaction_payload_is_entitled(json, "pass.premium", 1700358336050LL), 0);
        CHECK_RC(jws_transaction_payload_is_entitled(json, "pass.other", 1697679937000LL), 0);
        CHECK_RC(jws_transaction_payload_is_entitled(json, NULL, 1697679937000LL), 1);
    }
    gatekit_free(json);
    CHECK_RC(jws_transaction_payload_is_entitled("{\"productId\":\"p\",\"purchaseDate\":1,\"revocationDate\":2}", NULL, 5), 0);
    CHECK_RC(jws_transaction_payload_is_entitled("{\"productId\":\"p\",\"purchaseDate\":1,\"type\":\"Consumable\"}", NULL, 5), 0);
    CHECK_RC(jws_transaction_payload_is_entitled("{\"productId\":\"p\",\"purchaseDate\":1,\"isUpgraded\":true}", NULL, 5), 0);
    CHECK_RC(jws_transaction_payload_is_entitled("{\"productId\":\"p\",\"purchaseDate\":1}", NULL, 5), 1);
    CHECK_RC(jws_transaction_payload_is_entitled("{\"productId\":\"p\",\"purchaseDate\":\"1\"}", NULL, 5), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK_RC(jws_transaction_payload_is_entitled("[1]", NULL, 5), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK_RC(jws_transaction_payload_is_entitled("{", NULL, 5), GATEKIT_EINVAL);
    CHECK_RC(jws_transaction_payload_is_entitled(NULL, NULL, 5), GATEKIT_EINVAL);
    CHECK_RC(jws_transaction_payload_is_entitled("{}", NULL, -1), GATEKIT_EINVAL);
    /* The Xcode certificate expired in 2024. */
    xcode.verify_time = 1761962975;
    CHECK_RC(code_of(jws_verify_transaction, transaction, &xcode), GATEKIT_EJWS_CERT_TIME);
    xcode.verify_time = 0;
    xcode.environment = "Sandbox";
    CHECK_RC(code_of(jws_verify_transaction, transaction, &xcode), GATEKIT_EJWS_ENVIRONMENT);
    free(cert);
done:
    free(transaction); free(renewal); free(app); free(test_ca);
}

/* Apple's x509 vectors, through JWS: Apple's mock renewalInfo is signed by LEAF_CERT's key,
 * so swapping its x5c shows each chain verdict (the chain is checked before the signature). */
/* jws_verify_chain (an x5c chain on its own) and jws_notification_subject. */
static void test_chain_and_subject(void) {
    char *transaction = fixture("jws/apple-test/mock_signed_data/transactionInfo");
    size_t ca_len = 0;
    unsigned char *test_ca = fixture_bytes("jws/apple-test/certs/testCA.der", &ca_len);
    if (!transaction || !test_ca) goto done;
    char *h64 = part(transaction, 0);
    size_t hn = 0;
    char *header = (char *)unb64(h64, strlen(h64), &hn);
    header = realloc(header, hn + 1);
    header[hn] = 0;
    char *x5c = strstr(header, "\"x5c\":[");
    char *end = x5c ? strchr(x5c, ']') : NULL;
    CHECK(x5c && end);
    if (x5c && end) {
        x5c += 6;
        end[1] = 0;   /* header now ends the JSON array x5c points at */
        const long long issued = 1673222400;  /* 2023-01-09, inside Apple's test chain */
        char *pem = NULL;
        CHECK_RC(jws_verify_chain(&pem, x5c, test_ca, ca_len, issued), GATEKIT_OK);
        CHECK(pem && strncmp(pem, "-----BEGIN PUBLIC KEY-----\n", 27) == 0);
        gatekit_free(pem);
        CHECK_RC(jws_verify_chain(&pem, x5c, NULL, 0, issued), GATEKIT_EJWS_UNTRUSTED);
        CHECK(pem == NULL);
        CHECK_RC(jws_verify_chain(&pem, x5c, test_ca, ca_len, 2272147200LL), GATEKIT_EJWS_CERT_TIME);  /* 2042 */
        CHECK_RC(jws_verify_chain(&pem, x5c, (const unsigned char *)"abc", 3, issued), GATEKIT_EJWS_CERTIFICATE);
    }
    char *pem = NULL;
    CHECK_RC(jws_verify_chain(&pem, "[]", test_ca, ca_len, 0), GATEKIT_EJWS_CHAIN_LENGTH);
    CHECK_RC(jws_verify_chain(&pem, "{}", test_ca, ca_len, 0), GATEKIT_EJWS_MALFORMED);
    CHECK_RC(jws_verify_chain(&pem, "[\"@@\",\"@@\",\"@@\"]", test_ca, ca_len, 0), GATEKIT_EJWS_CERTIFICATE);
    CHECK_RC(jws_verify_chain(&pem, NULL, test_ca, ca_len, 0), GATEKIT_EINVAL);
    CHECK_RC(jws_verify_chain(NULL, "[]", test_ca, ca_len, 0), GATEKIT_EINVAL);

    char *subject = NULL;
    CHECK_RC(jws_notification_subject(&subject, "{\"externalPurchaseToken\":{\"externalPurchaseId\":\"SANDBOX_1\",\"bundleId\":\"b\",\"appAppleId\":5}}"), GATEKIT_OK);
    CHECK(subject && strcmp(subject, "{\"bundleId\":\"b\",\"appAppleId\":5,\"environment\":\"Sandbox\"}") == 0);
    gatekit_free(subject);
    CHECK_RC(jws_notification_subject(&subject, "{}"), GATEKIT_OK);
    CHECK(subject && strcmp(subject, "{\"bundleId\":null,\"appAppleId\":null,\"environment\":null}") == 0);
    gatekit_free(subject);
    CHECK_RC(jws_notification_subject(&subject, "[1]"), GATEKIT_EJWS_MALFORMED);
    CHECK_RC(jws_notification_subject(&subject, "{\"data\":{\"appAppleId\":\"one\"}}"), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK_RC(jws_notification_subject(&subject, NULL), GATEKIT_EINVAL);
    free(h64);
    free(header);
done:
    free(transaction);
    free(test_ca);
}

static void test_x509_vectors(void) {
    char *renewal = fixture("jws/apple-test/mock_signed_data/renewalInfo");
    const char *names[] = {"ROOT_CA", "INTERMEDIATE_CA", "LEAF_CERT", "LEAF_CERT_INVALID_OID", "INTERMEDIATE_CA_INVALID_OID",
                           "LEAF_CERT_FOR_INTERMEDIATE_CA_INVALID_OID", "REAL_APPLE_ROOT", "REAL_APPLE_INTERMEDIATE",
                           "REAL_APPLE_SIGNING_CERTIFICATE"};
    unsigned char *d[9] = {0};
    size_t n[9] = {0};
    int ok = renewal != NULL;
    for (int i = 0; i < 9; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "jws/x509/%s.der", names[i]);
        d[i] = fixture_bytes(rel, &n[i]);
        ok = ok && d[i];
    }
    if (!ok) goto done;
    enum { ROOT, INT, LEAF, BAD_LEAF, BAD_INT, LEAF_OF_BAD_INT, G3, G6, SIGNER };
    gatekit_jws_options o = opts("com.example", "Sandbox", 0, d[ROOT], n[ROOT]);

#define CHAIN(...) do { \
        int idx_[] = {__VA_ARGS__}; int k_ = (int)(sizeof idx_ / sizeof idx_[0]); \
        unsigned char *ders_[6] = {0}; size_t lens_[6] = {0}; \
        for (int j_ = 0; j_ < k_; j_++) { ders_[j_] = d[idx_[j_]]; lens_[j_] = n[idx_[j_]]; } \
        char *h_ = header_with("ES256", ders_, lens_, k_); free(jws); jws = rehead(renewal, h_); free(h_); \
    } while (0)
    char *jws = NULL;
    /* renewalInfo's own x5c is LEAF_CERT, INTERMEDIATE_CA, ROOT_CA (the signature covers
     * the header, so the valid case uses it unchanged). */
    size_t x0_len = 0;
    unsigned char *x0 = x5c_cert(renewal, 0, &x0_len);
    CHECK(x0 && x0_len == n[LEAF] && memcmp(x0, d[LEAF], x0_len) == 0);
    free(x0);
    o.verify_time = 1761962975;
    CHECK_RC(code_of(jws_verify_renewal_info, renewal, &o), GATEKIT_OK);
    o.verify_time = 2280946846;
    CHECK_RC(code_of(jws_verify_renewal_info, renewal, &o), GATEKIT_EJWS_CERT_TIME);
    o.verify_time = 1761962975;
    CHAIN(LEAF, INT, ROOT);  /* re-encoded header: same chain, so only the signature fails */
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_SIGNATURE);
    CHAIN(BAD_LEAF, INT, ROOT);
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_LEAF_OID);
    CHAIN(LEAF_OF_BAD_INT, BAD_INT, ROOT);
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_INTERMEDIATE_OID);
    CHAIN(LEAF, INT);
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_CHAIN_LENGTH);
    CHAIN(LEAF, INT, ROOT, ROOT);
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_CHAIN_LENGTH);
    /* The test chain against the real G3 root. */
    gatekit_jws_options real = opts("com.example", "Sandbox", 0, NULL, 0);
    real.verify_time = 1761962975;
    CHAIN(LEAF, INT, ROOT);
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &real), GATEKIT_EJWS_UNTRUSTED);
    /* A look-alike: the test chain with the real G3 certificate as x5c[2] — still untrusted. */
    CHAIN(LEAF, INT, G3);
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &real), GATEKIT_EJWS_UNTRUSTED);
    /* The real production chain passes the chain checks against the pinned G3 (2026-01-01)
     * — and then the signature, made by the test key, fails. Before and after: expired. */
    CHAIN(SIGNER, G6, G3);
    real.verify_time = 1767225600;
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &real), GATEKIT_EJWS_SIGNATURE);
    real.verify_time = 2280946846;
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &real), GATEKIT_EJWS_CERT_TIME);
    real.verify_time = 1700000000;
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &real), GATEKIT_EJWS_CERT_TIME);
    /* x5c entries that are not certificates. */
    free(jws);
    jws = rehead(renewal, "{\"alg\":\"ES256\",\"x5c\":[\"AAAA\",\"AAAA\",\"AAAA\"]}");
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_CERTIFICATE);
    free(jws);
    jws = rehead(renewal, "{\"alg\":\"ES256\",\"x5c\":[\"%%%\",\"AAAA\",\"AAAA\"]}");
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_MALFORMED);
    free(jws);
    jws = rehead(renewal, "{\"alg\":\"ES256\",\"x5c\":[]}");
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_MALFORMED);
    free(jws);
    jws = rehead(renewal, "{\"alg\":\"ES256\",\"x5c\":\"AAAA\"}");
    CHECK_RC(code_of(jws_verify_renewal_info, jws, &o), GATEKIT_EJWS_MALFORMED);
    free(jws);
#undef CHAIN
done:
    for (int i = 0; i < 9; i++) free(d[i]);
    free(renewal);
}

static void test_provenance(const char *good, const char *expected_json, const gatekit_jws_options *o);

static void test_generated(void) {
    if (!have_pki) { printf("SKIP: generated JWS cases (the openssl CLI could not make the test PKI)\n"); return; }
    size_t root_len = 0;
    unsigned char *root = pki_der("root", &root_len);
    gatekit_jws_options o = opts("com.example", "Sandbox", 0, root, root_len);
    long long now = now_ms();
    char *payload = transaction_payload(now, ",\"futureField\":{\"a\":[1,2.50]}");
    char *good = sign_with("ES256", payload, "leaf", chain3, 3);
    CHECK(good != NULL);
    if (!good) { free(root); free(payload); return; }
    int rc;
    char *json = run(jws_verify_transaction, good, &o, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    char *expected = marked(payload, good, 1);
    if (json) CHECK_STR(json, expected);  /* every member, unknown ones included, exactly; then the marking */
    gatekit_free(json);
    test_provenance(good, expected, &o);
    free(expected);

    /* Tampered payload (another product), same signature. */
    char *h = part(good, 0), *s = part(good, 2);
    char *other = transaction_payload(now, ",\"productId\":\"pro.lifetime\"");
    char *p64 = b64((const unsigned char *)other, strlen(other), 1);
    char *tampered = concat3(h, p64, s);
    CHECK_RC(code_of(jws_verify_transaction, tampered, &o), GATEKIT_EJWS_SIGNATURE);
    free(tampered); free(p64); free(other);
    /* Tampered signature: one bit. */
    size_t sn;
    unsigned char *sig = unb64(s, strlen(s), &sn);
    sig[5] ^= 1;
    char *s2 = b64(sig, sn, 1);
    char *p = part(good, 1);
    tampered = concat3(h, p, s2);
    CHECK_RC(code_of(jws_verify_transaction, tampered, &o), GATEKIT_EJWS_SIGNATURE);
    free(tampered); free(s2); free(sig);

    /* Other algorithms. */
    char *jws = sign_with("none", payload, "leaf", chain3, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_ALGORITHM);
    CHECK(strstr(gatekit_last_error(), "none") != NULL);
    free(jws);
    char none_jws[8192];
    char *none_h = b64((const unsigned char *)"{\"alg\":\"none\"}", 14, 1);
    snprintf(none_jws, sizeof none_jws, "%s.%s.", none_h, p);
    CHECK_RC(code_of(jws_verify_transaction, none_jws, &o), GATEKIT_EJWS_ALGORITHM);  /* unsecured JWS */
    free(none_h);
    jws = sign_with("HS256", payload, "leaf", chain3, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_ALGORITHM);
    free(jws);
    const char *rsa_chain[] = {"leaf_rsa", "int", "root"};
    jws = sign_with("RS256", payload, "leaf_rsa", rsa_chain, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_ALGORITHM);
    free(jws);
    jws = sign_with("ES256", payload, "leaf_rsa", rsa_chain, 3);   /* RSA key labelled ES256 */
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_SIGNATURE);
    free(jws);
    jws = sign_with(NULL, payload, "leaf", chain3, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_MALFORMED);
    free(jws);

    /* Chain shapes. */
    const char *four[] = {"leaf", "int", "root", "other_root"};
    jws = sign_with("ES256", payload, "leaf", four, 4);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_CHAIN_LENGTH);
    free(jws);
    const char *bad_leaf[] = {"leaf_bad_oid", "int", "root"};
    jws = sign_with("ES256", payload, "leaf_bad_oid", bad_leaf, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_LEAF_OID);
    free(jws);
    const char *bad_int[] = {"leaf_under_bad_int", "int_bad_oid", "root"};
    jws = sign_with("ES256", payload, "leaf_under_bad_int", bad_int, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_INTERMEDIATE_OID);
    free(jws);
    size_t stranger_len;
    unsigned char *stranger = pki_der("other_root", &stranger_len);
    gatekit_jws_options so = opts("com.example", "Sandbox", 0, stranger, stranger_len);
    CHECK_RC(code_of(jws_verify_transaction, good, &so), GATEKIT_EJWS_UNTRUSTED);
    free(stranger);
    const char *p384[] = {"leaf384", "int384", "root384"};
    size_t r384_len;
    unsigned char *r384 = pki_der("root384", &r384_len);
    gatekit_jws_options o384 = opts("com.example", "Sandbox", 0, r384, r384_len);
    jws = sign_with("ES256", payload, "leaf384", p384, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o384), GATEKIT_OK);
    free(jws);
    free(r384);

    /* A chain valid now but not at the payload's signedDate (10 days ago). */
    char *old = transaction_payload(now - 10LL * 86400000, "");
    jws = sign_with("ES256", old, "leaf", chain3, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_CERT_TIME);
    CHECK(strstr(gatekit_last_error(), "not valid at") != NULL);
    o.verify_time = (long long)time(NULL);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_OK);
    /* Times X.509 cannot express, and any time before 1970, are time errors as for receipts. */
    const long long extremes[] = {1LL << 62, LLONG_MAX, LLONG_MIN, -(1LL << 62), -1};
    for (int i = 0; i < 5; i++) {
        o.verify_time = extremes[i];
        CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_CERT_TIME);
        CHECK(strstr(gatekit_last_error(), "not valid at") != NULL);
    }
    o.verify_time = 0;
    free(jws);
    free(old);

    /* Wrong bundle id / environment / field types. */
    gatekit_jws_options other_bundle = opts("com.other", "Sandbox", 0, root, root_len);
    CHECK_RC(code_of(jws_verify_transaction, good, &other_bundle), GATEKIT_EJWS_BUNDLE_ID);
    gatekit_jws_options prod = opts("com.example", "Production", 7, root, root_len);
    CHECK_RC(code_of(jws_verify_transaction, good, &prod), GATEKIT_EJWS_ENVIRONMENT);  /* Sandbox data: Apple's verdict */
    /* Test-signed data that claims Production never passes as it without the test-only flag. */
    char production_payload[512];
    snprintf(production_payload, sizeof production_payload,
             "{\"transactionId\":\"1\",\"bundleId\":\"com.example\",\"productId\":\"p\",\"environment\":\"Production\",\"signedDate\":%lld}", now);
    char *claims_production = sign_with("ES256", production_payload, "leaf", chain3, 3);
    CHECK_RC(code_of(jws_verify_transaction, claims_production, &prod), GATEKIT_EJWS_TEST_SIGNED);
    CHECK(strstr(gatekit_last_error(), "Production") != NULL);
    prod.flags = GATEKIT_JWS_TEST_PRODUCTION;
    CHECK_RC(code_of(jws_verify_transaction, claims_production, &prod), GATEKIT_OK);
    free(claims_production);
    jws = sign_with("ES256", "{\"bundleId\":[],\"environment\":\"Sandbox\"}", "leaf", chain3, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, &o), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK(strstr(gatekit_last_error(), "bundleId") != NULL);
    free(jws);

    /* Entitlement. */
    CHECK_RC(jws_transaction_is_entitled(good, &o, NULL, 0), 1);
    CHECK_RC(jws_transaction_is_entitled(good, &o, "pro.monthly", now), 1);
    CHECK_RC(jws_transaction_is_entitled(good, &o, "pro.yearly", now), 0);
    CHECK_RC(jws_transaction_is_entitled(good, &o, NULL, now - 60000), 0);
    CHECK_RC(jws_transaction_is_entitled(good, &o, NULL, now + 86400000LL), 0);
    CHECK_RC(jws_transaction_is_entitled(good, &other_bundle, NULL, now), GATEKIT_EJWS_BUNDLE_ID);
    char extra[128];
    snprintf(extra, sizeof extra, ",\"revocationDate\":%lld,\"revocationReason\":0", now);
    char *revoked_payload = transaction_payload(now, extra);
    jws = sign_with("ES256", revoked_payload, "leaf", chain3, 3);
    CHECK_RC(jws_transaction_is_entitled(jws, &o, NULL, now), 0);
    free(jws);
    free(revoked_payload);

    /* A notification with a nested signed transaction and renewal info. */
    char renewal[256];
    snprintf(renewal, sizeof renewal, "{\"autoRenewStatus\":1,\"environment\":\"Sandbox\",\"signedDate\":%lld}", now);
    char *nested_r = sign_with("ES256", renewal, "leaf", chain3, 3);
    size_t cap = strlen(good) + strlen(nested_r) + 512;
    char *notif = malloc(cap);
    snprintf(notif, cap, "{\"notificationType\":\"DID_RENEW\",\"data\":{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\","
             "\"signedTransactionInfo\":\"%s\",\"signedRenewalInfo\":\"%s\",\"status\":1},\"signedDate\":%lld}", good, nested_r, now);
    jws = sign_with("ES256", notif, "leaf", chain3, 3);
    json = run(jws_verify_notification, jws, &o, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) {
        CHECK(strstr(json, "\"transactionInfo\":{\"transactionId\":\"2000000123\"") != NULL);
        CHECK(strstr(json, "\"renewalInfo\":{\"autoRenewStatus\":1") != NULL);
    }
    gatekit_free(json);
    free(jws);
    /* The nested transaction tampered: the notification fails with the nested path. */
    char *bad_nested = strdup(notif);
    char *sig_at = strstr(bad_nested, s);
    if (sig_at) sig_at[3] = sig_at[3] == 'A' ? 'B' : 'A';
    jws = sign_with("ES256", bad_nested, "leaf", chain3, 3);
    CHECK_RC(code_of(jws_verify_notification, jws, &o), GATEKIT_EJWS_SIGNATURE);
    CHECK(strstr(gatekit_last_error(), "data.signedTransactionInfo") != NULL);
    free(jws);
    free(bad_nested);
    free(notif);
    free(nested_r);

    free(h); free(s); free(p); free(good); free(payload); free(root);
}

/* Apple's model payloads, signed here: the output is the model, member for member. */
/* P-256's group order, big-endian: s and n - s are both valid ECDSA signatures. */
static const unsigned char p256_order[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51};

/* The same JWS with s replaced by n - s: a second valid signature over the same bytes. */
static char *high_s_twin(const char *jws) {
    char *h = part(jws, 0), *p = part(jws, 1), *s64 = part(jws, 2);
    size_t n = 0;
    unsigned char *raw = unb64(s64, strlen(s64), &n);
    char *out = NULL;
    if (n == 64) {
        int borrow = 0;
        for (int i = 31; i >= 0; i--) {
            int d = (int)p256_order[i] - raw[32 + i] - borrow;
            borrow = d < 0;
            raw[32 + i] = (unsigned char)(d + (borrow ? 256 : 0));
        }
        char *twin = b64(raw, 64, 1);
        out = concat3(h, p, twin);
        free(twin);
    }
    free(h); free(p); free(s64); free(raw);
    return out;
}

/* Hardening II: the verified-data object, the replay identity, and test-signed marking. */
static void test_provenance(const char *good, const char *expected_json, const gatekit_jws_options *o) {
    gatekit_jws *v = NULL;
    CHECK_RC(jws_verify(&v, GATEKIT_JWS_TRANSACTION, good, o), GATEKIT_OK);
    if (!v) return;
    CHECK_STR(jws_json(v), expected_json);
    CHECK(jws_is_test_signed(v) == 1);
    const char *id = jws_identity(v);
    CHECK(id && strlen(id) == 64 && strstr(jws_json(v), id) != NULL);
    gatekit_jws *refused = (gatekit_jws *)0x1;
    CHECK_RC(jws_verify(&refused, 0, good, o), GATEKIT_EINVAL);   /* unknown kind; *out reset */
    CHECK(refused == NULL);
    jws_free(v);
    gatekit_jws *again = NULL;
    CHECK_RC(jws_verify(&again, GATEKIT_JWS_TRANSACTION, good, o), GATEKIT_OK);

    /* The high-S twin verifies (Apple's data is what it is) and has the same identity, so a
     * host that dedupes on it cannot be fooled by the re-signed bytes. */
    char *twin = high_s_twin(good);
    CHECK(twin && strcmp(twin, good) != 0);
    gatekit_jws *t = NULL;
    CHECK_RC(jws_verify(&t, GATEKIT_JWS_TRANSACTION, twin, o), GATEKIT_OK);
    if (t && again) CHECK_STR(jws_identity(t), jws_identity(again));
    jws_free(t);
    jws_free(again);
    free(twin);

    /* Duplicate header members: refused like duplicate payload members. */
    size_t lens[3];
    unsigned char *ders[3];
    for (int i = 0; i < 3; i++) ders[i] = pki_der(chain3[i], &lens[i]);
    char *header = header_with("ES256", ders, lens, 3);
    const char *dups[] = {"{\"alg\":\"ES256\",\"alg\":\"none\",", "{\"x5c\":[],"};
    for (int i = 0; i < 2; i++) {
        size_t len = strlen(header) + 64;
        char *twice = malloc(len);
        snprintf(twice, len, "%s%s", dups[i], header + 1);
        char *jws = rehead(good, twice);
        CHECK_RC(code_of(jws_verify_transaction, jws, o), GATEKIT_EJWS_PAYLOAD_FIELD);
        CHECK(strstr(gatekit_last_error(), "header repeats") != NULL);
        free(jws); free(twice);
    }
    free(header);
    for (int i = 0; i < 3; i++) free(ders[i]);

    /* Test mode has production's shape rules: the anchor as x5c[0] of three is refused. */
    const char *anchor_first[] = {"root", "int", "root"};
    char *payload = transaction_payload(now_ms(), "");
    char *jws = sign_with("ES256", payload, "root", anchor_first, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, o), GATEKIT_EJWS_CHAIN_LENGTH);
    free(jws);
    const char *anchor_alone[] = {"root", "leaf", "leaf"};
    jws = sign_with("ES256", payload, "root", anchor_alone, 3);
    CHECK_RC(code_of(jws_verify_transaction, jws, o), GATEKIT_EJWS_CHAIN_LENGTH);
    free(jws);
    free(payload);

    /* A "gatekit" member inside the signed payload cannot forge the marking. */
    payload = transaction_payload(now_ms(), ",\"gatekit\":{\"identity\":\"x\",\"testSigned\":false}");
    jws = sign_with("ES256", payload, "leaf", chain3, 3);
    int rc;
    char *json = run(jws_verify_transaction, jws, o, &rc);
    CHECK_RC(rc, GATEKIT_OK);
    if (json) {
        CHECK(strstr(json, "\"testSigned\":false") == NULL);
        const char *first = strstr(json, "\"gatekit\"");
        CHECK(first && strstr(first + 1, "\"gatekit\"") == NULL && strstr(json, "\"testSigned\":true}}") != NULL);
    }
    gatekit_free(json);
    free(jws);
    free(payload);
}

static void test_models(void) {
    if (!have_pki) { printf("SKIP: model payloads (no test PKI)\n"); return; }
    const char *models[][2] = {{"signedTransaction", "transaction"}, {"signedRenewalInfo", "renewal"},
                               {"appTransaction", "app"}, {"signedSummaryNotification", "notification"},
                               {"signedExternalPurchaseTokenSandboxNotification", "notification"}};
    size_t root_len = 0;
    unsigned char *root = pki_der("root", &root_len);
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "jws/apple-test/models/%s.json", models[i][0]);
        char *text = fixture(rel);
        if (!text) continue;
        /* Compact the model: drop white space outside strings. */
        char *compact = malloc(strlen(text) + 1), *o = compact;
        int in_string = 0;
        for (const char *c = text; *c; c++) {
            if (in_string) { *o++ = *c; if (*c == '\\' && c[1]) *o++ = *++c; else if (*c == '"') in_string = 0; }
            else if (*c == '"') { in_string = 1; *o++ = *c; }
            else if (*c != ' ' && *c != '\n' && *c != '\r' && *c != '\t') *o++ = *c;
        }
        *o = 0;
        const char *env = strstr(models[i][0], "Sandbox") ? "Sandbox" : "LocalTesting";
        gatekit_jws_options opt = opts("com.example", env, 0, root, root_len);
        opt.verify_time = (long long)time(NULL);   /* the models are from 2023; the PKI is new */
        char *jws = sign_with("ES256", compact, "leaf", chain3, 3);
        verify_fn fn = strcmp(models[i][1], "transaction") == 0 ? jws_verify_transaction
                     : strcmp(models[i][1], "renewal") == 0 ? jws_verify_renewal_info
                     : strcmp(models[i][1], "app") == 0 ? jws_verify_app_transaction : jws_verify_notification;
        int rc;
        char *json = run(fn, jws, &opt, &rc);
        CHECK_RC(rc, GATEKIT_OK);
        if (json) {
            char *expected = marked(compact, jws, 1);
            CHECK_STR(json, expected);
            free(expected);
        }
        gatekit_free(json);
        free(jws); free(compact); free(text);
    }
    free(root);
}

/* Many threads verifying at once (shared chain cache): every call succeeds. */
typedef struct { const char *jws; const gatekit_jws_options *o; int failures; } worker_args;

static void *worker(void *arg) {
    worker_args *w = arg;
    for (int i = 0; i < 50; i++) {
        char *out = NULL;
        if (jws_verify_transaction(&out, w->jws, w->o) != 0 || !out) w->failures++;
        gatekit_free(out);
        if (jws_verify_transaction(&out, "x.y.z", w->o) != GATEKIT_EJWS_MALFORMED) w->failures++;
    }
    return NULL;
}

static void test_threads(void) {
    if (!have_pki) return;
    size_t root_len = 0;
    unsigned char *root = pki_der("root", &root_len);
    gatekit_jws_options o = opts("com.example", "Sandbox", 0, root, root_len);
    char *payload = transaction_payload(now_ms(), "");
    char *jws = sign_with("ES256", payload, "leaf", chain3, 3);
    pthread_t t[8];
    worker_args w[8];
    for (int i = 0; i < 8; i++) { w[i] = (worker_args){jws, &o, 0}; pthread_create(&t[i], NULL, worker, &w[i]); }
    int failures = 0;
    for (int i = 0; i < 8; i++) { pthread_join(t[i], NULL); failures += w[i].failures; }
    CHECK(failures == 0);
    free(jws); free(payload); free(root);
}

/* The gatekit tool's jws subcommand (GATEKIT_TOOL, set by make test-c). */
static int tool_exit(const char *args) {
    const char *tool = getenv("GATEKIT_TOOL");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", tool, args);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_tool(void) {
    if (!getenv("GATEKIT_TOOL")) { printf("SKIP: tool checks (GATEKIT_TOOL not set)\n"); return; }
    char *probe = fixture("jws/apple-test/mock_signed_data/testNotification");
    if (!probe) return;
    free(probe);
    char args[3072];
    const char *f = fixtures;
    snprintf(args, sizeof args, "jws verify --type notification --bundle-id com.example --environment Sandbox "
             "--test-anchor '%s/jws/apple-test/certs/testCA.pem' '%s/jws/apple-test/mock_signed_data/testNotification'", f, f);
    CHECK(tool_exit(args) == 0);
    snprintf(args, sizeof args, "jws verify --type notification --bundle-id com.example --environment Production --app-apple-id 1234 "
             "--test-anchor '%s/jws/apple-test/certs/testCA.der' - < '%s/jws/apple-test/mock_signed_data/testNotification'", f, f);
    CHECK(tool_exit(args) == 12);  /* Sandbox data for Production: another environment, as Apple's verifier says */
    snprintf(args, sizeof args, "jws verify --type transaction --bundle-id com.example --environment Sandbox "
             "'%s/jws/apple-test/mock_signed_data/transactionInfo'", f);
    CHECK(tool_exit(args) == 11);  /* Apple's test chain without the test anchor */
    snprintf(args, sizeof args, "jws verify --type renewal-info --bundle-id com.example --environment Sandbox --at 2042-04-12T00:00:00Z "
             "--test-anchor '%s/jws/apple-test/certs/testCA.der' '%s/jws/apple-test/mock_signed_data/renewalInfo'", f, f);
    CHECK(tool_exit(args) == 11);  /* certificates expired at that time */
    snprintf(args, sizeof args, "jws verify --type renewal-info --bundle-id com.example --environment Sandbox --at 1761962975 "
             "--test-anchor '%s/jws/apple-test/certs/testCA.der' '%s/jws/apple-test/mock_signed_data/renewalInfo'", f, f);
    CHECK(tool_exit(args) == 0);
    /* The tool prints the marking (identity, testSigned) and says so on stderr. */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' jws verify --type transaction --bundle-id com.example --environment Sandbox "
             "--test-anchor '%s/jws/apple-test/certs/testCA.der' '%s/jws/apple-test/mock_signed_data/transactionInfo' 2>&1",
             getenv("GATEKIT_TOOL"), f, f);
    FILE *p = popen(cmd, "r");
    char out[8192] = "";
    size_t got = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[got] = 0;
    if (p) CHECK(pclose(p) == 0);
    CHECK(strstr(out, "\"gatekit\":{\"version\":1,\"identity\":\"") != NULL && strstr(out, "\"testSigned\":true}") != NULL);
    CHECK(strstr(out, "not App Store data") != NULL);
    /* Production data under a test anchor only with the test-only flag (then the notification's
     * Sandbox environment is what fails). */
    snprintf(args, sizeof args, "jws verify --type notification --bundle-id com.example --environment Production --app-apple-id 1234 "
             "--test-anchor '%s/jws/apple-test/certs/testCA.der' --test-production '%s/jws/apple-test/mock_signed_data/testNotification'", f, f);
    CHECK(tool_exit(args) == 12);  /* genuine under the test anchor, for the other environment */
    /* A refusal prints its verdict as JSON on stdout, as receipt verify does. */
    snprintf(cmd, sizeof cmd, "'%s' jws verify --type transaction --bundle-id com.example --environment Sandbox "
             "'%s/jws/apple-test/mock_signed_data/transactionInfo' 2>/dev/null", getenv("GATEKIT_TOOL"), f);
    p = popen(cmd, "r");
    got = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[got] = 0;
    if (p) CHECK(WEXITSTATUS(pclose(p)) == 11);
    CHECK(strstr(out, "{\"status\":null,\"code\":-303,\"error\":") == out && strstr(out, "\"detail\":\"") != NULL);
    snprintf(args, sizeof args, "jws verify --type transaction --bundle-id com.example --environment Sandbox /dev/null");
    CHECK(tool_exit(args) == 10);  /* not a JWS */
    CHECK(tool_exit("jws verify --type bogus --bundle-id a --environment Sandbox x") == 2);
    CHECK(tool_exit("jws verify --bundle-id a --environment Sandbox") == 2);
    CHECK(tool_exit("jws") == 2);
}

int main(void) {
    fixtures = getenv("GATEKIT_FIXTURES");
    if (!fixtures) fixtures = "../shared/fixtures";
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    have_pki = signing_make_pki(folder) == 0;
    char cmd[1024];

    test_codes_and_options();
    test_apple_mock_data();
    test_xcode();
    test_x509_vectors();
    test_chain_and_subject();
    test_generated();
    test_models();
    test_threads();
    test_tool();

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_jws");
}

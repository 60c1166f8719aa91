/* App Store signing from C, with Apple's test key (../shared/fixtures/jws/apple-test/certs/
 * testSigningKey.p8): every signature verified with the key's public half by the openssl CLI,
 * every JWT claim checked; keys that are not App Store keys; the token cache; ReceiptUtility on
 * real receipts against their expected first transaction id; the legacy transaction receipt. */
#include "check.h"
#include "jws_signing.h"

#include <sys/wait.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-c-appstore-XXXXXX";
static const char *fixtures;

static int run(const char *cmd) {
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_bytes(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, n, f);
    fclose(f);
}

/* 1 when the DER ECDSA signature verifies over message with the public key at pub.pem. */
static int openssl_verifies(const void *message, size_t n, const unsigned char *der, size_t der_len) {
    write_bytes(check_path_in(folder, "msg"), message, n);
    write_bytes(check_path_in(folder, "sig"), der, der_len);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "openssl dgst -sha256 -verify '%s' -signature '%s' '%s' >/dev/null 2>&1",
             check_path_in(folder, "pub.pem"), check_path_in(folder, "sig"), check_path_in(folder, "msg"));
    return run(cmd) == 0;
}

/* Raw r||s (64 bytes) to DER ECDSA-Sig-Value, for the openssl CLI. */
static size_t raw_to_der(const unsigned char raw[64], unsigned char out[80]) {
    unsigned char ints[2][34];
    size_t lens[2];
    for (int k = 0; k < 2; k++) {
        const unsigned char *v = raw + 32 * k;
        size_t skip = 0;
        while (skip < 31 && v[skip] == 0) skip++;
        size_t n = 0;
        if (v[skip] & 0x80) ints[k][n++] = 0;
        memcpy(ints[k] + n, v + skip, 32 - skip);
        lens[k] = n + 32 - skip;
    }
    size_t o = 0;
    out[o++] = 0x30;
    out[o++] = (unsigned char)(lens[0] + lens[1] + 4);
    for (int k = 0; k < 2; k++) {
        out[o++] = 0x02;
        out[o++] = (unsigned char)lens[k];
        memcpy(out + o, ints[k], lens[k]);
        o += lens[k];
    }
    return o;
}

/* Checks a compact JWS: header exactly Apple's, signature valid; returns its decoded claims. */
static char *check_jwt(const char *jws) {
    char *header64 = part(jws, 0), *claims64 = part(jws, 1), *sig64 = part(jws, 2);
    size_t hn = 0, cn = 0, sn = 0;
    unsigned char *header = unb64(header64, strlen(header64), &hn);
    unsigned char *claims = unb64(claims64, strlen(claims64), &cn);
    unsigned char *sig = unb64(sig64, strlen(sig64), &sn);
    CHECK(header && hn == strlen("{\"alg\":\"ES256\",\"kid\":\"keyId\",\"typ\":\"JWT\"}")
          && memcmp(header, "{\"alg\":\"ES256\",\"kid\":\"keyId\",\"typ\":\"JWT\"}", hn) == 0);
    CHECK(sn == 64);
    unsigned char der[80];
    size_t input_len = strlen(header64) + 1 + strlen(claims64);
    CHECK(sn == 64 && openssl_verifies(jws, input_len, der, raw_to_der(sig, der)));
    char *text = malloc(cn + 1);
    memcpy(text, claims, cn);
    text[cn] = 0;
    free(header64); free(claims64); free(sig64); free(header); free(claims); free(sig);
    return text;
}

static long long claim_number(const char *claims, const char *name) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *p = strstr(claims, key);
    return p ? atoll(p + strlen(key)) : -1;
}

static void test_signatures(const unsigned char *pem, size_t pem_len) {
    gatekit_appstore_key *key = NULL;
    CHECK_RC(appstore_key_load(&key, pem, pem_len, "keyId", "issuerId", "bundleId"), 0);
    if (!key) return;

    char *out = NULL;
    CHECK_RC(appstore_promotional_offer_signature(&out, key, "productId", "offerId", "AppAccountToken",
                                                  "20FBA8A0-2B80-4A7D-A17F-4B7F7D3D1C3E", 1698148900000LL), 0);
    const char message[] = "bundleId\xe2\x81\xa3keyId\xe2\x81\xa3productId\xe2\x81\xa3offerId\xe2\x81\xa3" "appaccounttoken"
                           "\xe2\x81\xa3" "20fba8a0-2b80-4a7d-a17f-4b7f7d3d1c3e\xe2\x81\xa3" "1698148900000";
    size_t der_len = 0;
    unsigned char *der = out ? unb64(out, strlen(out), &der_len) : NULL;
    CHECK(der && openssl_verifies(message, sizeof message - 1, der, der_len));
    CHECK(!openssl_verifies("something else", 14, der, der_len));
    free(der);
    gatekit_free(out);

    long long now = now_ms() / 1000;
    CHECK_RC(appstore_promotional_offer_v2_signature(&out, key, "productId", "offerIdentifier", "transactionId"), 0);
    char *claims = out ? check_jwt(out) : NULL;
    CHECK(claims && strstr(claims, "\"productId\":\"productId\",\"offerIdentifier\":\"offerIdentifier\",\"transactionId\":\"transactionId\","
                            "\"bid\":\"bundleId\",\"iss\":\"issuerId\",\"aud\":\"promotional-offer\",\"iat\":"));
    CHECK(claims && claim_number(claims, "iat") >= now - 5 && claim_number(claims, "iat") <= now + 5 && strstr(claims, "\"nonce\":\""));
    char *first_nonce = claims ? strdup(strstr(claims, "\"nonce\":\"")) : NULL;
    free(claims);
    gatekit_free(out);
    CHECK_RC(appstore_promotional_offer_v2_signature(&out, key, "productId", "offerIdentifier", NULL), 0);
    claims = out ? check_jwt(out) : NULL;
    CHECK(claims && !strstr(claims, "transactionId") && first_nonce && !strstr(claims, first_nonce));
    free(claims);
    free(first_nonce);
    gatekit_free(out);

    CHECK_RC(appstore_intro_eligibility_signature(&out, key, "productId", 1, "transactionId"), 0);
    claims = out ? check_jwt(out) : NULL;
    CHECK(claims && strstr(claims, "\"allowIntroductoryOffer\":true") && strstr(claims, "\"aud\":\"introductory-offer-eligibility\""));
    free(claims);
    gatekit_free(out);
    CHECK_RC(appstore_intro_eligibility_signature(&out, key, "productId", 2, "transactionId"), GATEKIT_EINVAL);

    CHECK_RC(appstore_advanced_commerce_signature(&out, key, "{\"test_value\": \"testValue\"}"), 0);
    claims = out ? check_jwt(out) : NULL;
    /* base64 of the request text as given */
    CHECK(claims && strstr(claims, "\"request\":\"eyJ0ZXN0X3ZhbHVlIjogInRlc3RWYWx1ZSJ9\"") && strstr(claims, "\"aud\":\"advanced-commerce-api\""));
    free(claims);
    gatekit_free(out);
    CHECK_RC(appstore_advanced_commerce_signature(&out, key, "[1]"), GATEKIT_EINVAL);

    char *token = NULL, *again = NULL, *other = NULL;
    CHECK_RC(appstore_api_token(&token, key, 600), 0);
    claims = token ? check_jwt(token) : NULL;
    CHECK(claims && strstr(claims, "\"iss\":\"issuerId\"") && strstr(claims, "\"aud\":\"appstoreconnect-v1\"") && strstr(claims, "\"bid\":\"bundleId\""));
    CHECK(claims && claim_number(claims, "exp") - claim_number(claims, "iat") == 600);
    free(claims);
    CHECK_RC(appstore_api_token(&again, key, 600), 0);
    CHECK(token && again && strcmp(token, again) == 0);  /* reused */
    CHECK_RC(appstore_api_token(&other, key, 300), 0);
    CHECK(other && token && strcmp(other, token) != 0);
    CHECK_RC(appstore_api_token(&out, key, 3601), GATEKIT_EINVAL);
    /* A field holding U+2063, the separator of V1 offer signatures, would shift the fields. */
    CHECK_RC(appstore_promotional_offer_signature(&out, key, "product\xe2\x81\xa3id", "offerId", "user",
                                                  "20fba8a0-2b80-4a7d-a17f-85c1854727f8", 1698148900000), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "U+2063") != NULL);
    CHECK_RC(appstore_api_token(&out, key, 0), GATEKIT_EINVAL);
    gatekit_free(token); gatekit_free(again); gatekit_free(other);
    appstore_key_free(key);

    /* Without an issuer id: V1 signatures only. */
    CHECK_RC(appstore_key_load(&key, pem, pem_len, "keyId", NULL, "bundleId"), 0);
    CHECK_RC(appstore_api_token(&out, key, 300), GATEKIT_EINVAL);
    CHECK_RC(appstore_promotional_offer_v2_signature(&out, key, "p", "o", NULL), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "issuer_id") != NULL);
    appstore_key_free(key);
}

static void test_keys(void) {
    gatekit_appstore_key *key = (gatekit_appstore_key *)0x1;
    CHECK_RC(appstore_key_load(&key, "garbage", 7, "k", "i", "b"), GATEKIT_EAPPSTORE_KEY);
    CHECK(key == NULL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out '%s' 2>/dev/null", check_path_in(folder, "rsa.pem"));
    if (run(cmd) == 0) {
        size_t n = 0;
        unsigned char *rsa = check_read_file(check_path_in(folder, "rsa.pem"), &n);
        CHECK_RC(appstore_key_load(&key, rsa, n, "k", "i", "b"), GATEKIT_EAPPSTORE_KEY_TYPE);
        free(rsa);
    } else {
        printf("SKIP: the openssl CLI made no RSA key: the key-type refusal not tested\n");
    }
    CHECK_RC(appstore_key_load(&key, NULL, 10, "k", "i", "b"), GATEKIT_EINVAL);
    CHECK_RC(appstore_key_load(&key, "x", 1, "", "i", "b"), GATEKIT_EINVAL);

    /* SEC1 keys whose private scalar P-256 cannot sign with load in OpenSSL and sign junk: refused
     * at load. 0 and n (the group order), as SEC1 DER without a public point. */
    static const unsigned char order[32] = {
        0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};
    for (int which = 0; which < 2; which++) {
        unsigned char der[51] = {0x30, 49, 0x02, 0x01, 0x01, 0x04, 32};
        if (which == 1) memcpy(der + 7, order, 32);
        memcpy(der + 39, "\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07", 12);
        write_bytes(check_path_in(folder, "scalar.der"), der, sizeof der);
        snprintf(cmd, sizeof cmd, "openssl base64 -in '%s' -out '%s'", check_path_in(folder, "scalar.der"), check_path_in(folder, "scalar.b64"));
        CHECK(run(cmd) == 0);
        size_t n = 0;
        unsigned char *b64 = check_read_file(check_path_in(folder, "scalar.b64"), &n);
        char pem[512];
        int len = snprintf(pem, sizeof pem, "-----BEGIN EC PRIVATE KEY-----\n%.*s-----END EC PRIVATE KEY-----\n", (int)n, (const char *)b64);
        free(b64);
        CHECK_RC(appstore_key_load(&key, pem, (size_t)len, "k", "i", "b"), GATEKIT_EAPPSTORE_KEY);
        CHECK(strstr(gatekit_last_error(), "scalar") != NULL);
    }
}

static void test_receipt_utility(void) {
    struct { const char *file, *expected; } cases[] = {
        {"receipts/apple/tp__hist2020-InAppReceiptTests.der", "1000000549529345"},
        {"receipts/apple/tp__receipt-sandbox-legacy.der", NULL},   /* filled from the first purchase below */
        {"receipts/apple/tp__hist2023-NewParsingASN1.der", ""},     /* no purchases */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", fixtures, cases[i].file);
        size_t n = 0;
        unsigned char *data = check_read_file(path, &n);
        if (!data) { printf("SKIP: %s not found (set GATEKIT_FIXTURES)\n", path); continue; }
        char *id = NULL;
        int rc = receipt_transaction_id(&id, data, n);
        if (cases[i].expected && !*cases[i].expected) {
            CHECK_RC(rc, 0);
            CHECK(id == NULL);
        } else if (cases[i].expected) {
            CHECK_RC(rc, 1);
            CHECK_STR(id, cases[i].expected);
        } else {
            /* Unvalidated extraction agrees with the validated receipt's first purchase. */
            gatekit_receipt_options o;
            CHECK_RC(receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION), GATEKIT_OK);
            o.bundle_id = "com.nutcall.alert";
            gatekit_receipt *r = NULL;
            CHECK_RC(receipt_validate(&r, data, n, &o), 0);
            CHECK_RC(rc, 1);
            CHECK_STR(id, r ? receipt_purchase_string(r, 0, GATEKIT_IAP_TRANSACTION_ID) : "");
            receipt_free(r);
        }
        gatekit_free(id);
        free(data);
    }
    char *id = (char *)0x1;
    CHECK_RC(receipt_transaction_id(&id, "not a receipt", 13), GATEKIT_ERECEIPT_MALFORMED);
    CHECK(id == NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/jws/apple-test/mock_signed_data/legacyTransaction", fixtures);
    size_t n = 0;
    char *legacy = (char *)check_read_file(path, &n);
    if (legacy) {
        CHECK_RC(receipt_legacy_transaction_id(&id, legacy), 1);
        CHECK_STR(id, "33993399");
        gatekit_free(id);
        free(legacy);
    } else {
        printf("SKIP: %s not found (set GATEKIT_FIXTURES)\n", path);
    }
    CHECK_RC(receipt_legacy_transaction_id(&id, "ewoicHVyY2hhc2UtaW5mbyIgPSAiZTMwPSI7Cn0K"), 0);  /* purchase-info = {} */
    CHECK(id == NULL);
    CHECK_RC(receipt_legacy_transaction_id(&id, "%%%"), GATEKIT_ERECEIPT_MALFORMED);
}

/* The tool: exit codes and outputs. */
static void test_tool(const char *key_path) {
    const char *tool = getenv("GATEKIT_TOOL");
    if (!tool) { printf("SKIP: GATEKIT_TOOL not set: the tool's appstore commands not tested\n"); return; }
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' appstore token --key '%s' --key-id keyId --bundle-id b --issuer-id i | grep -q '^eyJhbGciOiJFUzI1NiIsImtpZCI6ImtleUlkIiwidHlwIjoiSldUIn0\\.'",
             tool, key_path);
    CHECK(run(cmd) == 0);
    snprintf(cmd, sizeof cmd, "'%s' appstore offer-v2 --key '%s' --key-id keyId --bundle-id b --product p --offer o 2>/dev/null", tool, key_path);
    CHECK(run(cmd) == 2);  /* no issuer id */
    snprintf(cmd, sizeof cmd, "'%s' appstore token --key '%s' --key-id keyId --bundle-id b --issuer-id i --lifetime 3601 2>/dev/null", tool, key_path);
    CHECK(run(cmd) == 2);
    snprintf(cmd, sizeof cmd, "'%s' appstore legacy-transaction-id '%s/jws/apple-test/mock_signed_data/legacyTransaction' | grep -qx 33993399", tool, fixtures);
    CHECK(run(cmd) == 0);
    snprintf(cmd, sizeof cmd, "'%s' appstore transaction-id '%s/receipts/apple/tp__hist2023-NewParsingASN1.der' >/dev/null 2>&1", tool, fixtures);
    CHECK(run(cmd) == 3);  /* the answer is no: the receipt names no transaction */
    snprintf(cmd, sizeof cmd, "'%s' appstore token --key /etc/hostname --key-id k --bundle-id b --issuer-id i >/dev/null 2>&1", tool);
    CHECK(run(cmd) == 1);
}

int main(void) {
    fixtures = getenv("GATEKIT_FIXTURES");
    if (!fixtures) fixtures = "../shared/fixtures";
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    char path[1024], cmd[2048];
    snprintf(path, sizeof path, "%s/jws/apple-test/certs/testSigningKey.p8", fixtures);
    size_t pem_len = 0;
    unsigned char *pem = check_read_file(path, &pem_len);
    if (pem) {
        snprintf(cmd, sizeof cmd, "openssl pkey -in '%s' -pubout -out '%s' 2>/dev/null", path, check_path_in(folder, "pub.pem"));
        CHECK(run(cmd) == 0);
        test_signatures(pem, pem_len);
        test_tool(path);
        free(pem);
    } else {
        printf("SKIP: Apple's test signing key not found at %s (set GATEKIT_FIXTURES): signatures not tested\n", path);
    }
    test_keys();
    test_receipt_utility();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_appstore");
}

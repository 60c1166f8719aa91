#define _GNU_SOURCE 1 /* memmem */
/* Receipts from C: every fixture against its facts, environment/bundle/device checks, the
 * malformed samples, every truncation, and receipts forged at test time with the openssl CLI
 * (Tests/c/receipt_forgeries.sh) — each failure with its own code. */
#include "check.h"

#include <limits.h>

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *fixtures;
static unsigned char *storekit_cert;
static size_t storekit_len;

static unsigned char *fixture(const char *relative, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fixtures, relative);
    return check_read_file(path, len);
}

static int hex_decode(const char *hex, unsigned char *out, size_t cap) {
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > cap) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (unsigned char)v;
    }
    return (int)(n / 2);
}

static int validate(gatekit_receipt **out, const unsigned char *data, size_t len, const char *bundle,
                    long long at, unsigned flags, const unsigned char *anchor, size_t anchor_len) {
    gatekit_receipt_options o;
    CHECK_RC(receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION), GATEKIT_OK);
    o.bundle_id = bundle;
    o.verify_time = at;
    o.flags = flags;
    o.test_anchor_der = anchor;
    o.test_anchor_len = anchor_len;
    return receipt_validate(out, data, len, &o);
}

/* The code alone (the receipt, if any, is freed). */
static int code_of(const unsigned char *data, size_t len, const char *bundle, long long at, unsigned flags,
                   const unsigned char *anchor, size_t anchor_len) {
    gatekit_receipt *r = NULL;
    int rc = validate(&r, data, len, bundle, at, flags, anchor, anchor_len);
    receipt_free(r);
    return rc;
}

typedef struct {
    char name[128], file[256], env[32], bundle[128], version[64], product[128], txn[64], device[64], digest[16];
    long long created_ms;
    int in_app, device_matches;
} facts;

static void check_fixture(const facts *f) {
    size_t len = 0;
    unsigned char *data = fixture(f->file, &len);
    CHECK(data != NULL);
    if (!data) return;
    int xcode = strcmp(f->env, "Xcode") == 0;
    const unsigned char *anchor = xcode ? storekit_cert : NULL;
    size_t anchor_len = xcode ? storekit_len : 0;

    gatekit_receipt *r = NULL;
    int rc = validate(&r, data, len, f->bundle, 0, 0, anchor, anchor_len);
    if (rc != 0) fprintf(stderr, "fixture %s: %s\n", f->name, gatekit_last_error());
    CHECK_RC(rc, 0);
    if (rc == 0) {
        CHECK_STR(receipt_string(r, GATEKIT_RECEIPT_ENVIRONMENT), f->env);
        CHECK_STR(receipt_string(r, GATEKIT_RECEIPT_BUNDLE_ID), f->bundle);
        if (strcmp(f->version, "-") != 0) CHECK_STR(receipt_string(r, GATEKIT_RECEIPT_APP_VERSION), f->version);
        long long ms = -1;
        CHECK_RC(receipt_date_ms(&ms, r, GATEKIT_RECEIPT_CREATION_DATE), 1);
        CHECK(ms == f->created_ms);
        CHECK_RC(receipt_purchase_count(r), f->in_app);
        CHECK_RC(receipt_is_test_signed(r), xcode);
        if (f->in_app > 0) {
            if (strcmp(f->product, "-") != 0) CHECK_STR(receipt_purchase_string(r, 0, GATEKIT_IAP_PRODUCT_ID), f->product);
            if (strcmp(f->txn, "-") != 0) CHECK_STR(receipt_purchase_string(r, 0, GATEKIT_IAP_TRANSACTION_ID), f->txn);
            long long p = 0;
            CHECK_RC(receipt_purchase_date_ms(&p, r, 0, GATEKIT_IAP_PURCHASE_DATE), 1);
            CHECK(p > 0);
        }
        CHECK(receipt_purchase_string(r, (size_t)f->in_app, GATEKIT_IAP_PRODUCT_ID) == NULL);
        const unsigned char *opaque = NULL;
        size_t opaque_len = 0;
        CHECK_RC(receipt_bytes(&opaque, &opaque_len, r, GATEKIT_RECEIPT_OPAQUE), 1);
        CHECK(opaque_len == (xcode ? 8u : 16u));
        char *json = NULL;
        CHECK_RC(receipt_to_json(&json, r), 0);
        CHECK(json && strstr(json, "{\"status\":0,\"environment\":\"") == json);
        CHECK(json && strstr(json, f->bundle) != NULL);
        gatekit_free(json);
    }
    receipt_free(r);

    /* Every Apple leaf has expired: rejected at today's date. The StoreKit test certificate is
     * valid until 2040, so Xcode receipts still verify now (with the anchor). */
    long long now = (long long)time(NULL);
    CHECK_RC(code_of(data, len, f->bundle, now, 0, anchor, anchor_len), xcode ? 0 : GATEKIT_ERECEIPT_CERT_TIME);
    if (xcode) {
        CHECK_RC(code_of(data, len, f->bundle, 0, 0, NULL, 0), GATEKIT_ERECEIPT_XCODE);
        CHECK_RC(code_of(data, len, f->bundle, 0, GATEKIT_RECEIPT_PRODUCTION_ONLY, anchor, anchor_len), GATEKIT_ERECEIPT_XCODE);
    } else {
        /* A test anchor never stands in for Apple's root, nor is it needed. */
        CHECK_RC(code_of(data, len, f->bundle, 0, 0, storekit_cert, storekit_len), 0);
    }
    CHECK_RC(code_of(data, len, "com.example.other", 0, 0, anchor, anchor_len), GATEKIT_ERECEIPT_BUNDLE_ID);
    int sandbox = strcmp(f->env, "ProductionSandbox") == 0;
    if (sandbox) CHECK_RC(code_of(data, len, f->bundle, 0, GATEKIT_RECEIPT_PRODUCTION_ONLY, NULL, 0), GATEKIT_ERECEIPT_SANDBOX);
    if (strcmp(f->env, "Production") == 0) CHECK_RC(code_of(data, len, f->bundle, 0, GATEKIT_RECEIPT_SANDBOX_ONLY, NULL, 0), GATEKIT_ERECEIPT_PRODUCTION);
    if (!xcode) {
        int sha1 = strcmp(f->digest, "sha1") == 0;
        CHECK_RC(code_of(data, len, f->bundle, 0, GATEKIT_RECEIPT_REQUIRE_SHA256, NULL, 0), sha1 ? GATEKIT_ERECEIPT_WEAK_DIGEST : 0);
    }

    if (strcmp(f->device, "-") != 0) {
        unsigned char id[16];
        int n = hex_decode(f->device, id, sizeof id);
        CHECK(n == 16 || n == 6);
        gatekit_receipt_options o;
        CHECK_RC(receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION), GATEKIT_OK);
        o.bundle_id = f->bundle;
        o.device_id = id;
        o.device_id_len = (size_t)n;
        r = NULL;
        CHECK_RC(receipt_validate(&r, data, len, &o), f->device_matches ? 0 : GATEKIT_ERECEIPT_DEVICE_HASH);
        receipt_free(r);
        memset(id, 0, sizeof id);
        r = NULL;
        CHECK_RC(receipt_validate(&r, data, len, &o), GATEKIT_ERECEIPT_DEVICE_HASH);
        receipt_free(r);
    }
    free(data);
}

static int all_fixtures(void) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 Tests/c/receipt_facts.py '%s'", fixtures);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    char line[4096];
    int count = 0;
    while (fgets(line, sizeof line, p)) {
        facts f;
        memset(&f, 0, sizeof f);
        if (sscanf(line, "%127[^\t]\t%255[^\t]\t%31[^\t]\t%127[^\t]\t%63[^\t]\t%lld\t%d\t%127[^\t]\t%63[^\t]\t%63[^\t]\t%d\t%15s",
                   f.name, f.file, f.env, f.bundle, f.version, &f.created_ms, &f.in_app, f.product, f.txn, f.device,
                   &f.device_matches, f.digest) != 12) {
            fprintf(stderr, "cannot read facts line: %s", line);
            check_failed++;
            continue;
        }
        check_fixture(&f);
        count++;
    }
    pclose(p);
    return count;
}

static void negatives(void) {
    const char *files[] = {"receipts/negative/neg__arv__not_a_receipt.orig",
                           "receipts/negative/neg__arv__deprecatedSinglesTypeExpiredAppleCert_receipt.orig"};
    for (size_t i = 0; i < 2; i++) {
        size_t len = 0;
        unsigned char *data = fixture(files[i], &len);
        CHECK(data != NULL);
        if (!data) continue;
        int rc = code_of(data, len, "com.example", 0, 0, NULL, 0);
        CHECK_RC(rc, GATEKIT_ERECEIPT_MALFORMED);
        CHECK(receipt_apple_status(rc) == 21002);
        char *json = NULL;
        CHECK_RC(receipt_inspect(&json, data, len), GATEKIT_ERECEIPT_MALFORMED);
        CHECK(json == NULL);
        free(data);
    }
    const unsigned char junk[] = {0x30, 0x80, 0x30, 0x80, 0x30, 0x80};
    CHECK_RC(code_of(junk, sizeof junk, "x", 0, 0, NULL, 0), GATEKIT_ERECEIPT_MALFORMED);
    const unsigned char huge_length[] = {0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x00};
    CHECK_RC(code_of(huge_length, sizeof huge_length, "x", 0, 0, NULL, 0), GATEKIT_ERECEIPT_MALFORMED);
    const unsigned char absurd_length[] = {0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK_RC(code_of(absurd_length, sizeof absurd_length, "x", 0, 0, NULL, 0), GATEKIT_ERECEIPT_MALFORMED);
    /* A nesting bomb: 100 000 indefinite SEQUENCEs. */
    size_t bomb_len = 200000;
    unsigned char *bomb = malloc(bomb_len);
    for (size_t i = 0; i < bomb_len; i += 2) { bomb[i] = 0x30; bomb[i + 1] = 0x80; }
    CHECK_RC(code_of(bomb, bomb_len, "x", 0, 0, NULL, 0), GATEKIT_ERECEIPT_MALFORMED);
    free(bomb);
    const char *not_base64 = "this is not a receipt";
    CHECK_RC(code_of((const unsigned char *)not_base64, strlen(not_base64), "x", 0, 0, NULL, 0), GATEKIT_ERECEIPT_MALFORMED);
    const char *base64_junk = "SGVsbG8gd29ybGQ=";
    CHECK_RC(code_of((const unsigned char *)base64_junk, strlen(base64_junk), "x", 0, 0, NULL, 0), GATEKIT_ERECEIPT_MALFORMED);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(const unsigned char *d, size_t n) {
    char *out = malloc(n / 3 * 4 + 8 + n / 57 * 2), *o = out;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64[v & 63] : '=';
        if (i % 57 == 54) *o++ = '\n';
    }
    *o = 0;
    return out;
}

static void robustness(void) {
    size_t len = 0;
    unsigned char *data = fixture("receipts/apple/tp__receipt-sandbox-g5.der", &len);
    CHECK(data != NULL);
    if (!data) return;
    const char *bundle = "dev.bonzer.weeka.app";
    CHECK_RC(code_of(data, len, bundle, 0, 0, NULL, 0), 0);
    /* Every single-byte truncation fails cleanly. */
    int truncations_failed = 0;
    for (size_t n = 0; n < len; n++) {
        int rc = code_of(data, n, bundle, 0, 0, NULL, 0);
        if (rc < 0) truncations_failed++;
    }
    CHECK(truncations_failed == (int)len);
    /* A real Apple receipt with its payload edited: the signature catches it, whatever else breaks. */
    unsigned char *edited = malloc(len);
    memcpy(edited, data, len);
    unsigned char *date = memmem(edited, len, "2025-12-26T18:39:47Z", 20);
    CHECK(date != NULL);
    if (date) {
        date[2] = '3';  /* creation date moved to 2035: outside every certificate's validity */
        CHECK_RC(code_of(edited, len, bundle, 0, 0, NULL, 0), GATEKIT_ERECEIPT_SIGNATURE);
    }
    memcpy(edited, data, len);
    unsigned char *edit = memmem(edited, len, "subscription.pro.annual", 23);
    CHECK(edit != NULL);
    if (edit) {
        memcpy(edit, "subscription.pro.lifet", 22);
        CHECK_RC(code_of(edited, len, bundle, 0, 0, NULL, 0), GATEKIT_ERECEIPT_SIGNATURE);
    }
    free(edited);
    /* Trailing garbage. */
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, data, len);
    longer[len] = 0;
    CHECK_RC(code_of(longer, len + 1, bundle, 0, 0, NULL, 0), GATEKIT_ERECEIPT_MALFORMED);
    free(longer);
    /* Base64 text, as devices send it, with line breaks. */
    char *text = base64(data, len);
    gatekit_receipt *r = NULL;
    CHECK_RC(validate(&r, (const unsigned char *)text, strlen(text), bundle, 0, 0, NULL, 0), 0);
    CHECK_RC(receipt_purchase_count(r), 2);
    /* Entitlements: the sandbox subscription ran 17:43:07 → 18:19:07 and renewed to 18:55:07. */
    const char *product = "dev.bonzer.weeka.app.subscription.pro.annual";
    CHECK_RC(receipt_is_entitled(r, product, 1766771000000LL), 1);   /* 2025-12-26T17:43:20Z */
    CHECK_RC(receipt_is_entitled(r, product, 1766774000000LL), 1);   /* 18:33:20, second period */
    CHECK_RC(receipt_is_entitled(r, product, 1766776000000LL), 0);   /* 19:06:40, expired */
    CHECK_RC(receipt_is_entitled(r, product, 1766770000000LL), 0);   /* 17:26:40, before purchase */
    CHECK_RC(receipt_is_entitled(r, "other.product", 1766771000000LL), 0);
    CHECK_RC(receipt_is_entitled(r, NULL, 0), GATEKIT_EINVAL);
    char *json = NULL;
    CHECK_RC(receipt_active_products(&json, r, 1766771000000LL), 1);
    CHECK_STR(json, "{\"version\":1,\"products\":[\"dev.bonzer.weeka.app.subscription.pro.annual\"]}");
    gatekit_free(json);
    json = NULL;
    CHECK_RC(receipt_active_products(&json, r, 1766776000000LL), 0);
    CHECK_STR(json, "{\"version\":1,\"products\":[]}");
    gatekit_free(json);
    json = NULL;
    CHECK_RC(receipt_to_json(&json, r), 0);
    CHECK(json && strstr(json, "\"receipt_creation_date\":\"2025-12-26 18:39:47 Etc/GMT\",\"receipt_creation_date_ms\":\"1766774387000\",\"receipt_creation_date_pst\":\"2025-12-26 10:39:47 America/Los_Angeles\""));
    CHECK(json && strstr(json, "\"environment\":\"Sandbox\""));
    CHECK(json && strstr(json, "\"expires_date\":\"2025-12-26 18:19:07 Etc/GMT\""));
    CHECK(json && strstr(json, "\"is_trial_period\":\"false\""));
    gatekit_free(json);
    long long v = 0;
    CHECK_RC(receipt_integer(&v, r, GATEKIT_RECEIPT_BUNDLE_ID), GATEKIT_EINVAL);
    CHECK_RC(receipt_purchase_integer(&v, r, 2, GATEKIT_IAP_QUANTITY), GATEKIT_EINVAL);
    CHECK_RC(receipt_purchase_integer(&v, r, 0, GATEKIT_IAP_QUANTITY), 1);
    CHECK(v == 1);
    CHECK_RC(receipt_purchase_integer(&v, r, 0, GATEKIT_IAP_PRODUCT_TYPE), 1);
    CHECK(v == 3);
    CHECK_RC(receipt_purchase_date_ms(&v, r, 0, GATEKIT_IAP_CANCELLATION_DATE), 0);
    gatekit_purchase p;
    memset(&p, 0xAB, sizeof p);
    p.version = GATEKIT_PURCHASE_VERSION;
    CHECK_RC(receipt_purchase(&p, r, 1), 0);
    CHECK(p.version == GATEKIT_PURCHASE_VERSION);
    CHECK_STR(p.product_id, product);
    CHECK_STR(p.transaction_id, "2000001092148094");
    CHECK_STR(p.original_transaction_id, "2000001092134138");
    CHECK(p.promotional_offer_id == NULL);
    CHECK(p.expires_date_ms == 1766775307000LL && (p.present & (1u << (GATEKIT_IAP_EXPIRES_DATE - 1701))));
    CHECK(p.cancellation_date_ms == 0 && !(p.present & (1u << (GATEKIT_IAP_CANCELLATION_DATE - 1701))));
    CHECK(p.product_type == 3 && p.quantity == 1 && p.is_trial_period == 0);
    CHECK(p.present & (1u << (GATEKIT_IAP_IS_TRIAL_PERIOD - 1701)));
    CHECK(p.product_id == receipt_purchase_string(r, 1, GATEKIT_IAP_PRODUCT_ID));  /* same owned string */
    CHECK(receipt_string(r, 1000102) == NULL);  /* never another field's cached string */
    CHECK(receipt_string(r, -1) == NULL);
    CHECK(receipt_purchase_string(r, 0, 1699) == NULL);
    CHECK_RC(receipt_purchase(&p, r, 2), GATEKIT_EINVAL);
    CHECK_RC(receipt_purchase(NULL, r, 0), GATEKIT_EINVAL);
    /* An output struct says its version: unknown ones are refused, the struct untouched. */
    gatekit_purchase untouched;
    memset(&untouched, 0xAB, sizeof untouched);
    untouched.version = 0;
    CHECK_RC(receipt_purchase(&untouched, r, 0), GATEKIT_EVERSION);
    untouched.version = 99;
    CHECK_RC(receipt_purchase(&untouched, r, 0), GATEKIT_EVERSION);
    CHECK(untouched.quantity == (long long)0xABABABABABABABABULL);
    receipt_free(r);
    free(text);

    /* Inspect: parses, decides nothing. */
    json = NULL;
    CHECK_RC(receipt_inspect(&json, data, len), 0);
    CHECK(json && strstr(json, "\"validated\":false"));
    gatekit_free(json);
    free(data);

    /* Every byte flip of an Xcode receipt: an error, or the very same facts. */
    data = fixture("receipts/xcode/tp__receipt-xcode.der", &len);
    CHECK(data != NULL);
    if (!data) return;
    int changed_but_accepted = 0;
    for (size_t i = 0; i < len; i++) {
        data[i] ^= 0x01;
        r = NULL;
        if (validate(&r, data, len, "net.zachariadis.cyclemaps", 0, 0, storekit_cert, storekit_len) == 0) {
            const char *b = receipt_string(r, GATEKIT_RECEIPT_BUNDLE_ID);
            if (!b || strcmp(b, "net.zachariadis.cyclemaps") != 0 || receipt_purchase_count(r) != 1) changed_but_accepted++;
        }
        receipt_free(r);
        data[i] ^= 0x01;
    }
    CHECK(changed_but_accepted == 0);
    free(data);
}

static void arguments(void) {
    gatekit_receipt *r = (gatekit_receipt *)1;
    gatekit_receipt_options o;
    CHECK_RC(receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION), GATEKIT_OK);
    const unsigned char one = 0x30;
    CHECK_RC(receipt_validate(&r, &one, 1, &o), GATEKIT_EINVAL);           /* no bundle id */
    CHECK(r == NULL);
    o.bundle_id = "x";
    CHECK_RC(receipt_validate(NULL, &one, 1, &o), GATEKIT_EINVAL);
    CHECK_RC(receipt_validate(&r, NULL, 5, &o), GATEKIT_EINVAL);
    CHECK_RC(receipt_validate(&r, &one, 1, NULL), GATEKIT_EINVAL);
    CHECK_RC(receipt_validate(&r, &one, (size_t)-1, &o), GATEKIT_ETOOLARGE);
    o.device_id = &one;
    o.device_id_len = 5;
    CHECK_RC(receipt_validate(&r, &one, 1, &o), GATEKIT_EINVAL);
    o.device_id = NULL;
    o.device_id_len = 0;
    o.flags = GATEKIT_RECEIPT_PRODUCTION_ONLY | GATEKIT_RECEIPT_SANDBOX_ONLY;
    CHECK_RC(receipt_validate(&r, &one, 1, &o), GATEKIT_EINVAL);
    o.flags = 0x100;
    CHECK_RC(receipt_validate(&r, &one, 1, &o), GATEKIT_EINVAL);
    o.flags = 0;
    o.version = 99;
    CHECK_RC(receipt_validate(&r, &one, 1, &o), GATEKIT_EVERSION);
    CHECK_RC(receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION), GATEKIT_OK);
    o.bundle_id = "x";
    CHECK_RC(receipt_validate_file(&r, "/nonexistent/receipt", &o), GATEKIT_ENOTFOUND);
    CHECK_RC(receipt_validate_file(&r, "/", &o), GATEKIT_EIO);
    CHECK_RC(receipt_purchase_count(NULL), GATEKIT_EINVAL);
    CHECK(receipt_string(NULL, 2) == NULL);
    CHECK(receipt_purchase_string(NULL, 0, GATEKIT_IAP_PRODUCT_ID) == NULL);
    char *json = NULL;
    CHECK_RC(receipt_to_json(&json, NULL), GATEKIT_EINVAL);
    receipt_free(NULL);
    CHECK_RC(receipt_options_init(NULL, GATEKIT_RECEIPT_OPTIONS_VERSION), GATEKIT_EINVAL);
    CHECK_RC(receipt_options_init(&o, 0), GATEKIT_EVERSION);
    CHECK_RC(receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION + 1), GATEKIT_EVERSION);

    /* Codes are distinct, named, and mapped onto Apple's statuses. */
    for (int a = -100; a >= -123; a--) {
        CHECK(strcmp(gatekit_strerror(a), "unknown error") != 0);
        int s = receipt_apple_status(a);
        CHECK(s == 21002 || s == 21003 || s == 21007 || s == 21008 || s == 21009);
    }
    CHECK(receipt_apple_status(0) == 0);
    CHECK(receipt_apple_status(GATEKIT_ERECEIPT_SANDBOX) == 21007);
    CHECK(receipt_apple_status(GATEKIT_ERECEIPT_PRODUCTION) == 21008);
    CHECK(receipt_apple_status(GATEKIT_ERECEIPT_SIGNATURE) == 21003);
    CHECK(receipt_apple_status(GATEKIT_ERECEIPT_PAYLOAD) == 21002);
    CHECK(receipt_apple_status(GATEKIT_EINVAL) == 21009);
}

/* ---- forged receipts ---- */

static unsigned char *forged(const char *dir, const char *name, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.der", dir, name);
    unsigned char *d = check_read_file(path, len);
    if (!d) { fprintf(stderr, "missing generated %s\n", path); check_failed++; }
    return d;
}

/* gatekit_last_error() after a refusal of hostile input: short, one line, printable. */
static int message_is_safe(void) {
    const char *m = gatekit_last_error();
    size_t n = strlen(m);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)m[i] < 0x20 || m[i] == 0x7f) return 0;
    return n > 0 && n < 600;
}

/* The replay identity of a receipt that must validate; malloc'd, NULL on failure. */
static char *identity_of(const unsigned char *d, size_t len, const char *bundle, long long at,
                         const unsigned char *anchor, size_t anchor_len) {
    gatekit_receipt *r = NULL;
    int rc = validate(&r, d, len, bundle, at, 0, anchor, anchor_len);
    CHECK_RC(rc, GATEKIT_OK);
    if (!r) return NULL;
    const char *id = receipt_identity(r);
    char *copy = id ? strdup(id) : NULL;
    CHECK(copy && strlen(copy) == 64);
    char *json = NULL;
    CHECK_RC(receipt_to_json(&json, r), GATEKIT_OK);
    CHECK(json && copy && strstr(json, copy) != NULL);
    gatekit_free(json);
    receipt_free(r);
    return copy;
}

static char *base64_lines(const unsigned char *d, size_t len) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(len / 3 * 4 + len / 57 * 2 + 16), *o = out;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (i + 1 < len ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < len ? d[i + 2] : 0);
        *o++ = t[v >> 18 & 63]; *o++ = t[v >> 12 & 63];
        *o++ = i + 1 < len ? t[v >> 6 & 63] : '=';
        *o++ = i + 2 < len ? t[v & 63] : '=';
        if ((i / 3 + 1) % 19 == 0) { *o++ = '\r'; *o++ = '\n'; }
    }
    *o = 0;
    return out;
}

/* Hardening II: authenticity before any payload value is judged; quoted values bounded and
 * escaped; times outside X.509's range are time errors; one identity per signed payload. */
static void hardening(const char *dir, const char *bundle, const unsigned char *root, size_t root_len) {
    size_t len = 0;
    /* A 10 MB environment full of newlines and ESC: not Apple-signed, so that is the verdict,
     * and none of those bytes reach the message (before: -122 with all 10 MB quoted raw). */
    unsigned char *d = forged(dir, "env_hostile", &len);
    if (d) {
        CHECK_RC(code_of(d, len, bundle, 0, 0, root, root_len), GATEKIT_ERECEIPT_UNTRUSTED);
        CHECK(message_is_safe());
        CHECK_RC(code_of(d, len, bundle, 0, 0, NULL, 0), GATEKIT_ERECEIPT_UNTRUSTED);
        CHECK(message_is_safe());
        free(d);
    }
    /* An authentic (test-anchored) receipt whose bundle id hides a NUL: the message shows it. */
    d = forged(dir, "bundle_nul", &len);
    if (d) {
        CHECK_RC(code_of(d, len, bundle, 0, 0, root, root_len), GATEKIT_ERECEIPT_BUNDLE_ID);
        CHECK(strstr(gatekit_last_error(), "backyardbirds.example\\0evil") != NULL);
        CHECK(message_is_safe());
        free(d);
    }
    d = forged(dir, "bundle_hostile", &len);
    if (d) {
        CHECK_RC(code_of(d, len, bundle, 0, 0, root, root_len), GATEKIT_ERECEIPT_BUNDLE_ID);
        CHECK(message_is_safe());
        CHECK(strstr(gatekit_last_error(), "\\n") != NULL && strstr(gatekit_last_error(), "bytes)") != NULL);
        free(d);
    }

    /* receipt_inspect shows any SignedData and says why validation would refuse it. */
    d = forged(dir, "signed_attributes", &len);
    if (d) {
        char *json = NULL;
        CHECK_RC(receipt_inspect(&json, d, len), GATEKIT_OK);
        CHECK(json && strstr(json, "\"refusals\":[{\"code\":-103,") != NULL);
        CHECK(json && strstr(json, "backyardbirds") != NULL);   /* the payload is still shown */
        gatekit_free(json);
        free(d);
    }

    /* One identity for every re-encoding of one signed receipt, Apple's and ours. */
    size_t apple_len = 0;
    unsigned char *apple = fixture("receipts/apple/tp__receipt-sandbox-g5.der", &apple_len);
    const char *apple_bundle = "dev.bonzer.weeka.app";
    char *id = apple ? identity_of(apple, apple_len, apple_bundle, 0, NULL, 0) : NULL;
    const char *variants[] = {"apple_reordered", "apple_extra_cert"};
    for (int i = 0; i < 2 && id; i++) {
        d = forged(dir, variants[i], &len);
        if (!d) continue;
        CHECK(len != apple_len || memcmp(d, apple, len) != 0);
        char *other = identity_of(d, len, apple_bundle, 0, NULL, 0);
        CHECK(other && strcmp(other, id) == 0);
        free(other);
        free(d);
    }
    if (apple && id) {
        char *text = base64_lines(apple, apple_len);
        char *other = identity_of((const unsigned char *)text, strlen(text), apple_bundle, 0, NULL, 0);
        CHECK(other && strcmp(other, id) == 0);
        free(other);
        free(text);
        /* Times outside what X.509 can express are certificate-time errors, never a
         * "format error in the certificate", and negative times mean before 1970. */
        const long long times[] = {1LL << 62, LLONG_MAX, LLONG_MIN, -(1LL << 62), -1};
        for (int i = 0; i < 5; i++) {
            CHECK_RC(code_of(apple, apple_len, apple_bundle, times[i], 0, NULL, 0), GATEKIT_ERECEIPT_CERT_TIME);
            CHECK(strstr(gatekit_last_error(), "not valid at") != NULL);
        }
    }
    free(id);
    id = NULL;
    d = forged(dir, "good", &len);
    if (d) {
        id = identity_of(d, len, bundle, 0, root, root_len);
        free(d);
    }
    const char *ours[] = {"good_reordered", "good_extra_cert"};
    for (int i = 0; i < 2 && id; i++) {
        d = forged(dir, ours[i], &len);
        if (!d) continue;
        char *other = identity_of(d, len, bundle, 0, root, root_len);
        CHECK(other && strcmp(other, id) == 0);
        free(other);
        free(d);
    }
    free(id);
    /* Xcode's BER receipt and its DER re-encoding. */
    size_t xcode_len = 0;
    unsigned char *xcode = fixture("receipts/xcode/tp__receipt-xcode.der", &xcode_len);
    d = forged(dir, "xcode_as_der", &len);
    if (xcode && d) {
        CHECK(len != xcode_len || memcmp(d, xcode, len) != 0);
        char *a = identity_of(xcode, xcode_len, "net.zachariadis.cyclemaps", 0, storekit_cert, storekit_len);
        char *b = identity_of(d, len, "net.zachariadis.cyclemaps", 0, storekit_cert, storekit_len);
        CHECK(a && b && strcmp(a, b) == 0);
        free(a);
        free(b);
    }
    free(d);
    free(xcode);
    free(apple);
}

static void forgeries(void) {
    char dir[] = "/tmp/gatekit-receipt-pki-XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); check_failed++; return; }
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "bash Tests/c/receipt_forgeries.sh '%s' '%s' >/dev/null", dir, fixtures);
    if (system(cmd) != 0) {
        printf("SKIP forged receipts: Tests/c/receipt_forgeries.sh failed (openssl CLI missing?) — see %s/forgeries.log\n", dir);
        return;
    }
    const char *bundle = "com.example.naturelab.backyardbirds.example";
    size_t root_len = 0, fake_root_len = 0, len = 0;
    unsigned char *root = forged(dir, "root", &root_len);
    unsigned char *fake_root = forged(dir, "fake_root", &fake_root_len);
    if (!root || !fake_root) return;

    struct { const char *name; int plain, anchored; } cases[] = {
        /* positive control: the Apple-shaped test chain under the explicit anchor */
        {"good", GATEKIT_ERECEIPT_XCODE, 0},
        /* a look-alike of Apple's chain, App Store payload: Apple's root is the only anchor */
        {"fake_apple", GATEKIT_ERECEIPT_UNTRUSTED, GATEKIT_ERECEIPT_UNTRUSTED},
        {"appstore_under_test_root", GATEKIT_ERECEIPT_UNTRUSTED, GATEKIT_ERECEIPT_UNTRUSTED},
        {"leaf_wrong_oid", GATEKIT_ERECEIPT_XCODE, GATEKIT_ERECEIPT_LEAF_OID},
        {"intermediate_wrong_oid", GATEKIT_ERECEIPT_XCODE, GATEKIT_ERECEIPT_INTERMEDIATE_OID},
        {"two_certificates", GATEKIT_ERECEIPT_XCODE, GATEKIT_ERECEIPT_CHAIN_LENGTH},
        {"signer_not_in_chain", GATEKIT_ERECEIPT_XCODE, GATEKIT_ERECEIPT_NO_SIGNER},
        {"signed_attributes", GATEKIT_ERECEIPT_SIGNED_ATTRS, GATEKIT_ERECEIPT_SIGNED_ATTRS},
        {"valid_now_only", GATEKIT_ERECEIPT_XCODE, GATEKIT_ERECEIPT_CERT_TIME},
        {"valid_then_only", GATEKIT_ERECEIPT_XCODE, 0},
        {"good_sha1", GATEKIT_ERECEIPT_XCODE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *d = forged(dir, cases[i].name, &len);
        if (!d) continue;
        const char *b = strncmp(cases[i].name, "fake_apple", 10) == 0 || strncmp(cases[i].name, "appstore", 8) == 0
                            ? "dev.bonzer.weeka.app" : bundle;
        int plain = code_of(d, len, b, 0, 0, NULL, 0);
        int anchored = code_of(d, len, b, 0, 0, root, root_len);
        if (plain != cases[i].plain || anchored != cases[i].anchored)
            fprintf(stderr, "forged %s: plain %d anchored %d (%s)\n", cases[i].name, plain, anchored, gatekit_last_error());
        CHECK_RC(plain, cases[i].plain);
        CHECK_RC(anchored, cases[i].anchored);
        free(d);
    }
    /* The look-alike root passed as the test anchor still cannot make an App Store receipt. */
    unsigned char *d = forged(dir, "fake_apple", &len);
    if (d) {
        CHECK_RC(code_of(d, len, "dev.bonzer.weeka.app", 0, 0, fake_root, fake_root_len), GATEKIT_ERECEIPT_UNTRUSTED);
        free(d);
    }
    long long now = (long long)time(NULL);
    d = forged(dir, "valid_now_only", &len);
    if (d) { CHECK_RC(code_of(d, len, bundle, now, 0, root, root_len), 0); free(d); }
    d = forged(dir, "valid_then_only", &len);
    if (d) { CHECK_RC(code_of(d, len, bundle, now, 0, root, root_len), GATEKIT_ERECEIPT_CERT_TIME); free(d); }
    d = forged(dir, "good_sha1", &len);
    if (d) { CHECK_RC(code_of(d, len, bundle, 0, GATEKIT_RECEIPT_REQUIRE_SHA256, root, root_len), GATEKIT_ERECEIPT_WEAK_DIGEST); free(d); }

    /* The right leaf over a modified payload: one letter of the bundle id changed after signing. */
    d = forged(dir, "good", &len);
    if (d) {
        unsigned char *hit = memmem(d, len, "naturelab", 9);
        CHECK(hit != NULL);
        if (hit) {
            hit[0] = 'N';
            int rc = code_of(d, len, "com.example.Naturelab.backyardbirds.example", 0, 0, root, root_len);
            CHECK_RC(rc, GATEKIT_ERECEIPT_SIGNATURE);
            CHECK(receipt_apple_status(rc) == 21003);
        }
        /* A test anchor that is not a certificate. */
        CHECK_RC(code_of(d, len, bundle, 0, 0, (const unsigned char *)"nope", 4), GATEKIT_ERECEIPT_TEST_ANCHOR);
        free(d);
    }
    hardening(dir, bundle, root, root_len);
    free(root);
    free(fake_root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* ---- random mutations (fixed seed): an error, or exactly the original facts ---- */

static void mutations(void) {
    const char *files[3] = {"receipts/apple/tp__receipt-sandbox-g5.der", "receipts/xcode/tp__receipt-xcode.der",
                            "receipts/apple/tp__receipt-sandbox-legacy.der"};
    const char *bundles[3] = {"dev.bonzer.weeka.app", "net.zachariadis.cyclemaps", "com.nutcall.alert"};
    const long long created[3] = {1766774387000LL, 1595439195000LL, 1588789729000LL};
    const int counts[3] = {2, 1, 187};
    unsigned char *src[3];
    size_t n[3];
    for (int i = 0; i < 3; i++) {
        src[i] = fixture(files[i], &n[i]);
        if (!src[i]) { check_failed++; return; }
    }
    unsigned char *buf = malloc(n[2] + 64);
    unsigned state = 20261122;
    int wrong = 0, accepted = 0;
    for (int it = 0; it < 3000; it++) {
        state = state * 1103515245u + 12345u;
        int s = (int)(state >> 16) % 3;
        size_t len = n[s];
        memcpy(buf, src[s], len);
        int edits = 1 + (int)(state >> 8) % 6;
        for (int e = 0; e < edits; e++) {
            state = state * 1103515245u + 12345u;
            size_t at = (size_t)(state >> 8) % len;
            switch ((state >> 4) % 4) {
            case 0: buf[at] ^= (unsigned char)(1u << (state % 8)); break;
            case 1: buf[at] = (unsigned char)(state >> 20); break;
            case 2: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;
            default: memmove(buf + at + 1, buf + at, len - at); buf[at] = (unsigned char)state; len++; break;
            }
        }
        gatekit_receipt *r = NULL;
        if (validate(&r, buf, len, bundles[s], 0, 0, storekit_cert, storekit_len) == 0) {
            accepted++;
            long long c = 0;
            const char *b = receipt_string(r, GATEKIT_RECEIPT_BUNDLE_ID);
            if (receipt_date_ms(&c, r, GATEKIT_RECEIPT_CREATION_DATE) != 1 || c != created[s] ||
                receipt_purchase_count(r) != counts[s] || !b || strcmp(b, bundles[s]) != 0)
                wrong++;
        }
        receipt_free(r);
        char *json = NULL;
        if (receipt_inspect(&json, buf, len) == 0) gatekit_free(json);
    }
    CHECK(wrong == 0);
    CHECK(accepted < 300);  /* only edits outside the signed payload can pass */
    free(buf);
    for (int i = 0; i < 3; i++) free(src[i]);
}

/* ---- threads: the shared chain cache under contention ---- */

typedef struct { unsigned char *data; size_t len; int failures; } thread_job;

static void *hammer(void *p) {
    thread_job *job = p;
    for (int i = 0; i < 200; i++) {
        if (i % 50 == 0) gatekit_clear_caches();
        gatekit_receipt *r = NULL;
        if (validate(&r, job->data, job->len, "dev.bonzer.weeka.app", 0, 0, NULL, 0) != 0 || receipt_purchase_count(r) != 2)
            job->failures++;
        receipt_free(r);
    }
    return NULL;
}

static void threads(void) {
    size_t len = 0;
    unsigned char *data = fixture("receipts/apple/tp__receipt-sandbox-g5.der", &len);
    if (!data) return;
    pthread_t t[8];
    thread_job jobs[8];
    for (int i = 0; i < 8; i++) {
        jobs[i] = (thread_job){data, len, 0};
        pthread_create(&t[i], NULL, hammer, &jobs[i]);
    }
    int failures = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        failures += jobs[i].failures;
    }
    CHECK(failures == 0);
    free(data);
}

/* ---- the gatekit tool: exit code per failure class ---- */

static int tool_exit(const char *args) {
    const char *tool = getenv("GATEKIT_TOOL");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' receipt %s >/dev/null 2>&1", tool, args);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void tool(void) {
    if (!getenv("GATEKIT_TOOL")) { printf("SKIP tool checks: GATEKIT_TOOL is not set (make test-c sets it)\n"); return; }
    char args[1500];
    const char *g5 = "receipts/apple/tp__receipt-sandbox-g5.der";
    snprintf(args, sizeof args, "verify --bundle-id dev.bonzer.weeka.app '%s/%s'", fixtures, g5);
    CHECK(tool_exit(args) == 0);
    snprintf(args, sizeof args, "verify --bundle-id dev.bonzer.weeka.app --device-id 956328d9cc6a47f4be406953fb0ab6c7 '%s/%s'", fixtures, g5);
    CHECK(tool_exit(args) == 0);
    snprintf(args, sizeof args, "verify --bundle-id dev.bonzer.weeka.app --device-id 00000000-0000-0000-0000-000000000000 '%s/%s'", fixtures, g5);
    CHECK(tool_exit(args) == 11);
    snprintf(args, sizeof args, "verify --bundle-id dev.bonzer.weeka.app --at now '%s/%s'", fixtures, g5);
    CHECK(tool_exit(args) == 11);
    snprintf(args, sizeof args, "verify --bundle-id dev.bonzer.weeka.app --at 2025-12-26T18:39:47Z '%s/%s'", fixtures, g5);
    CHECK(tool_exit(args) == 0);
    snprintf(args, sizeof args, "verify --bundle-id dev.bonzer.weeka.app --production-only '%s/%s'", fixtures, g5);
    CHECK(tool_exit(args) == 12);
    snprintf(args, sizeof args, "verify --bundle-id net.zachariadis.cyclemaps '%s/receipts/xcode/tp__receipt-xcode.der'", fixtures);
    CHECK(tool_exit(args) == 11);
    snprintf(args, sizeof args, "verify --bundle-id net.zachariadis.cyclemaps --allow-xcode '%s/certs/StoreKitTestCertificate.cer' '%s/receipts/xcode/tp__receipt-xcode.der'", fixtures, fixtures);
    CHECK(tool_exit(args) == 0);
    /* The same certificate as PEM (made here with the openssl CLI): PEM and DER alike. */
    char pem[] = "/tmp/gatekit-xcode-pem-XXXXXX";
    int fd = mkstemp(pem);
    if (fd >= 0) {
        close(fd);
        char convert[1200];
        snprintf(convert, sizeof convert, "openssl x509 -inform DER -in '%s/certs/StoreKitTestCertificate.cer' -out '%s' 2>/dev/null", fixtures, pem);
        CHECK(system(convert) == 0);
        snprintf(args, sizeof args, "verify --bundle-id net.zachariadis.cyclemaps --allow-xcode '%s' '%s/receipts/xcode/tp__receipt-xcode.der'", pem, fixtures);
        CHECK(tool_exit(args) == 0);
        unlink(pem);
    }
    snprintf(args, sizeof args, "verify --bundle-id x '%s/receipts/negative/neg__arv__not_a_receipt.orig'", fixtures);
    CHECK(tool_exit(args) == 10);
    snprintf(args, sizeof args, "inspect '%s/%s'", fixtures, g5);
    CHECK(tool_exit(args) == 0);
    CHECK(tool_exit("verify") == 2);
}

int main(void) {
    fixtures = getenv("GATEKIT_FIXTURES");
    if (!fixtures) fixtures = "../shared/fixtures";
    arguments();
    storekit_cert = fixture("certs/StoreKitTestCertificate.cer", &storekit_len);
    if (!storekit_cert) {
        printf("SKIP fixture tests: no fixtures at %s (set GATEKIT_FIXTURES)\n", fixtures);
        return check_report("test_receipt");
    }
    int n = all_fixtures();
    if (n != 21) { fprintf(stderr, "expected 21 fixtures, checked %d\n", n); check_failed++; }
    negatives();
    robustness();
    forgeries();
    mutations();
    threads();
    tool();
    free(storekit_cert);
    return check_report("test_receipt");
}

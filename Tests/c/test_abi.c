/* Old hosts survive a newer library: a host compiled when gatekit_jws_options was version 1
 * (no `flags`) passes that smaller struct to this library. Each struct is placed at the very
 * end of a page followed by an inaccessible page, so a single byte read or written past it by
 * *_options_init, jws_verify_* or receipt_validate kills the test with SIGSEGV. */
#include "check.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* The structs exactly as version 1 of include/gatekit.h declared them. */
typedef struct {
    unsigned int version;
    const char *bundle_id;
    long long app_apple_id;
    const char *environment;
    long long verify_time;
    const unsigned char *test_anchor_der;
    size_t test_anchor_len;
} jws_options_v1;

typedef struct {
    unsigned int version;
    const char *bundle_id;
    const char *app_version;
    const unsigned char *device_id;
    size_t device_id_len;
    long long verify_time;
    unsigned int flags;
    const unsigned char *test_anchor_der;
    size_t test_anchor_len;
} receipt_options_v1;

/* Memory for `size` bytes that ends exactly where an inaccessible page begins. */
static void *against_guard_page(size_t size) {
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *region = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED || mprotect(region + page, (size_t)page, PROT_NONE) != 0) { perror("mmap"); exit(2); }
    return region + page - size;
}

static unsigned char *read_fixture(const char *relative, size_t *len) {
    const char *root = getenv("GATEKIT_FIXTURES") ? getenv("GATEKIT_FIXTURES") : "../shared/fixtures";
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, relative);
    return check_read_file(path, len);
}

int main(void) {
    /* Version 1 ends where version 2 added `flags`: the layouts agree on everything before it. */
    CHECK(sizeof(jws_options_v1) == offsetof(gatekit_jws_options, flags));
    CHECK(sizeof(jws_options_v1) < sizeof(gatekit_jws_options));
    CHECK(sizeof(receipt_options_v1) == sizeof(gatekit_receipt_options));

    jws_options_v1 *jo = against_guard_page(sizeof *jo);
    memset(jo, 0x5a, sizeof *jo);
    CHECK_RC(jws_options_init((gatekit_jws_options *)jo, 1), GATEKIT_OK);   /* writes 56 bytes, not 64 */
    CHECK(jo->version == 1 && jo->bundle_id == NULL && jo->test_anchor_len == 0);

    receipt_options_v1 *ro = against_guard_page(sizeof *ro);
    CHECK_RC(receipt_options_init((gatekit_receipt_options *)ro, 1), GATEKIT_OK);
    CHECK(ro->version == 1);

    size_t anchor_len = 0, jws_len = 0, receipt_len = 0;
    unsigned char *anchor = read_fixture("jws/apple-test/certs/testCA.der", &anchor_len);
    unsigned char *jws = read_fixture("jws/apple-test/mock_signed_data/transactionInfo", &jws_len);
    unsigned char *receipt = read_fixture("receipts/apple/tp__receipt-sandbox-g5.der", &receipt_len);
    if (!anchor || !jws || !receipt) {
        printf("SKIP: verification with version-1 options (no fixtures; set GATEKIT_FIXTURES)\n");
    } else {
        while (jws_len > 0 && (jws[jws_len - 1] == '\n' || jws[jws_len - 1] == '\r')) jws[--jws_len] = 0;
        /* The library reads a version-1 struct without touching the bytes a version-2 one has. */
        jo->bundle_id = "com.example";
        jo->environment = "Sandbox";
        jo->test_anchor_der = anchor;
        jo->test_anchor_len = anchor_len;
        char *json = NULL;
        CHECK_RC(jws_verify_transaction(&json, (const char *)jws, (const gatekit_jws_options *)jo), GATEKIT_OK);
        CHECK(json && strstr(json, "\"testSigned\":true") != NULL);
        gatekit_free(json);
        gatekit_jws *v = NULL;
        CHECK_RC(jws_verify(&v, GATEKIT_JWS_TRANSACTION, (const char *)jws, (const gatekit_jws_options *)jo), GATEKIT_OK);
        jws_free(v);
        jo->environment = "Production";
        jo->app_apple_id = 1234;   /* version 1 has no flags (nothing past it is read): Sandbox data is refused as Apple refuses it */
        CHECK_RC(jws_verify_transaction(&json, (const char *)jws, (const gatekit_jws_options *)jo), GATEKIT_EJWS_ENVIRONMENT);

        ro->bundle_id = "dev.bonzer.weeka.app";
        gatekit_receipt *r = NULL;
        CHECK_RC(receipt_validate(&r, receipt, receipt_len, (const gatekit_receipt_options *)ro), GATEKIT_OK);
        receipt_free(r);
    }

    /* A current host: the static initialiser and init agree. */
    gatekit_jws_options current = GATEKIT_JWS_OPTIONS_INIT, initialised;
    memset(&initialised, 0x77, sizeof initialised);
    CHECK_RC(jws_options_init(&initialised, GATEKIT_JWS_OPTIONS_VERSION), GATEKIT_OK);
    CHECK(current.version == initialised.version && current.bundle_id == initialised.bundle_id &&
          current.app_apple_id == initialised.app_apple_id && current.environment == initialised.environment &&
          current.verify_time == initialised.verify_time && current.test_anchor_der == initialised.test_anchor_der &&
          current.test_anchor_len == initialised.test_anchor_len && current.flags == initialised.flags);
    /* Every options struct's static initialiser carries init's defaults. */
    gatekit_appstore_client_options client_current = GATEKIT_APPSTORE_CLIENT_OPTIONS_INIT, client_initialised;
    memset(&client_initialised, 0x77, sizeof client_initialised);
    CHECK_RC(appstore_client_options_init(&client_initialised, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION), GATEKIT_OK);
    CHECK(client_current.version == client_initialised.version && client_current.environment == client_initialised.environment &&
          client_current.base_url == client_initialised.base_url && client_current.ca_file == client_initialised.ca_file &&
          client_current.timeout_ms == client_initialised.timeout_ms &&
          client_current.connect_timeout_ms == client_initialised.connect_timeout_ms &&
          client_current.max_retries == client_initialised.max_retries &&
          client_current.max_retry_wait_ms == client_initialised.max_retry_wait_ms && client_current.verify == client_initialised.verify &&
          client_current.user_agent == client_initialised.user_agent);
    gatekit_ledger_query query_current = GATEKIT_LEDGER_QUERY_INIT, query_initialised;
    memset(&query_initialised, 0x77, sizeof query_initialised);
    CHECK_RC(ledger_query_init(&query_initialised, GATEKIT_LEDGER_QUERY_VERSION), GATEKIT_OK);
    CHECK(query_current.version == query_initialised.version && query_current.environment == query_initialised.environment &&
          query_current.at_ms == query_initialised.at_ms && query_current.flags == query_initialised.flags);
    gatekit_receipt_options receipt_current = GATEKIT_RECEIPT_OPTIONS_INIT;
    CHECK(receipt_current.version == GATEKIT_RECEIPT_OPTIONS_VERSION && receipt_current.bundle_id == NULL);
    free(anchor);
    free(jws);
    free(receipt);
    return check_report("test_abi");
}

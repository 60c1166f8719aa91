/* Test data for hosts' own tests (jws_test_pki_create, jws_test_sign): the PKI's files and
 * their modes, signing each kind, what is refused at signing time, and that what it signs is
 * test-signed everywhere: refused without the anchor, marked, kept apart by the ledger. */
#include "check.h"

#include <fcntl.h>
#include <sys/stat.h>

static char folder[] = "/tmp/gatekit-testdata-XXXXXX";
static char pki[64];

static const char transaction[] =
    "{\"transactionId\":\"7001\",\"originalTransactionId\":\"7000\",\"bundleId\":\"com.example.app\","
    "\"productId\":\"pro.lifetime\",\"purchaseDate\":1767225600000,\"quantity\":1,\"type\":\"Non-Consumable\","
    "\"inAppOwnershipType\":\"PURCHASED\",\"signedDate\":1767225600000,\"environment\":\"Sandbox\"}";

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static unsigned char buf[8192];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static mode_t mode_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (st.st_mode & 07777) : 0;
}

static void options_for(gatekit_jws_options *o, const unsigned char *anchor, size_t anchor_len) {
    CHECK_RC(jws_options_init(o, GATEKIT_JWS_OPTIONS_VERSION), GATEKIT_OK);
    o->bundle_id = "com.example.app";
    o->environment = "Sandbox";
    o->test_anchor_der = anchor;
    o->test_anchor_len = anchor_len;
}

static void test_pki(void) {
    CHECK_RC(jws_test_pki_create(pki), GATEKIT_OK);
    char path[512];
    static const char *const files[] = {"root.der", "intermediate.der", "leaf.der", "leaf.key"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", pki, files[i]);
        CHECK(mode_of(path) == 0600);
    }
    CHECK(mode_of(pki) == 0700);
    /* Made once: never over an existing PKI (its key stays the one tests were signed with). */
    snprintf(path, sizeof path, "%s/leaf.key", pki);
    struct stat before, after;
    CHECK(stat(path, &before) == 0);
    CHECK_RC(jws_test_pki_create(pki), GATEKIT_EIO);
    CHECK(strstr(gatekit_last_error(), "already exists") != NULL);
    CHECK(stat(path, &after) == 0 && after.st_ino == before.st_ino && after.st_size == before.st_size);
    /* A planted symbolic link is not followed; a folder others can write is refused. */
    char link[512], open_folder[512];
    snprintf(link, sizeof link, "%s/link", folder);
    CHECK(symlink(pki, link) == 0);
    CHECK_RC(jws_test_pki_create(link), GATEKIT_EUNSAFE);
    snprintf(open_folder, sizeof open_folder, "%s/open", folder);
    CHECK(mkdir(open_folder, 0700) == 0 && chmod(open_folder, 0777) == 0);
    CHECK_RC(jws_test_pki_create(open_folder), GATEKIT_EUNSAFE);
    CHECK_RC(jws_test_pki_create(NULL), GATEKIT_EINVAL);
    CHECK_RC(jws_test_pki_create(""), GATEKIT_EINVAL);
}

static void test_signing(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/root.der", pki);
    size_t anchor_len = 0;
    unsigned char *read = read_file(path, &anchor_len);
    CHECK(read != NULL && anchor_len > 100);
    unsigned char anchor[8192];
    memcpy(anchor, read, anchor_len);

    char *jws = NULL;
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_OK);
    gatekit_jws_options o;
    options_for(&o, anchor, anchor_len);
    gatekit_jws *verified = NULL;
    CHECK_RC(jws_verify(&verified, GATEKIT_JWS_TRANSACTION, jws, &o), GATEKIT_OK);
    CHECK(jws_is_test_signed(verified) == 1);
    CHECK(strstr(jws_json(verified), "\"productId\":\"pro.lifetime\"") != NULL);
    jws_free(verified);
    /* Without the anchor it is a forgery like any other; as Production it is refused. */
    options_for(&o, NULL, 0);
    CHECK_RC(jws_verify(&verified, GATEKIT_JWS_TRANSACTION, jws, &o), GATEKIT_EJWS_UNTRUSTED);
    CHECK(verified == NULL);

    /* The ledger keeps it apart, and a question without the test flag says why it is empty. */
    char store_path[512];
    snprintf(store_path, sizeof store_path, "%s/ledger.sqlite", folder);
    gatekit_store *store = NULL;
    CHECK_RC(check_store_open(&store, store_path), GATEKIT_OK);
    options_for(&o, anchor, anchor_len);
    CHECK_RC(ledger_ingest_transaction(NULL, store, jws, &o), GATEKIT_LEDGER_NEW);
    gatekit_ledger_query q;
    CHECK_RC(ledger_query_init(&q, GATEKIT_LEDGER_QUERY_VERSION), GATEKIT_OK);
    q.environment = "Sandbox";
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    CHECK_RC(ledger_is_entitled(&e, store, &q, "7000", "pro.lifetime"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_ONLY_TEST_SIGNED);
    CHECK_RC(ledger_is_entitled(&e, store, &q, "7000", "another.product"), 0);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NO_PURCHASE);
    q.flags = GATEKIT_LEDGER_TEST_SIGNED;
    CHECK_RC(ledger_is_entitled(&e, store, &q, "7000", "pro.lifetime"), 1);
    CHECK(e.reason == GATEKIT_LEDGER_REASON_NON_CONSUMABLE);
    gatekit_store_close(store);
    gatekit_free(jws);
}

static void test_refusals(void) {
    char *jws = (char *)1;
    /* What GateKit would refuse as the kind is refused at signing, naming the member. */
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_RENEWAL_INFO, transaction), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK(jws == NULL);
    CHECK(strstr(gatekit_last_error(), "transactionId") != NULL);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, "{\"transactionId\":\"1\"}"), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK(strstr(gatekit_last_error(), "originalTransactionId") != NULL);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, "[1,2]"), GATEKIT_EJWS_PAYLOAD_FIELD);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, "{\"a\":"), GATEKIT_EJWS_MALFORMED);
    CHECK_RC(jws_test_sign(&jws, pki, 99, transaction), GATEKIT_EINVAL);
    CHECK_RC(jws_test_sign(NULL, pki, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_EINVAL);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, NULL), GATEKIT_EINVAL);
    CHECK_RC(jws_test_sign(&jws, NULL, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_EINVAL);
    /* Over 1 MiB of payload: too large, named as such. */
    size_t huge_len = ((size_t)1 << 20) + 2;
    char *huge = malloc(huge_len + 1);
    CHECK(huge != NULL);
    if (huge) {
        memset(huge, ' ', huge_len);
        huge[0] = '{';
        huge[huge_len - 1] = '}';
        huge[huge_len] = 0;
        CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, huge), GATEKIT_ETOOLARGE);
        free(huge);
    }
    char missing[512];
    snprintf(missing, sizeof missing, "%s/no-such-pki", folder);
    CHECK_RC(jws_test_sign(&jws, missing, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_ENOTFOUND);
    /* A key file another user could have replaced is not used. */
    char key[512];
    snprintf(key, sizeof key, "%s/leaf.key", pki);
    CHECK(chmod(key, 0666) == 0);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_EUNSAFE);
    /* Each error says what is wrong with which file (Hardening IV, 21): the summary names a
     * file GateKit relies on, not "the store", and the message the key and its mode. */
    CHECK(strstr(gatekit_strerror(GATEKIT_EUNSAFE), "key") != NULL);
    CHECK(strstr(gatekit_last_error(), "leaf.key") && strstr(gatekit_last_error(), "0666") && !strstr(gatekit_last_error(), "symbolic"));
    CHECK(chmod(key, 0600) == 0);
    /* A key that is a symbolic link: refused as unsafe (it was "I/O error"), naming the link. */
    char real_key[512];
    snprintf(real_key, sizeof real_key, "%s/real.key", pki);
    CHECK(rename(key, real_key) == 0 && symlink("real.key", key) == 0);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_EUNSAFE);
    CHECK(strstr(gatekit_last_error(), "leaf.key") && strstr(gatekit_last_error(), "symbolic link"));
    CHECK(unlink(key) == 0 && rename(real_key, key) == 0);
    /* A certificate that is not the key's: the signature would not verify, so nothing is returned. */
    char other[128], cmd[1024];
    snprintf(other, sizeof other, "%s/other", folder);
    CHECK_RC(jws_test_pki_create(other), GATEKIT_OK);
    snprintf(cmd, sizeof cmd, "cp %s/leaf.key %s/leaf.key.mine && cp %s/leaf.key %s/leaf.key.tmp && mv %s/leaf.key.tmp %s/leaf.key",
             pki, pki, other, pki, pki, pki);
    CHECK(system(cmd) == 0);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_EJWS_SIGNATURE);
    snprintf(cmd, sizeof cmd, "mv %s/leaf.key.mine %s/leaf.key", pki, pki);
    CHECK(system(cmd) == 0);
    CHECK_RC(jws_test_sign(&jws, pki, GATEKIT_JWS_TRANSACTION, transaction), GATEKIT_OK);
    gatekit_free(jws);
}

int main(int argc, char **argv) {
    (void)argc;
    check_disable_swift_backtracer(argv);
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    snprintf(pki, sizeof pki, "%s/pki", folder);
    test_pki();
    test_signing();
    test_refusals();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_test_data");
}

/* Standard Webhooks from C: a delivery signed by webhook_sign verifies with an HMAC the openssl
 * CLI computes over id.timestamp.body with the secret's base64-decoded key (not GateKit's
 * HMAC), the spec's reference vector, a secret rolled, and each refusal's code. */
#include "check.h"

#include <time.h>

static char folder[] = "/tmp/gatekit-c-webhooks-XXXXXX";
static const char *vector_secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
static const char *vector_body = "{\"test\": 2432232314}";

/* base64 of HMAC-SHA256 under the key "MfKQ…" decodes to, by `openssl` (hex key, then base64). */
static void openssl_signature(char *out, size_t size, const char *id, long long t, const char *body) {
    char path[600], cmd[1400];
    snprintf(path, sizeof path, "%s/message", folder);
    FILE *f = fopen(path, "w");
    fprintf(f, "%s.%lld.%s", id, t, body);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "key=$(printf %%s MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw | openssl base64 -d -A | od -An -tx1 | tr -d ' \\n'); "
             "openssl dgst -sha256 -mac HMAC -macopt hexkey:$key -binary '%s' | openssl base64 -A", path);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(out, (int)size, p)) { fprintf(stderr, "openssl failed\n"); exit(2); }
    pclose(p);
    out[strcspn(out, "\n")] = 0;
}

int main(int argc, char **argv) {
    (void)argc;
    check_disable_swift_backtracer(argv);
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    const char *one[1] = {vector_secret};
    char *signature = NULL;
    CHECK_RC(webhook_sign(&signature, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, vector_body, strlen(vector_body), one, 1), GATEKIT_OK);
    CHECK(signature && strcmp(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=") == 0);
    gatekit_free(signature);

    /* Now, an id of our own, checked against openssl's HMAC. */
    long long now = (long long)time(NULL);
    const char *body = "{\"type\":\"entitlement.renewed\",\"data\":{\"appUserId\":\"alice\"}}";
    char expected[128] = "v1,", stamp[32];
    openssl_signature(expected + 3, sizeof expected - 3, "msg_c1", now, body);
    CHECK_RC(webhook_sign(&signature, "msg_c1", now, body, strlen(body), one, 1), GATEKIT_OK);
    CHECK(signature && strcmp(signature, expected) == 0);
    snprintf(stamp, sizeof stamp, "%lld", now);
    size_t index = 99;
    CHECK_RC(webhook_verify(&index, "msg_c1", stamp, signature, body, strlen(body), one, 1, 0, 0), GATEKIT_OK);
    CHECK(index == 0);
    gatekit_free(signature);

    /* A secret rolled: the delivery carries both signatures; either secret verifies it. */
    char *fresh = NULL;
    CHECK_RC(webhook_secret_generate(&fresh), GATEKIT_OK);
    CHECK(fresh && strncmp(fresh, "whsec_", 6) == 0 && strlen(fresh) == 6 + 44);
    const char *both[2] = {fresh, vector_secret};
    CHECK_RC(webhook_sign(&signature, "msg_c2", now, body, strlen(body), both, 2), GATEKIT_OK);
    CHECK(signature && strchr(signature, ' ') != NULL);
    const char *old_only[1] = {vector_secret}, *new_only[1] = {fresh};
    CHECK_RC(webhook_verify(&index, "msg_c2", stamp, signature, body, strlen(body), old_only, 1, 0, 0), GATEKIT_OK);
    CHECK_RC(webhook_verify(NULL, "msg_c2", stamp, signature, body, strlen(body), new_only, 1, 0, 0), GATEKIT_OK);

    /* Refusals, each with its code and a reason. */
    CHECK_RC(webhook_verify(NULL, "msg_c2", stamp, signature, body, strlen(body) - 1, old_only, 1, 0, 0), GATEKIT_EWEBHOOK_SIGNATURE);
    CHECK(strstr(gatekit_last_error(), "as received") != NULL);
    CHECK_RC(webhook_verify(NULL, "msg_c2", stamp, signature, body, strlen(body), old_only, 1, 0, now + 301), GATEKIT_EWEBHOOK_TIMESTAMP);
    CHECK_RC(webhook_verify(NULL, "msg_c2", stamp, signature, body, strlen(body), old_only, 1, 0, now - 301), GATEKIT_EWEBHOOK_TIMESTAMP);
    CHECK_RC(webhook_verify(NULL, "msg_c2", stamp, signature, body, strlen(body), old_only, 1, 600, now + 301), GATEKIT_OK);
    CHECK_RC(webhook_verify(NULL, NULL, stamp, signature, body, strlen(body), old_only, 1, 0, 0), GATEKIT_EWEBHOOK_HEADER);
    CHECK(strstr(gatekit_last_error(), "webhook-id") != NULL);
    CHECK_RC(webhook_verify(NULL, "msg_c2", stamp, "v1a,AAAA", body, strlen(body), old_only, 1, 0, 0), GATEKIT_EWEBHOOK_HEADER);
    const char *not_a_secret[1] = {"sk_live_not_a_webhook_secret"};
    CHECK_RC(webhook_verify(NULL, "msg_c2", stamp, signature, body, strlen(body), not_a_secret, 1, 0, 0), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "sk_live") == NULL);
    gatekit_free(signature);
    gatekit_free(fresh);

    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_webhooks");
}

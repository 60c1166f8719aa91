/* Stripe's webhooks from C: deliveries signed here with the openssl CLI's HMAC as Stripe signs
 * them (t, ".", the body's bytes, the whole whsec_ secret as the key), docs/stripe.md's vector,
 * a secret rolled, and each forgery's code and reason; the tool's verify-webhook and its exits. */
#include "check.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

static const char *secret = "whsec_c_test_secret";
static const char *event = "{\"id\":\"evt_c1\",\"object\":\"event\",\"api_version\":\"2026-06-24.dahlia\",\"created\":1700000000,"
                           "\"livemode\":true,\"type\":\"invoice.paid\",\"data\":{\"object\":{\"id\":\"in_1\",\"object\":\"invoice\"}}}";

static char folder[] = "/tmp/gatekit-c-stripe-XXXXXX";

/* "t=<t>,v1=<hex>" of body under key, by `openssl dgst -hmac` (not GateKit's HMAC). */
static void sign(char *header, size_t size, const char *key, long long t, const char *body, size_t len) {
    char path[600], cmd[1024], hex[128] = "";
    snprintf(path, sizeof path, "%s/message", folder);
    FILE *f = fopen(path, "w");
    fprintf(f, "%lld.", t);
    fwrite(body, 1, len, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "openssl dgst -sha256 -hmac '%s' -r '%s'", key, path);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(hex, sizeof hex, p)) { fprintf(stderr, "openssl dgst failed\n"); exit(2); }
    pclose(p);
    hex[64] = 0;
    snprintf(header, size, "t=%lld,v1=%s", t, hex);
}

static void test_verification(void) {
    long long now = (long long)time(NULL);
    char header[512];
    const char *secrets[] = {secret};
    sign(header, sizeof header, secret, now, event, strlen(event));
    char *json = NULL;
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), secrets, 1, 0, 0), GATEKIT_OK);
    CHECK(json && strstr(json, "\"id\":\"evt_c1\"") && strstr(json, "\"type\":\"invoice.paid\"") && strstr(json, "\"livemode\":true")
          && strstr(json, "\"object\":{\"id\":\"in_1\",\"object\":\"invoice\"}") && strstr(json, "\"secretIndex\":0"));
    gatekit_free(json);
    json = NULL;
    CHECK_RC(stripe_verify_webhook(NULL, header, event, strlen(event), secrets, 1, 0, 0), GATEKIT_OK);  /* out_json may be NULL */
    /* docs/stripe.md's vector (computed with Python's hmac): its body is then no event. */
    const char *vector_body = "{\"id\":\"evt_test\",\"object\":\"event\"}";
    const char *vector_secrets[] = {"whsec_test_secret"};
    CHECK_RC(stripe_verify_webhook(&json, "t=1700000000,v1=8042376f6ca064adbe037642a718227dfd59047137eb49497a54c49eb0cfb724", vector_body,
                                   strlen(vector_body), vector_secrets, 1, 0, 1700000000), GATEKIT_ESTRIPE_EVENT);
    CHECK(json == NULL && strstr(gatekit_last_error(), "no type"));
    /* A secret rolled: the new one's signature first, the old one's second. */
    const char *rolling[] = {"whsec_new", secret};
    char both[1024], old_only[512];
    sign(old_only, sizeof old_only, secret, now, event, strlen(event));
    sign(both, sizeof both, "whsec_new", now, event, strlen(event));
    strncat(both, strchr(old_only, ','), sizeof both - strlen(both) - 1);
    CHECK_RC(stripe_verify_webhook(&json, both, event, strlen(event), rolling, 2, 0, 0), GATEKIT_OK);
    CHECK(json && strstr(json, "\"secretIndex\":0"));
    gatekit_free(json);
    json = NULL;
    /* Forgeries, each with its code and reason. */
    const char *other[] = {"whsec_other"};
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), other, 1, 0, 0), GATEKIT_ESTRIPE_SIGNATURE);
    CHECK(strstr(gatekit_last_error(), "no v1 signature") && !strstr(gatekit_last_error(), "whsec_other"));
    char *changed = strdup(event);
    changed[strlen(changed) - 5] = 'X';
    CHECK_RC(stripe_verify_webhook(&json, header, changed, strlen(changed), secrets, 1, 0, 0), GATEKIT_ESTRIPE_SIGNATURE);
    free(changed);
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), secrets, 1, 0, now + 301), GATEKIT_ESTRIPE_TIMESTAMP);
    CHECK(strstr(gatekit_last_error(), "301 s ago"));
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), secrets, 1, 0, now - 301), GATEKIT_ESTRIPE_TIMESTAMP);
    CHECK(strstr(gatekit_last_error(), "ahead of this host's clock"));
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), secrets, 1, 600, now + 301), GATEKIT_OK);  /* a wider tolerance */
    char v0[512];
    snprintf(v0, sizeof v0, "t=%lld,v0=%s", now, strstr(header, "v1=") + 3);
    CHECK_RC(stripe_verify_webhook(&json, v0, event, strlen(event), secrets, 1, 0, 0), GATEKIT_ESTRIPE_SIGNATURE_HEADER);
    CHECK(strstr(gatekit_last_error(), "only v0"));
    /* Arguments. */
    const char *api_key[] = {"sk_test_51HabcdefSECRET"};
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), api_key, 1, 0, 0), GATEKIT_EINVAL);
    CHECK(!strstr(gatekit_last_error(), "SECRET"));
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), secrets, 0, 0, 0), GATEKIT_EINVAL);
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), NULL, 1, 0, 0), GATEKIT_EINVAL);
    CHECK_RC(stripe_verify_webhook(&json, header, event, strlen(event), secrets, 1, -1, 0), GATEKIT_EINVAL);
    CHECK_RC(stripe_verify_webhook(&json, NULL, event, strlen(event), secrets, 1, 0, 0), GATEKIT_EINVAL);
    CHECK_RC(stripe_verify_webhook(&json, header, NULL, 5, secrets, 1, 0, 0), GATEKIT_EINVAL);
    CHECK_RC(stripe_verify_webhook(&json, header, event, (size_t)5 << 20, secrets, 1, 0, 0), GATEKIT_ETOOLARGE);
}

static void test_tool(void) {
    if (!getenv("GATEKIT_TOOL")) { printf("SKIP: GATEKIT_TOOL not set: the tool's stripe command not tested\n"); return; }
    char path[600], secret_file[600], args[2048], header[512];
    static char out[65536];
    snprintf(path, sizeof path, "%s/event.json", folder);
    snprintf(secret_file, sizeof secret_file, "%s/whsec", folder);
    FILE *f = fopen(path, "w");
    fputs(event, f);
    fclose(f);
    f = fopen(secret_file, "w");
    fprintf(f, "%s\n", secret);
    fclose(f);
    chmod(secret_file, 0600);
    long long now = (long long)time(NULL);
    sign(header, sizeof header, secret, now, event, strlen(event));
    snprintf(args, sizeof args, "stripe verify-webhook --secret-file '%s' --signature '%s' '%s'", secret_file, header, path);
    CHECK_RC(check_tool(args, out, sizeof out), 0);
    CHECK(strstr(out, "\"id\":\"evt_c1\"") != NULL);
    snprintf(args, sizeof args, "stripe verify-webhook --secret-file '%s' --signature '%s' --at %lld '%s'", secret_file, header, now + 400, path);
    CHECK_RC(check_tool(args, out, sizeof out), 12);
    CHECK(strstr(out, "400 s ago") != NULL);
    snprintf(args, sizeof args, "stripe verify-webhook --secret-file '%s' --signature 't=%lld,v0=00' '%s'", secret_file, now, path);
    CHECK_RC(check_tool(args, out, sizeof out), 10);
    chmod(secret_file, 0666);  /* a secret others could rewrite is refused */
    snprintf(args, sizeof args, "stripe verify-webhook --secret-file '%s' --signature '%s' '%s'", secret_file, header, path);
    CHECK_RC(check_tool(args, out, sizeof out), 1);
    CHECK_RC(check_tool("stripe verify-webhook", out, sizeof out), 2);
}

int main(void) {
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    test_verification();
    test_tool();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_stripe");
}

/* gatekit stripe verify-webhook: a Stripe webhook delivery verified as Stripe signs it
 * (include/gatekit/stripe.h). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char *const gk_stripe_subcommands[] = {"verify-webhook", NULL};

const char gk_stripe_usage[] =
    "gatekit stripe verify-webhook --secret-file FILE [--secret-file FILE] --signature HEADER\n"
    "                              [--tolerance SECONDS] [--at TIME] BODY|-\n"
    "    verifies one delivery: BODY the request's bytes as received, HEADER its Stripe-Signature\n"
    "    value, FILE the endpoint's signing secret (whsec_…; owner-only; two while one is\n"
    "    rolled); prints the event it carries as JSON. --tolerance: how far from this host's\n"
    "    clock (or --at, Unix seconds or YYYY-MM-DDTHH:MM:SSZ) the signing may lie, default 300.\n"
    "exit status: 0 verified; 2 usage; 10 the header is malformed or the body is no event;\n"
    "11 no signature matches (another secret, a changed body); 12 signed outside the tolerance.";

/* A secret file's text without its trailing newline; NULL after saying why. */
static char *read_secret(const char *path) {
    size_t len = 0;
    unsigned char *raw = gk_read_secret(path, &len);
    if (!raw) return NULL;
    while (len > 0 && (raw[len - 1] == '\n' || raw[len - 1] == '\r')) len--;
    char *text = gk_text(raw, len);
    free(raw);
    return text;
}

int gk_cmd_stripe(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    const char *who = "gatekit stripe verify-webhook";
    if (argc < 2 || strcmp(argv[1], "verify-webhook") != 0) return gk_usage(gk_stripe_usage);
    const char *files[8], *signature = NULL, *tolerance = NULL, *at = NULL, *body_path = NULL;
    size_t count = 0;
    for (int i = 2; i < argc; i++) {
        int r = 0;
        const char *file = NULL;
        if ((r = gk_option(argc, argv, &i, "--secret-file", &file))) {
            if (r < 0) return gk_usage(gk_stripe_usage);
            if (count == sizeof files / sizeof files[0]) {
                fprintf(stderr, "%s: at most 8 --secret-file\n", who);
                return GK_EXIT_USAGE;
            }
            files[count++] = file;
            continue;
        }
        if ((r = gk_option(argc, argv, &i, "--signature", &signature)) || (r = gk_option(argc, argv, &i, "--tolerance", &tolerance)) ||
            (r = gk_option(argc, argv, &i, "--at", &at))) {
            if (r < 0) return gk_usage(gk_stripe_usage);
            continue;
        }
        if ((argv[i][0] == '-' && argv[i][1] != '\0') || body_path) {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_stripe_usage);
        }
        body_path = argv[i];
    }
    if (!count) { fprintf(stderr, "%s: missing --secret-file\n", who); return gk_usage(gk_stripe_usage); }
    if (gk_missing(who, "--signature", signature)) return gk_usage(gk_stripe_usage);
    if (!body_path) { fprintf(stderr, "%s: missing BODY\n", who); return gk_usage(gk_stripe_usage); }
    long long tolerance_s = tolerance ? gk_number(tolerance) : 0;
    if (tolerance && (tolerance_s <= 0 || tolerance_s > 86400)) {
        fprintf(stderr, "%s: --tolerance must be 1 to 86400 seconds\n", who);
        return GK_EXIT_USAGE;
    }
    long long now_s = 0;
    if (at && (now_s = gk_parse_time(at)) <= 0) {
        fprintf(stderr, "%s: --at must be Unix seconds or YYYY-MM-DDTHH:MM:SSZ\n", who);
        return GK_EXIT_USAGE;
    }
    char *secrets[8] = {0};
    int status = GK_EXIT_ERROR;
    size_t body_len = 0;
    unsigned char *body = NULL;
    for (size_t i = 0; i < count; i++)
        if (!(secrets[i] = read_secret(files[i]))) goto done;
    if (!(body = gk_read_all(body_path, &body_len))) goto done;
    char *json = NULL;
    int rc = stripe_verify_webhook(&json, signature, body, body_len, (const char *const *)secrets, count, (int)tolerance_s, now_s);
    if (rc == GATEKIT_OK) {
        puts(json);
        gatekit_free(json);
        status = GK_EXIT_OK;
    } else {
        gk_fail(who, rc);
        status = rc == GATEKIT_ESTRIPE_SIGNATURE ? GK_EXIT_NOT_AUTHENTIC
               : rc == GATEKIT_ESTRIPE_TIMESTAMP ? GK_EXIT_OTHER_ENVIRONMENT
               : rc == GATEKIT_ESTRIPE_SIGNATURE_HEADER || rc == GATEKIT_ESTRIPE_EVENT ? GK_EXIT_MALFORMED
               : rc == GATEKIT_EINVAL ? GK_EXIT_USAGE : GK_EXIT_ERROR;
    }
done:
    for (size_t i = 0; i < count; i++) free(secrets[i]);
    free(body);
    return status;
}

/* gatekit jws: verify and decode StoreKit 2 / App Store Server signed data (JWS). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_jws_subcommands[] = {"verify", "entitled", NULL};

const char gk_jws_usage[] =
    "gatekit jws verify --type transaction|renewal-info|notification|app-transaction|realtime-request\n"
    "                   --bundle-id ID --environment Production|Sandbox|Xcode|LocalTesting\n"
    "                   [--app-apple-id N] [--at TIME] [--test-anchor CERT [--test-production]] FILE|-\n"
    "    prints the verified payload as JSON (nested signed data decoded too); exit 0 when\n"
    "    verified; when refused {\"status\":null,\"code\":C,\"error\":…,\"detail\":…} and exit 10\n"
    "    malformed, 11 not authentic or for another app, 12 other environment (1: other errors).\n"
    "    --app-apple-id is required for\n"
    "    Production. --at: Unix seconds or YYYY-MM-DDTHH:MM:SSZ (default: the payload's\n"
    "    signedDate). --test-anchor: test mode, a DER or PEM certificate trusted instead of\n"
    "    Apple Root CA - G3 (Apple's test root, or the StoreKit Testing in Xcode certificate);\n"
    "    such data is marked \"testSigned\":true in the JSON's \"gatekit\" member (with the\n"
    "    replay \"identity\" to dedupe on) and refused as Production data unless the test-only\n"
    "    --test-production is given.\n"
    "gatekit jws entitled --bundle-id ID --environment ENV [--app-apple-id N] [--product P]\n"
    "                   [--at-ms MS] [--at TIME] [--test-anchor CERT] [--json] FILE|-\n"
    "    verifies a signed transaction; exit 0 when it entitles the user (at MS, default now),\n"
    "    3 when it does not (revoked, upgraded, not yet purchased, expired, other product, a\n"
    "    consumable, or a transaction naming no product or purchase date);\n"
    "    refused data as jws verify (10, 11, 12)";

typedef struct {
    gk_signed_options s;
    const char *type, *at_ms, *product, *file;
    int json;
} jws_args;

static int parse(int argc, char **argv, jws_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--type", &a->type)) || (r = gk_option(argc, argv, &i, "--at-ms", &a->at_ms)) ||
            (r = gk_option(argc, argv, &i, "--product", &a->product)) || (r = gk_signed_option(argc, argv, &i, &a->s))) {
            if (r < 0) return -1;
            continue;
        }
        if (strcmp(argv[i], "--json") == 0) {
            a->json = 1;
            continue;
        }
        if (a->file || (argv[i][0] == '-' && argv[i][1] != '\0')) {
            fprintf(stderr, "gatekit jws: unexpected argument %s\n", argv[i]);
            return -1;
        }
        a->file = argv[i];
    }
    return 0;
}

int gk_cmd_jws(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    if (argc < 2) return gk_usage(gk_jws_usage);
    const char *command = argv[1];
    int entitled = strcmp(command, "entitled") == 0;
    if (!entitled && strcmp(command, "verify") != 0) {
        fprintf(stderr, "gatekit jws: unknown subcommand %s\n", command);
        return gk_usage(gk_jws_usage);
    }
    jws_args a = {0};
    const char *who = entitled ? "gatekit jws entitled" : "gatekit jws verify";
    if (parse(argc, argv, &a) < 0 || (!entitled && gk_missing(who, "--type", a.type)) || gk_missing(who, "--bundle-id", a.s.bundle_id) ||
        gk_missing(who, "--environment", a.s.environment) || gk_missing(who, "FILE (or - for standard input)", a.file))
        return gk_usage(gk_jws_usage);

    int kind = entitled ? GATEKIT_JWS_TRANSACTION : gk_jws_kind(who, "--type", a.type);
    if (kind < 0) return gk_usage(gk_jws_usage);

    long long at_ms = 0;
    if (a.at_ms && (at_ms = gk_number(a.at_ms)) < 0) {
        fprintf(stderr, "%s: --at-ms must be Unix milliseconds (at most 19 digits)\n", who);
        return GK_EXIT_USAGE;
    }
    gatekit_jws_options o;
    unsigned char *anchor = NULL;
    int bad = gk_jws_options(who, &a.s, 0, &o, &anchor);
    if (bad) return bad;
    char *text = gk_load_text(a.file);
    if (!text) { free(anchor); return GK_EXIT_ERROR; }

    int status;
    if (entitled) {
        int rc = jws_transaction_is_entitled(text, &o, a.product, at_ms);
        if (rc < 0) status = gk_refused("jws entitled", rc);
        else {
            if (a.json) printf("{\"entitled\":%s}\n", rc == 1 ? "true" : "false");
            else puts(rc == 1 ? "entitled" : "not entitled");
            status = rc == 1 ? GK_EXIT_OK : GK_EXIT_NO;
        }
    } else {
        /* The JSON carries the replay identity and the test-signed marking ("gatekit"). */
        gatekit_jws *verified = NULL;
        int rc = jws_verify(&verified, kind, text, &o);
        if (rc < 0) status = gk_refused("jws verify", rc);
        else {
            puts(jws_json(verified));
            if (jws_is_test_signed(verified) == 1)
                fprintf(stderr, "gatekit jws: note: accepted under the --test-anchor certificate, not App Store data\n");
            status = GK_EXIT_OK;
        }
        jws_free(verified);
    }
    free(text);
    free(anchor);
    return status;
}

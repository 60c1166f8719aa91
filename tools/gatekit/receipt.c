/* gatekit receipt: validate an App Store receipt as a server would, or inspect one. */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_receipt_subcommands[] = {"verify", "inspect", "entitled", NULL};

const char gk_receipt_usage[] =
    "gatekit receipt <subcommand> ...\n"
    "  verify --bundle-id ID [--version V] [--device-id HEX|UUID|MAC] [--at TIME]\n"
    "         [--allow-xcode CERT] [--production-only|--sandbox-only] [--require-sha256] FILE|-\n"
    "         prints verifyReceipt's JSON; on failure {\"status\":N,...}. FILE may be DER or base64.\n"
    "         --at: Unix seconds, YYYY-MM-DDTHH:MM:SSZ or 'now' (default: the receipt's creation date)\n"
    "         exit 0 valid, 10 malformed (21002), 11 not authentic/not yours (21003),\n"
    "         12 wrong environment (21007/21008), 1 other errors\n"
    "  entitled --bundle-id ID [verify's options] [--product P] [--at-ms MS] [--json] FILE|-\n"
    "         validates as verify does; exit 0 when a purchase in it entitles the user at MS\n"
    "         (default now) to P (default: to any product), 3 when none does; refused receipts\n"
    "         as verify (10, 11, 12)\n"
    "  inspect FILE|-    prints the parse without deciding anything";

/* Hex with optional ':' or '-' separators: 16 bytes (UUID) or 6 bytes (MAC). */
static int parse_device_id(const char *text, unsigned char *out) {
    int n = 0, half = -1;
    for (const char *p = text; *p; p++) {
        if (*p == ':' || *p == '-') continue;
        if (!isxdigit((unsigned char)*p) || n >= 16) return -1;
        int v = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
        if (half < 0) half = v;
        else { out[n++] = (unsigned char)(half << 4 | v); half = -1; }
    }
    return half < 0 && (n == 16 || n == 6) ? n : -1;
}

/* receipt verify and receipt entitled: the same validation, then the JSON or the answer. */
static int verify(int argc, char **argv, int entitled) {
    const char *who = entitled ? "gatekit receipt entitled" : "gatekit receipt verify";
    const char *bundle = NULL, *version = NULL, *device = NULL, *at = NULL, *xcode = NULL, *file = NULL;
    const char *product = NULL, *at_ms_text = NULL;
    int json_answer = 0;
    gatekit_receipt_options o;
    int init = receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION);
    if (init < 0) return gk_fail("receipt_options_init", init);
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--bundle-id", &bundle)) || (r = gk_option(argc, argv, &i, "--version", &version)) ||
            (r = gk_option(argc, argv, &i, "--device-id", &device)) || (r = gk_option(argc, argv, &i, "--at", &at)) ||
            (r = gk_option(argc, argv, &i, "--allow-xcode", &xcode)) ||
            (entitled && ((r = gk_option(argc, argv, &i, "--product", &product)) || (r = gk_option(argc, argv, &i, "--at-ms", &at_ms_text))))) {
            if (r < 0) return GK_EXIT_USAGE;
            continue;
        }
        if (strcmp(argv[i], "--production-only") == 0) o.flags |= GATEKIT_RECEIPT_PRODUCTION_ONLY;
        else if (strcmp(argv[i], "--sandbox-only") == 0) o.flags |= GATEKIT_RECEIPT_SANDBOX_ONLY;
        else if (strcmp(argv[i], "--require-sha256") == 0) o.flags |= GATEKIT_RECEIPT_REQUIRE_SHA256;
        else if (entitled && strcmp(argv[i], "--json") == 0) json_answer = 1;
        else if (!file && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) file = argv[i];
        else {
            fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
            return gk_usage(gk_receipt_usage);
        }
    }
    if (gk_missing(who, "--bundle-id", bundle) || gk_missing(who, "FILE (or - for standard input)", file)) return gk_usage(gk_receipt_usage);
    long long at_ms = 0;
    if (at_ms_text && (at_ms = gk_number(at_ms_text)) < 0) {
        fprintf(stderr, "%s: --at-ms must be Unix milliseconds (at most 19 digits)\n", who);
        return GK_EXIT_USAGE;
    }
    o.bundle_id = bundle;
    o.app_version = version;
    unsigned char device_bytes[16];
    if (device) {
        int n = parse_device_id(device, device_bytes);
        if (n < 0) { fprintf(stderr, "gatekit receipt: --device-id needs 16 bytes (UUID) or 6 bytes (MAC) in hex\n"); return GK_EXIT_USAGE; }
        o.device_id = device_bytes;
        o.device_id_len = (size_t)n;
    }
    if (at && strcmp(at, "now") == 0) o.verify_time = (long long)time(NULL);
    else if (at && (o.verify_time = gk_parse_time(at)) <= 0) {
        fprintf(stderr, "%s: --at needs Unix seconds, YYYY-MM-DDTHH:MM:SSZ or 'now'\n", who);
        return GK_EXIT_USAGE;
    }
    size_t anchor_len = 0, len = 0;
    unsigned char *anchor = NULL;
    if (xcode) {
        anchor = gk_load_certificate(xcode, &anchor_len);  /* DER or PEM, as --test-anchor */
        if (!anchor) return GK_EXIT_ERROR;
        o.test_anchor_der = anchor;
        o.test_anchor_len = anchor_len;
    }
    unsigned char *data = gk_read_all(file, &len);
    if (!data) { free(anchor); return GK_EXIT_ERROR; }
    gatekit_receipt *receipt = NULL;
    int rc = receipt_validate(&receipt, data, len, &o);
    free(data);
    free(anchor);
    if (rc < 0) return gk_refused(entitled ? "receipt entitled" : "receipt verify", rc);
    if (receipt_is_test_signed(receipt) == 1)
        fprintf(stderr, "gatekit receipt: note: accepted under the --allow-xcode test certificate, not an App Store purchase\n");
    if (entitled) {
        char *active = NULL;  /* without --product: any product (the number of active ones) */
        int yes = product ? receipt_is_entitled(receipt, product, at_ms) : receipt_active_products(&active, receipt, at_ms);
        gatekit_free(active);
        receipt_free(receipt);
        if (yes < 0) return gk_fail("receipt entitled", yes);
        yes = yes > 0;
        if (json_answer) printf("{\"entitled\":%s}\n", yes ? "true" : "false");
        else puts(yes ? "entitled" : "not entitled");
        return yes ? GK_EXIT_OK : GK_EXIT_NO;
    }
    char *json = NULL;
    rc = receipt_to_json(&json, receipt);
    if (rc == 0) puts(json);
    gatekit_free(json);
    receipt_free(receipt);
    return rc == 0 ? GK_EXIT_OK : gk_fail("receipt_to_json", rc);
}

static int inspect(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "gatekit receipt inspect: takes one FILE (or -)%s\n", argc < 3 ? ", which is missing" : "");
        return gk_usage(gk_receipt_usage);
    }
    size_t len = 0;
    unsigned char *data = gk_read_all(argv[2], &len);
    if (!data) return GK_EXIT_ERROR;
    char *json = NULL;
    int rc = receipt_inspect(&json, data, len);
    free(data);
    if (rc < 0) return gk_refused("receipt", rc);
    puts(json);
    gatekit_free(json);
    return GK_EXIT_OK;
}

int gk_cmd_receipt(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    if (argc < 2) return gk_usage(gk_receipt_usage);
    if (strcmp(argv[1], "verify") == 0) return verify(argc, argv, 0);
    if (strcmp(argv[1], "entitled") == 0) return verify(argc, argv, 1);
    if (strcmp(argv[1], "inspect") == 0) return inspect(argc, argv);
    fprintf(stderr, "gatekit receipt: unknown subcommand %s\n", argv[1]);
    return gk_usage(gk_receipt_usage);
}

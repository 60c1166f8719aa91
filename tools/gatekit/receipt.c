/* gatekit receipt: validate an App Store receipt as a server would, or inspect one. */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char gk_receipt_usage[] =
    "gatekit receipt <subcommand> ...\n"
    "  verify --bundle-id ID [--version V] [--device-id HEX|UUID|MAC] [--at TIME]\n"
    "         [--allow-xcode CERT] [--production-only|--sandbox-only] [--require-sha256] FILE|-\n"
    "         prints verifyReceipt's JSON; on failure {\"status\":N,...}. FILE may be DER or base64.\n"
    "         --at: Unix seconds, YYYY-MM-DDTHH:MM:SSZ or 'now' (default: the receipt's creation date)\n"
    "         exit 0 valid, 10 malformed (21002), 11 not authentic/not yours (21003),\n"
    "         12 wrong environment (21007/21008), 1 other errors\n"
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

static int parse_time(const char *text, long long *out) {
    if (strcmp(text, "now") == 0) { *out = (long long)time(NULL); return 0; }
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (end && *end == '\0' && v > 0) { *out = v; return 0; }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char zone = 0, extra = 0;
    if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%c%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &zone, &extra) != 7 || zone != 'Z')
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *out = (long long)timegm(&tm);
    return *out > 0 ? 0 : -1;
}

static int verify(int argc, char **argv) {
    const char *bundle = NULL, *version = NULL, *device = NULL, *at = NULL, *xcode = NULL, *file = NULL;
    gatekit_receipt_options o;
    receipt_options_init(&o, GATEKIT_RECEIPT_OPTIONS_VERSION);
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--bundle-id", &bundle)) || (r = gk_option(argc, argv, &i, "--version", &version)) ||
            (r = gk_option(argc, argv, &i, "--device-id", &device)) || (r = gk_option(argc, argv, &i, "--at", &at)) ||
            (r = gk_option(argc, argv, &i, "--allow-xcode", &xcode))) {
            if (r < 0) return GK_EXIT_USAGE;
            continue;
        }
        if (strcmp(argv[i], "--production-only") == 0) o.flags |= GATEKIT_RECEIPT_PRODUCTION_ONLY;
        else if (strcmp(argv[i], "--sandbox-only") == 0) o.flags |= GATEKIT_RECEIPT_SANDBOX_ONLY;
        else if (strcmp(argv[i], "--require-sha256") == 0) o.flags |= GATEKIT_RECEIPT_REQUIRE_SHA256;
        else if (!file && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) file = argv[i];
        else {
            fprintf(stderr, "gatekit receipt: unexpected argument %s\n", argv[i]);
            return gk_usage(gk_receipt_usage);
        }
    }
    if (!bundle || !file) return gk_usage(gk_receipt_usage);
    o.bundle_id = bundle;
    o.app_version = version;
    unsigned char device_bytes[16];
    if (device) {
        int n = parse_device_id(device, device_bytes);
        if (n < 0) { fprintf(stderr, "gatekit receipt: --device-id needs 16 bytes (UUID) or 6 bytes (MAC) in hex\n"); return GK_EXIT_USAGE; }
        o.device_id = device_bytes;
        o.device_id_len = (size_t)n;
    }
    if (at && parse_time(at, &o.verify_time) != 0) {
        fprintf(stderr, "gatekit receipt: --at needs Unix seconds, YYYY-MM-DDTHH:MM:SSZ or 'now'\n");
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
    if (rc < 0) return gk_refused("receipt", rc);
    char *json = NULL;
    rc = receipt_to_json(&json, receipt);
    if (rc == 0) puts(json);
    if (rc == 0 && receipt_is_test_signed(receipt) == 1)
        fprintf(stderr, "gatekit receipt: note: accepted under the --allow-xcode test certificate, not an App Store purchase\n");
    gatekit_free(json);
    receipt_free(receipt);
    return rc == 0 ? GK_EXIT_OK : gk_fail("receipt_to_json", rc);
}

static int inspect(int argc, char **argv) {
    if (argc != 3) return gk_usage(gk_receipt_usage);
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
    if (strcmp(argv[1], "verify") == 0) return verify(argc, argv);
    if (strcmp(argv[1], "inspect") == 0) return inspect(argc, argv);
    return gk_usage(gk_receipt_usage);
}

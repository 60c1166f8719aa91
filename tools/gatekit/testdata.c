/* gatekit test: a test PKI and App Store data signed under it, for a server team's own tests. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_test_subcommands[] = {"pki", "sign", NULL};

const char gk_test_usage[] =
    "gatekit test pki DIR\n"
    "    makes a test PKI shaped like Apple's StoreKit 2 chain in DIR (created 0700 when absent;\n"
    "    files 0600, never over existing ones): root.der, the anchor to pass as --test-anchor;\n"
    "    intermediate.der and leaf.der with Apple's marker OIDs; leaf.key. Valid 2000 to 2100.\n"
    "gatekit test sign --pki DIR --kind notification|transaction|renewal-info|app-transaction|realtime-request\n"
    "                  PAYLOAD.json|-\n"
    "    prints the payload (a JSON object with Apple's field names, signed exactly as given) as\n"
    "    a compact JWS with x5c [leaf, intermediate, root]. It is verified first as that kind\n"
    "    under the PKI's root, with the bundle id and environment the payload names; a payload\n"
    "    GateKit would refuse is refused as jws verify refuses it (exit 10, 11, 12).\n"
    "What these sign is test-signed: it verifies only with --test-anchor DIR/root.der, is marked\n"
    "\"testSigned\":true, and is never accepted as App Store data (Production needs the test-only\n"
    "--test-production). docs/testing.md shows a whole notification endpoint tested with it.";

static int sign(int argc, char **argv) {
    const char *pki = NULL, *kind_name = NULL, *file = NULL;
    for (int i = 2; i < argc; i++) {
        int r;
        if ((r = gk_option(argc, argv, &i, "--pki", &pki)) || (r = gk_option(argc, argv, &i, "--kind", &kind_name))) {
            if (r < 0) return gk_usage(gk_test_usage);
            continue;
        }
        if (file || (argv[i][0] == '-' && argv[i][1] != '\0')) {
            fprintf(stderr, "gatekit test sign: unexpected argument %s\n", argv[i]);
            return gk_usage(gk_test_usage);
        }
        file = argv[i];
    }
    if (gk_missing("gatekit test sign", "--pki", pki) || gk_missing("gatekit test sign", "--kind", kind_name) ||
        gk_missing("gatekit test sign", "PAYLOAD.json", file))
        return gk_usage(gk_test_usage);
    int kind = gk_jws_kind("gatekit test sign", "--kind", kind_name);
    if (kind < 0) return gk_usage(gk_test_usage);
    size_t len = 0;
    unsigned char *raw = gk_read_limited(file, (size_t)1 << 20, &len);
    if (!raw) return GK_EXIT_ERROR;
    char *payload = malloc(len + 1);
    if (!payload) { free(raw); return GK_EXIT_ERROR; }
    memcpy(payload, raw, len);
    payload[len] = 0;
    free(raw);
    if (strlen(payload) != len) {
        free(payload);
        fprintf(stderr, "gatekit test sign: %s contains a NUL byte; a payload is JSON text\n", file);
        return GK_EXIT_MALFORMED;
    }
    char *jws = NULL;
    int rc = jws_test_sign(&jws, pki, kind, payload);
    free(payload);
    if (rc <= -300 && rc > -400) return gk_refused("test sign", rc);
    if (rc < 0) return gk_fail("test sign", rc);
    puts(jws);
    gatekit_free(jws);
    return GK_EXIT_OK;
}

int gk_cmd_test(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    if (argc < 2) return gk_usage(gk_test_usage);
    if (strcmp(argv[1], "sign") == 0) return sign(argc, argv);
    if (strcmp(argv[1], "pki") != 0) {
        fprintf(stderr, "gatekit test: unknown subcommand %s\n", argv[1]);
        return gk_usage(gk_test_usage);
    }
    if (argc != 3 || argv[2][0] == '-') {
        fprintf(stderr, "gatekit test pki: %s\n", argc < 3 ? "missing DIR" : "takes one folder, DIR");
        return gk_usage(gk_test_usage);
    }
    int rc = jws_test_pki_create(argv[2]);
    if (rc < 0) return gk_fail("test pki", rc);
    printf("%s/root.der\n", argv[2]);
    return GK_EXIT_OK;
}

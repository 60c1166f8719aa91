/* gatekit test: a test PKI and App Store data signed under it, and Google Play pushes from a test
 * issuer, for a server team's own tests. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_test_subcommands[] = {"pki", "sign", "play-push", NULL};

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
    "--test-production). docs/testing.md shows a whole notification endpoint tested with it.\n"
    "gatekit test play-push --package NAME --audience URL --email SERVICE_ACCOUNT --dir DIR\n"
    "                       [--type N] [--token PURCHASE_TOKEN] [--message-id ID]\n"
    "    a Google Play RTDN push from a test OIDC issuer (https://oidc.test.gatekit.invalid, a fresh\n"
    "    RSA key) into DIR (created 0700; files 0600, never over existing ones): headers (its\n"
    "    Authorization line), body (a Pub/Sub envelope of a subscriptionNotification of type N,\n"
    "    default 4 PURCHASED) and keys.json (the issuer's key set). gatekit play verify-push takes them\n"
    "    with --issuer https://oidc.test.gatekit.invalid --keys DIR/keys.json; never as Google's.";

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

/* text as standard base64 (malloc'd), as Pub/Sub carries a message's data. */
static char *base64(const char *text) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(text), o = 0;
    char *out = malloc((n + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    const unsigned char *b = (const unsigned char *)text;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* Writes text to DIR/name, a new file of mode 0600; 0, or -1 after printing why. */
static int write_new(const char *dir, const char *name, const char *text) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        fprintf(stderr, "gatekit test play-push: the folder's path is too long\n");
        return -1;
    }
    int fd = gk_create_output(path);
    if (fd < 0) return -1;
    int rc = gk_write_all(fd, text, strlen(text));
    close(fd);
    if (rc < 0) fprintf(stderr, "gatekit test play-push: cannot write %s\n", path);
    return rc;
}

static int play_push(int argc, char **argv) {
    const char *who = "gatekit test play-push";
    const char *package = NULL, *audience = NULL, *email = NULL, *dir = NULL, *type = NULL, *token = NULL, *message_id = NULL;
    for (int i = 2; i < argc; i++) {
        int r;
        if ((r = gk_option(argc, argv, &i, "--package", &package)) || (r = gk_option(argc, argv, &i, "--audience", &audience)) ||
            (r = gk_option(argc, argv, &i, "--email", &email)) || (r = gk_option(argc, argv, &i, "--dir", &dir)) ||
            (r = gk_option(argc, argv, &i, "--type", &type)) || (r = gk_option(argc, argv, &i, "--token", &token)) ||
            (r = gk_option(argc, argv, &i, "--message-id", &message_id))) {
            if (r < 0) return gk_usage(gk_test_usage);
            continue;
        }
        fprintf(stderr, "%s: unexpected argument %s\n", who, argv[i]);
        return gk_usage(gk_test_usage);
    }
    if (gk_missing(who, "--package", package) || gk_missing(who, "--audience", audience) || gk_missing(who, "--email", email) ||
        gk_missing(who, "--dir", dir))
        return gk_usage(gk_test_usage);
    long long number = type ? gk_number(type) : 4;
    if (number < 1 || number > 1000) {
        fprintf(stderr, "%s: --type is a subscription notification type, 1 to 1000\n", who);
        return GK_EXIT_USAGE;
    }
    for (const char *const *v = (const char *const[]){package, token ? token : "", message_id ? message_id : "", NULL}; *v; v++)
        for (const char *c = *v; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) {
                fprintf(stderr, "%s: --package, --token and --message-id are plain text (no quotes or backslashes)\n", who);
                return GK_EXIT_USAGE;
            }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot make %s: %s\n", who, dir, strerror(errno));
        return GK_EXIT_ERROR;
    }
    gatekit_play_test_issuer *issuer = NULL;
    char *keys = NULL, *bearer = NULL, *data = NULL;
    int rc = play_test_issuer_new(&issuer, NULL);
    if (rc == 0) rc = play_test_issuer_keys(&keys, issuer);
    if (rc == 0) rc = play_test_issuer_sign_push(&bearer, issuer, audience, email, 3600);
    play_test_issuer_free(issuer);
    char notification[2048], headers[16384], body[8192];
    snprintf(notification, sizeof notification,
             "{\"version\":\"1.0\",\"packageName\":\"%s\",\"eventTimeMillis\":\"%lld\",\"subscriptionNotification\":"
             "{\"version\":\"1.0\",\"notificationType\":%lld,\"purchaseToken\":\"%s\"}}",
             package, (long long)time(NULL) * 1000, number, token ? token : "test-purchase-token");
    if (rc == 0 && !(data = base64(notification))) rc = GATEKIT_ENOMEM;
    int status = GK_EXIT_ERROR;
    if (rc < 0) {
        status = gk_fail("test play-push", rc);
    } else if (snprintf(headers, sizeof headers, "Authorization: %s\r\nContent-Type: application/json\r\n", bearer) < (int)sizeof headers &&
               snprintf(body, sizeof body, "{\"message\":{\"data\":\"%s\",\"messageId\":\"%s\",\"attributes\":{}},"
                        "\"subscription\":\"projects/gatekit-test/subscriptions/play-rtdn\"}", data, message_id ? message_id : "1") < (int)sizeof body &&
               write_new(dir, "keys.json", keys) == 0 && write_new(dir, "headers", headers) == 0 && write_new(dir, "body", body) == 0) {
        printf("%s/headers\n%s/body\n%s/keys.json\n", dir, dir, dir);
        status = GK_EXIT_OK;
    }
    gatekit_free(keys);
    gatekit_free(bearer);
    free(data);
    return status;
}

int gk_cmd_test(gk_cli *cli, int argc, char **argv) {
    (void)cli;
    if (argc < 2) return gk_usage(gk_test_usage);
    if (strcmp(argv[1], "sign") == 0) return sign(argc, argv);
    if (strcmp(argv[1], "play-push") == 0) return play_push(argc, argv);
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

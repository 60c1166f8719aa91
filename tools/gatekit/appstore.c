/* gatekit appstore: what Apple's App Store Server Library signs, from the command line —
 * offer signatures, signed requests and the App Store Server API token — and ReceiptUtility. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_appstore_subcommands[] = {"offer-signature", "offer-v2", "intro-eligibility", "commerce-request", "token", "transaction-id", "legacy-transaction-id", NULL};

const char gk_appstore_usage[] =
    "gatekit appstore offer-signature  KEY_OPTIONS --product ID --offer ID --nonce UUID --timestamp MS [--username NAME]\n"
    "    the promotional offer signature of StoreKit's original API (base64)\n"
    "gatekit appstore offer-v2         KEY_OPTIONS --issuer-id ID --product ID --offer ID [--transaction ID]\n"
    "gatekit appstore intro-eligibility KEY_OPTIONS --issuer-id ID --product ID --transaction ID --allow yes|no\n"
    "gatekit appstore commerce-request KEY_OPTIONS --issuer-id ID FILE|-   (the request's JSON)\n"
    "    signed requests for StoreKit (a compact JWS)\n"
    "gatekit appstore token            KEY_OPTIONS --issuer-id ID [--lifetime SECONDS]\n"
    "    an App Store Server API bearer token (default lifetime 300 s, at most 3600)\n"
    "gatekit appstore transaction-id   FILE|-        an app receipt's first transaction id, NOT validated\n"
    "gatekit appstore legacy-transaction-id FILE|-   a legacy transaction receipt's transaction id, NOT validated\n"
    "KEY_OPTIONS: --key FILE (the App Store Connect .p8) --key-id ID --bundle-id ID.\n"
    "Exit 0 with the result on stdout; 1 when the library refuses (the reason on stderr); 2 usage;\n"
    "3 (transaction-id commands) when the receipt names no transaction.\n"
    "gatekit appstore ENDPOINT ... is gatekit api ENDPOINT ...: the App Store Server API (gatekit api --help).";

typedef struct {
    const char *key, *key_id, *issuer_id, *bundle_id, *product, *offer, *nonce, *timestamp, *username, *transaction,
        *allow, *lifetime, *file;
} appstore_args;

static int parse(int argc, char **argv, appstore_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--key", &a->key)) || (r = gk_option(argc, argv, &i, "--key-id", &a->key_id)) ||
            (r = gk_option(argc, argv, &i, "--issuer-id", &a->issuer_id)) ||
            (r = gk_option(argc, argv, &i, "--bundle-id", &a->bundle_id)) ||
            (r = gk_option(argc, argv, &i, "--product", &a->product)) || (r = gk_option(argc, argv, &i, "--offer", &a->offer)) ||
            (r = gk_option(argc, argv, &i, "--nonce", &a->nonce)) || (r = gk_option(argc, argv, &i, "--timestamp", &a->timestamp)) ||
            (r = gk_option(argc, argv, &i, "--username", &a->username)) ||
            (r = gk_option(argc, argv, &i, "--transaction", &a->transaction)) ||
            (r = gk_option(argc, argv, &i, "--allow", &a->allow)) || (r = gk_option(argc, argv, &i, "--lifetime", &a->lifetime))) {
            if (r < 0) return -1;
            continue;
        }
        if (a->file || (argv[i][0] == '-' && argv[i][1] != '\0')) {
            fprintf(stderr, "gatekit appstore: unexpected argument %s\n", argv[i]);
            return -1;
        }
        a->file = argv[i];
    }
    return 0;
}

/* Prints the library's string result (or its error) and frees it. */
static int emit(const char *what, int rc, char *out) {
    if (rc < 0 || !out) return gk_fail(what, rc < 0 ? rc : GATEKIT_EINTERNAL);
    puts(out);
    gatekit_free(out);
    return GK_EXIT_OK;
}

static int transaction_id(const appstore_args *a, int legacy) {
    if (gk_missing(legacy ? "gatekit appstore legacy-transaction-id" : "gatekit appstore transaction-id", "FILE (or -)", a->file))
        return gk_usage(gk_appstore_usage);
    char *out = NULL;
    int rc;
    if (legacy) {
        char *text = gk_load_text(a->file);
        if (!text) return GK_EXIT_ERROR;
        rc = receipt_legacy_transaction_id(&out, text);
        free(text);
    } else {
        size_t n = 0;
        unsigned char *data = gk_read_all(a->file, &n);
        if (!data) return GK_EXIT_ERROR;
        rc = receipt_transaction_id(&out, data, n);
        free(data);
    }
    if (rc < 0) return gk_fail("appstore transaction-id", rc);
    if (rc == 0) {
        fprintf(stderr, "gatekit appstore: the receipt names no transaction\n");
        return GK_EXIT_NO;
    }
    return emit("appstore transaction-id", GATEKIT_OK, out);
}

int gk_cmd_appstore(gk_cli *cli, int argc, char **argv) {
    if (argc < 2) return gk_usage(gk_appstore_usage);
    const char *command = argv[1];
    if (gk_is_api_endpoint(command)) return gk_cmd_api(cli, argc, argv);  /* gatekit appstore ENDPOINT = gatekit api ENDPOINT */
    appstore_args a = {0};
    if (parse(argc, argv, &a) < 0) return gk_usage(gk_appstore_usage);
    if (strcmp(command, "transaction-id") == 0) return transaction_id(&a, 0);
    if (strcmp(command, "legacy-transaction-id") == 0) return transaction_id(&a, 1);
    char who[80];
    snprintf(who, sizeof who, "gatekit appstore %s", command);
    if (gk_missing(who, "--key FILE", a.key) || gk_missing(who, "--key-id", a.key_id) || gk_missing(who, "--bundle-id", a.bundle_id))
        return gk_usage(gk_appstore_usage);
    long long lifetime = a.lifetime ? gk_number(a.lifetime) : 300;
    if (lifetime < 1 || lifetime > 3600) {
        fprintf(stderr, "gatekit appstore: --lifetime must be 1 to 3600 seconds (Apple refuses longer tokens)\n");
        return GK_EXIT_USAGE;
    }

    gatekit_appstore_key *key = gk_load_appstore_key(a.key, a.key_id, a.issuer_id, a.bundle_id);
    if (!key) return GK_EXIT_ERROR;
    char *out = NULL;
    int rc = 1;  /* 1: the command line did not name a known command with its options */
    if (strcmp(command, "offer-signature") == 0 && a.product && a.offer && a.nonce && a.timestamp) {
        long long ts = gk_number(a.timestamp);
        rc = appstore_promotional_offer_signature(&out, key, a.product, a.offer, a.username ? a.username : "", a.nonce, ts < 0 ? 0 : ts);
    } else if (strcmp(command, "offer-v2") == 0 && a.product && a.offer) {
        rc = appstore_promotional_offer_v2_signature(&out, key, a.product, a.offer, a.transaction);
    } else if (strcmp(command, "intro-eligibility") == 0 && a.product && a.transaction && a.allow &&
               (strcmp(a.allow, "yes") == 0 || strcmp(a.allow, "no") == 0)) {
        rc = appstore_intro_eligibility_signature(&out, key, a.product, strcmp(a.allow, "yes") == 0, a.transaction);
    } else if (strcmp(command, "commerce-request") == 0 && a.file) {
        char *request = gk_load_text(a.file);
        rc = request ? appstore_advanced_commerce_signature(&out, key, request) : GATEKIT_EIO;
        free(request);
    } else if (strcmp(command, "token") == 0) {
        rc = appstore_api_token(&out, key, (int)lifetime);
    }
    appstore_key_free(key);
    if (rc == 1) {
        fprintf(stderr, "%s: missing one of its options (%s)\n", who,
                strcmp(command, "offer-signature") == 0 ? "--product, --offer, --nonce, --timestamp"
                : strcmp(command, "offer-v2") == 0 ? "--product, --offer"
                : strcmp(command, "intro-eligibility") == 0 ? "--product, --transaction, --allow yes|no"
                : strcmp(command, "commerce-request") == 0 ? "FILE" : "see the usage");
        return gk_usage(gk_appstore_usage);
    }
    if (rc == GATEKIT_EINVAL) {
        gk_fail(command, rc);
        return GK_EXIT_USAGE;
    }
    return emit(command, rc, out);
}

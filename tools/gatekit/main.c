/* gatekit: gate a EULA, validate App Store receipts and signed data, and manage
 * permission state from the command line — a real host of the public C API. */
#include "cli.h"

#include <string.h>

static const char usage_text[] =
    "gatekit [--store PATH] [--app-id ID] <command> ...\n"
    "commands:\n"
    "  eula status|show|check|accept|decline|withdraw|history|minor   EULA gating\n"
    "  receipt verify|inspect                                App Store receipts\n"
    "  perm list|state|usage|register|record|pending|reset|history|watch\n"
    "                                                        permission state\n"
    "  jws verify|entitled                                   StoreKit 2 signed data (JWS)\n"
    "  ledger ingest|entitled|status|active|eligible|history entitlements from verified App Store data\n"
    "  ledger catalog|link|unlink|links|changes|sync|sync-state|refresh\n"
    "                                                        products, app accounts, the ledger kept in step with Apple\n"
    "  appstore offer-signature|offer-v2|intro-eligibility|commerce-request|token|transaction-id|legacy-transaction-id\n"
    "                                                        what Apple's App Store Server Library signs\n"
    "  api get-transaction-info|get-transaction-history|...  the App Store Server API, every endpoint\n"
    "  store check|path|info                                 the store file: integrity, location\n"
    "  test pki|sign                                         test-signed App Store data for your own tests\n"
    "  version                                               library version (also --version)\n"
    "  help [COMMAND]                                        this text, or a command's (also -h, --help)\n"
    "--store and --app-id may also follow the command. Run 'gatekit <command> --help' for a\n"
    "command's usage.";

typedef struct {
    const char *name;
    int (*run)(gk_cli *cli, int argc, char **argv);
    const char *usage;
} gk_command;

static int cmd_version(gk_cli *cli, int argc, char **argv) {
    (void)cli; (void)argc; (void)argv;
    printf("gatekit %s (library %s, header %s)\n", gatekit_version(), gatekit_version(), GATEKIT_VERSION_STRING);
    return gatekit_version_number() == GATEKIT_VERSION_NUMBER ? GK_EXIT_OK : GK_EXIT_ERROR;
}

static const gk_command commands[] = {
    {"eula", gk_cmd_eula, gk_eula_usage},
    {"receipt", gk_cmd_receipt, gk_receipt_usage},
    {"perm", gk_cmd_perm, gk_perm_usage},
    {"jws", gk_cmd_jws, gk_jws_usage},
    {"ledger", gk_cmd_ledger, gk_ledger_usage},
    {"appstore", gk_cmd_appstore, gk_appstore_usage},
    {"api", gk_cmd_api, gk_api_usage},
    {"store", gk_cmd_store, gk_store_usage},
    {"test", gk_cmd_test, gk_test_usage},
    {"version", cmd_version, "gatekit version"},
};

static const gk_command *find_command(const char *name) {
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (strcmp(name, commands[c].name) == 0) return &commands[c];
    return NULL;
}

static int is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

/* Usage asked for: to stdout, exit 0 (usage after a mistake goes to stderr, exit 2). */
static int help(const char *text) {
    printf("usage: %s\n", text);
    return GK_EXIT_OK;
}

int main(int argc, char **argv) {
    gk_cli cli = {0};
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        int r;
        if ((r = gk_option(argc, argv, &i, "--store", &cli.store_path)) != 0) { if (r < 0) return GK_EXIT_USAGE; continue; }
        if ((r = gk_option(argc, argv, &i, "--app-id", &cli.app_id)) != 0) { if (r < 0) return GK_EXIT_USAGE; continue; }
        if (is_help(argv[i])) return help(usage_text);
        if (strcmp(argv[i], "--version") == 0) return cmd_version(&cli, 0, NULL);
        fprintf(stderr, "gatekit: unknown option %s\n", argv[i]);
        return gk_usage(usage_text);
    }
    if (i < argc && is_help(argv[i])) return help(usage_text);
    if (i >= argc) return gk_usage(usage_text);
    if (strcmp(argv[i], "help") == 0) {
        if (i + 1 >= argc) return help(usage_text);
        const gk_command *c = find_command(argv[i + 1]);
        if (c) return help(c->usage);
        fprintf(stderr, "gatekit help: unknown command %s\n", argv[i + 1]);
        return gk_usage(usage_text);
    }
    const gk_command *c = find_command(argv[i]);
    if (!c) {
        fprintf(stderr, "gatekit: unknown command %s\n", argv[i]);
        return gk_usage(usage_text);
    }
    /* "gatekit eula --help", "gatekit receipt verify --help", "gatekit perm record -h". */
    for (int k = i + 1; k < argc; k++)
        if (is_help(argv[k])) return help(c->usage);
    /* Global options after the command ("gatekit eula status --store S ...") are taken out
     * of the command's arguments; the command sees only its own. */
    int kept = i + 1;
    for (int k = i + 1; k < argc; k++) {
        int r;
        if ((r = gk_option(argc, argv, &k, "--store", &cli.store_path)) != 0 ||
            (r = gk_option(argc, argv, &k, "--app-id", &cli.app_id)) != 0) {
            if (r < 0) return GK_EXIT_USAGE;
            continue;
        }
        argv[kept++] = argv[k];
    }
    argc = kept;
    int status = c->run(&cli, argc - i, argv + i);
    gk_close(&cli);
    return status;
}

/* gatekit: gate a EULA, validate App Store receipts and signed data, and manage
 * permission state from the command line — a real host of the public C API. */
#include "cli.h"

#include <string.h>

static const char usage_text[] =
    "gatekit [--store PATH] [--app-id ID] <command> ...\n"
    "commands:\n"
    "  eula status|show|check|accept|decline|history|minor   EULA gating\n"
    "  receipt verify|inspect                                App Store receipts\n"
    "  perm list|state|usage|register|record|pending|reset|history|watch\n"
    "                                                        permission state\n"
    "  jws verify|entitled                                   StoreKit 2 signed data (JWS)\n"
    "  ledger ingest|entitled|status|active|eligible|history entitlements from verified App Store data\n"
    "  appstore offer-signature|offer-v2|intro-eligibility|commerce-request|token|transaction-id|legacy-transaction-id\n"
    "                                                        what Apple's App Store Server Library signs\n"
    "  store check|path|info                                 the store file: integrity, location\n"
    "  version                                               library version\n"
    "Run 'gatekit <command>' without arguments for its usage.";

typedef struct {
    const char *name;
    int (*run)(gk_cli *cli, int argc, char **argv);
} gk_command;

static int cmd_version(gk_cli *cli, int argc, char **argv) {
    (void)cli; (void)argc; (void)argv;
    printf("gatekit %s (library %s, header %s)\n", gatekit_version(), gatekit_version(), GATEKIT_VERSION_STRING);
    return gatekit_version_number() == GATEKIT_VERSION_NUMBER ? GK_EXIT_OK : GK_EXIT_ERROR;
}

static const gk_command commands[] = {
    {"eula", gk_cmd_eula},
    {"receipt", gk_cmd_receipt},
    {"perm", gk_cmd_perm},
    {"jws", gk_cmd_jws},
    {"ledger", gk_cmd_ledger},
    {"appstore", gk_cmd_appstore},
    {"store", gk_cmd_store},
    {"version", cmd_version},
};

int main(int argc, char **argv) {
    gk_cli cli = {0};
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        int r;
        if ((r = gk_option(argc, argv, &i, "--store", &cli.store_path)) != 0) { if (r < 0) return GK_EXIT_USAGE; continue; }
        if ((r = gk_option(argc, argv, &i, "--app-id", &cli.app_id)) != 0) { if (r < 0) return GK_EXIT_USAGE; continue; }
        if (strcmp(argv[i], "--help") == 0) { puts(usage_text); return GK_EXIT_OK; }
        fprintf(stderr, "gatekit: unknown option %s\n", argv[i]);
        return gk_usage(usage_text);
    }
    if (i >= argc) return gk_usage(usage_text);
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        if (strcmp(argv[i], commands[c].name) == 0) {
            int status = commands[c].run(&cli, argc - i, argv + i);
            gatekit_store_close(cli.store);
            return status;
        }
    }
    fprintf(stderr, "gatekit: unknown command %s\n", argv[i]);
    return gk_usage(usage_text);
}

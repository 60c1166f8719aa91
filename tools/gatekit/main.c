/* gatekit: gate a EULA, validate App Store receipts and signed data, and manage
 * permission state from the command line — a real host of the public C API. */
#include "cli.h"

#include <string.h>

static const char usage_text[] =
    "gatekit [--store PATH] [--app-id ID] <command> ...\n"
    "commands:\n"
    "  eula status|show|check|accept|decline|withdraw|history|minor\n"
    "                                                        EULA gating\n"
    "  eula publish|export|verify-export                     published versions, the consent record\n"
    "  receipt verify|entitled|inspect                       App Store receipts\n"
    "  perm list|state|usage|register|record|pending|reset|history|watch\n"
    "                                                        permission state\n"
    "  jws verify|entitled                                   StoreKit 2 signed data (JWS)\n"
    "  ledger ingest|entitled|status|active|eligible|history entitlements from verified App Store, Google Play and Stripe data\n"
    "  ledger catalog|link|unlink|links|changes|sync|sync-state|refresh\n"
    "                                                        products, app accounts, the ledger kept in step with Apple\n"
    "  ledger sync-play|sync-stripe|refresh-stripe           the ledger kept in step with Google Play, Stripe\n"
    "  ledger grant|revoke-grant                             entitlements given by hand (support)\n"
    "  ledger metrics|metrics-refresh|report                 subscription metrics, their roll-up kept current,\n"
    "                                                        the HTML report\n"
    "  ledger webhook-add|webhook-update|webhook-roll|webhooks|webhook-deliveries|webhook-replay|deliver\n"
    "                                                        the ledger's changes delivered as signed webhooks\n"
    "  appstore offer-signature|offer-v2|intro-eligibility|commerce-request|token|transaction-id|legacy-transaction-id\n"
    "                                                        what Apple's App Store Server Library signs\n"
    "  api get-transaction-info|get-transaction-history|...  the App Store Server API, every endpoint\n"
    "  play subscription|product|product-v2|voided|order     Google Play: the Play Developer API\n"
    "  play acknowledge|consume|revoke|cancel|defer          ... its changes\n"
    "  play verify-push                                      a real-time developer notification push\n"
    "  stripe verify-webhook                                 a Stripe webhook delivery\n"
    "  stripe get|list                                       Stripe's API, with your key\n"
    "  store check|path|info                                 the store file: integrity, location\n"
    "  test pki|sign|play-push                               test data for your own tests (App Store, Play)\n"
    "  version                                               library version (also --version)\n"
    "  help [COMMAND]                                        this text, or a command's (also -h, --help)\n"
    "  help commands                                         every command and subcommand, one per line\n"
    "--store and --app-id may also follow the command. Run 'gatekit <command> --help' for a\n"
    "command's usage.";

typedef struct {
    const char *name;
    int (*run)(gk_cli *cli, int argc, char **argv);
    const char *usage;
    const char *const *subcommands;  /* NULL: the command takes none */
} gk_command;

static int cmd_version(gk_cli *cli, int argc, char **argv) {
    (void)cli; (void)argc; (void)argv;
    printf("gatekit %s (library %s, header %s)\n", gatekit_version(), gatekit_version(), GATEKIT_VERSION_STRING);
    return gatekit_version_number() == GATEKIT_VERSION_NUMBER ? GK_EXIT_OK : GK_EXIT_ERROR;
}

/* The tool's command table: dispatch, usage, and the subcommands each takes. */
static const gk_command commands[] = {
    {"eula", gk_cmd_eula, gk_eula_usage, gk_eula_subcommands},
    {"receipt", gk_cmd_receipt, gk_receipt_usage, gk_receipt_subcommands},
    {"perm", gk_cmd_perm, gk_perm_usage, gk_perm_subcommands},
    {"jws", gk_cmd_jws, gk_jws_usage, gk_jws_subcommands},
    {"ledger", gk_cmd_ledger, gk_ledger_usage, gk_ledger_subcommands},
    {"appstore", gk_cmd_appstore, gk_appstore_usage, gk_appstore_subcommands},
    {"api", gk_cmd_api, gk_api_usage, gk_api_subcommands},
    {"play", gk_cmd_play, gk_play_usage, gk_play_subcommands},
    {"stripe", gk_cmd_stripe, gk_stripe_usage, gk_stripe_subcommands},
    {"store", gk_cmd_store, gk_store_usage, gk_store_subcommands},
    {"test", gk_cmd_test, gk_test_usage, gk_test_subcommands},
    {"version", cmd_version, "gatekit version", NULL},
};

static const char *const command_names[] = {"eula", "receipt", "perm", "jws", "ledger", "appstore", "api", "play", "stripe", "store", "test",
                                            "version", "help", NULL};

/* `gatekit help commands`: every command and subcommand the tool takes, one per line (what
 * python/tests/test_tool_commands.py checks every documented command against). */
static int list_commands(void) {
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        if (!commands[c].subcommands) printf("%s\n", commands[c].name);
        for (const char *const *sub = commands[c].subcommands; sub && *sub; sub++) printf("%s %s\n", commands[c].name, *sub);
        /* gatekit appstore ENDPOINT is gatekit api ENDPOINT. */
        if (strcmp(commands[c].name, "appstore") == 0)
            for (const char *const *e = gk_api_subcommands; *e; e++) printf("appstore %s\n", *e);
    }
    puts("help");
    puts("help commands");
    return GK_EXIT_OK;
}

/* The command's subcommand names, comma-separated, on stderr after "one of ". */
static void print_choices(const gk_command *c) {
    fprintf(stderr, "one of");
    for (const char *const *sub = c->subcommands; *sub; sub++) fprintf(stderr, "%s %s", sub == c->subcommands ? "" : ",", *sub);
}

/* A missing or unknown subcommand, named before anything else (exit 2); 0 when it is known. */
static int check_subcommand(const gk_command *c, int argc, char **argv) {
    if (!c->subcommands) return 0;
    if (argc < 2) {
        fprintf(stderr, "gatekit %s: missing the subcommand: ", c->name);
        print_choices(c);
        fprintf(stderr, " (gatekit help %s)\n", c->name);
        return GK_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (sub[0] == '-' || gk_is_one_of(sub, c->subcommands)) return 0;  /* options first: perm --portal */
    if (strcmp(c->name, "appstore") == 0 && gk_is_api_endpoint(sub)) return 0;
    const char *near = gk_nearest(sub, c->subcommands);
    fprintf(stderr, "gatekit %s: unknown subcommand %s", c->name, sub);
    if (near) fprintf(stderr, " (did you mean %s?)", near);
    fprintf(stderr, "; ");
    print_choices(c);
    fprintf(stderr, "\n");
    return GK_EXIT_USAGE;
}

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

/* "gatekit ledger metrics --help": the part of the command's usage about that subcommand (the
 * blocks whose first line names it), or the whole usage when none does. */
static int help_for(const char *text, const char *command, const char *sub) {
    char prefix[160];
    int n = snprintf(prefix, sizeof prefix, "gatekit %s %s", command, sub);
    if (n <= 0 || (size_t)n >= sizeof prefix) return help(text);
    int shown = 0, in = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (line[0] != ' ') in = len >= (size_t)n && strncmp(line, prefix, (size_t)n) == 0 && (len == (size_t)n || line[n] == ' ');
        if (in) {
            printf("%s%.*s\n", shown ? "" : "usage: ", (int)len, line);
            shown = 1;
        }
        line += len + (end ? 1 : 0);
    }
    return shown ? GK_EXIT_OK : help(text);
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
        if (strcmp(argv[i + 1], "commands") == 0) return list_commands();
        const gk_command *c = find_command(argv[i + 1]);
        if (c) return help(c->usage);
        const char *near = gk_nearest(argv[i + 1], command_names);
        fprintf(stderr, "gatekit help: unknown command %s%s%s%s\n", argv[i + 1], near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return gk_usage(usage_text);
    }
    const gk_command *c = find_command(argv[i]);
    if (!c) {
        const char *near = gk_nearest(argv[i], command_names);
        fprintf(stderr, "gatekit: unknown command %s%s%s%s\n", argv[i], near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return gk_usage(usage_text);
    }
    /* "gatekit eula --help", "gatekit receipt verify --help", "gatekit perm record -h". */
    for (int k = i + 1; k < argc; k++)
        if (is_help(argv[k])) return k > i + 1 && argv[i + 1][0] != '-' ? help_for(c->usage, argv[i], argv[i + 1]) : help(c->usage);
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
    int unknown = check_subcommand(c, argc - i, argv + i);
    if (unknown) return unknown;
    gk_usage_context(c->name, argc - i > 1 ? argv[i + 1] : NULL);
    int status = c->run(&cli, argc - i, argv + i);
    gk_close(&cli);
    return status;
}

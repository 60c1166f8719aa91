/* gatekit eula: EULA gating as a launch gate would do it. */
#include "eula_args.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_eula_subcommands[] = {"status", "show", "check", "accept", "decline", "withdraw", "history", "minor", "publish", "export", "verify-export", NULL};

const char gk_eula_usage[] =
    "gatekit eula <subcommand> ...\n"
    "  status  --doc ID --file PATH [--user U] [--json]  exit 0: accepted, 3: must be presented\n"
    "  status  --doc ID [--language TAG] [--at TIME] [--user U] [--json]\n"
    "          the published version in effect (at TIME: as the gate answered then): exit 0\n"
    "          when accepted or in its grace period, 3 when it must be presented\n"
    "  show    --file PATH | --doc ID [--language TAG] [--at TIME]\n"
    "          print the text (a file, or the published version in effect), then a last line\n"
    "          \"sha256 HASH\"\n"
    "  check   --doc ID (--file PATH | [--language TAG]) [--user U] [--accept | --accept-hash PREFIX]\n"
    "          [CONSENT]  the launch gate: exit 0 when accepted (now or before); without --file,\n"
    "          the published version in effect, in the user's language; shows the text and asks\n"
    "          on a terminal; headless acceptance of exactly the text named by\n"
    "          --accept-hash PREFIX or GATEKIT_ACCEPT=ID@PREFIX (8-64 hex digits of its sha256;\n"
    "          another text's hash is exit 6, nothing accepted), or of whatever text is\n"
    "          current with --accept or GATEKIT_ACCEPT_EULA=1;\n"
    "          exit 4 when declined, 172 when acceptance is required but impossible;\n"
    "          only \"yes\" or \"no\" is an answer (anything else asks again); no answer within\n"
    "          GATEKIT_EULA_TIMEOUT seconds (default 300) records nothing (exit 4); a text longer\n"
    "          than the terminal is shown through $PAGER (default less)\n"
    "  accept  --doc ID (--hash H | --file PATH | [--language TAG]) [--user U] [CONSENT]\n"
    "          without --hash or --file: the published version in effect (in TAG's text)\n"
    "  decline --doc ID (--hash H | --file PATH | [--language TAG]) [--user U] [CONSENT]\n"
    "  withdraw --doc ID [--user U] [CONSENT]           consent taken back: presented again\n"
    "  history [--doc ID] [--user U | --all] [--json]\n"
    "  minor   --doc ID --from HASH --to HASH          an acceptance of FROM covers TO\n"
    "  publish --doc ID --label L --text LANG=PATH... [--default-language LANG] [--effective TIME]\n"
    "          [--grace-days N]  a version with its translations (the first --text's language is\n"
    "          the default), in effect from TIME (default now); during the grace period the\n"
    "          previous version's acceptance still counts\n"
    "  export  [--doc ID] [--user U | --all] [--csv] [--texts] [--output NEW-FILE]\n"
    "          the consent record as JSON lines (or CSV), with each published text (--texts)\n"
    "  verify-export --file PATH                       exit 0: the export is what the store holds;\n"
    "          7: it was edited, cut short, or is another store's\n"
    "  CONSENT (how it was given, kept in the history): --method click-through|cli-flag|\n"
    "          environment|api|admin, --client-address IP, --user-agent UA, --locale TAG,\n"
    "          --meta KEY=VALUE (repeatable, up to 32)";



/* --meta KEY=VALUE: split in a copy (the key may not be empty; the value may). */
static int add_meta(eula_args *a, const char *pair) {
    const char *eq = strchr(pair, '=');
    if (!eq || eq == pair) {
        fprintf(stderr, "gatekit eula: --meta needs KEY=VALUE, got \"%s\"\n", pair);
        return -1;
    }
    if (a->meta_count == GK_EULA_MAX_META) {
        fprintf(stderr, "gatekit eula: at most %d --meta pairs\n", GK_EULA_MAX_META);
        return -1;
    }
    char *copy = strdup(pair);
    if (!copy) return -1;
    copy[eq - pair] = 0;
    a->meta_text[a->meta_count] = copy;
    a->meta_keys[a->meta_count] = copy;
    a->meta_values[a->meta_count] = copy + (eq - pair) + 1;
    a->meta_count++;
    return 0;
}

/* --text LANG=PATH: a translation read from its file. */
static int add_text(eula_args *a, const char *spec) {
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        fprintf(stderr, "gatekit eula: --text needs LANG=PATH, got \"%s\"\n", spec);
        return -1;
    }
    if (a->text_count == GK_EULA_MAX_TEXTS) {
        fprintf(stderr, "gatekit eula: at most %d --text translations\n", GK_EULA_MAX_TEXTS);
        return -1;
    }
    char *copy = strdup(spec);
    if (!copy) return -1;
    copy[eq - spec] = 0;
    a->text_spec[a->text_count] = copy;
    a->texts[a->text_count] = (gatekit_eula_text){.language = copy, .path = copy + (eq - spec) + 1};
    a->text_count++;
    return 0;
}

static void free_args(eula_args *a) {
    for (size_t i = 0; i < a->meta_count; i++) free(a->meta_text[i]);
    for (size_t i = 0; i < a->text_count; i++) free(a->text_spec[i]);
}

/* The CONSENT options as the library's struct; `method` overrides --method when given. */
static int consent_of(const eula_args *a, int method, gatekit_eula_consent *c) {
    int rc = eula_consent_init(c, GATEKIT_EULA_CONSENT_VERSION);
    if (rc < 0) return gk_fail("eula_consent_init", rc);
    static const char *const names[] = {"click-through", "cli-flag", "environment", "api", "admin"};
    c->method = method;
    for (int m = 0; !method && a->method && m < 5; m++)
        if (strcmp(a->method, names[m]) == 0) c->method = m + 1;
    if (!method && a->method && !c->method) {
        fprintf(stderr, "gatekit eula: --method is click-through, cli-flag, environment, api or admin, not \"%s\"\n", a->method);
        return GK_EXIT_USAGE;
    }
    c->client_address = a->client_address;
    c->user_agent = a->user_agent;
    c->locale = a->locale;
    c->metadata_keys = a->meta_keys;
    c->metadata_values = a->meta_values;
    c->metadata_count = a->meta_count;
    return GK_EXIT_OK;
}

static int parse(int argc, char **argv, eula_args *a) {
    for (int i = 2; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--doc", &a->doc)) ||
            (r = gk_option(argc, argv, &i, "--file", &a->file)) ||
            (r = gk_option(argc, argv, &i, "--user", &a->user)) ||
            (r = gk_option(argc, argv, &i, "--hash", &a->hash)) ||
            (r = gk_option(argc, argv, &i, "--from", &a->from)) ||
            (r = gk_option(argc, argv, &i, "--to", &a->to)) ||
            (r = gk_option(argc, argv, &i, "--accept-hash", &a->accept_hash)) ||
            (r = gk_option(argc, argv, &i, "--method", &a->method)) ||
            (r = gk_option(argc, argv, &i, "--client-address", &a->client_address)) ||
            (r = gk_option(argc, argv, &i, "--user-agent", &a->user_agent)) ||
            (r = gk_option(argc, argv, &i, "--locale", &a->locale)) ||
            (r = gk_option(argc, argv, &i, "--label", &a->label)) ||
            (r = gk_option(argc, argv, &i, "--default-language", &a->default_language)) ||
            (r = gk_option(argc, argv, &i, "--effective", &a->effective)) ||
            (r = gk_option(argc, argv, &i, "--grace-days", &a->grace_days)) ||
            (r = gk_option(argc, argv, &i, "--language", &a->language)) ||
            (r = gk_option(argc, argv, &i, "--at", &a->at)) ||
            (r = gk_option(argc, argv, &i, "--output", &a->output))) {
            if (r < 0) return -1;
            continue;
        }
        const char *pair = NULL;
        if ((r = gk_option(argc, argv, &i, "--meta", &pair))) {
            if (r < 0 || add_meta(a, pair) < 0) return -1;
            continue;
        }
        if ((r = gk_option(argc, argv, &i, "--text", &pair))) {
            if (r < 0 || add_text(a, pair) < 0) return -1;
            continue;
        }
        if (strcmp(argv[i], "--accept") == 0) a->accept = 1;
        else if (strcmp(argv[i], "--all") == 0) a->all = 1;
        else if (strcmp(argv[i], "--json") == 0) a->json = 1;
        else if (strcmp(argv[i], "--csv") == 0) a->csv = 1;
        else if (strcmp(argv[i], "--texts") == 0) a->with_texts = 1;
        else {
            fprintf(stderr, "gatekit eula: unexpected argument %s\n", argv[i]);
            return -1;
        }
    }
    return 0;
}

/* The document's bytes and their hash, read once so the text shown is the text hashed. */
typedef struct {
    unsigned char *text;
    size_t len;
    char hash[GATEKIT_HASH_HEX_SIZE];
} document;

static int load_document(const char *path, document *d) {
    d->text = gk_read_all(path, &d->len);
    if (!d->text) return GK_EXIT_ERROR;
    int rc = eula_hash_bytes(d->hash, d->text, d->len);
    if (rc < 0) {
        free(d->text);
        return gk_fail("cannot hash the document", rc);
    }
    return GK_EXIT_OK;
}

/* A question: answered from the store if there is one, never creating it (no store: nothing
 * was accepted yet). */
static int status_of(gk_cli *cli, const eula_args *a) {
    if (a->doc && !a->file) return gk_eula_published_status(cli, a);
    if (gk_missing("gatekit eula status", "--doc", a->doc)) return gk_usage(gk_eula_usage);
    gatekit_store *store = NULL;
    if (gk_existing_store(cli, &store)) return GK_EXIT_ERROR;
    char hash[GATEKIT_HASH_HEX_SIZE];
    int rc = eula_hash_file(hash, a->file);
    if (rc < 0) return gk_fail(a->file, rc);
    rc = store ? eula_should_present_hash(store, a->doc, hash, a->user) : 1;
    if (rc < 0) return gk_fail("eula_should_present", rc);
    if (a->json) {
        printf("{\"document\":");
        gk_json_string(stdout, a->doc);
        printf(",\"hash\":\"%s\",\"present\":%s}\n", hash, rc ? "true" : "false");
    } else {
        printf("%s %s %s\n", rc ? "present" : "accepted", a->doc, hash);
    }
    return rc ? GK_EXIT_NO : GK_EXIT_OK;
}

static int show(gk_cli *cli, const eula_args *a) {
    document d;
    if (!a->file && a->doc) {
        int status = gk_eula_show_published(cli, a, &d.text, &d.len, d.hash);
        if (status) return status;
    } else if (!a->file) {
        fprintf(stderr, "gatekit eula show: missing --file PATH or --doc ID (its published version)\n");
        return gk_usage(gk_eula_usage);
    } else {
        int status = load_document(a->file, &d);
        if (status) return status;
    }
    fwrite(d.text, 1, d.len, stdout);
    if (d.len && d.text[d.len - 1] != '\n') putchar('\n');
    printf("sha256 %s\n", d.hash);
    free(d.text);
    return GK_EXIT_OK;
}

/* Headless acceptance of whatever text is current: --accept, or GATEKIT_ACCEPT_EULA=1 (the
 * method recorded says which). 0: neither. */
static int headless_method(const eula_args *a) {
    const char *env = getenv("GATEKIT_ACCEPT_EULA");
    if (a->accept) return GATEKIT_EULA_METHOD_CLI_FLAG;
    return env && strcmp(env, "1") == 0 ? GATEKIT_EULA_METHOD_ENVIRONMENT : 0;
}

/* Headless acceptance bound to one text: --accept-hash PREFIX, then GATEKIT_ACCEPT.
 * 1: accepted now; 0: not named; else the exit status to return. */
static int accept_named_text(gatekit_store *store, const eula_args *a, const document *d) {
    /* --method wins; else a flag is "cli-flag", and the library records the variable as
     * "environment" with its name. */
    gatekit_eula_consent how;
    int status = consent_of(a, a->method || !a->accept_hash ? 0 : GATEKIT_EULA_METHOD_CLI_FLAG, &how);
    if (status) return -status;
    int rc;
    const char *source = a->accept_hash ? "--accept-hash" : "GATEKIT_ACCEPT";
    if (a->accept_hash) {
        size_t n = strlen(a->doc) + strlen(a->accept_hash) + 2;
        char *names = malloc(n);
        if (!names) return -GK_EXIT_ERROR;
        snprintf(names, n, "%s@%s", a->doc, a->accept_hash);
        rc = eula_accept_named(store, a->doc, d->hash, a->user, names, &how);
        free(names);
    } else {
        rc = eula_accept_from_env(store, a->doc, d->hash, a->user, "GATEKIT_ACCEPT", &how);
    }
    if (rc == GATEKIT_EEULA_HASH_MISMATCH) {
        fprintf(stderr, "gatekit: %s\n", gatekit_last_error());
        return -GK_EXIT_OTHER_TEXT;
    }
    if (rc < 0) return -gk_fail(source, rc);
    if (rc == 1) printf("eula %s: accepted headless by %s (sha256 %s)\n", a->doc, source, d->hash);
    return rc;
}

/* The seconds to wait for an answer (GATEKIT_EULA_TIMEOUT, default 300). */
static int answer_timeout_seconds(void) {
    const char *env = getenv("GATEKIT_EULA_TIMEOUT");
    char *end = NULL;
    long n = env ? strtol(env, &end, 10) : 0;
    return env && *env && end && *end == '\0' && n > 0 && n <= 86400 ? (int)n : 300;
}

/* The answer in a line: 1 for yes/y, 0 for no/n (any case, surrounding blanks ignored), -1
 * for anything else — which is not a decision, so the question is asked again. */
static int parse_answer(char *line) {
    char *start = line;
    while (*start == ' ' || *start == '\t') start++;
    size_t n = strlen(start);
    while (n && (start[n - 1] == '\n' || start[n - 1] == '\r' || start[n - 1] == ' ' || start[n - 1] == '\t')) start[--n] = 0;
    if (strcasecmp(start, "yes") == 0 || strcasecmp(start, "y") == 0) return 1;
    if (strcasecmp(start, "no") == 0 || strcasecmp(start, "n") == 0) return 0;
    return -1;
}

/* Asks on the terminal until the answer is clear (as Chef's license prompt does).
 * 1: yes, 0: no, -1: no answer (end of input, or nobody answered in time). */
static int ask(void) {
    int timeout = answer_timeout_seconds();
    for (;;) {
        fputs("\nDo you accept these terms? (yes/no) ", stderr);
        fflush(stderr);
        struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
        if (poll(&in, 1, timeout * 1000) <= 0) {
            fprintf(stderr, "\ngatekit: no answer within %d s\n", timeout);
            return -1;
        }
        char line[256];
        if (!fgets(line, sizeof line, stdin)) return -1;
        int answer = parse_answer(line);
        if (answer >= 0) return answer;
        fputs("Please answer \"yes\" or \"no\".", stderr);
    }
}

/* Shows the text: through $PAGER (default less) when `paging` and it is longer than the
 * terminal, else directly. Falls back to printing when the pager cannot run. */
static void show_text(const char *doc, const document *d, int paging) {
    struct winsize size = {0};
    size_t lines = 0;
    for (size_t i = 0; i < d->len; i++) lines += d->text[i] == '\n';
    int fits = !isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || lines + 3 <= size.ws_row;
    const char *pager = getenv("PAGER");
    if (!pager || !*pager) pager = "less";
    if (paging && !fits) {
        fflush(stdout);
        FILE *p = popen(pager, "w");
        if (p) {
            fprintf(p, "---- %s (sha256 %s) ----\n", doc, d->hash);
            fwrite(d->text, 1, d->len, p);
            if (pclose(p) == 0) return;
        }
    }
    printf("---- %s (sha256 %s) ----\n", doc, d->hash);
    fwrite(d->text, 1, d->len, stdout);
    if (d->len && d->text[d->len - 1] != '\n') putchar('\n');
    printf("---- end of %s ----\n", doc);
    fflush(stdout);
}

static int check(gk_cli *cli, const eula_args *a) {
    if (gk_missing("gatekit eula check", "--doc", a->doc)) return gk_usage(gk_eula_usage);
    gatekit_store *store = gk_store(cli);
    if (!store) return GK_EXIT_ERROR;
    document d;
    if (!a->file) {
        /* The published version in effect, in the user's language. */
        int published = gk_eula_published_text(store, a, &d.text, &d.len, d.hash);
        if (published <= 0) return -published;
    } else {
        int status = load_document(a->file, &d);
        if (status) return status;
        int rc = eula_should_present_hash(store, a->doc, d.hash, a->user);
        if (rc < 0) {
            free(d.text);
            return gk_fail("eula_should_present", rc);
        }
        if (rc == 0) {
            printf("eula %s: accepted (sha256 %s), not presented\n", a->doc, d.hash);
            free(d.text);
            return GK_EXIT_OK;
        }
    }

    int named = accept_named_text(store, a, &d);
    if (named != 0) {
        free(d.text);
        return named == 1 ? GK_EXIT_OK : -named;
    }
    int headless = headless_method(a);
    if (!headless && !isatty(STDIN_FILENO)) {
        fprintf(stderr, "gatekit: eula %s (sha256 %s) must be accepted, but there is no terminal to ask on;\n"
                        "  read it with 'gatekit eula show %s %s', then pass --accept-hash %.8s or set GATEKIT_ACCEPT=%s@%.8s\n",
                a->doc, d.hash, a->file ? "--file" : "--doc", a->file ? a->file : a->doc, d.hash, a->doc, d.hash);
        free(d.text);
        return GK_EXIT_NEEDS_ACCEPTANCE;
    }

    show_text(a->doc, &d, !headless);
    free(d.text);

    int answer = headless ? 1 : ask();
    int status;
    if (answer < 0) {
        fprintf(stderr, "gatekit: no answer; nothing recorded\n");
        return GK_EXIT_DECLINED;
    }
    gatekit_eula_consent how;
    status = consent_of(a, a->method ? 0 : headless ? headless : GATEKIT_EULA_METHOD_CLICK_THROUGH, &how);
    if (status) return status;
    int rc = answer ? eula_accept_with(store, a->doc, d.hash, a->user, &how) : eula_decline_with(store, a->doc, d.hash, a->user, &how);
    if (rc < 0) return gk_fail(answer ? "eula_accept" : "eula_decline", rc);
    printf("eula %s: %s%s (sha256 %s)\n", a->doc, answer ? "accepted" : "declined",
           headless ? " headless" : "", d.hash);
    return answer ? GK_EXIT_OK : GK_EXIT_DECLINED;
}

/* accept | decline: of the text named by --hash or --file, else of the published version in
 * effect (in --language): what the user was shown. */
static int record(gk_cli *cli, const eula_args *a, int accept) {
    const char *who = accept ? "gatekit eula accept" : "gatekit eula decline";
    if (gk_missing(who, "--doc", a->doc)) return gk_usage(gk_eula_usage);
    if (a->hash && a->file) {
        fprintf(stderr, "%s: --hash or --file, not both (each names the text decided on)\n", who);
        return gk_usage(gk_eula_usage);
    }
    char hash[GATEKIT_HASH_HEX_SIZE];
    const char *h = a->hash;
    if (!h && a->file) {
        int rc = eula_hash_file(hash, a->file);
        if (rc < 0) return gk_fail(a->file, rc);
        h = hash;
    } else if (!h) {
        /* The published version in effect now, in the user's --language. */
        gatekit_store *existing = NULL;
        if (gk_existing_store(cli, &existing)) return GK_EXIT_ERROR;
        gatekit_eula_presentation p = {.version = GATEKIT_EULA_PRESENTATION_VERSION};
        int rc = existing ? eula_should_present_at(&p, existing, a->doc, a->user, a->language, 0) : GATEKIT_ENOTFOUND;
        if (rc == GATEKIT_ENOTFOUND) {
            fprintf(stderr, "%s: missing --hash H or --file PATH, the text the user saw (no version of %s is published: eula publish)\n", who, a->doc);
            return gk_usage(gk_eula_usage);
        }
        if (rc < 0) return gk_fail(who, rc);
        memcpy(hash, p.hash, GATEKIT_HASH_HEX_SIZE);
        h = hash;
    }
    gatekit_store *store = gk_store(cli);
    if (!store) return GK_EXIT_ERROR;
    gatekit_eula_consent how;
    int status = consent_of(a, 0, &how);
    if (status) return status;
    int rc = accept ? eula_accept_with(store, a->doc, h, a->user, &how) : eula_decline_with(store, a->doc, h, a->user, &how);
    if (rc < 0) return gk_fail(accept ? "eula_accept" : "eula_decline", rc);
    printf("eula %s: %s %s\n", a->doc, accept ? "accepted" : "declined", h);
    return GK_EXIT_OK;
}

static int withdraw(gk_cli *cli, const eula_args *a) {
    if (gk_missing("gatekit eula withdraw", "--doc", a->doc)) return gk_usage(gk_eula_usage);
    gatekit_store *store = NULL;
    if (gk_existing_store(cli, &store)) return GK_EXIT_ERROR;
    gatekit_eula_consent how;
    int status = consent_of(a, 0, &how);
    if (status) return status;
    int rc = store ? eula_withdraw(store, a->doc, a->user, &how) : GATEKIT_ENOTFOUND;
    if (rc == GATEKIT_ENOTFOUND) {
        fprintf(stderr, "gatekit: eula %s: no acceptance in force to withdraw; nothing recorded\n", a->doc);
        return GK_EXIT_NO;
    }
    if (rc < 0) return gk_fail("eula_withdraw", rc);
    printf("eula %s: withdrawn; presented again until accepted anew\n", a->doc);
    return GK_EXIT_OK;
}

/* Prints the history JSON as a table: one decision per line. The JSON is GateKit's own
 * (fixed key order, no nesting), so a small scanner is enough here. */
static const char *field(const char *entry, const char *key, char *out, size_t cap) {
    char pattern[32];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr(entry, pattern);
    out[0] = 0;
    if (!p) return out;
    p += strlen(pattern);
    if (strncmp(p, "null", 4) == 0) {
        snprintf(out, cap, "(default)");
        return out;
    }
    if (*p != '"') return out;
    size_t n = 0;
    for (p++; *p && *p != '"' && n + 1 < cap; p++) {
        if (*p == '\\' && p[1]) p++;
        out[n++] = *p;
    }
    out[n] = 0;
    return out;
}

/* The entry after `entry` (the '{' that opens one): skips nested objects and strings. */
static const char *next_entry(const char *entry) {
    int depth = 0, in_string = 0;
    for (const char *p = entry; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_string = 0;
        } else if (*p == '"') {
            in_string = 1;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}' && --depth == 0) {
            return strchr(p, '{');
        }
    }
    return NULL;
}

static int history(gk_cli *cli, const eula_args *a) {
    gatekit_store *store = NULL;
    if (gk_existing_store(cli, &store)) return GK_EXIT_ERROR;
    char *json = NULL;
    int rc = !store ? 0 : a->all ? eula_history_all(&json, store, a->doc) : eula_history(&json, store, a->doc, a->user);
    if (rc < 0) return gk_fail("eula_history", rc);
    if (!json) {  /* no store yet: no decisions (the same JSON an empty store gives) */
        if (a->json) puts("{\"version\":1,\"decisions\":[]}");
        else printf("%-24s  %-10s  %-16s  %-9s  %-13s  %s\n", "at", "document", "user", "decision", "method", "sha256");
        return GK_EXIT_OK;
    }
    if (a->json) {
        puts(json);
    } else {
        printf("%-24s  %-10s  %-16s  %-9s  %-13s  %s\n", "at", "document", "user", "decision", "method", "sha256");
        for (const char *e = gk_json_first_item(json); e; e = next_entry(e)) {
            char at[40], doc[64], user[64], decision[16], method[16], hash[70];
            const char *end = next_entry(e);
            field(e, "method", method, sizeof method);
            if (!method[0] || (end && strstr(e, "\"method\":") > end)) snprintf(method, sizeof method, "-");
            printf("%-24s  %-10s  %-16s  %-9s  %-13s  %s\n", field(e, "at", at, sizeof at), field(e, "document_id", doc, sizeof doc),
                   field(e, "user", user, sizeof user), field(e, "decision", decision, sizeof decision), method,
                   field(e, "hash", hash, sizeof hash));
        }
    }
    gatekit_free(json);
    return GK_EXIT_OK;
}

static int minor(gk_cli *cli, const eula_args *a) {
    if (gk_missing("gatekit eula minor", "--doc", a->doc) || gk_missing("gatekit eula minor", "--from HASH", a->from) ||
        gk_missing("gatekit eula minor", "--to HASH", a->to))
        return gk_usage(gk_eula_usage);
    gatekit_store *store = gk_store(cli);
    if (!store) return GK_EXIT_ERROR;
    int rc = eula_mark_minor_revision(store, a->doc, a->from, a->to);
    if (rc < 0) return gk_fail("eula_mark_minor_revision", rc);
    printf("eula %s: %s is a minor revision of %s\n", a->doc, a->to, a->from);
    return GK_EXIT_OK;
}

int gk_cmd_eula(gk_cli *cli, int argc, char **argv) {
    if (argc < 2) return gk_usage(gk_eula_usage);
    eula_args a = {0};
    if (parse(argc, argv, &a) < 0) {
        free_args(&a);
        return gk_usage(gk_eula_usage);
    }
    const char *sub = argv[1];
    int status;
    if (strcmp(sub, "status") == 0) status = status_of(cli, &a);
    else if (strcmp(sub, "show") == 0) status = show(cli, &a);
    else if (strcmp(sub, "check") == 0) status = check(cli, &a);
    else if (strcmp(sub, "accept") == 0) status = record(cli, &a, 1);
    else if (strcmp(sub, "decline") == 0) status = record(cli, &a, 0);
    else if (strcmp(sub, "withdraw") == 0) status = withdraw(cli, &a);
    else if (strcmp(sub, "history") == 0) status = history(cli, &a);
    else if (strcmp(sub, "minor") == 0) status = minor(cli, &a);
    else if (strcmp(sub, "publish") == 0) status = gk_eula_publish(cli, &a);
    else if (strcmp(sub, "export") == 0) status = gk_eula_export(cli, &a);
    else if (strcmp(sub, "verify-export") == 0) status = gk_eula_verify_export(cli, &a);
    else {
        fprintf(stderr, "gatekit eula: unknown subcommand %s\n", sub);
        status = gk_usage(gk_eula_usage);
    }
    free_args(&a);
    return status;
}

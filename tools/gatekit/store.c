/* gatekit store: where the store is, what it holds, and whether it is sound. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_store_subcommands[] = {"check", "path", "info", NULL};

const char gk_store_usage[] =
    "gatekit [--store PATH] store <subcommand>\n"
    "  path    print the store file's path (exit 3 when there is no store yet: nothing is created)\n"
    "  info    path, file sizes, number of EULA decisions (exit 3 when there is no store yet)\n"
    "  check [--json]  full integrity check: exit 0 when sound, 5 when the file is damaged or not a\n"
    "          GateKit store (the problems are printed; the file is never modified)";

/* The file named by --store or $GATEKIT_STORE, if any (else the library picks the path). */
static const char *explicit_path(const gk_cli *cli) {
    if (cli->store_path) return cli->store_path;
    const char *env = getenv("GATEKIT_STORE");
    return env && *env ? env : NULL;
}

/* The answer of store check, as text or JSON: sound, or damaged with the reason. */
static int verdict(const char *path, int rc, int as_json) {
    if (as_json) {
        printf("{\"path\":");
        gk_json_string(stdout, path);
        printf(",\"sound\":%s", rc == 0 ? "true" : "false");
        if (rc != 0) {
            printf(",\"code\":%d,\"error\":", rc);
            gk_json_string(stdout, gatekit_strerror(rc));
            printf(",\"detail\":");
            gk_json_string(stdout, gatekit_last_error());
        }
        printf("}\n");
    } else if (rc == 0) {
        printf("ok: %s\n", path);
    }
    if (rc == 0) return GK_EXIT_OK;
    fprintf(stderr, "gatekit: store %s is damaged: %s (%s)\n", path, gatekit_strerror(rc), gatekit_last_error());
    return GK_EXIT_STORE_DAMAGED;
}

static int is_damage(int rc) {
    return rc == GATEKIT_ECORRUPT || rc == GATEKIT_ENOTSTORE;
}

static int store_check(gk_cli *cli, int as_json) {
    const char *path = explicit_path(cli);
    struct stat st;
    if (path && stat(path, &st) != 0) {  /* checking must never create a store */
        fprintf(stderr, "gatekit: no store at %s: %s\n", path, strerror(errno));
        return GK_EXIT_ERROR;
    }
    int rc = gatekit_store_open_flags(&cli->store, cli->store_path, cli->app_id ? cli->app_id : "gatekit", GATEKIT_STORE_EXISTING);
    if (rc == GATEKIT_ENOTFOUND) {
        fprintf(stderr, "gatekit: no store to check: %s\n", gatekit_last_error());
        return GK_EXIT_ERROR;
    }
    if (is_damage(rc)) return verdict(path ? path : "(default)", rc, as_json);
    if (rc < 0) return gk_fail("cannot open the store", rc);
    rc = gatekit_store_check(cli->store);
    if (rc < 0 && !is_damage(rc)) return gk_fail("gatekit_store_check", rc);
    return verdict(gatekit_store_path(cli->store), rc, as_json);
}

static long long file_size(const char *path, const char *suffix) {
    char name[4096];
    snprintf(name, sizeof name, "%s%s", path, suffix);
    struct stat st;
    return stat(name, &st) == 0 ? (long long)st.st_size : -1;
}

static int store_info(gk_cli *cli) {
    int status;
    gatekit_store *store = gk_asked_store(cli, "gatekit store info", &status);
    if (!store) return status;
    const char *path = gatekit_store_path(store);
    char *json = NULL;
    int rc = eula_history_all(&json, store, NULL);
    if (rc < 0) return gk_fail("eula_history_all", rc);
    long decisions = 0;
    for (const char *p = strstr(json, "\"document_id\""); p; p = strstr(p + 1, "\"document_id\"")) decisions++;
    gatekit_free(json);
    printf("path:       %s\n", path);
    printf("file:       %lld bytes\n", file_size(path, ""));
    long long wal = file_size(path, "-wal");
    if (wal >= 0) printf("wal:        %lld bytes\n", wal);
    printf("decisions:  %ld (EULA)\n", decisions);
    printf("library:    %s\n", gatekit_version());
    return GK_EXIT_OK;
}

int gk_cmd_store(gk_cli *cli, int argc, char **argv) {
    if (argc < 2) return gk_usage(gk_store_usage);
    int as_json = argc == 3 && strcmp(argv[1], "check") == 0 && strcmp(argv[2], "--json") == 0;
    if (argc > 2 + as_json) {
        fprintf(stderr, "gatekit store %s: unexpected argument %s\n", argv[1], argv[2]);
        return gk_usage(gk_store_usage);
    }
    if (strcmp(argv[1], "check") == 0) return store_check(cli, as_json);
    if (strcmp(argv[1], "info") == 0) return store_info(cli);
    if (strcmp(argv[1], "path") == 0) {
        int status;
        gatekit_store *store = gk_asked_store(cli, "gatekit store path", &status);
        if (!store) return status;
        puts(gatekit_store_path(store));
        return GK_EXIT_OK;
    }
    fprintf(stderr, "gatekit store: unknown subcommand %s\n", argv[1]);
    return gk_usage(gk_store_usage);
}

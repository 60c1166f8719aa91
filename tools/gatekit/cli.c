#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

gatekit_store *gk_store(gk_cli *cli) {
    if (cli->store) return cli->store;
    int rc = gatekit_store_open(&cli->store, cli->store_path, cli->app_id ? cli->app_id : "gatekit");
    if (rc < 0) {
        gk_fail("cannot open the store", rc);
        return NULL;
    }
    return cli->store;
}

int gk_fail(const char *what, int rc) {
    fprintf(stderr, "gatekit: %s: %s (%s)\n", what, gatekit_strerror(rc), gatekit_last_error());
    return GK_EXIT_ERROR;
}

int gk_usage(const char *text) {
    fprintf(stderr, "usage: %s\n", text);
    return GK_EXIT_USAGE;
}

int gk_option(int argc, char **argv, int *i, const char *name, const char **value) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != '\0') return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "gatekit: %s needs a value\n", name);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    return 1;
}

unsigned char *gk_read_all(const char *path, size_t *len) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gatekit: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 64 * 1024, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) { free(buf); buf = NULL; break; }
            buf = bigger;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    if (f != stdin) fclose(f);
    if (!buf || failed) {
        fprintf(stderr, "gatekit: cannot read %s\n", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

const char *gk_json_first_item(const char *json) {
    const char *items = json ? strchr(json, '[') : NULL;
    return items ? strchr(items, '{') : NULL;
}

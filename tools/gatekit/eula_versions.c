/* gatekit eula publish|export|verify-export, and the published-version forms of status and
 * check: documents with translations and schedules, and the export that proves consent. */
#include "eula_args.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --at, or now (0); -1 after printing why. */
static long long instant(const eula_args *a) {
    if (!a->at) return 0;
    long long ms = gk_parse_time_ms(a->at);
    if (ms <= 0) fprintf(stderr, "gatekit eula: --at takes Unix seconds or YYYY-MM-DDTHH:MM:SSZ, not \"%s\"\n", a->at);
    return ms <= 0 ? -1 : ms;
}

static void print_instant(long long ms) {
    time_t seconds = (time_t)(ms / 1000);
    struct tm tm;
    char text[40] = "?";
    if (gmtime_r(&seconds, &tm)) strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs(text, stdout);
}

/* The published version in effect for `user` at --at, in --language, asked of *store (when
 * NULL, of the existing store, opened without creating one). 0 and *p filled, else the exit
 * status after printing why. */
static int ask_published(gk_cli *cli, gatekit_store **store, const eula_args *a, const char *user, gatekit_eula_presentation *p) {
    long long at = instant(a);
    if (at < 0) return GK_EXIT_USAGE;
    if (!*store) {
        if (gk_existing_store(cli, store)) return GK_EXIT_ERROR;
        if (!*store) {
            fprintf(stderr, "gatekit: eula %s: no version is published (no store yet)\n", a->doc);
            return GK_EXIT_ERROR;
        }
    }
    *p = (gatekit_eula_presentation){.version = GATEKIT_EULA_PRESENTATION_VERSION};
    int rc = eula_should_present_at(p, *store, a->doc, user, a->language, at);
    return rc < 0 ? gk_fail("eula_should_present_at", rc) : GK_EXIT_OK;
}

/* The bytes of the text `p` names (malloc'd) and its hash; 0, else the exit status. */
static int published_text(gatekit_store *store, const eula_args *a, const gatekit_eula_presentation *p, unsigned char **text, size_t *len,
                          char hash[GATEKIT_HASH_HEX_SIZE]) {
    void *bytes = NULL;
    int rc = eula_text(&bytes, len, store, a->doc, p->hash);
    if (rc < 0) return gk_fail("eula_text", rc);
    *text = bytes;
    memcpy(hash, p->hash, GATEKIT_HASH_HEX_SIZE);
    return GK_EXIT_OK;
}

int gk_eula_publish(gk_cli *cli, const eula_args *a) {
    const char *who = "gatekit eula publish";
    if (gk_missing(who, "--doc", a->doc) || gk_missing(who, "--label", a->label) ||
        gk_missing(who, "--text", a->text_count ? "given" : NULL))
        return gk_usage(gk_eula_usage);
    gatekit_eula_publication p = GATEKIT_EULA_PUBLICATION_INIT;
    p.label = a->label;
    p.default_language = a->default_language ? a->default_language : a->texts[0].language;
    p.texts = a->texts;
    p.text_count = a->text_count;
    if (a->effective && (p.effective_ms = gk_parse_time_ms(a->effective)) <= 0) {
        fprintf(stderr, "gatekit eula publish: --effective takes Unix seconds or YYYY-MM-DDTHH:MM:SSZ, not \"%s\"\n", a->effective);
        return GK_EXIT_USAGE;
    }
    if (a->grace_days) {
        long long days = gk_number(a->grace_days);
        if (days < 0 || days > 3660) {
            fprintf(stderr, "gatekit eula publish: --grace-days takes 0 to 3660, not \"%s\"\n", a->grace_days);
            return GK_EXIT_USAGE;
        }
        p.grace_ms = days * 86400000LL;
    }
    gatekit_store *store = gk_store(cli);
    if (!store) return GK_EXIT_ERROR;
    int rc = eula_publish(store, a->doc, &p);
    if (rc < 0) return gk_fail("eula_publish", rc);
    printf("eula %s: version %s published, %zu text%s, in effect from ", a->doc, a->label, a->text_count, a->text_count == 1 ? "" : "s");
    if (p.effective_ms) print_instant(p.effective_ms); else fputs("now", stdout);
    if (p.grace_ms) printf(" (grace %s days)", a->grace_days);
    putchar('\n');
    return GK_EXIT_OK;
}

static const char *status_name(int status) {
    return status == GATEKIT_EULA_ACCEPTED ? "accepted" : status == GATEKIT_EULA_IN_GRACE ? "in-grace" : "required";
}

int gk_eula_published_status(gk_cli *cli, const eula_args *a) {
    if (gk_missing("gatekit eula status", "--doc", a->doc)) return gk_usage(gk_eula_usage);
    gatekit_store *store = NULL;
    gatekit_eula_presentation p;
    int status = ask_published(cli, &store, a, a->user, &p);
    if (status) return status;
    int rc = p.status == GATEKIT_EULA_REQUIRED;
    if (a->json) {
        printf("{\"document\":");
        gk_json_string(stdout, a->doc);
        printf(",\"status\":\"%s\",\"present\":%s,\"version\":", status_name(p.status), rc ? "true" : "false");
        gk_json_string(stdout, p.label);
        printf(",\"language\":\"%s\",\"hash\":\"%s\",\"effective_ms\":%lld,\"required_at_ms\":%lld,\"next_effective_ms\":",
               p.language, p.hash, p.effective_ms, p.required_at_ms);
        if (p.next_effective_ms) printf("%lld}\n", p.next_effective_ms); else puts("null}");
    } else {
        printf("%s %s %s %s %s", status_name(p.status), a->doc, p.label, p.language, p.hash);
        if (p.status == GATEKIT_EULA_IN_GRACE) { fputs(" required-at ", stdout); print_instant(p.required_at_ms); }
        putchar('\n');
    }
    return rc ? GK_EXIT_NO : GK_EXIT_OK;
}

int gk_eula_published_text(gatekit_store *store, const eula_args *a, unsigned char **text, size_t *len, char hash[GATEKIT_HASH_HEX_SIZE]) {
    gatekit_eula_presentation p;
    int status = ask_published(NULL, &store, a, a->user, &p);
    if (status) return -status;
    if (p.status != GATEKIT_EULA_REQUIRED) {
        printf("eula %s: version %s %s (%s, sha256 %s), not presented", a->doc, p.label,
               p.status == GATEKIT_EULA_ACCEPTED ? "accepted" : "in grace", p.language, p.hash);
        if (p.status == GATEKIT_EULA_IN_GRACE) { fputs("; required from ", stdout); print_instant(p.required_at_ms); }
        putchar('\n');
        return 0;
    }
    status = published_text(store, a, &p, text, len, hash);
    return status ? -status : 1;
}

int gk_eula_show_published(gk_cli *cli, const eula_args *a, unsigned char **text, size_t *len, char hash[GATEKIT_HASH_HEX_SIZE]) {
    gatekit_store *store = NULL;
    gatekit_eula_presentation p;
    int status = ask_published(cli, &store, a, NULL, &p);
    return status ? status : published_text(store, a, &p, text, len, hash);
}

static int write_out(void *context, const void *bytes, size_t length) {
    return gk_write_all(*(int *)context, bytes, length) == 0 ? 0 : 1;
}

int gk_eula_export(gk_cli *cli, const eula_args *a) {
    if (a->all && a->user) {
        fprintf(stderr, "gatekit eula export: --all or --user, not both\n");
        return GK_EXIT_USAGE;
    }
    gatekit_store *store = NULL;
    if (gk_existing_store(cli, &store)) return GK_EXIT_ERROR;
    if (!store) {
        fprintf(stderr, "gatekit: no store yet: nothing to export\n");
        return GK_EXIT_ERROR;
    }
    /* A new file only: never through a planted symbolic link, never over another file. */
    int fd = gk_create_output(a->output);
    if (fd < 0) return GK_EXIT_ERROR;
    unsigned flags = (a->csv ? GATEKIT_EULA_EXPORT_CSV : 0) | (a->all ? GATEKIT_EULA_EXPORT_EVERYONE : 0) |
                     (a->with_texts ? GATEKIT_EULA_EXPORT_TEXTS : 0);
    long long count = 0;
    int rc = eula_export(&count, store, a->doc, a->user, flags, write_out, &fd);
    int closed = fd == STDOUT_FILENO ? 0 : close(fd);
    if (rc < 0) return gk_fail("eula_export", rc);
    if (closed != 0) {
        fprintf(stderr, "gatekit: %s: %s\n", a->output, strerror(errno));
        return GK_EXIT_ERROR;
    }
    if (a->output) printf("eula export: %lld decision%s written to %s\n", count, count == 1 ? "" : "s", a->output);
    return GK_EXIT_OK;
}

int gk_eula_verify_export(gk_cli *cli, const eula_args *a) {
    if (gk_missing("gatekit eula verify-export", "--file", a->file)) return gk_usage(gk_eula_usage);
    gatekit_store *store = NULL;
    if (gk_existing_store(cli, &store)) return GK_EXIT_ERROR;
    if (!store) {
        fprintf(stderr, "gatekit: no store to check the export against\n");
        return GK_EXIT_ERROR;
    }
    long long count = 0;
    int rc = eula_verify_export(&count, store, a->file);
    if (rc == GATEKIT_EEULA_EXPORT_ALTERED) {
        fprintf(stderr, "gatekit: %s does not match the store: %s\n", a->file, gatekit_last_error());
        return GK_EXIT_ALTERED;
    }
    if (rc < 0) return gk_fail("eula_verify_export", rc);
    printf("eula export %s: %lld decisions, as the store holds them\n", a->file, count);
    return GK_EXIT_OK;
}

/* gatekit eula: the parsed command line, shared by the gate (eula.c) and published versions
 * and the consent export (eula_versions.c). */
#ifndef GK_EULA_ARGS_H
#define GK_EULA_ARGS_H

#include "cli.h"

enum { GK_EULA_MAX_META = 32, GK_EULA_MAX_TEXTS = 64 };

typedef struct {
    const char *doc, *file, *user, *hash, *from, *to, *accept_hash;
    const char *method, *client_address, *user_agent, *locale;
    const char *meta_keys[GK_EULA_MAX_META], *meta_values[GK_EULA_MAX_META];
    char *meta_text[GK_EULA_MAX_META];  /* KEY=VALUE copies split at "=" */
    size_t meta_count;
    /* Published versions: --label, --text LANG=PATH (repeatable), --default-language,
     * --effective, --grace-days; questions: --language, --at; the export: --csv, --texts,
     * --output. */
    const char *label, *default_language, *effective, *grace_days, *language, *at, *output;
    gatekit_eula_text texts[GK_EULA_MAX_TEXTS];
    char *text_spec[GK_EULA_MAX_TEXTS];  /* LANG=PATH copies split at "=" */
    size_t text_count;
    int accept, all, json, csv, with_texts;
} eula_args;

int gk_eula_publish(gk_cli *cli, const eula_args *a);
/* eula status without --file: the published version in effect. */
int gk_eula_published_status(gk_cli *cli, const eula_args *a);
/* The published text `a` asks about (at --at, in --language): 1 and its bytes (malloc'd) and
 * hash when it must be presented, 0 when not (accepted, or in grace: printed), else -exit. */
int gk_eula_published_text(gatekit_store *store, const eula_args *a, unsigned char **text, size_t *len, char hash[GATEKIT_HASH_HEX_SIZE]);
/* eula show without --file: the published text in effect (at --at, in --language), whatever
 * the user decided. 0 and its bytes (malloc'd) and hash, else the exit status. */
int gk_eula_show_published(gk_cli *cli, const eula_args *a, unsigned char **text, size_t *len, char hash[GATEKIT_HASH_HEX_SIZE]);
int gk_eula_export(gk_cli *cli, const eula_args *a);
int gk_eula_verify_export(gk_cli *cli, const eula_args *a);

#endif

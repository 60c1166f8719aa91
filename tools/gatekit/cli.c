#include "cli.h"

#include <ctype.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

gatekit_store *gk_store(gk_cli *cli) {
    if (cli->store) return cli->store;
    int rc = gatekit_store_open(&cli->store, cli->store_path, cli->app_id ? cli->app_id : "gatekit");
    if (rc < 0) {
        gk_fail("cannot open the store", rc);
        return NULL;
    }
    return cli->store;
}

int gk_existing_store(gk_cli *cli, gatekit_store **out) {
    *out = NULL;
    if (cli->store) {
        *out = cli->store;
        return 0;
    }
    int rc = gatekit_store_open_flags(&cli->store, cli->store_path, cli->app_id ? cli->app_id : "gatekit", GATEKIT_STORE_EXISTING);
    if (rc == GATEKIT_ENOTFOUND) return 0;
    if (rc < 0) return gk_fail("cannot open the store", rc);
    *out = cli->store;
    return 0;
}

gatekit_store *gk_asked_store(gk_cli *cli, const char *who, int *status) {
    gatekit_store *store = NULL;
    *status = gk_existing_store(cli, &store);
    if (!*status && !store) {
        fprintf(stderr, "%s: no store yet: %s\n"
                "  Questions never create one (recording does: ledger ingest, sync, link, catalog declare); check\n"
                "  --store, or --app-id (the default store is named after it, default \"gatekit\").\n", who, gatekit_last_error());
        *status = GK_EXIT_NO;
    }
    return store;
}

/* An empty store in a private temporary folder (cli->scratch), which gk_close removes. */
static gatekit_store *scratch_store(gk_cli *cli, gatekit_store **slot) {
    snprintf(cli->scratch, sizeof cli->scratch, "/tmp/gatekit-empty-XXXXXX");
    const char *tmp = getenv("TMPDIR");
    if (tmp && *tmp && strlen(tmp) + sizeof "/gatekit-empty-XXXXXX" <= sizeof cli->scratch)
        snprintf(cli->scratch, sizeof cli->scratch, "%s/gatekit-empty-XXXXXX", tmp);
    if (!mkdtemp(cli->scratch)) {
        fprintf(stderr, "gatekit: cannot make a temporary folder for an empty store: %s\n", strerror(errno));
        cli->scratch[0] = 0;
        return NULL;
    }
    char path[sizeof cli->scratch + 16];
    snprintf(path, sizeof path, "%s/empty.sqlite", cli->scratch);
    int rc = gatekit_store_open(slot, path, NULL);
    if (rc < 0) {
        gk_fail("cannot open an empty store", rc);
        return NULL;
    }
    return *slot;
}

gatekit_store *gk_question_store(gk_cli *cli) {
    gatekit_store *store = NULL;
    if (gk_existing_store(cli, &store)) return NULL;
    if (store) return store;
    return scratch_store(cli, &cli->store);
}

int gk_record(gk_cli *cli, gk_recorder record, void *context, char **json) {
    gatekit_store *store = NULL;
    if (gk_existing_store(cli, &store)) return GK_NOT_OPENED;
    if (!store) {
        /* Nothing exists yet: an empty store's verdict is exactly a new store's, so the data is
         * tried on a scratch store first and a refusal creates nothing where the store would be. */
        gatekit_store *trial = NULL;
        if (!scratch_store(cli, &trial)) return GK_NOT_OPENED;
        char *ignored = NULL;
        int rc = record(&ignored, trial, context);
        gatekit_free(ignored);
        gatekit_store_close(trial);
        if (rc < 0) return rc;
        if (!(store = gk_store(cli))) return GK_NOT_OPENED;
    }
    return record(json, store, context);
}

void gk_close(gk_cli *cli) {
    gatekit_store_close(cli->store);
    cli->store = NULL;
    if (!cli->scratch[0]) return;
    static const char *const files[] = {"empty.sqlite", "empty.sqlite-wal", "empty.sqlite-shm", "empty.sqlite-journal"};
    char path[sizeof cli->scratch + 32];
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        snprintf(path, sizeof path, "%s/%s", cli->scratch, files[f]);
        unlink(path);
    }
    rmdir(cli->scratch);
    cli->scratch[0] = 0;
}

int gk_missing(const char *who, const char *name, const char *value) {
    if (value) return 0;
    fprintf(stderr, "%s: missing %s\n", who, name);
    return 1;
}

int gk_jws_kind(const char *who, const char *option, const char *name) {
    /* One list: the names, and the GATEKIT_JWS_* kind each names at the same position. */
    static const char *const names[] = {"notification", "transaction", "renewal-info", "app-transaction", "realtime-request", NULL};
    static const int kinds[] = {GATEKIT_JWS_NOTIFICATION, GATEKIT_JWS_TRANSACTION, GATEKIT_JWS_RENEWAL_INFO,
                                GATEKIT_JWS_APP_TRANSACTION, GATEKIT_JWS_REALTIME_REQUEST};
    for (size_t k = 0; names[k]; k++)
        if (strcmp(name, names[k]) == 0) return kinds[k];
    const char *near = gk_nearest(name, names);
    fprintf(stderr, "%s: %s %s is not notification, transaction, renewal-info, app-transaction or realtime-request%s%s%s\n", who,
            option, name, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    return -1;
}

int gk_check_environment(const char *who, const char *name) {
    static const char *const names[] = {"Production", "Sandbox", "Xcode", "LocalTesting"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
        if (strcmp(name, names[n]) == 0) return 0;
    fprintf(stderr, "%s: --environment %s is not Production, Sandbox, Xcode or LocalTesting (spelled as Apple spells them)\n", who, name);
    return GK_EXIT_USAGE;
}

int gk_fail(const char *what, int rc) {
    /* "gatekit ledger sync: …", never "gatekit: gatekit ledger sync: …". */
    fprintf(stderr, "%s%s: %s (%s)\n", strncmp(what, "gatekit ", 8) == 0 ? "" : "gatekit: ", what, gatekit_strerror(rc), gatekit_last_error());
    return GK_EXIT_ERROR;
}

/* The command and subcommand being run (main sets them): usage after a mistake shows only that
 * subcommand's entries. */
static const char *usage_command, *usage_subcommand;

void gk_usage_context(const char *command, const char *subcommand) {
    usage_command = command;
    usage_subcommand = subcommand;
}

/* The first word of an entry line of a usage text — "gatekit <command> WORD …" (returns 1) or
 * "  WORD …" (two spaces: the eula and perm style; returns 2) — as [*word, *word + *length);
 * 0 when the line is not an entry (a continuation indented deeper, or a note). */
static int entry_word(const char *line, size_t line_length, const char *command, const char **word, size_t *length) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "gatekit %s ", command);
    size_t n = strlen(prefix);
    const char *w;
    int style;
    if (line_length > n && strncmp(line, prefix, n) == 0) w = line + n, style = 1;
    else if (line_length > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') w = line + 2, style = 2;
    else return 0;
    size_t k = 0;
    while (w + k < line + line_length && w[k] != ' ') k++;
    *word = w;
    *length = k;
    return style;
}

/* Prints to out the entries of text that are about subcommand — each group of entry lines
 * with the lines indented under them — and returns how many groups it printed. Consecutive
 * "gatekit <command> …" entries share what follows (link and unlink); "  WORD" entries are
 * one line each unless the word repeats (eula status, twice). */
static int print_entries(FILE *out, const char *text, const char *command, const char *subcommand) {
    int printed = 0, matches = 0, in_group = 0, seen_continuation = 0;
    const char *group = text, *last_word = "";
    size_t last_length = 0;
    for (const char *line = text; ; ) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *word = "";
        size_t wlen = 0;
        int entry = *line ? entry_word(line, len, command, &word, &wlen) : 0;
        int continuation = !entry && len > 2 && line[0] == ' ' && line[1] == ' ' && line[2] == ' ';
        int another = entry == 2 && (wlen != last_length || strncmp(word, last_word, wlen) != 0);
        /* The group so far ends at a note, the text's end, or an entry after its continuations. */
        if (in_group && (!(entry || continuation) || (entry && (seen_continuation || another)))) {
            if (matches) {
                fprintf(out, "%.*s\n", (int)(line - group - (line > group && line[-1] == '\n')), group);
                printed++;
            }
            in_group = matches = seen_continuation = 0;
        }
        if (entry) {
            if (!in_group) group = line;
            in_group = 1;
            last_word = word;
            last_length = wlen;
            if (wlen == strlen(subcommand) && strncmp(word, subcommand, wlen) == 0) matches = 1;
        } else if (continuation && in_group) {
            seen_continuation = 1;
        }
        if (!eol) break;
        line = eol + 1;
    }
    if (in_group && matches) {
        fprintf(out, "%s\n", group);
        printed++;
    }
    return printed;
}

int gk_usage(const char *text) {
    if (usage_command && usage_subcommand && usage_subcommand[0] != '-') {
        fprintf(stderr, "usage:\n");
        if (print_entries(stderr, text, usage_command, usage_subcommand) > 0) {
            fprintf(stderr, "(gatekit help %s: every subcommand, and the notes that apply to them all)\n", usage_command);
            return GK_EXIT_USAGE;
        }
    }
    fprintf(stderr, "usage: %s\n", text);
    return GK_EXIT_USAGE;
}

int gk_option(int argc, char **argv, int *i, const char *name, const char **value) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        if (!**value) {
            fprintf(stderr, "gatekit: %s= is empty; it needs a value (is a shell variable unset?)\n", name);
            return -1;
        }
        return 1;
    }
    if (arg[n] != '\0') return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "gatekit: %s needs a value\n", name);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    if (!**value) {  /* --bundle-id "" (an unset shell variable): say which option */
        fprintf(stderr, "gatekit: %s is empty; it needs a value (is a shell variable unset?)\n", name);
        return -1;
    }
    return 1;
}

/* Reads at most `limit` bytes of an open stream; more is an error (a file such as /dev/zero
 * would otherwise take all memory). */
static unsigned char *read_stream(FILE *f, const char *path, size_t limit, size_t *len) {
    size_t cap = 64 * 1024, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n > limit) {
            fprintf(stderr, "gatekit: %s is larger than %zu bytes, the most this input may be\n", path, limit);
            free(buf);
            return NULL;
        }
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) { free(buf); buf = NULL; break; }
            buf = bigger;
            cap *= 2;
        }
    }
    if (!buf || ferror(f)) {
        fprintf(stderr, "gatekit: cannot read %s\n", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

unsigned char *gk_read_limited(const char *path, size_t limit, size_t *len) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gatekit: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char *buf = read_stream(f, path, limit, len);
    if (f != stdin) fclose(f);
    return buf;
}

unsigned char *gk_read_all(const char *path, size_t *len) {
    return gk_read_limited(path, GK_READ_LIMIT, len);
}

unsigned char *gk_read_data(const char *who, const char *path, size_t *len) {
    unsigned char *data = gk_read_all(path, len);
    if (!data || *len > 0) return data;
    if (strcmp(path, "-") == 0)
        fprintf(stderr, "%s: standard input is empty: did the command before the pipe fail? (bash's set -o pipefail makes a pipe\n"
                        "  fail with it)\n", who);
    else fprintf(stderr, "%s: %s is empty\n", who, path);
    free(data);
    return NULL;
}

/* A private key file is judged as a store file is: not a symbolic link, a regular file of this
 * user (or root) that no one else can write; one that others can read is used with a warning
 * (the secret may already be out). */
unsigned char *gk_read_secret(const char *path, size_t *len) {
    if (strcmp(path, "-") == 0) return read_stream(stdin, path, GK_SECRET_LIMIT, len);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "gatekit: cannot open the key %s: %s\n", path,
                errno == ELOOP ? "it is a symbolic link (refused: its target could be changed)" : strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *refused = NULL;
    if (fstat(fd, &st) != 0) refused = "cannot stat it";
    else if (!S_ISREG(st.st_mode)) refused = "it is not a regular file";
    else if (st.st_uid != geteuid() && st.st_uid != 0) refused = "another user owns it";
    else if (st.st_mode & (S_IWGRP | S_IWOTH)) refused = "other users can write it (chmod 600 it)";
    if (refused) {
        fprintf(stderr, "gatekit: the key %s is refused: %s\n", path, refused);
        close(fd);
        return NULL;
    }
    if (st.st_mode & (S_IRGRP | S_IROTH))
        fprintf(stderr, "gatekit: warning: the key %s can be read by other users (mode %04o): chmod 600 it\n", path,
                (unsigned)(st.st_mode & 07777));
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return NULL;
    }
    unsigned char *buf = read_stream(f, path, GK_SECRET_LIMIT, len);
    fclose(f);
    return buf;
}

const char *gk_json_first_item(const char *json) {
    const char *items = json ? strchr(json, '[') : NULL;
    return items ? strchr(items, '{') : NULL;
}

/* A non-negative decimal number, or -1. */
long long gk_number(const char *s) {
    if (!s || !*s) return -1;
    long long v = 0;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) || v > (9223372036854775807LL - 9) / 10) return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* Unix milliseconds from gk_parse_time's forms; -1 when neither, or past what milliseconds
 * hold (a usage error, never an instant that wrapped around). */
long long gk_parse_time_ms(const char *s) {
    long long seconds = gk_parse_time(s);
    if (seconds < 0 || seconds > 9223372036854775807LL / 1000) return -1;
    return seconds * 1000;
}

long long gk_parse_day_ms(const char *s) {
    char full[32];
    if (strlen(s) == 10 && s[4] == '-' && s[7] == '-') {
        snprintf(full, sizeof full, "%sT00:00:00Z", s);
        s = full;
    }
    return gk_parse_time_ms(s);
}

int gk_create_output(const char *path) {
    if (!path || strcmp(path, "-") == 0) return STDOUT_FILENO;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) fprintf(stderr, "gatekit: cannot create %s: %s (a new file only)\n", path, strerror(errno));
    return fd;
}

int gk_write_all(int fd, const void *bytes, size_t length) {
    const char *p = bytes;
    while (length) {
        ssize_t n = write(fd, p, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        length -= (size_t)n;
    }
    return 0;
}

/* Unix seconds from digits or YYYY-MM-DDTHH:MM:SSZ; -1 when neither. */
long long gk_parse_time(const char *s) {
    long long v = gk_number(s);
    if (v >= 0) return v;
    struct tm tm = {0};
    char z = 0, extra = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &z, &extra) != 7 || z != 'Z')
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (long long)timegm(&tm);
}

static int b64value(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* A certificate file as DER: PEM ("-----BEGIN CERTIFICATE-----") is decoded, anything else
 * is passed as is (the library rejects what is not one DER certificate). */
unsigned char *gk_load_certificate(const char *path, size_t *len) {
    unsigned char *raw = gk_read_limited(path, GK_CERTIFICATE_LIMIT, len);
    if (!raw) return NULL;
    const char *begin = "-----BEGIN CERTIFICATE-----";
    if (*len < strlen(begin) || memcmp(raw, begin, strlen(begin)) != 0) return raw;
    unsigned char *der = malloc(*len);
    size_t n = 0;
    unsigned int acc = 0;
    int bits = 0;
    for (size_t i = strlen(begin); der && i < *len && raw[i] != '-'; i++) {
        int v = b64value(raw[i]);
        if (v < 0) continue;
        acc = (acc << 6 | (unsigned int)v) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) { bits -= 8; der[n++] = (unsigned char)(acc >> bits); }
    }
    free(raw);
    *len = n;
    return der;
}

/* A text file (a JWS): surrounding white space removed, NUL-terminated. */
char *gk_load_text(const char *path) {
    size_t len = 0;
    unsigned char *raw = gk_read_all(path, &len);
    if (!raw) return NULL;
    char *text = gk_text(raw, len);
    free(raw);
    return text;
}

char *gk_text(const unsigned char *raw, size_t len) {
    char *text = malloc(len + 1);
    if (!text) return NULL;
    size_t start = 0;
    while (start < len && isspace(raw[start])) start++;
    while (len > start && isspace(raw[len - 1])) len--;
    memcpy(text, raw + start, len - start);
    text[len - start] = 0;
    return text;
}

int gk_signed_option(int argc, char **argv, int *i, gk_signed_options *s) {
    if (strcmp(argv[*i], "--test-production") == 0) {
        s->test_production = 1;
        return 1;
    }
    int r;
    if ((r = gk_option(argc, argv, i, "--bundle-id", &s->bundle_id)) || (r = gk_option(argc, argv, i, "--environment", &s->environment)) ||
        (r = gk_option(argc, argv, i, "--app-apple-id", &s->app_apple_id)) || (r = gk_option(argc, argv, i, "--at", &s->at)) ||
        (r = gk_option(argc, argv, i, "--test-anchor", &s->test_anchor)))
        return r;
    return 0;
}

int gk_jws_options(const char *who, const gk_signed_options *s, int allow_now, gatekit_jws_options *o, unsigned char **anchor) {
    *anchor = NULL;
    if (gk_missing(who, "--bundle-id", s->bundle_id) || gk_missing(who, "--environment", s->environment)) return GK_EXIT_USAGE;
    if (gk_check_environment(who, s->environment)) return GK_EXIT_USAGE;
    /* A library older than this header refuses its version: say so instead of guessing. */
    int rc = jws_options_init(o, GATEKIT_JWS_OPTIONS_VERSION);
    if (rc < 0) return gk_fail("jws_options_init", rc);
    o->bundle_id = s->bundle_id;
    o->environment = s->environment;
    o->flags = s->test_production ? GATEKIT_JWS_TEST_PRODUCTION : 0;
    if (s->app_apple_id && (o->app_apple_id = gk_number(s->app_apple_id)) <= 0) {
        fprintf(stderr, "%s: --app-apple-id must be a positive number\n", who);
        return GK_EXIT_USAGE;
    }
    if (!s->app_apple_id && strcmp(s->environment, "Production") == 0) {
        fprintf(stderr, "%s: Production data is checked against the app's Apple ID: add --app-apple-id N "
                "(App Store Connect, App Information)\n", who);
        return GK_EXIT_USAGE;
    }
    if (s->at && allow_now && strcmp(s->at, "now") == 0) {
        o->verify_time = (long long)time(NULL);
    } else if (s->at && (o->verify_time = gk_parse_time(s->at)) <= 0) {
        fprintf(stderr, "%s: --at must be Unix seconds or YYYY-MM-DDTHH:MM:SSZ%s\n", who, allow_now ? " or now" : "");
        return GK_EXIT_USAGE;
    }
    if (s->test_anchor) {
        size_t len = 0;
        if (!(*anchor = gk_load_certificate(s->test_anchor, &len))) return GK_EXIT_ERROR;
        if (len == 0) {
            fprintf(stderr, "%s: --test-anchor %s is empty: it must hold a certificate (DER or PEM)\n", who, s->test_anchor);
            free(*anchor);
            *anchor = NULL;
            return GK_EXIT_USAGE;
        }
        o->test_anchor_der = *anchor;
        o->test_anchor_len = len;
    }
    return 0;
}

gatekit_appstore_key *gk_load_appstore_key(const char *path, const char *key_id, const char *issuer_id, const char *bundle_id) {
    size_t pem_len = 0;
    unsigned char *pem = gk_read_secret(path, &pem_len);
    if (!pem) return NULL;
    gatekit_appstore_key *key = NULL;
    int rc = appstore_key_load(&key, pem, pem_len, key_id, issuer_id, bundle_id);
    free(pem);
    if (rc < 0) gk_fail("the key", rc);
    return rc < 0 ? NULL : key;
}

void gk_json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* The verdict class of a refusal code, as receipts and signed data share it. */
static int verdict_exit(int rc) {
    switch (rc) {
    case GATEKIT_EJWS_MALFORMED: case GATEKIT_EJWS_ALGORITHM: case GATEKIT_EJWS_PAYLOAD_FIELD:
        return GK_EXIT_MALFORMED;
    case GATEKIT_EJWS_CHAIN_LENGTH: case GATEKIT_EJWS_UNTRUSTED: case GATEKIT_EJWS_LEAF_OID:
    case GATEKIT_EJWS_INTERMEDIATE_OID: case GATEKIT_EJWS_CERT_TIME: case GATEKIT_EJWS_SIGNATURE:
    case GATEKIT_EJWS_TEST_SIGNED: case GATEKIT_EJWS_CERTIFICATE: case GATEKIT_EJWS_BUNDLE_ID:
    case GATEKIT_EJWS_APP_APPLE_ID:
        return GK_EXIT_NOT_AUTHENTIC;
    case GATEKIT_EJWS_ENVIRONMENT:
        return GK_EXIT_OTHER_ENVIRONMENT;
    default:
        break;
    }
    if (rc > -100 || rc <= -200) return GK_EXIT_ERROR;  /* not a receipt verdict */
    switch (receipt_apple_status(rc)) {
    case 21002: return GK_EXIT_MALFORMED;
    case 21003: return GK_EXIT_NOT_AUTHENTIC;
    case 21007: case 21008: return GK_EXIT_OTHER_ENVIRONMENT;
    default: return GK_EXIT_ERROR;
    }
}

int gk_refused(const char *who, int rc) {
    /* Not a verdict on the data (a file that cannot be read, a bad argument): exit 1 is never JSON. */
    if (verdict_exit(rc) == GK_EXIT_ERROR) {
        fprintf(stderr, "gatekit %s: %s (%s)\n", who, gatekit_strerror(rc), gatekit_last_error());
        return GK_EXIT_ERROR;
    }
    int receipt = rc <= -100 && rc > -200;
    int status = receipt ? receipt_apple_status(rc) : 0;
    if (receipt) printf("{\"status\":%d,", status);
    else printf("{\"status\":null,");
    printf("\"code\":%d,\"error\":", rc);
    gk_json_string(stdout, gatekit_strerror(rc));
    printf(",\"detail\":");
    gk_json_string(stdout, gatekit_last_error());
    printf("}\n");
    if (receipt) fprintf(stderr, "gatekit %s: %s (%s) [Apple status %d]\n", who, gatekit_strerror(rc), gatekit_last_error(), status);
    else fprintf(stderr, "gatekit %s: %s (%s)\n", who, gatekit_strerror(rc), gatekit_last_error());
    return verdict_exit(rc);
}

int gk_is_one_of(const char *name, const char *const *names) {
    for (; *names; names++)
        if (strcmp(name, *names) == 0) return 1;
    return 0;
}

/* Edits between a and b (each at most 63 bytes; longer: a large number). */
static size_t edits(const char *a, const char *b) {
    size_t m = strlen(a), n = strlen(b), row[64];
    if (m > 63 || n > 63) return 64;
    for (size_t j = 0; j <= n; j++) row[j] = j;
    for (size_t i = 1; i <= m; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t up = row[j];
            size_t best = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diagonal = up;
        }
    }
    return row[n];
}

const char *gk_nearest(const char *name, const char *const *names) {
    const char *best = NULL;
    size_t fewest = 3;
    for (; *names; names++) {
        if (strcasecmp(name, *names) == 0) return *names;
        /* A name cut short ("renewal" for "renewal-info") is one edit away. */
        size_t n = strlen(name);
        size_t e = n >= 3 && strncmp(*names, name, n) == 0 ? 1 : edits(name, *names);
        if (e < fewest) { fewest = e; best = *names; }
    }
    return best;
}

/* Decodes the JSON string whose opening quote is at p into a new buffer (escapes resolved; a
 * \\u escape outside ASCII becomes '?': enough for messages). *end: past the closing quote. */
static char *json_string_at(const char *p, const char **end) {
    if (*p != '"') return NULL;
    size_t cap = strlen(p) + 1, n = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (p++; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\' && p[1]) {
            p++;
            switch (*p) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v = 0;
                int k = 0;
                for (; k < 4 && isxdigit((unsigned char)p[k + 1]); k++) v = v * 16 + (unsigned)(isdigit((unsigned char)p[k + 1]) ? p[k + 1] - '0' : (tolower((unsigned char)p[k + 1]) - 'a' + 10));
                p += k;
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            default: c = *p;  /* \" \\ \/ */
            }
        }
        out[n++] = c;
    }
    out[n] = 0;
    if (end) *end = *p ? p + 1 : p;
    return out;
}

char *gk_json_string_member(const char *json, const char *name) {
    char key[128];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *p = strstr(json, key);
    return p ? json_string_at(p + strlen(key), NULL) : NULL;
}

int gk_json_each_string(const char *json, const char *name, void (*each)(const char *value, void *context), void *context) {
    char key[128];
    snprintf(key, sizeof key, "\"%s\":[", name);
    const char *p = strstr(json, key);
    if (!p) return 0;
    int count = 0;
    for (p += strlen(key); *p == '"'; ) {
        char *value = json_string_at(p, &p);
        if (!value) break;
        each(value, context);
        free(value);
        count++;
        if (*p == ',') p++;
    }
    return count;
}

static volatile sig_atomic_t stop_requested;
static void on_stop_signal(int sig) { (void)sig; stop_requested = 1; }

void gk_catch_stop_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int gk_stop_requested(void) { return stop_requested != 0; }

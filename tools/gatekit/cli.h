/* gatekit — the command-line tool built on the public header. Shared helpers for the
 * commands, one file per command: eula.c, receipt.c, perm.c, jws.c, ledger.c (and its
 * ledger_sync.c), appstore.c, api.c, play.c, store.c, testdata.c (`gatekit test`); main.c dispatches. */
#ifndef GATEKIT_CLI_H
#define GATEKIT_CLI_H

#include <gatekit.h>
#include <limits.h>
#include <stdio.h>

/* The tool's exit codes: one table for every command, each number one meaning (stable;
 * the README and gatekit(1) list them). */
enum {
    GK_EXIT_OK = 0,                 /* done; the answer to the question is yes */
    GK_EXIT_ERROR = 1,              /* a library call failed for another reason (stderr says why) */
    GK_EXIT_USAGE = 2,              /* the command line is wrong (stderr names the argument) */
    GK_EXIT_NO = 3,                 /* the answer to the question is no: the EULA must be presented, no
                                       prompt is allowed, nothing is pending, not entitled, not
                                       eligible, the receipt names no transaction */
    GK_EXIT_DECLINED = 4,           /* eula check: the user declined, or nobody answered in time */
    GK_EXIT_STORE_DAMAGED = 5,      /* store check: the file is damaged or not a GateKit store */
    GK_EXIT_OTHER_TEXT = 6,         /* eula check: the headless acceptance names another text of the
                                       document (its hash differs): nothing was accepted */
    GK_EXIT_ALTERED = 7,            /* eula verify-export: the export does not match the store (edited,
                                       cut short, or another store's history) */
    GK_EXIT_MALFORMED = 10,         /* receipt or signed data refused: not well-formed (Apple 21002);
                                       a Play push that is not an envelope with a notification */
    GK_EXIT_NOT_AUTHENTIC = 11,     /* refused: not signed by Apple (or the test anchor), or for
                                       another app or device (Apple 21003); a push not Google's */
    GK_EXIT_OTHER_ENVIRONMENT = 12, /* refused: genuine, for the other environment (Apple 21007/21008) */
    GK_EXIT_NEEDS_ACCEPTANCE = 172  /* eula check: acceptance required, no terminal and no --accept
                                       (the code Chef's license gate uses for the same case) */
};

/* A refused receipt or signed data: prints {"status":N|null,"code":C,"error":…,"detail":…}
 * on stdout (status: verifyReceipt's number, for receipts) and the reason on stderr, and
 * returns GK_EXIT_MALFORMED / _NOT_AUTHENTIC / _OTHER_ENVIRONMENT, or GK_EXIT_ERROR when rc is
 * not a verdict on the data (a file that cannot be read, out of memory). */
int gk_refused(const char *who, int rc);

/* s as a JSON string literal. */
void gk_json_string(FILE *out, const char *s);

typedef struct gk_cli {
    const char *store_path;  /* --store, else the library's default ($GATEKIT_STORE, XDG) */
    const char *app_id;      /* --app-id, default "gatekit" */
    gatekit_store *store;    /* opened on first use */
    char scratch[64];        /* the empty stand-in's folder (gk_question_store, gk_record), removed by gk_close */
} gk_cli;

/* For commands that record something: opens (creating if needed) the store on first use;
 * prints the error and returns NULL on failure. */
gatekit_store *gk_store(gk_cli *cli);

/* For read-only questions: the store if it exists (*out NULL when there is none yet: nothing
 * is created). Returns 0, or GK_EXIT_ERROR after printing why. */
int gk_existing_store(gk_cli *cli, gatekit_store **out);

/* For questions about what was recorded (ledger, store path|info): the store if it exists; else
 * prints "<who>: no store yet: <path>" with what to check (--store, --app-id), sets *status to
 * GK_EXIT_NO and returns NULL (also NULL, *status GK_EXIT_ERROR, when it cannot be opened). */
gatekit_store *gk_asked_store(gk_cli *cli, const char *who, int *status);

/* For questions asked of the library (perm): the store if it exists, else an empty
 * store in a private temporary folder that gk_close removes, so the answer is exactly an empty
 * store's and nothing is created where the store would be. NULL after printing why. */
gatekit_store *gk_question_store(gk_cli *cli);

/* For ingest, where a refusal must create nothing: record(json, store, context) on the store,
 * which is created only after the same data was accepted by an empty stand-in when none existed.
 * Returns record's code, or GK_NOT_OPENED after printing why the store could not be opened. */
#define GK_NOT_OPENED INT_MIN
typedef int (*gk_recorder)(char **json, gatekit_store *store, void *context);
int gk_record(gk_cli *cli, gk_recorder record, void *context, char **json);

/* Closes the store and removes a stand-in made by gk_question_store or gk_record. */
void gk_close(gk_cli *cli);

/* 1 after printing "<who>: missing <name>" when value is NULL, else 0. */
int gk_missing(const char *who, const char *name, const char *value);

/* The GATEKIT_JWS_* kind named notification, transaction, renewal-info, app-transaction or
 * realtime-request (one name per kind in every command); -1 after printing why. */
int gk_jws_kind(const char *who, const char *option, const char *name);

/* 0 when name is an environment as Apple spells it (Production, Sandbox, Xcode,
 * LocalTesting); else prints why and returns GK_EXIT_USAGE. */
int gk_check_environment(const char *who, const char *name);

/* Prints "gatekit: <what>: <strerror> (<last error>)" and returns GK_EXIT_ERROR. */
int gk_fail(const char *what, int rc);

/* The value of the first string member `name` of a GateKit JSON document, decoded (malloc'd;
 * free it), or NULL when there is none. For messages: it does not parse the document. */
char *gk_json_string_member(const char *json, const char *name);
/* Calls each(value, context) for every string of the first array member `name`; returns how many. */
int gk_json_each_string(const char *json, const char *name, void (*each)(const char *value, void *context), void *context);

/* The first object of a GateKit list document ({"version":1,"<items>":[{...},...]}), or NULL. */
const char *gk_json_first_item(const char *json);

/* Prints a usage message to stderr and returns GK_EXIT_USAGE: the subcommand's entries when the
 * context names one the text has, else the whole text. The caller prints the reason first. */
int gk_usage(const char *text);
/* The command and subcommand run (main sets them): gk_usage then prints only the entries of
 * that subcommand, after the one line that said what was wrong. */
void gk_usage_context(const char *command, const char *subcommand);

/* Option parsing over argv[*i]: "--name value" or "--name=value". Returns 1 and sets *value
 * (advancing *i past the value) when argv[*i] is that option; 0 otherwise; -1 when the
 * value is missing. */
int gk_option(int argc, char **argv, int *i, const char *name, const char **value);

/* Reads a whole file (or stdin for "-") into a malloc'd buffer; NULL and a message on error. */
/* Every file input is bounded: GK_READ_LIMIT for data (receipts, signed data, requests,
 * images), smaller for certificates and keys. Over it, the read fails with a message. */
#define GK_READ_LIMIT ((size_t)64 << 20)
#define GK_CERTIFICATE_LIMIT ((size_t)1 << 20)
#define GK_SECRET_LIMIT ((size_t)64 << 10)
unsigned char *gk_read_all(const char *path, size_t *len);
unsigned char *gk_read_limited(const char *path, size_t limit, size_t *len);
/* As gk_read_all, for the data a command records: empty input is refused with why (a pipe whose
 * first command failed). */
unsigned char *gk_read_data(const char *who, const char *path, size_t *len);
/* A private key: refused when a symbolic link, not a regular file, another user's, or
 * writable by others; a warning when others can read it. */
unsigned char *gk_read_secret(const char *path, size_t *len);

/* A new output file (O_EXCL, never through a symbolic link, mode 0600): its descriptor, or
 * -1 after printing why; "-" or NULL is standard output. */
int gk_create_output(const char *path);
/* Writes all of bytes to fd (EINTR retried); 0, or -1 on failure. */
int gk_write_all(int fd, const void *bytes, size_t length);

/* A worker's `--follow` until stopped: after gk_catch_stop_signals, SIGINT and SIGTERM make
 * gk_stop_requested true (the loop finishes its pass and returns). */
void gk_catch_stop_signals(void);
int gk_stop_requested(void);

/* A non-negative decimal number, or -1. */
long long gk_number(const char *s);

/* Unix seconds from digits or YYYY-MM-DDTHH:MM:SSZ; -1 when neither. */
long long gk_parse_time(const char *s);
long long gk_parse_time_ms(const char *s);
/* As gk_parse_time_ms, also YYYY-MM-DD (its midnight, UTC). */
long long gk_parse_day_ms(const char *s);

/* A certificate file as DER (PEM is decoded); malloc'd, NULL and a message on error. */
unsigned char *gk_load_certificate(const char *path, size_t *len);

/* An App Store Connect .p8 key file loaded for signing; NULL after printing why. */
gatekit_appstore_key *gk_load_appstore_key(const char *path, const char *key_id, const char *issuer_id, const char *bundle_id);

/* A text file (or stdin for "-") without surrounding white space; malloc'd, NUL-terminated. */
char *gk_load_text(const char *path);
/* raw as a NUL-terminated string without its surrounding white space (gk_load_text's rule). */
char *gk_text(const unsigned char *raw, size_t len);

/* What signed-data verification takes on the command line (the jws and ledger commands):
 * --bundle-id, --environment, --app-apple-id, --at, --test-anchor, --test-production. */
typedef struct gk_signed_options {
    const char *bundle_id, *environment, *app_apple_id, *at, *test_anchor;
    int test_production;
} gk_signed_options;

/* argv[*i] as one of those options: 1 when consumed, 0 when it is not one, -1 when its value
 * is missing (as gk_option). */
int gk_signed_option(int argc, char **argv, int *i, gk_signed_options *s);

/* Fills *o from s: --at (the certificate-check time) is Unix seconds, YYYY-MM-DDTHH:MM:SSZ, or
 * with allow_now also "now"; *anchor is the loaded --test-anchor certificate (free it after
 * use). Returns 0, or GK_EXIT_USAGE / GK_EXIT_ERROR after printing why, prefixed by who. */
int gk_jws_options(const char *who, const gk_signed_options *s, int allow_now, gatekit_jws_options *o, unsigned char **anchor);

/* What an App Store Server API client takes on the command line (gatekit api, ledger sync and
 * refresh): --key FILE (.p8), --key-id, --issuer-id, --base-url, --ca-file, --timeout MS,
 * --retries N. gk_client_option consumes one as gk_option does; gk_missing_client_option
 * prints the first missing one (1) or returns 0; gk_make_client makes the client for the
 * bundle id and environment (verify NULL: raw), NULL after printing why. */
typedef struct gk_client_options {
    const char *key, *key_id, *issuer_id, *base_url, *ca_file, *timeout, *retries;
} gk_client_options;
int gk_client_option(int argc, char **argv, int *i, gk_client_options *c);
int gk_missing_client_option(const char *who, const gk_client_options *c);
gatekit_appstore_client *gk_make_client(const char *who, const gk_client_options *c, const char *bundle_id,
                                        const char *environment, const gatekit_jws_options *verify);

/* Subcommands: argv[0] is the subcommand's own name ("eula", ...). */
/* Each command's usage text (printed to stdout for --help, to stderr after a mistake). */
extern const char gk_eula_usage[], gk_receipt_usage[], gk_perm_usage[], gk_jws_usage[], gk_store_usage[],
    gk_ledger_usage[], gk_appstore_usage[], gk_api_usage[], gk_play_usage[], gk_stripe_usage[], gk_test_usage[];
/* Each command's subcommands (NULL-terminated): main refuses any other by name, and `gatekit
 * help commands` prints them (the docs' command-table test reads that list). */
extern const char *const gk_eula_subcommands[], *const gk_receipt_subcommands[], *const gk_perm_subcommands[],
    *const gk_jws_subcommands[], *const gk_store_subcommands[], *const gk_ledger_subcommands[],
    *const gk_appstore_subcommands[], *const gk_api_subcommands[], *const gk_play_subcommands[], *const gk_stripe_subcommands[],
    *const gk_test_subcommands[];

/* 1 when name is one of the NULL-terminated names. */
int gk_is_one_of(const char *name, const char *const *names);
/* The name nearest to `name` (the same but for case, one it cuts short, or one or two edits
 * away), or NULL. */
const char *gk_nearest(const char *name, const char *const *names);

int gk_cmd_eula(gk_cli *cli, int argc, char **argv);
int gk_cmd_receipt(gk_cli *cli, int argc, char **argv);
int gk_cmd_perm(gk_cli *cli, int argc, char **argv);
int gk_cmd_jws(gk_cli *cli, int argc, char **argv);
int gk_cmd_store(gk_cli *cli, int argc, char **argv);
int gk_cmd_ledger(gk_cli *cli, int argc, char **argv);
/* gatekit ledger sync|sync-state|refresh (ledger_sync.c); -1000 when argv[1] is none of them. */
int gk_ledger_sync(gk_cli *cli, int argc, char **argv);
/* gatekit ledger metrics | report; -1000 for any other command. */
int gk_ledger_insight(gk_cli *cli, int argc, char **argv);
/* gatekit ledger ingest --store-kind play (ledger_play.c) or stripe (ledger_stripe.c): asked when
 * argv names a store kind (gk_ledger_store_kind: its value, NULL when none). */
const char *gk_ledger_store_kind(int argc, char **argv);
int gk_ledger_play_ingest(gk_cli *cli, int argc, char **argv);
int gk_ledger_stripe_ingest(gk_cli *cli, int argc, char **argv);
/* gatekit ledger sync-play (ledger_play.c). */
int gk_ledger_play_sync(gk_cli *cli, int argc, char **argv);
/* gatekit ledger grant | revoke-grant (ledger_grant.c). */
int gk_ledger_grant(gk_cli *cli, int argc, char **argv);
/* gatekit ledger webhook-* and deliver (ledger_webhooks.c). */
int gk_ledger_webhooks(gk_cli *cli, int argc, char **argv);
int gk_cmd_appstore(gk_cli *cli, int argc, char **argv);
int gk_cmd_api(gk_cli *cli, int argc, char **argv);
/* gatekit play: the Play Developer API and RTDN push verification (play.c). */
int gk_cmd_play(gk_cli *cli, int argc, char **argv);
int gk_cmd_stripe(gk_cli *cli, int argc, char **argv);
/* A Stripe client from the tool's options (stripe.c): --api-key-file, --base-url, --ca-file,
 * --timeout, --retries. */
typedef struct gk_stripe_client_args {
    const char *key_file, *base_url, *ca_file, *timeout, *retries;
} gk_stripe_client_args;
int gk_stripe_client_option(int argc, char **argv, int *i, gk_stripe_client_args *a);
gatekit_stripe_client *gk_stripe_client(const char *who, const gk_stripe_client_args *a);
int gk_stripe_answer(const char *who, int rc, char *json);
/* gatekit ledger refresh-stripe and sync-stripe (ledger_stripe.c). */
int gk_ledger_stripe_refresh(gk_cli *cli, int argc, char **argv);
int gk_ledger_stripe_sync(gk_cli *cli, int argc, char **argv);
/* A Play client from the tool's CLIENT_OPTIONS (NULL after saying why). */
gatekit_play_client *gk_play_client(const char *package, const char *account, int metadata_server, const char *base_url,
                                    const char *ca_file, const char *timeout_ms, const char *retries);
int gk_cmd_test(gk_cli *cli, int argc, char **argv);
/* 1 when name is an App Store Server API endpoint of gatekit api. */
int gk_is_api_endpoint(const char *name);

#endif

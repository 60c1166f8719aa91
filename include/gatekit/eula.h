/* gatekit/eula.h — EULA gating.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_EULA_H
#define GATEKIT_EULA_H

#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * EULA gating
 *
 * A document's version is the SHA-256 of its bytes (64 lowercase hex digits). Present a
 * document when this user's most recent decision on this exact text — or on a text it was
 * declared a minor revision of — is not an acceptance. Decisions are appended to a history
 * that is never rewritten. user NULL means the app's single default user; a user name is
 * 1-4096 bytes and need not be UTF-8. document_id is 1-1024 bytes of UTF-8.
 * All functions taking a store are safe from many threads on one handle.
 * ====================================================================================== */

#define GATEKIT_HASH_HEX_SIZE 65   /* 64 hex digits + NUL */

/* GATEKIT_HASH_HEX_SIZE as a function, for FFI hosts that cannot read macros. */
GATEKIT_API size_t gatekit_hash_hex_size(void);

/* SHA-256 of a file's bytes into out (64 lowercase hex digits + NUL).
 * GATEKIT_ENOTFOUND for a missing file, GATEKIT_EIO for a folder or an unreadable file. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_hash_file(char out[GATEKIT_HASH_HEX_SIZE], const char *path);

/* SHA-256 of len bytes at data (data may be NULL only when len is 0). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_hash_bytes(char out[GATEKIT_HASH_HEX_SIZE], const void *data, size_t len);

/* 1: present the document at path (never accepted by this user, declined since, or the text
 * changed); 0: accepted; <0: error. A missing or unreadable file is an error
 * (GATEKIT_ENOTFOUND / GATEKIT_EIO), never "present" and never "accepted". */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_should_present(gatekit_store *store, const char *document_id, const char *path, const char *user);

/* Like eula_should_present() for a text whose hash the host computed (eula_hash_bytes()). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_should_present_hash(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* Records acceptance of exactly the text whose hash is given: the text that was shown.
 * Accepting a hash that differs from the current file is legal (the user accepted what was
 * shown); eula_should_present() then still answers 1 for the current file.
 * GATEKIT_EINVAL unless hash is 64 hex digits (either case: stored lowercase, so both spellings
 * mean one text). Durable when it returns 0. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* Records a decline of the text whose hash is given. A decline after an acceptance presents
 * the document again. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_decline(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* This user's decisions as JSON, oldest first:
 *   {"version":1,"decisions":[{"document_id":"terms","hash":"<64 hex>","user":"alice"|null,
 *     "decision":"accepted"|"declined"|"withdrawn","at":"2026-11-22T06:52:02.123Z"}, ...]}
 * followed, in an entry, by the consent's parts that were given (eula_accept_with): "method"
 * ("click-through", "cli-flag", "environment", "api", "admin"), "client_address",
 * "user_agent", "locale", "metadata" (an object of strings, in the host's order).
 * A user name that is not valid UTF-8 appears with U+FFFD replacements in "user" and exactly
 * in "user_hex". document_id NULL: every document. *out is freed with gatekit_free(). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history(char **out_json, gatekit_store *store, const char *document_id, const char *user);

/* Like eula_history() for every user (the auditor's export). document_id NULL: all. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history_all(char **out_json, gatekit_store *store, const char *document_id);

/* Declares to_hash a minor revision of from_hash (a typo fix): an acceptance of from_hash
 * covers to_hash, transitively. Idempotent. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_mark_minor_revision(gatekit_store *store, const char *document_id, const char *from_hash, const char *to_hash);

/* ----------------------------------------------------------------------------------------
 * How a decision was given, and withdrawal (GDPR Art. 7(1): the controller must be able to
 * show who consented, to which exact text, when and how). The consent is stored with the
 * decision in the append-only history and never interpreted: each part is checked for shape
 * and size only. Every part is optional; a consent pointer may be NULL (nothing said).
 * -------------------------------------------------------------------------------------- */

#define GATEKIT_EEULA_HASH_MISMATCH (-500)  /* a headless acceptance names the document with another text's hash: nothing was accepted */

#define GATEKIT_EULA_METHOD_UNSPECIFIED   0
#define GATEKIT_EULA_METHOD_CLICK_THROUGH 1  /* the user read it in the app and agreed */
#define GATEKIT_EULA_METHOD_CLI_FLAG      2  /* a command-line flag (--accept) */
#define GATEKIT_EULA_METHOD_ENVIRONMENT   3  /* an environment variable (eula_accept_from_env) */
#define GATEKIT_EULA_METHOD_API           4  /* a call of the host's own API */
#define GATEKIT_EULA_METHOD_ADMIN         5  /* an administrator, on the user's behalf */

#define GATEKIT_EULA_CONSENT_VERSION 1u

typedef struct gatekit_eula_consent {
    unsigned int version;                 /* GATEKIT_EULA_CONSENT_VERSION (eula_consent_init) */
    int method;                           /* GATEKIT_EULA_METHOD_*; 0: not said */
    const char *client_address;           /* NULL, or an IPv4 or IPv6 literal (kept canonical:
                                           * "2001:DB8::1" is stored "2001:db8::1") */
    const char *user_agent;               /* NULL, or 1-1024 bytes of UTF-8 */
    const char *locale;                   /* NULL, or a BCP 47 tag ("de-AT"), at most 35 bytes */
    const char *const *metadata_keys;     /* metadata_count keys: 1-64 bytes of UTF-8, unique */
    const char *const *metadata_values;   /* their values: 0-1024 bytes of UTF-8 */
    size_t metadata_count;                /* at most 32 */
} gatekit_eula_consent;

/* Static initialiser: gatekit_eula_consent c = GATEKIT_EULA_CONSENT_INIT; */
#define GATEKIT_EULA_CONSENT_INIT { .version = GATEKIT_EULA_CONSENT_VERSION }

/* Sets *consent to nothing said for `version` (pass GATEKIT_EULA_CONSENT_VERSION).
 * NULL: GATEKIT_EINVAL; an unknown version: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_consent_init(gatekit_eula_consent *consent, unsigned int version);

/* eula_accept() / eula_decline() with how the decision was given (consent may be NULL).
 * A part that is malformed is GATEKIT_EINVAL (an address that is not an IP literal, a locale
 * that is not a language tag, text that is not UTF-8, a key given twice, an unknown method);
 * one over its bound is GATEKIT_ETOOLARGE. Nothing is recorded then. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept_with(gatekit_store *store, const char *document_id, const char *hash, const char *user, const gatekit_eula_consent *consent);
GATEKIT_API GATEKIT_WARN_UNUSED int eula_decline_with(gatekit_store *store, const char *document_id, const char *hash, const char *user, const gatekit_eula_consent *consent);

/* Withdraws the user's consent to the document: recorded as a withdrawal (decision
 * "withdrawn", with the hash of the text whose acceptance it ends), after which every text of
 * the document is presented again until accepted anew. GATEKIT_ENOTFOUND when no acceptance is
 * in force (never accepted, or withdrawn since): nothing is recorded. consent may be NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_withdraw(gatekit_store *store, const char *document_id, const char *user, const gatekit_eula_consent *consent);

/* Headless acceptance bound to one text. `names` is "document@hash-prefix" entries separated
 * by commas ("terms@3fa1b2c4,privacy@9e01d2c3"; 8 to 64 hex digits of the text's sha256; a
 * document id holding "," cannot be named). Returns 1 when it names document_id with a prefix
 * of `hash` (the acceptance is recorded with `consent`), 0 when it does not name document_id
 * (nothing recorded), GATEKIT_EEULA_HASH_MISMATCH when it names document_id with another
 * text's hash (the text changed since the operator read it: nothing is accepted), and
 * GATEKIT_EINVAL for a malformed entry. Call it when eula_should_present*() answers 1. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept_named(gatekit_store *store, const char *document_id, const char *hash, const char *user, const char *names, const gatekit_eula_consent *consent);

/* eula_accept_named() with the value of the environment variable the host names (like
 * "GATEKIT_ACCEPT"; unset or empty: 0). Recorded with method GATEKIT_EULA_METHOD_ENVIRONMENT
 * and the metadata "variable": the variable's name, unless consent says otherwise. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept_from_env(gatekit_store *store, const char *document_id, const char *hash, const char *user, const char *variable, const gatekit_eula_consent *consent);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_EULA_H */

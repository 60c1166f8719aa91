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
 * "user_agent", "locale", "metadata" (an object of strings, in the host's order), and
 * "language" when the text is a published translation (eula_publish).
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

/* Since 0.2.0. Sets *consent to nothing said for `version` (pass GATEKIT_EULA_CONSENT_VERSION).
 * NULL: GATEKIT_EINVAL; an unknown version: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_consent_init(gatekit_eula_consent *consent, unsigned int version);

/* Since 0.2.0. eula_accept() / eula_decline() with how the decision was given (consent may be NULL).
 * A part that is malformed is GATEKIT_EINVAL (an address that is not an IP literal, a locale
 * that is not a language tag, text that is not UTF-8, a key given twice, an unknown method);
 * one over its bound is GATEKIT_ETOOLARGE. Nothing is recorded then. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept_with(gatekit_store *store, const char *document_id, const char *hash, const char *user, const gatekit_eula_consent *consent);
GATEKIT_API GATEKIT_WARN_UNUSED int eula_decline_with(gatekit_store *store, const char *document_id, const char *hash, const char *user, const gatekit_eula_consent *consent);

/* Since 0.2.0. Withdraws the user's consent to the document: recorded as a withdrawal (decision
 * "withdrawn", with the hash of the text whose acceptance it ends), after which every text of
 * the document is presented again until accepted anew. GATEKIT_ENOTFOUND when no acceptance is
 * in force (never accepted, or withdrawn since): nothing is recorded. consent may be NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_withdraw(gatekit_store *store, const char *document_id, const char *user, const gatekit_eula_consent *consent);

/* Since 0.2.0. Headless acceptance bound to one text. `names` is "document@hash-prefix" entries separated
 * by commas ("terms@3fa1b2c4,privacy@9e01d2c3"; 8 to 64 hex digits of the text's sha256; a
 * document id holding "," cannot be named). Returns 1 when it names document_id with a prefix
 * of `hash` (the acceptance is recorded with `consent`), 0 when it does not name document_id
 * (nothing recorded), GATEKIT_EEULA_HASH_MISMATCH when it names document_id with another
 * text's hash (the text changed since the operator read it: nothing is accepted), and
 * GATEKIT_EINVAL for a malformed entry. Call it when eula_should_present*() answers 1. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept_named(gatekit_store *store, const char *document_id, const char *hash, const char *user, const char *names, const gatekit_eula_consent *consent);

/* Since 0.2.0. eula_accept_named() with the value of the environment variable the host names (like
 * "GATEKIT_ACCEPT"; unset or empty: 0). Recorded with method GATEKIT_EULA_METHOD_ENVIRONMENT
 * and the metadata "variable": the variable's name, unless consent says otherwise. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept_from_env(gatekit_store *store, const char *document_id, const char *hash, const char *user, const char *variable, const gatekit_eula_consent *consent);

/* ----------------------------------------------------------------------------------------
 * Published versions: translations and schedules. A version of a document has a label
 * ("2026-12"), the instant it takes effect, an optional grace period, and one text per
 * language (BCP 47; "de-AT"), kept in the store. A user is shown the text in their language
 * (fallback: "de-AT", then "de", then the version's default language); accepting any text of
 * a version accepts the version, and the history records the text's hash and language. Until
 * a version is required (its effect plus its grace), the previous version's acceptance still
 * counts. eula_should_present_hash() applies the same rules to a published text's hash.
 * -------------------------------------------------------------------------------------- */

#define GATEKIT_EEULA_EXPORT_ALTERED   (-501)  /* a consent export does not match the store: edited, cut short, or not from it */
#define GATEKIT_EEULA_VERSION_CONFLICT (-502)  /* the label or a text is already published differently: publish a new label */

/* One translation: its language and its text, from a file (path) or from memory (bytes,
 * length; path NULL). At most 16 MiB. */
typedef struct gatekit_eula_text {
    const char *language;                 /* a BCP 47 tag; kept in canonical case ("de-AT") */
    const char *path;                     /* the text's file, or NULL to use bytes */
    const void *bytes;                    /* length bytes (NULL only when length is 0) */
    size_t length;
} gatekit_eula_text;

#define GATEKIT_EULA_PUBLICATION_VERSION 1u

typedef struct gatekit_eula_publication {
    unsigned int version;                 /* GATEKIT_EULA_PUBLICATION_VERSION (eula_publication_init) */
    const char *label;                    /* 1-128 bytes of UTF-8, unique per document */
    long long effective_ms;               /* Unix milliseconds it takes effect; 0: now */
    long long grace_ms;                   /* 0 to ten years: the previous acceptance counts until effective_ms + grace_ms */
    const char *default_language;         /* the language shown when the user's has no text; one of texts */
    const gatekit_eula_text *texts;       /* text_count translations, languages unique */
    size_t text_count;                    /* 1 to 64 */
} gatekit_eula_publication;

/* Static initialiser: gatekit_eula_publication p = GATEKIT_EULA_PUBLICATION_INIT; */
#define GATEKIT_EULA_PUBLICATION_INIT { .version = GATEKIT_EULA_PUBLICATION_VERSION }

/* Since 0.2.0. Sets *publication to empty for `version`. NULL: GATEKIT_EINVAL; unknown: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_publication_init(gatekit_eula_publication *publication, unsigned int version);

/* Since 0.2.0. Publishes a version of the document with its texts (their bytes are stored). Publishing the
 * same version again is a no-op; a label already published with other texts or instants, or a
 * text already part of another version, is GATEKIT_EEULA_VERSION_CONFLICT. Durable when it
 * returns 0. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_publish(gatekit_store *store, const char *document_id, const gatekit_eula_publication *publication);

#define GATEKIT_EULA_ACCEPTED 0   /* the version in effect is accepted */
#define GATEKIT_EULA_IN_GRACE 1   /* not accepted, but the previous version's acceptance counts until required_at_ms */
#define GATEKIT_EULA_REQUIRED 2   /* present the text; it must be accepted to go on */

#define GATEKIT_EULA_PRESENTATION_VERSION 1u
#define GATEKIT_EULA_LABEL_SIZE 129      /* 128 bytes + NUL */
#define GATEKIT_EULA_LANGUAGE_SIZE 36    /* 35 bytes + NUL */

/* What to do about a published document for one user at one instant (eula_should_present_at).
 * The caller sets version to GATEKIT_EULA_PRESENTATION_VERSION; the library fills the rest. */
typedef struct gatekit_eula_presentation {
    unsigned int version;                 /* in: GATEKIT_EULA_PRESENTATION_VERSION */
    int status;                           /* GATEKIT_EULA_ACCEPTED, _IN_GRACE or _REQUIRED */
    char label[GATEKIT_EULA_LABEL_SIZE];  /* the version in effect */
    char language[GATEKIT_EULA_LANGUAGE_SIZE];  /* the text to show: its language ... */
    char hash[GATEKIT_HASH_HEX_SIZE];     /* ... and its sha256 (eula_text() gives its bytes) */
    long long effective_ms;               /* when this version took effect */
    long long required_at_ms;             /* when its acceptance is required (effect + grace) */
    long long next_effective_ms;          /* the next version's effect, if one is scheduled; else 0 */
} gatekit_eula_presentation;

/* Since 0.2.0. 1: the text must be presented (GATEKIT_EULA_REQUIRED); 0: it need not (accepted, or in
 * grace: the host may show it); <0: error — GATEKIT_ENOTFOUND when no version of the document
 * is in effect at the instant. language NULL: the default language. at_ms 0: now; an earlier
 * instant answers as the gate did then (decisions made later do not count). out may be NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_should_present_at(gatekit_eula_presentation *out, gatekit_store *store, const char *document_id, const char *user, const char *language, long long at_ms);

/* Since 0.2.0. The bytes of a published text, found by its hash (*out_bytes freed with gatekit_free();
 * NUL-terminated beyond *out_length, for hosts that show it as a string).
 * GATEKIT_ENOTFOUND when no version of the document has that text. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_text(void **out_bytes, size_t *out_length, gatekit_store *store, const char *document_id, const char *hash);

/* ----------------------------------------------------------------------------------------
 * Proof of consent: an export of the history (one user's, or everyone's), oldest first, each
 * decision with its text's hash, language and version label, instant, how it was given, and
 * its link in the user's hash chain — and on request each published text itself. JSON lines
 * (default) or CSV, streamed through the host's write callback from one snapshot of the store,
 * in bounded memory for any number of rows. eula_verify_export() checks such a file against
 * the store: any edit, removal, addition, truncation — or a history rewritten in the store
 * since — is GATEKIT_EEULA_EXPORT_ALTERED naming the first record that differs.
 * -------------------------------------------------------------------------------------- */

#define GATEKIT_EULA_EXPORT_CSV      1u   /* CSV (RFC 4180) instead of JSON lines */
#define GATEKIT_EULA_EXPORT_EVERYONE 2u   /* every user (user must be NULL) */
#define GATEKIT_EULA_EXPORT_TEXTS    4u   /* each published text once, before its first decision */

/* Receives the export in chunks; returns 0 to go on, anything else to stop it (the export then
 * fails with GATEKIT_EIO). It must not use the store being exported. */
typedef int (*gatekit_write_fn)(void *context, const void *bytes, size_t length);

/* Since 0.2.0. Exports the consent record of `user` (NULL: the default user, or everyone with
 * GATEKIT_EULA_EXPORT_EVERYONE) for document_id (NULL: every document) through `write`.
 * *out_count (may be NULL) receives the number of decisions. Decisions recorded while it runs
 * are not in it. The store then records the export (its instant, its last decision and the
 * SHA-256 of every byte written), which eula_verify_export() checks: a store open read-only
 * cannot export (GATEKIT_EREADONLY, before anything is written). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_export(long long *out_count, gatekit_store *store, const char *document_id, const char *user, unsigned int flags, gatekit_write_fn write, void *context);

/* Since 0.2.0. Checks the export at path (either format) against the store. 0 when every record is what
 * the store holds and the file is one the store wrote (*out_count, may be NULL: its number of
 * decisions); GATEKIT_EEULA_EXPORT_ALTERED with gatekit_last_error() naming the first record
 * that differs, or saying that the store never wrote the file (a header edited with it). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_verify_export(long long *out_count, gatekit_store *store, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_EULA_H */

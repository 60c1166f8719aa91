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
 *     "decision":"accepted"|"declined","at":"2026-11-22T06:52:02.123Z"}, ...]}
 * A user name that is not valid UTF-8 appears with U+FFFD replacements in "user" and exactly
 * in "user_hex". document_id NULL: every document. *out is freed with gatekit_free(). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history(char **out_json, gatekit_store *store, const char *document_id, const char *user);

/* Like eula_history() for every user (the auditor's export). document_id NULL: all. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history_all(char **out_json, gatekit_store *store, const char *document_id);

/* Declares to_hash a minor revision of from_hash (a typo fix): an acceptance of from_hash
 * covers to_hash, transitively. Idempotent. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_mark_minor_revision(gatekit_store *store, const char *document_id, const char *from_hash, const char *to_hash);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_EULA_H */

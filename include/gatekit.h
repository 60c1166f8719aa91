/*
 * gatekit.h — GateKit's public C API. This file is the contract: if a function, type or
 * constant is not declared here, it is not part of the API.
 *
 * GateKit decides, at launch and at every purchase, what a user may do:
 *   - EULA gating: has this user accepted this exact text (its SHA-256)?
 *   - App Store receipts: did Apple really sell this product?
 *   - Permissions: may the app ask for this permission now?
 *
 * Conventions (every function below follows them unless its comment says otherwise):
 *   - A function that can fail returns int: 0 (or a documented positive result) on success,
 *     a negative GATEKIT_E* code on failure. gatekit_last_error() then describes the failure
 *     for the calling thread. Codes never change meaning; new codes are only ever added.
 *   - Output parameters come first; the single output is named out.
 *   - What the library returns through an out pointer is owned by the caller and freed with
 *     the matching function: strings with gatekit_free(), handles with their *_free/_close.
 *     Never free library memory with your own free(), never pass your memory to gatekit_free().
 *   - Every *_free / *_close accepts NULL as a no-op. Using a handle after freeing it is
 *     undefined behaviour.
 *   - NULL for a required pointer is GATEKIT_EINVAL, never a crash.
 *   - Strings are NUL-terminated UTF-8 unless the comment says bytes.
 *   - Thread safety is stated per object: gatekit_store is safe to share between threads;
 *     the static functions are safe from any thread.
 *
 * Link with `pkg-config --cflags --libs gatekit`.
 */
#ifndef GATEKIT_H
#define GATEKIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define GATEKIT_API __attribute__((visibility("default")))
#  define GATEKIT_WARN_UNUSED __attribute__((warn_unused_result))
#else
#  define GATEKIT_API
#  define GATEKIT_WARN_UNUSED
#endif

/* ========================================================================================
 * Version
 * ====================================================================================== */

#define GATEKIT_VERSION_MAJOR 0
#define GATEKIT_VERSION_MINOR 1
#define GATEKIT_VERSION_PATCH 0
#define GATEKIT_VERSION_STRING "0.1.0"
#define GATEKIT_VERSION_NUMBER \
    (GATEKIT_VERSION_MAJOR * 10000 + GATEKIT_VERSION_MINOR * 100 + GATEKIT_VERSION_PATCH)

/* The library's version as "MAJOR.MINOR.PATCH". Static storage; any thread. */
GATEKIT_API const char *gatekit_version(void);

/* MAJOR*10000 + MINOR*100 + PATCH. Compare with GATEKIT_VERSION_NUMBER to detect a
 * header/library mismatch. Any thread. */
GATEKIT_API int gatekit_version_number(void);

/* ========================================================================================
 * Errors and memory
 * ====================================================================================== */

#define GATEKIT_OK 0

/* General (-1 … -99). */
#define GATEKIT_EINVAL          (-1)   /* invalid argument (NULL, malformed, out of range) */
#define GATEKIT_ENOTFOUND       (-2)   /* a file or record does not exist */
#define GATEKIT_EIO             (-3)   /* reading or writing a file failed */
#define GATEKIT_EBUSY           (-4)   /* the store stayed locked by others after retries */
#define GATEKIT_ECORRUPT        (-5)   /* the store file is damaged (it is left untouched) */
#define GATEKIT_ENEWER          (-6)   /* the store was written by a newer GateKit (untouched) */
#define GATEKIT_ENOMEM          (-7)   /* out of memory */
#define GATEKIT_EINTERNAL       (-8)   /* a bug in GateKit: please report it */
#define GATEKIT_ENOTSTORE       (-9)   /* the file is not a GateKit store (it is left untouched) */
#define GATEKIT_EREADONLY       (-10)  /* the store cannot be written */
#define GATEKIT_EVERSION        (-11)  /* an options struct's version is not supported */
#define GATEKIT_ETOOLARGE       (-12)  /* an input exceeds a documented limit */

/* Receipts (-100 … -199): see the receipts section. */
/* Permissions (-200 … -299): see the permissions section. */
/* Signed data, JWS (-300 … -399): see the signed-data section. */

/* Static English text for a code ("unknown error" for a number that is no code).
 * Never NULL, never freed; any thread. */
GATEKIT_API const char *gatekit_strerror(int code);

/* The calling thread's last failure in detail, e.g. "eula_accept: hash must be 64 lowercase
 * hex digits". Never NULL ("" before any failure); valid until the next failing call on
 * this thread; never freed by the caller. A successful call does not clear it. */
GATEKIT_API const char *gatekit_last_error(void);

/* Frees memory the library returned (JSON strings, arrays). NULL is a no-op. */
GATEKIT_API void gatekit_free(void *ptr);

/* ========================================================================================
 * Store
 * ====================================================================================== */

/* An open store: an SQLite file in WAL mode holding EULA decisions and permission state.
 * One handle may be used from many threads at once; many processes may open the same file.
 * Writes are durable when the call returns (synchronous=FULL). */
typedef struct gatekit_store gatekit_store;

/* Opens (creating if needed) a store.
 * path NULL: $GATEKIT_STORE, else $XDG_STATE_HOME/gatekit/<app_id>.sqlite, else
 * ~/.local/state/gatekit/<app_id>.sqlite; missing parent folders are created (mode 0700).
 * app_id becomes a file name: 1-128 letters, digits, '.', '-', '_', no ".."; it may be NULL
 * only when path or $GATEKIT_STORE names the file.
 * Errors: GATEKIT_EINVAL (bad app_id, path is a folder), GATEKIT_ENOTSTORE (a foreign file),
 * GATEKIT_ECORRUPT, GATEKIT_ENEWER (newer schema), GATEKIT_EIO, GATEKIT_EBUSY. On any error
 * the existing file is left exactly as it was. On success *out is a new handle that the
 * caller closes with gatekit_store_close(). */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_open(gatekit_store **out, const char *path, const char *app_id);

/* Closes a handle. NULL is a no-op. No other thread may be using the handle. */
GATEKIT_API void gatekit_store_close(gatekit_store *store);

/* The store's file path. Owned by the handle: valid until gatekit_store_close(). NULL for a
 * NULL store. */
GATEKIT_API const char *gatekit_store_path(const gatekit_store *store);

/* Full integrity check of the store file: 0 when sound, GATEKIT_ECORRUPT (with the problems
 * in gatekit_last_error()) when not. Read-only. */
GATEKIT_API int gatekit_store_check(gatekit_store *store);

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
 * GATEKIT_EINVAL unless hash is 64 lowercase hex digits. Durable when it returns 0. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* Records a decline of the text whose hash is given. A decline after an acceptance presents
 * the document again. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_decline(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* This user's decisions as a JSON array, oldest first:
 *   [{"document_id":"terms","hash":"<64 hex>","user":"alice"|null,
 *     "decision":"accepted"|"declined","at":"2026-11-22T06:52:02.123Z"}, ...]
 * A user name that is not valid UTF-8 appears with U+FFFD replacements in "user" and exactly
 * in "user_hex". document_id NULL: every document. *out is freed with gatekit_free(). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history(char **out_json, gatekit_store *store, const char *document_id, const char *user);

/* Like eula_history() for every user (the auditor's export). document_id NULL: all. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history_all(char **out_json, gatekit_store *store, const char *document_id);

/* Declares to_hash a minor revision of from_hash (a typo fix): an acceptance of from_hash
 * covers to_hash, transitively. Idempotent. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_mark_minor_revision(gatekit_store *store, const char *document_id, const char *from_hash, const char *to_hash);

/* ---- receipts: section reserved (issue 3) ---- */

/* ---- permissions: section reserved (issue 4) ---- */

/* ---- signed data (JWS): section reserved (issue 5) ---- */

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_H */

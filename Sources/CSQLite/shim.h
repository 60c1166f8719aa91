#ifndef GATEKIT_CSQLITE_SHIM_H
#define GATEKIT_CSQLITE_SHIM_H
/* SQLite (Debian libsqlite3-dev) for the embedded store, loaded with dlopen on the first store
 * open: a host that validates a receipt or signed data at launch never loads libsqlite3 (its
 * symbol relocations would be paid at every process start: BENCHMARKS.md, "Launch check and
 * big receipts"). The prototypes come from SQLite's own header, so every call through the
 * table is type-checked. */
#include <sqlite3.h>
#include <dlfcn.h>
#include <string.h>

#define GK_SQLITE_FUNCTIONS(X) \
    X(open_v2) X(close_v2) X(errmsg) X(db_readonly) X(exec) X(prepare_v3) X(file_control) \
    X(busy_timeout) X(finalize) X(reset) X(clear_bindings) X(bind_int64) X(bind_null) X(bind_text) \
    X(bind_blob64) X(step) X(column_int64) X(column_type) X(column_text) X(column_bytes) X(column_blob)

#define GK_SQLITE_FIELD(name) __typeof__(sqlite3_##name) *_Nonnull name;
/* Every SQLite function GateKit calls, by its name without "sqlite3_" (non-null once
 * gk_sqlite_bind succeeded). */
typedef struct gk_sqlite { GK_SQLITE_FUNCTIONS(GK_SQLITE_FIELD) } gk_sqlite;
#undef GK_SQLITE_FIELD

/* Fills `out` from an open libsqlite3 handle; returns the name of the first missing symbol, or NULL. */
static inline const char *gk_sqlite_bind(void *library, gk_sqlite *out) {
    void *symbol;
#define GK_SQLITE_BIND(name) \
    if (!(symbol = dlsym(library, "sqlite3_" #name))) return "sqlite3_" #name; \
    out->name = (__typeof__(sqlite3_##name) *)symbol;
    GK_SQLITE_FUNCTIONS(GK_SQLITE_BIND)
#undef GK_SQLITE_BIND
    return NULL;
}

/* SQLITE_TRANSIENT is a function-like cast Swift cannot import. */
static inline sqlite3_destructor_type gk_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* The WAL-index header: the first 48 bytes of the shared-memory file (-shm), whose layout is
 * fixed by https://www.sqlite.org/walformat.html because every SQLite version sharing a
 * database reads it. Its change counter moves on every commit by any connection, so an
 * unchanged copy means "nothing was committed since": a memory read instead of the two
 * fcntl() calls a read transaction costs. It is only a pre-filter; PRAGMA data_version
 * stays the authority. Returns NULL when the connection has no mapped WAL index. */
static inline const volatile void *gk_wal_index(const gk_sqlite *api, sqlite3 *db) {
    sqlite3_file *file = 0;
    if (api->file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return 0;
    if (!file || !file->pMethods || file->pMethods->iVersion < 2 || !file->pMethods->xShmMap) return 0;
    volatile void *region = 0;
    /* 32768 is the WAL-index page size; bExtend 0 maps nothing new, it returns the mapping. */
    if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return 0;
    return (const volatile void *)region;
}

#define GK_WAL_INDEX_HEADER_WORDS 12

/* Copies the 48-byte header with atomic word loads (it is written by other processes). */
static inline void gk_wal_index_header(const volatile void *index, unsigned int out[GK_WAL_INDEX_HEADER_WORDS]) {
    const volatile unsigned int *words = (const volatile unsigned int *)index;
    for (int i = 0; i < GK_WAL_INDEX_HEADER_WORDS; i++) out[i] = __atomic_load_n(&words[i], __ATOMIC_ACQUIRE);
}

#endif

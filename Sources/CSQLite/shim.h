#ifndef GATEKIT_CSQLITE_SHIM_H
#define GATEKIT_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <string.h>

/* SQLITE_TRANSIENT is a function-like cast Swift cannot import. */
static inline sqlite3_destructor_type gk_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* The WAL-index header: the first 48 bytes of the shared-memory file (-shm), whose layout is
 * fixed by https://www.sqlite.org/walformat.html because every SQLite version sharing a
 * database reads it. Its change counter moves on every commit by any connection, so an
 * unchanged copy means "nothing was committed since": a memory read instead of the two
 * fcntl() calls a read transaction costs. It is only a pre-filter; PRAGMA data_version
 * stays the authority. Returns NULL when the connection has no mapped WAL index. */
static inline const volatile void *gk_wal_index(sqlite3 *db) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return 0;
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

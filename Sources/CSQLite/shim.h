#ifndef GATEKIT_CSQLITE_SHIM_H
#define GATEKIT_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a function-like cast Swift cannot import. */
static inline sqlite3_destructor_type gk_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif

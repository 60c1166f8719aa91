/* gatekit/store.h — the store.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_STORE_H
#define GATEKIT_STORE_H

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Store
 * ====================================================================================== */

/* An open store: an SQLite file in WAL mode holding EULA decisions, permission state and the
 * entitlement ledger.
 * One handle may be used from many threads at once; many processes may open the same file.
 * Writes are durable when the call returns (synchronous=FULL).
 *
 * Who can read a store: only the user who created it. GateKit creates the store and its
 * -wal/-shm files mode 0600 and the folders it creates 0700, whatever the umask, and
 * narrows an existing store of its own user to 0600. It opens a store only when the file
 * and its companions are regular files (never a symbolic link), owned by the calling user
 * and writable by nobody else, in a folder that no other user can write (owned by the user
 * or root; group- or world-writable only with the sticky bit); otherwise GATEKIT_EUNSAFE,
 * with the file, its owner and its mode in gatekit_last_error(), and nothing written.
 * Group-shared deployments opt in with GATEKIT_STORE_GROUP_SHARED (see below).
 * On a read-only file system (or a read-only file) the store opens read-only: reads answer,
 * writes fail with GATEKIT_EREADONLY.
 *
 * PostgreSQL: a path that is a "postgresql://" or "postgres://" URI, or a libpq key=value
 * string whose first keyword is libpq's ("host=db1 dbname=gatekit"), opens the same store on
 * a PostgreSQL server through libpq (loaded on first use; Debian libpq5). Over TCP GateKit
 * requires TLS and verifies the server's certificate and name (sslmode=verify-full, with the
 * system's CAs unless sslrootcert names others) unless the string or $PGSSLMODE says another
 * sslmode; a Unix socket needs none. $PG* variables and ~/.pgpass count as libpq says.
 * A connection pooler in between (PgBouncer in transaction or session mode, or a managed
 * equivalent) is detected (the backend pid the server reports is not the one libpq was given)
 * and used as such: no state is kept in a server session; every read and write is a
 * transaction that sets the store's search_path and the connection's settings (GateKit's
 * timeouts, or the "options" the string or $PGOPTIONS gives, as -c name=value) with SET LOCAL,
 * with unnamed statements; a pooler that refuses the "options" startup parameter is
 * connected to without it (but $PGOPTIONS, which libpq always sends, is then an error). The
 * checks below hold through it; TLS between the pooler and the server is the pooler's
 * configuration. Commits by other clients are heard through a direct listen connection
 * (gatekit_store_open_listening()) or not at all. The schema, and every table,
 * index, sequence, function, type and trigger in it, must be owned by the connecting role
 * (GATEKIT_STORE_GROUP_SHARED: by one role it is a member of), no other role may create in it
 * or write its tables, and every trigger must be GateKit's: otherwise GATEKIT_EUNSAFE naming
 * the object and its owner, before anything is read or written. Writers lock rows of the
 * store's own table, which no other role can hold. (docs/hardening.md) Each app_id is its own schema "gatekit/<app_id>" in that database (NULL: "default"),
 * so many apps share one database; the schema is versioned and migrated like the file
 * (GATEKIT_ENEWER, GATEKIT_ENOTSTORE for a schema of that name holding something else;
 * nothing is ever dropped). Every function below means the same on both backends.
 * On PostgreSQL every call that reads or writes the store may block on the network: at most
 * connect_timeout to (re)connect (10 s unless the string or $PGCONNECT_TIMEOUT says
 * otherwise) plus statement_timeout per statement (30 s unless "options" or $PGOPTIONS set
 * it), and a write may wait for another client writing the same subject (one subscription,
 * the permission state). Races are retried inside GateKit (10 attempts), then GATEKIT_EBUSY;
 * a statement that reached statement_timeout (or lock_timeout) is not retried: GATEKIT_EBUSY
 * at once, saying what it waited for.
 * A broken connection is GATEKIT_ECONNECTION, with nothing written, and the next call
 * reconnects; a connection that breaks during COMMIT is GATEKIT_EUNCERTAIN, never success
 * (every GateKit write is idempotent or append-only, so retrying it is safe). Caches (the
 * ledger's, the permission snapshot) stay coherent: handles in one process see each other's
 * commits at once, as on SQLite; a commit by another process or machine is seen once its
 * LISTEN/NOTIFY notification arrives (BENCHMARKS.md, "Change feed latency", has the delay).
 * Messages never hold the password; gatekit_store_path() answers the URI without it. */
typedef struct gatekit_store gatekit_store;

/* Opens (creating if needed) a store.
 * path NULL: $GATEKIT_STORE, else $XDG_STATE_HOME/gatekit/<app_id>.sqlite, else
 * ~/.local/state/gatekit/<app_id>.sqlite; missing parent folders are created (mode 0700).
 * A variable that is set is used or is an error (GATEKIT_EINVAL naming it): an empty or
 * non-UTF-8 $GATEKIT_STORE, or a relative $XDG_STATE_HOME or $HOME, never silently
 * selects another file.
 * app_id becomes a file name: 1-128 letters, digits, '.', '-', '_', no ".."; it may be NULL
 * only when path or $GATEKIT_STORE names the file.
 * Errors: GATEKIT_EINVAL (bad app_id, path is a folder, a malformed connection string),
 * GATEKIT_ENOTSTORE (a foreign file), GATEKIT_ECORRUPT, GATEKIT_ENEWER (newer schema),
 * GATEKIT_EIO, GATEKIT_EBUSY, GATEKIT_ECONNECTION (PostgreSQL unreachable). On any error
 * the existing file is left exactly as it was. On success *out is a new handle that the
 * caller closes with gatekit_store_close(). */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_open(gatekit_store **out, const char *path, const char *app_id);

/* gatekit_store_open() flags. */
#define GATEKIT_STORE_GROUP_SHARED 0x1u  /* a store shared by a group of users: files created 0660
                                          * and folders 0770; files owned by another user and
                                          * group-writable files and folders are accepted. Symbolic
                                          * links and world-writable files (or folders without the
                                          * sticky bit) are still refused. Every member of the
                                          * file's group can then read and write every decision.
                                          * PostgreSQL: the schema may be owned by a role the
                                          * connecting role is a member of (a team's owner role). */

#define GATEKIT_STORE_EXISTING     0x2u  /* open only a store that exists: GATEKIT_ENOTFOUND, and
                                          * nothing created (no file, no folder, no schema),
                                          * when there is none yet. For read-only questions. */

/* gatekit_store_open() with flags (0 or GATEKIT_STORE_* above); GATEKIT_EINVAL for unknown bits. */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_open_flags(gatekit_store **out, const char *path, const char *app_id, unsigned int flags);

/* gatekit_store_open_flags() for a PostgreSQL store behind a connection pooler, with
 * listen_uri: a connection string reaching the same server and database directly (not
 * through the pooler), used only to LISTEN for other clients' commits, so the handle's caches
 * (the ledger's answers, the permission snapshot) and waits (ledger_wait_changes,
 * the permission watcher) see them as they do on a direct connection. GATEKIT_EINVAL when
 * path is not a PostgreSQL store behind a pooler (a direct connection listens itself), when
 * listen_uri reaches a pooler, or when this store's commit notification does not arrive on it
 * within 5 s (another server or database). NULL listen_uri is gatekit_store_open_flags().
 *
 * Behind a pooler without a listen URI every read asks the server (nothing is cached across
 * processes) and a wait reads the change feed every 20 ms. (README, "Behind a connection
 * pooler".)
 * Since 0.2.0. */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_open_listening(gatekit_store **out, const char *path, const char *app_id, unsigned int flags,
                                                                 const char *listen_uri);

/* Closes a handle. NULL is a no-op. No other thread may be using the handle. Stops the
 * permission watcher (waiting for a callback it runs) and drops subscriptions and the provider.
 *
 * Processes and fork: a handle belongs to the process that opened it. In a child made by
 * fork(2) after the open (gunicorn with preload_app, uWSGI without lazy-apps, multiprocessing's
 * fork start method) every call on the inherited handle fails with GATEKIT_EFORKED and
 * touches nothing, and gatekit_store_close() on it does nothing (closing would close the
 * parent's connection): open the store again in the child. docs/hosting.md shows the pattern
 * for prefork servers, threads and asyncio. */
GATEKIT_API void gatekit_store_close(gatekit_store *store);

/* The store's file path. Owned by the handle: valid until gatekit_store_close(). NULL for a
 * NULL store. */
GATEKIT_API const char *gatekit_store_path(const gatekit_store *store);

/* Full integrity check of the store: the file (or the PostgreSQL schema), then the EULA
 * history's hash chains (a decision changed, removed or inserted behind GateKit's back;
 * docs/eula.md). 0 when sound, GATEKIT_ECORRUPT (with the problems in gatekit_last_error())
 * when not. Read-only. */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_check(gatekit_store *store);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_STORE_H */

/* gatekit/common.h — conventions' macros and the version.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_COMMON_H
#define GATEKIT_COMMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* GATEKIT_API marks an exported function; GATEKIT_WARN_UNUSED one whose result says whether it
 * failed (ignoring it is a compiler warning); GATEKIT_DEPRECATED(msg) one that still works but
 * will leave in a later release, with what to use instead (a compiler warning at each use).
 * Every function of the API is in it since 0.1.0 unless its comment says "since 0.x". */
#if defined(__GNUC__) || defined(__clang__)
#  define GATEKIT_API __attribute__((visibility("default")))
#  define GATEKIT_WARN_UNUSED __attribute__((warn_unused_result))
#  define GATEKIT_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define GATEKIT_API
#  define GATEKIT_WARN_UNUSED
#  define GATEKIT_DEPRECATED(msg)
#endif

/* ========================================================================================
 * Version
 * ====================================================================================== */

#define GATEKIT_VERSION_MAJOR 0
#define GATEKIT_VERSION_MINOR 2
#define GATEKIT_VERSION_PATCH 0
#define GATEKIT_VERSION_STRING "0.2.0"
#define GATEKIT_VERSION_NUMBER \
    (GATEKIT_VERSION_MAJOR * 10000 + GATEKIT_VERSION_MINOR * 100 + GATEKIT_VERSION_PATCH)

/* The library's version as "MAJOR.MINOR.PATCH". Static storage; any thread. */
GATEKIT_API const char *gatekit_version(void);

/* MAJOR*10000 + MINOR*100 + PATCH. Compare with GATEKIT_VERSION_NUMBER to detect a
 * header/library mismatch. Any thread. */
GATEKIT_API int gatekit_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_COMMON_H */

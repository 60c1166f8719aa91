#ifndef GATEKIT_CCURL_SHIM_H
#define GATEKIT_CCURL_SHIM_H
/* libcurl (Debian libcurl4-openssl-dev) for the App Store Server API client, loaded with
 * dlopen on the first client: hosts that only verify locally never load libcurl and its TLS
 * stack, and libgatekit does not need libcurl4 installed to run. The prototypes come from
 * libcurl's own header, so every call is type-checked. curl_easy_setopt and
 * curl_easy_getinfo are variadic, which Swift cannot call: the typed wrappers below can. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

#define GK_CURL_FUNCTIONS(X) \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_reset) X(curl_easy_setopt) \
    X(curl_easy_perform) X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_slist_append) \
    X(curl_slist_free_all) X(curl_version_info) X(curl_easy_header)

#define GK_CURL_FIELD(name) __typeof__(name) *_Nonnull name;
/* Every libcurl function GateKit calls (non-null once gk_curl_bind succeeded). */
typedef struct gk_curl { GK_CURL_FUNCTIONS(GK_CURL_FIELD) } gk_curl;
#undef GK_CURL_FIELD

/* Fills `out` from an open libcurl handle; returns the name of the first missing symbol, or NULL. */
static inline const char *gk_curl_bind(void *library, gk_curl *out) {
    void *symbol;
#define GK_CURL_BIND(name) \
    if (!(symbol = dlsym(library, #name))) return #name; \
    out->name = (__typeof__(name) *)symbol;
    GK_CURL_FUNCTIONS(GK_CURL_BIND)
#undef GK_CURL_BIND
    return NULL;
}

static inline CURLcode gk_curl_set_long(const gk_curl *c, CURL *h, CURLoption option, long value) {
    return c->curl_easy_setopt(h, option, value);
}
static inline CURLcode gk_curl_set_pointer(const gk_curl *c, CURL *h, CURLoption option, const void *value) {
    return c->curl_easy_setopt(h, option, value);
}
static inline CURLcode gk_curl_set_off(const gk_curl *c, CURL *h, CURLoption option, curl_off_t value) {
    return c->curl_easy_setopt(h, option, value);
}
/* Bytes libcurl copies (CURL_BLOB_COPY): a CA bundle read once, never the file again. */
static inline CURLcode gk_curl_set_blob(const gk_curl *c, CURL *h, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return c->curl_easy_setopt(h, option, &blob);
}
typedef size_t (*gk_curl_write_fn)(char *data, size_t size, size_t count, void *context);
static inline CURLcode gk_curl_set_writer(const gk_curl *c, CURL *h, gk_curl_write_fn writer, void *context) {
    CURLcode rc = c->curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, writer);
    return rc != CURLE_OK ? rc : c->curl_easy_setopt(h, CURLOPT_WRITEDATA, context);
}
static inline CURLcode gk_curl_get_long(const gk_curl *c, CURL *h, CURLINFO info, long *out) {
    return c->curl_easy_getinfo(h, info, out);
}
static inline CURLcode gk_curl_get_off(const gk_curl *c, CURL *h, CURLINFO info, curl_off_t *out) {
    return c->curl_easy_getinfo(h, info, out);
}
static inline CURLcode gk_curl_get_string(const gk_curl *c, CURL *h, CURLINFO info, const char **out) {
    char *value = NULL;
    CURLcode rc = c->curl_easy_getinfo(h, info, &value);
    *out = value;
    return rc;
}
/* Connections through `opener` (CURLOPT_OPENSOCKETFUNCTION), which sees each address before
 * a socket is made for it and may refuse it: a check of the address connected to, after DNS,
 * which a name that resolves differently later cannot get around. */
typedef curl_socket_t (*gk_curl_open_fn)(void *context, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode gk_curl_set_opener(const gk_curl *c, CURL *h, gk_curl_open_fn opener, void *context) {
    CURLcode rc = c->curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, opener);
    return rc != CURLE_OK ? rc : c->curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, context);
}
/* The IP address of `address` into out (4 bytes for AF_INET, 16 for AF_INET6); returns how many
 * bytes were written, 0 for any other family. curl's addr member is a sockaddr storage big enough
 * for either, though declared as a struct sockaddr. */
#include <netinet/in.h>
#include <string.h>
static inline int gk_curl_address_bytes(const struct curl_sockaddr *address, unsigned char out[16]) {
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(out, &((const struct sockaddr_in *)(const void *)&address->addr)->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(out, &((const struct sockaddr_in6 *)(const void *)&address->addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}
/* The last response's header `name` (its first occurrence), or NULL when absent. */
static inline const char *gk_curl_header(const gk_curl *c, CURL *h, const char *name) {
    struct curl_header *header = NULL;
    if (c->curl_easy_header(h, name, 0, CURLH_HEADER, -1, &header) != CURLHE_OK || !header) return NULL;
    return header->value;
}
#endif

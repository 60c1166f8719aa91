#ifndef GATEKIT_COPENSSL_SHIM_H
#define GATEKIT_COPENSSL_SHIM_H
/* OpenSSL for Swift: deprecated calls are compile errors, and the function-like
   macros Swift cannot import are wrapped as static inline functions. */
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cms.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

static inline int gk_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *gk_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
static inline STACK_OF(X509) *gk_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int gk_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline void gk_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
static inline void gk_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }

/* EVP_PKEY_PUBLIC_KEY is a macro of macros Swift cannot import. */
static inline int gk_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }

/* OSSL_PARAM_BLD keeps the name pointers until OSSL_PARAM_BLD_to_param: a Swift string
   literal's temporary would be gone by then, so the names are C's static strings. */
static inline int gk_param_bld_push_rsa_public(OSSL_PARAM_BLD *b, const BIGNUM *n, const BIGNUM *e) {
    return OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_RSA_N, n) == 1 && OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_RSA_E, e) == 1;
}

#endif

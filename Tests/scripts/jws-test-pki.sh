#!/usr/bin/env bash
# Generates a throw-away PKI shaped like Apple's StoreKit 2 signing chain, for JWS tests and
# benchmarks (never committed: run at test time into a temporary folder).
#   jws-test-pki.sh DIR
# DIR/<name>.der (certificates), DIR/<name>.key (PKCS#8 PEM private keys):
#   root            P-256 test root (the test anchor)
#   int             intermediate with 1.2.840.113635.100.6.2.1, signed by root
#   leaf            P-256 signer with 1.2.840.113635.100.6.11.1, signed by int
#   leaf_bad_oid    signer with 1.2.840.113635.100.6.11.2 instead
#   int_bad_oid     intermediate with 1.2.840.113635.100.6.2.2 instead; leaf_under_bad_int below it
#   leaf_rsa        RSA-2048 signer (for RS256 / wrong key type cases)
#   other_root      an unrelated self-signed root (a stranger)
#   root384, int384 P-384 root and intermediate (ecdsa-with-SHA384), leaf384: P-256 signer —
#                   the shape of Apple's production chain (G3 -> WWDR G6 -> signing leaf)
# Every certificate is valid from the moment of generation for 30 days. LEAVES=N: see the end.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
serial=100

key() {  # key NAME CURVE|rsa
    if [ "$2" = rsa ]; then
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null
    else
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:"$2" -out "$1.key"
    fi
}

root() {  # root NAME CURVE SUBJECT DIGEST
    key "$1" "$2"
    openssl req -x509 -new -key "$1.key" -subj "$3" -days 30 -"$4" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -outform DER -out "$1.der"
}

issue() {  # issue NAME CURVE SUBJECT ISSUER DIGEST EXTENSIONS
    key "$1" "$2"
    serial=$((serial + 1))
    printf '%b\n' "$6" > "$1.ext"
    openssl req -new -key "$1.key" -subj "$3" -out "$1.csr"
    openssl x509 -req -in "$1.csr" -CA "$4.der" -CAform DER -CAkey "$4.key" -set_serial "$serial" \
        -days 30 -"$5" -extfile "$1.ext" -outform DER -out "$1.der" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
}

ca_ext='basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid'
leaf_ext='basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid'

root root prime256v1 "/CN=GateKit Test Root/O=GateKit Tests" sha256
issue int prime256v1 "/CN=GateKit Test Intermediate/O=GateKit Tests" root sha256 "$ca_ext\n1.2.840.113635.100.6.2.1=ASN1:NULL"
issue leaf prime256v1 "/CN=GateKit Test Signer/O=GateKit Tests" int sha256 "$leaf_ext\n1.2.840.113635.100.6.11.1=ASN1:NULL"
issue leaf_bad_oid prime256v1 "/CN=GateKit Test Signer Bad OID/O=GateKit Tests" int sha256 "$leaf_ext\n1.2.840.113635.100.6.11.2=ASN1:NULL"
issue int_bad_oid prime256v1 "/CN=GateKit Test Intermediate Bad OID/O=GateKit Tests" root sha256 "$ca_ext\n1.2.840.113635.100.6.2.2=ASN1:NULL"
issue leaf_under_bad_int prime256v1 "/CN=GateKit Test Signer Under Bad Intermediate/O=GateKit Tests" int_bad_oid sha256 "$leaf_ext\n1.2.840.113635.100.6.11.1=ASN1:NULL"
issue leaf_rsa rsa "/CN=GateKit Test RSA Signer/O=GateKit Tests" int sha256 "$leaf_ext\n1.2.840.113635.100.6.11.1=ASN1:NULL"
root other_root prime256v1 "/CN=GateKit Stranger Root/O=Elsewhere" sha256
root root384 secp384r1 "/CN=GateKit Test Root G3-shaped/O=GateKit Tests" sha384
issue int384 secp384r1 "/CN=GateKit Test Intermediate G6-shaped/O=GateKit Tests" root384 sha384 "$ca_ext\n1.2.840.113635.100.6.2.1=ASN1:NULL"
issue leaf384 prime256v1 "/CN=GateKit Test Signer (production-shaped)/O=GateKit Tests" int384 sha384 "$leaf_ext\n1.2.840.113635.100.6.11.1=ASN1:NULL"
# A chain one certificate too long, every certificate otherwise right: root -> int_long ->
# int_sub (Apple's intermediate OID) -> leaf_deep (the signer OID).
long_ext='basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid'
issue int_long prime256v1 "/CN=GateKit Test Upper Intermediate/O=GateKit Tests" root sha256 "$long_ext\n1.2.840.113635.100.6.2.1=ASN1:NULL"
issue int_sub prime256v1 "/CN=GateKit Test Lower Intermediate/O=GateKit Tests" int_long sha256 "$ca_ext\n1.2.840.113635.100.6.2.1=ASN1:NULL"
issue leaf_deep prime256v1 "/CN=GateKit Test Deep Signer/O=GateKit Tests" int_sub sha256 "$leaf_ext\n1.2.840.113635.100.6.11.1=ASN1:NULL"

# Benchmarks: LEAVES=N adds N distinct signers under each intermediate (leaf_1..N under int,
# leaf384_1..N under int384), so a round-robin over them misses every verified-chain cache.
for ((i = 1; i <= ${LEAVES:-0}; i++)); do
    issue "leaf_$i" prime256v1 "/CN=GateKit Bench Signer $i/O=GateKit Tests" int sha256 "$leaf_ext\n1.2.840.113635.100.6.11.1=ASN1:NULL"
    issue "leaf384_$i" prime256v1 "/CN=GateKit Bench Signer 384-$i/O=GateKit Tests" int384 sha384 "$leaf_ext\n1.2.840.113635.100.6.11.1=ASN1:NULL"
done

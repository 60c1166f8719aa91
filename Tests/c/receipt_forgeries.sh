#!/usr/bin/env bash
# Generates, in folder $1, a test PKI and receipts signed with it, for test_receipt.c.
# Payloads come from real fixtures ($2): an Xcode payload (trusted only through an explicit
# test anchor) and an App Store sandbox payload (which must only ever chain to Apple's root).
# Nothing here is committed: keys and certificates live in the temporary folder only.
set -euo pipefail
out=$1 fx=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$out"
exec 2>forgeries.log

openssl cms -verify -noverify -binary -inform DER -in "$fx/receipts/xcode/tp__receipt-xcode-with-purchases.der" -out xcode-payload.bin
openssl cms -verify -noverify -binary -inform DER -in "$fx/receipts/apple/tp__receipt-sandbox-g5.der" -out appstore-payload.bin

cat > ext.cnf <<'EOF'
[root]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
[intermediate]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
1.2.840.113635.100.6.2.1=ASN1:NULL
[intermediate_wrong_oid]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
1.2.840.113635.100.6.2.2=ASN1:NULL
[leaf]
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
1.2.840.113635.100.6.11.1=ASN1:NULL
[leaf_wrong_oid]
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
1.2.840.113635.100.6.11.2=ASN1:NULL
EOF
cat > ca.cnf <<'EOF'
[ca]
default_ca=gk
[gk]
database=index.txt
new_certs_dir=.
serial=serial
default_md=sha256
policy=anything
unique_subject=no
[anything]
countryName=optional
organizationName=optional
organizationalUnitName=optional
commonName=supplied
EOF
: > index.txt
echo 1000 > serial

# issue NAME SUBJECT ISSUER(self|name) EXTENSIONS NOT_BEFORE NOT_AFTER
issue() {
    openssl genrsa -out "$1.key" 2048
    openssl req -new -key "$1.key" -subj "$2" -out "$1.csr"
    if [ "$3" = self ]; then
        openssl ca -batch -notext -config ca.cnf -selfsign -keyfile "$1.key" -in "$1.csr" -out "$1.pem" \
            -extfile ext.cnf -extensions "$4" -startdate "$5" -enddate "$6"
    else
        openssl ca -batch -notext -config ca.cnf -cert "$3.pem" -keyfile "$3.key" -in "$1.csr" -out "$1.pem" \
            -extfile ext.cnf -extensions "$4" -startdate "$5" -enddate "$6"
    fi
    openssl x509 -in "$1.pem" -outform DER -out "$1.der"
}
from=20200101000000Z until=20400101000000Z
issue root "/CN=GateKit Test Root" self root $from $until
issue inter "/CN=GateKit Test WWDR" root intermediate $from $until
issue leaf "/CN=GateKit Test Receipt Signing" inter leaf $from $until
issue leaf_wrong_oid "/CN=GateKit Wrong OID Leaf" inter leaf_wrong_oid $from $until
issue inter_wrong_oid "/CN=GateKit Wrong OID WWDR" root intermediate_wrong_oid $from $until
issue leaf_under_wrong_inter "/CN=GateKit Leaf Under Wrong WWDR" inter_wrong_oid leaf $from $until
issue leaf_direct "/CN=GateKit Leaf Under Root" root leaf $from $until
issue leaf_future "/CN=GateKit Leaf From 2025" inter leaf 20250101000000Z 20390101000000Z
issue leaf_past "/CN=GateKit Leaf 2023 Only" inter leaf 20230101000000Z 20240101000000Z
issue other_leaf "/CN=GateKit Other Leaf" inter leaf $from $until
# A look-alike of Apple's chain: same names, same marker OIDs, our own keys.
issue fake_root "/C=US/O=Apple Inc./OU=Apple Certification Authority/CN=Apple Root CA" self root 20060425000000Z 20350209000000Z
issue fake_wwdr "/C=US/O=Apple Inc./OU=G5/CN=Apple Worldwide Developer Relations Certification Authority" fake_root intermediate 20200101000000Z 20300101000000Z
issue fake_leaf "/C=US/O=Apple Inc./OU=Apple Worldwide Developer Relations/CN=Mac App Store and iTunes Store Receipt Signing" fake_wwdr leaf 20240101000000Z 20280101000000Z

cat inter.pem root.pem > chain.pem
cat inter_wrong_oid.pem root.pem > chain_wrong_inter.pem
cat fake_wwdr.pem fake_root.pem > fake_chain.pem
cat other_leaf.pem inter.pem root.pem > chain_without_signer.pem

# sign OUT PAYLOAD SIGNER CHAIN [extra cms options]
sign() {
    local o=$1 p=$2 s=$3 c=$4
    shift 4
    openssl cms -sign -binary -nodetach -md sha256 -in "$p" -signer "$s.pem" -inkey "$s.key" -certfile "$c" \
        -outform DER -out "$o.der" "$@"
}
sign good xcode-payload.bin leaf chain.pem -noattr
sign good_sha1 xcode-payload.bin leaf chain.pem -noattr -md sha1
sign fake_apple appstore-payload.bin fake_leaf fake_chain.pem -noattr
sign appstore_under_test_root appstore-payload.bin leaf chain.pem -noattr
sign leaf_wrong_oid xcode-payload.bin leaf_wrong_oid chain.pem -noattr
sign intermediate_wrong_oid xcode-payload.bin leaf_under_wrong_inter chain_wrong_inter.pem -noattr
sign two_certificates xcode-payload.bin leaf_direct root.pem -noattr
sign signer_not_in_chain xcode-payload.bin leaf chain_without_signer.pem -noattr -nocerts
sign signed_attributes xcode-payload.bin leaf chain.pem
sign valid_now_only xcode-payload.bin leaf_future chain.pem -noattr
sign valid_then_only xcode-payload.bin leaf_past chain.pem -noattr
# Hardening II: values the validator must never echo raw, on receipts our test leaf signed.
rewrite() { python3 "$here/receipt_rewrite.py" "$@"; }
rewrite payload xcode-payload.bin env-hostile-payload.bin 0 big:10000000      # 10 MB, newlines, ESC, NUL
rewrite payload xcode-payload.bin bundle-nul-payload.bin 2 "$(printf 'com.example.naturelab.backyardbirds.example\0evil' | od -An -tx1 | tr -d ' \n')"
rewrite payload xcode-payload.bin bundle-hostile-payload.bin 2 big:10000000
sign env_hostile env-hostile-payload.bin leaf chain.pem -noattr
sign bundle_nul bundle-nul-payload.bin leaf chain.pem -noattr
sign bundle_hostile bundle-hostile-payload.bin leaf chain.pem -noattr
# Re-encodings of one signed receipt (the replay identity must not change).
rewrite certs good.der good_reordered.der reorder
rewrite certs good.der good_extra_cert.der extra:other_leaf.der
rewrite certs "$fx/receipts/apple/tp__receipt-sandbox-g5.der" apple_reordered.der reorder
rewrite certs "$fx/receipts/apple/tp__receipt-sandbox-g5.der" apple_extra_cert.der extra:root.der
openssl cms -cmsout -inform DER -in "$fx/receipts/xcode/tp__receipt-xcode.der" -outform DER -out xcode_as_der.der
echo done

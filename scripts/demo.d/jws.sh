# Sourced by scripts/demo.sh: StoreKit 2 signed data with Apple's own test vectors.
jws_fixtures=${GATEKIT_FIXTURES:-../shared/fixtures}/jws/apple-test
echo
echo "== StoreKit 2 signed data (JWS)"
if [ ! -d "$jws_fixtures" ]; then
    echo "(skipped: Apple's test vectors not found at $jws_fixtures; set GATEKIT_FIXTURES)"
else
    # Apple's test notification, trusted only because we name Apple's test root (test mode).
    expect 0 jws verify --type notification --bundle-id com.example --environment Sandbox \
        --test-anchor "$jws_fixtures/certs/testCA.der" "$jws_fixtures/mock_signed_data/testNotification"
    # The same notification where Production is expected: it is Sandbox data, refused as
    # Apple's verifier refuses it (exit 12, another environment, as gatekit(1) lists the codes).
    expect 12 jws verify --type notification --bundle-id com.example --environment Production --app-apple-id 1234 \
        --test-anchor "$jws_fixtures/certs/testCA.der" "$jws_fixtures/mock_signed_data/testNotification"
    # Test-signed data that claims Production is never App Store data (exit 11, not authentic):
    # a throw-away test PKI signs a Production transaction.
    expect 0 test pki "$work/pki"
    printf '%s' '{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example","productId":"pro","purchaseDate":1700000000000,"type":"Non-Consumable","environment":"Production","signedDate":1700000000000}' \
        > "$work/production.json"
    step "gatekit test sign --pki $work/pki --kind transaction $work/production.json > $work/production.jws"
    "$tool" test sign --pki "$work/pki" --kind transaction "$work/production.json" > "$work/production.jws"
    expect 11 jws verify --type transaction --bundle-id com.example --environment Production --app-apple-id 1 \
        --test-anchor "$work/pki/root.der" "$work/production.jws"
    # Without the test anchor the test chain is checked against Apple Root CA - G3: refused.
    expect 11 jws verify --type transaction --bundle-id com.example --environment Sandbox \
        "$jws_fixtures/mock_signed_data/transactionInfo"
    # Xcode-signed data is never accepted silently.
    expect 11 jws verify --type transaction --bundle-id com.example.naturelab.backyardbirds.example \
        --environment Xcode "$jws_fixtures/xcode/xcode-signed-transaction"
fi

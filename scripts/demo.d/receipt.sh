# Sourced by scripts/demo.sh: App Store receipts with the gatekit tool (needs the fixtures).
fx=${GATEKIT_FIXTURES:-../shared/fixtures}
if [ ! -d "$fx/receipts" ]; then
    echo; echo "== receipts: skipped (no fixtures at $fx; set GATEKIT_FIXTURES)"
else
    echo; echo "== App Store receipts (fixtures: $fx)"
    g5=$fx/receipts/apple/tp__receipt-sandbox-g5.der
    expect 0  receipt verify --bundle-id dev.bonzer.weeka.app --device-id 956328D9-CC6A-47F4-BE40-6953FB0AB6C7 "$g5"
    expect 11 receipt verify --bundle-id dev.bonzer.weeka.app --at now "$g5"
    expect 11 receipt verify --bundle-id com.example.other "$g5"
    expect 12 receipt verify --bundle-id dev.bonzer.weeka.app --production-only "$g5"
    expect 11 receipt verify --bundle-id net.zachariadis.cyclemaps "$fx/receipts/xcode/tp__receipt-xcode.der"
    expect 0  receipt verify --bundle-id net.zachariadis.cyclemaps --allow-xcode "$fx/certs/StoreKitTestCertificate.cer" "$fx/receipts/xcode/tp__receipt-xcode.der"
    expect 10 receipt verify --bundle-id com.example "$fx/receipts/negative/neg__arv__not_a_receipt.orig"
fi

# Sourced by scripts/demo.sh: permission state with the gatekit tool (same throw-away store).
echo
echo "== Permissions"
expect 0 perm usage camera "Scan QR codes on your screen"
expect 0 perm usage microphone "Record voice notes"
expect 0 perm register 1000000 telemetry "Send anonymous usage statistics"
expect 0 perm pending camera microphone telemetry
expect 0 perm record camera dont-ask
expect 3 perm state camera
expect 0 perm pending microphone camera telemetry
step "gatekit perm watch --count 1 --timeout 10 &   (another process records)"
"$tool" perm watch --count 1 --timeout 10 </dev/null &
watcher=$!
sleep 0.5
"$tool" perm record microphone authorized </dev/null >/dev/null
wait "$watcher"
expect 0 perm reset camera
expect 0 perm history

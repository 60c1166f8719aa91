// swift-tools-version:6.1
import PackageDescription

#if arch(arm64)
let libdbusArchIncludes = "/usr/lib/aarch64-linux-gnu/dbus-1.0/include"
#else
let libdbusArchIncludes = "/usr/lib/x86_64-linux-gnu/dbus-1.0/include"
#endif

// libdbus's headers, for the layer that imports CDBus and the modules that import that layer
// (they load its module, and with it CDBus's; pkg-config would also link libdbus, which GateKit
// loads with dlopen). No other target gets these flags.
let libdbusIncludes: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-I/usr/include/dbus-1.0", "-Xcc", "-I\(libdbusArchIncludes)"])]

// The layers are modules of one library: release builds let the optimizer inline and specialize
// across them, as it did inside the one module they were (BENCHMARKS.md, "Layers as modules").
let crossModuleOptimization: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

// No module imports the toolchain's regex modules (_StringProcessing, _RegexParser), so the
// library does not carry them: their relocated pages were 15 of the 74 a fresh process touches
// before its first verdict (BENCHMARKS.md, "The launch check"). Text is searched by its bytes
// (`Text.contains` in Support).
let noRegexModules: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"])]

let coreLayers = ["Support", "Crypto", "Webhooks", "Trust", "Receipts", "JWS", "TestData", "Store", "EULA", "Permissions",
                  "PlayData", "StripeData", "Ledger", "AppStoreSigning", "HTTPS", "AppStoreAPI", "PlayAPI", "StripeAPI", "LedgerSync", "LedgerDelivery", "Schema"]

/// A core layer: the folder Sources/GateKitCore/<layer> as the module GateKit<layer>.
func core(_ layer: String, _ dependencies: [String] = []) -> Target {
    let seesDBus = dependencies.contains("CDBus") || dependencies.contains("Permissions")
    return .target(
        name: "GateKit\(layer)",
        dependencies: dependencies.map { coreLayers.contains($0) ? .target(name: "GateKit\($0)") : .target(name: $0) },
        path: "Sources/GateKitCore/\(layer)",
        swiftSettings: (seesDBus ? libdbusIncludes : []) + crossModuleOptimization + noRegexModules
    )
}

// libgatekit.so: a Swift core (the GateKit<layer> targets) behind a thin C ABI (GateKit).
// C stays in the system-library shim targets; the public header is the contract.
let package = Package(
    name: "GateKit",
    products: [
        .library(name: "gatekit", type: .dynamic, targets: ["GateKit"]),
    ],
    targets: [
        // libcrypto only: GateKit does no TLS, so libssl is never loaded.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // SQLite's header only: the library is loaded with dlopen when a store opens.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libpq's header only: the library is loaded with dlopen when a PostgreSQL store opens.
        .systemLibrary(name: "CPostgres", providers: [.apt(["libpq-dev"])]),
        // libdbus's header only: loaded with dlopen when a handle enables the desktop portal.
        // Its include folders come from libdbusIncludes above.
        .systemLibrary(name: "CDBus", providers: [.apt(["libdbus-1-dev"])]),
        // libcurl's header only: loaded with dlopen when an App Store Server API client is made.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // include/gatekit.h as a Swift module, so the exports are type-checked against the header.
        .systemLibrary(name: "CGateKitHeader"),
        // The core: one target per layer, each folder of Sources/GateKitCore/, bottom up. A
        // layer imports only those below it, so a wrong import does not compile; what a layer
        // shares upward is `package` (docs/ARCHITECTURE.md draws the layers).
        core("Support"),
        core("Crypto", ["Support", "COpenSSL"]),
        // Standard Webhooks: what GateKit signs for a team's backend, and the receiver's check.
        core("Webhooks", ["Support", "Crypto"]),
        core("Trust", ["Support", "Crypto", "COpenSSL"]),
        core("Receipts", ["Support", "Crypto", "Trust"]),
        core("JWS", ["Support", "Crypto", "Trust", "COpenSSL"]),
        core("TestData", ["Support", "Crypto", "JWS", "PlayAPI", "COpenSSL"]),
        core("Store", ["Support", "Crypto", "COpenSSL", "CSQLite", "CPostgres"]),
        core("EULA", ["Support", "Crypto", "Store"]),
        core("Permissions", ["Support", "Store", "CDBus"]),
        // Google Play's answers as data (what the Play Developer API returns, read; no network).
        core("PlayData", ["Support"]),
        // Stripe's objects as data (what Stripe's API returns, read; no network).
        core("StripeData", ["Support"]),
        core("Ledger", ["Support", "Trust", "Receipts", "JWS", "Store", "PlayData", "StripeData"]),
        core("AppStoreSigning", ["Support", "Crypto", "COpenSSL"]),
        // HTTPS through libcurl, shared by the stores' API clients.
        core("HTTPS", ["Support", "CCurl"]),
        core("AppStoreAPI", ["Support", "AppStoreSigning", "JWS", "HTTPS"]),
        // Google Play: the Play Developer API (a service account's OAuth) and RTDN push verification.
        core("PlayAPI", ["Support", "Crypto", "HTTPS", "PlayData"]),
        core("StripeAPI", ["Support", "Crypto", "HTTPS"]),
        // The ledger kept in step with Apple's API: notification-history sync, refreshes.
        core("LedgerSync", ["Support", "Crypto", "JWS", "Store", "Ledger", "AppStoreAPI", "PlayData", "PlayAPI", "StripeAPI"]),
        // The ledger's changes delivered to a team's backend: endpoints, the outbox's worker.
        core("LedgerDelivery", ["Support", "Crypto", "Webhooks", "Store", "Ledger", "HTTPS"]),
        // The ordered list of the domains' migrations: the one layer that sees every domain
        // owning tables.
        core("Schema", ["Store", "EULA", "Permissions", "Ledger", "LedgerSync"]),
        .target(
            name: "GateKit",
            dependencies: coreLayers.map { .target(name: "GateKit\($0)") } + ["CGateKitHeader"],
            exclude: ["exports.map", "launch-order.txt"],
            swiftSettings: libdbusIncludes + crossModuleOptimization + noRegexModules,
            linkerSettings: [
                // SONAME follows the API's major version; only the C API is exported.
                .unsafeFlags([
                    "-Xlinker", "-soname=libgatekit.so.0",
                    "-Xlinker", "--version-script=Sources/GateKit/exports.map",
                ]),
                // Release: the functions a first verdict runs placed side by side
                // (launch-order.txt, scripts/launch-order.py), which needs lld: gold orders
                // only functions in sections of their own, and Swift's specializations share one.
                .unsafeFlags([
                    "-use-ld=lld",
                    "-Xlinker", "--symbol-ordering-file=Sources/GateKit/launch-order.txt",
                    "-Xlinker", "--no-warn-symbol-ordering",
                ], .when(configuration: .release)),
            ]
        ),
        .testTarget(
            name: "GateKitCoreTests",
            dependencies: coreLayers.map { .target(name: "GateKit\($0)") },
            swiftSettings: libdbusIncludes,
            // The tests write stores with SQLite directly (corrupt, newer-format, foreign files).
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
    ]
)

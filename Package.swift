// swift-tools-version:6.1
import PackageDescription

#if arch(arm64)
let libdbusArchIncludes = "/usr/lib/aarch64-linux-gnu/dbus-1.0/include"
#else
let libdbusArchIncludes = "/usr/lib/x86_64-linux-gnu/dbus-1.0/include"
#endif

// libgatekit.so: a Swift core (GateKitCore) behind a thin C ABI (GateKit).
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
        // Its include folders come from GateKitCore's flags below: pkg-config would also link it.
        .systemLibrary(name: "CDBus", providers: [.apt(["libdbus-1-dev"])]),
        // libcurl's header only: loaded with dlopen when an App Store Server API client is made.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // include/gatekit.h as a Swift module, so the exports are type-checked against the header.
        .systemLibrary(name: "CGateKitHeader"),
        .target(
            name: "GateKitCore",
            dependencies: ["COpenSSL", "CSQLite", "CPostgres", "CDBus", "CCurl"],
            swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/dbus-1.0", "-Xcc", "-I\(libdbusArchIncludes)"])]
        ),
        .target(
            name: "GateKit",
            dependencies: ["GateKitCore", "CGateKitHeader"],
            exclude: ["exports.map"],
            linkerSettings: [
                // SONAME follows the API's major version; only the C API is exported.
                .unsafeFlags([
                    "-Xlinker", "-soname=libgatekit.so.0",
                    "-Xlinker", "--version-script=Sources/GateKit/exports.map",
                ]),
            ]
        ),
        .testTarget(
            name: "GateKitCoreTests",
            dependencies: ["GateKitCore"],
            // The tests write stores with SQLite directly (corrupt, newer-format, foreign files).
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
    ]
)

// swift-tools-version:5.9
// The launch check's floor (bench/bench_launch.c): a library holding one C function and nothing
// else, built as libgatekit is (`-static-stdlib`, the C++ runtime static): what carrying a Swift
// runtime costs a process that loads it, before any of GateKit's own code.
import PackageDescription

let package = Package(
    name: "Tiny",
    products: [.library(name: "tiny", type: .dynamic, targets: ["Tiny"])],
    // Without the toolchain's regex modules, as GateKit's own targets are built (Package.swift,
    // noRegexModules).
    // Linked by lld, as GateKit's release library is.
    targets: [.target(name: "Tiny", swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"])],
                      linkerSettings: [.unsafeFlags(["-use-ld=lld"])])]
)

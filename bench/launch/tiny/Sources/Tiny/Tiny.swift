/// The only function: a C symbol, so the library is a C library as libgatekit is.
@_cdecl("tiny_next") public func tinyNext(_ value: Int32) -> Int32 { value &+ 1 }

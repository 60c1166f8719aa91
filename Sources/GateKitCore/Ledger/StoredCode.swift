/// A model enumeration the store keeps as its raw value: read back, a code no case has (a
/// store's newer value kept by a newer GateKit) is the enumeration's `other`.
public protocol StoredCode: RawRepresentable<Int64> {
    static var other: Self { get }
}

extension StoredCode {
    public init(stored code: Int64) { self = Self(rawValue: code) ?? .other }
}

import Glibc

/// Where a string field's bytes lie in the receipt's signed payload (checked UTF-8); a count of
/// 0 is absent, as empty strings mean absent.
struct PayloadText: Sendable, Equatable {
    var start: UInt32 = 0
    var count: UInt32 = 0

    var isPresent: Bool { count != 0 }
}

/// A purchase's date field: its value, and where its text lies when it is not the canonical
/// `YYYY-MM-DDTHH:MM:SSZ` that `ReceiptDate` rebuilds from the value.
struct PayloadDate: Sendable, Equatable {
    var milliseconds: Int64
    var written: PayloadText
}

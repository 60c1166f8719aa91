import GateKitLedger
import GateKitSupport

/// What a sync or a refresh did with the signed items Apple's API returned: how many were new,
/// duplicates or superseded, and which were refused (each with its error; the first few kept).
struct IngestTally {
    var items = 0
    var new = 0
    var duplicate = 0
    var superseded = 0
    var rejected = 0
    var rejections: [GateKitError] = []

    static let keptRejections = 20

    mutating func add(_ reports: [Result<IngestReport, GateKitError>]) {
        for report in reports {
            items += 1
            switch report {
            case let .success(r):
                switch r.outcome {
                case .new: new += 1
                case .duplicate: duplicate += 1
                case .superseded: superseded += 1
                }
            case let .failure(error):
                rejected += 1
                if rejections.count < IngestTally.keptRejections { rejections.append(error) }
            }
        }
    }

    var members: [(String, JSONValue)] {
        [("items", .number(items)), ("new", .number(new)), ("duplicate", .number(duplicate)),
         ("superseded", .number(superseded)), ("rejected", .number(rejected)),
         ("rejections", .array(rejections.map { .object([("error", .number(Int64($0.code.rawValue))), ("message", .string($0.message))]) }))]
    }
}

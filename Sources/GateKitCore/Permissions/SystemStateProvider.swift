/// The system's own view of a permission (e.g. from the desktop portal). When it has an
/// answer, that answer wins over the stored state, for every category.
public protocol SystemStateProvider: AnyObject, Sendable {
    /// 200 authorized, 403 denied, 501 unsupported, 0 "not determined" (the stored state
    /// decides). A negative number means "could not tell" and counts as not determined.
    /// Called without any GateKit lock held, possibly from several threads at once; it must
    /// answer quickly and must not call the functions that consult it (GateKit refuses them).
    func systemState(of category: Int32) -> Int32
}

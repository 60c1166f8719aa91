import GateKitSupport

/// Subscriptions, the watcher, and closing.
extension PermissionEngine {
    public func subscribe(_ callback: @escaping PermissionChangeCallback) throws(GateKitError) -> Int32 {
        try subscriptions.add(callback)
    }

    /// After it returns, the callback is not called again, and no call of it is running on
    /// another thread (unless this is called from inside a callback, where it cannot wait).
    public func unsubscribe(_ token: Int32) throws(GateKitError) {
        try subscriptions.remove(token)
    }

    /// Starts a background thread that detects changes every `intervalMilliseconds` and
    /// calls subscribers on that thread. `includeProvider` also asks the provider each time.
    public func startWatching(intervalMilliseconds: Int, includeProvider: Bool) throws(GateKitError) {
        try CallbackScope.refuseInsideProvider("starting the watcher")
        guard PermissionEngine.watchIntervalMilliseconds.contains(intervalMilliseconds) else {
            throw .invalid("watch interval must be \(PermissionEngine.watchIntervalMilliseconds.lowerBound) to \(PermissionEngine.watchIntervalMilliseconds.upperBound) ms, not \(intervalMilliseconds)")
        }
        try watcherLock.withLock { () throws(GateKitError) in
            guard watcher == nil else { throw GateKitError(.EPERM_WATCHING, "the watcher is already running: stop it first") }
            let w = PermissionWatcher(engine: self, intervalMilliseconds: intervalMilliseconds, includeProvider: includeProvider)
            try w.start()
            watcher = w
        }
    }

    /// Stops the watcher (see `PermissionWatcher.stop`); false when none was running.
    @discardableResult
    public func stopWatching() throws(GateKitError) -> Bool {
        try CallbackScope.refuseInsideProvider("stopping the watcher")
        let w = watcherLock.withLock { () -> PermissionWatcher? in
            defer { watcher = nil }
            return watcher
        }
        w?.stop()
        return w != nil
    }

    public var isWatching: Bool { watcherLock.withLock { watcher != nil } }

    /// Ends everything that could call the host: the watcher, subscriptions, the provider.
    public func close() {
        let w = watcherLock.withLock { () -> PermissionWatcher? in
            defer { watcher = nil }
            return watcher
        }
        w?.stop()
        subscriptions.removeAll()
        let old = try? store.read { (_) throws(GateKitError) -> ProviderSlot? in
            defer { provider = nil }
            return provider
        }
        old?.retire()
        (old?.value as? PortalProvider)?.stop()
    }
}

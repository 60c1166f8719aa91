extension RandomAccessCollection where Index == Int {
    /// The first index whose element `isBefore` is false for, in a collection where every
    /// element it is true for comes first: a binary search (`endIndex` when there is none).
    /// Inlinable, so each caller gets it specialized to its collection and closure: the metrics
    /// run it for every row and period they count.
    @inlinable package func partitionIndex(where isBefore: (Element) -> Bool) -> Int {
        var low = startIndex, high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if isBefore(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

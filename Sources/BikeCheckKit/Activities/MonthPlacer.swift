import Foundation

/// Puts the records of month files read from JSON among every month's records as they are read,
/// for `ActivityCacheLoader.placeSummaries`: a month goes into place as soon as every month before
/// it (in name order) has its place, an indexed month's place being known from its count. A
/// month read ahead of one still being read waits, holding its own array. The arrays of months
/// put in place, and the threads' buffers for encoding index files, are handed out again to the
/// next months read: a cold run touched a fresh array for each of its months (56 MB at
/// 1,000,000 activities) besides the one array, and a fresh buffer for each index file.
final class MonthPlacer {
    private struct State {
        /// Every month's records: room for all, reserved by the loader.
        let all: UnsafeMutableBufferPointer<ActivitySummary>
        /// Each file's place, once it has one.
        var places: [Range<Int>?]
        /// The first file without a place, and where its place starts.
        var next = 0
        var end = 0
        /// Months read, waiting for one before them.
        var waiting: [Int: [ActivitySummary]] = [:]
        /// Arrays of months in place, and encoding buffers, to read the next months with.
        var arrays: [[ActivitySummary]] = []
        var buffers: [ActivityIndex.EncodeBuffer] = []
        /// Whether a month did not fit in `all` (then no later month gets a place).
        var full = false
    }

    /// Under `lock`: the threads that read months share it. (Not a `Mutex`: what it hands out,
    /// an encoding buffer, is no `Sendable` value.)
    private var state: State
    private let lock = NSLock()
    /// For each file, in name order: how many records it has when the index holds it (nil when
    /// it is read), and whether it is named after a month (a file that is not has no place).
    private let counts: [Int?]
    private let named: [Bool]

    init(_ all: UnsafeMutableBufferPointer<ActivitySummary>, counts: [Int?], named: [Bool]) {
        self.counts = counts
        self.named = named
        state = State(all: all, places: [Range<Int>?](repeating: nil, count: counts.count))
        // The indexed months before the first month to read get their places at once.
        advance(&state)
    }

    /// An emptied array of a month already in place (or a new one) to read a month into, and an
    /// encoding buffer no other thread uses.
    func scratch() -> ([ActivitySummary], ActivityIndex.EncodeBuffer) {
        var (records, buffer) = lock.withLock { (state.arrays.popLast() ?? [], state.buffers.popLast() ?? ActivityIndex.EncodeBuffer()) }
        // Held by this array alone (taken out of the list): emptied where it is.
        records.removeAll(keepingCapacity: true)
        return (records, buffer)
    }

    /// Month file `k`'s records, read with `buffer` (from `scratch`): copied into place now if
    /// every file before it has its place, else kept until it does.
    func place(_ k: Int, _ records: consuming [ActivitySummary], _ buffer: ActivityIndex.EncodeBuffer) {
        var owned: [ActivitySummary]? = consume records
        lock.withLock {
            state.waiting[k] = owned.take()
            state.buffers.append(buffer)
            advance(&state)
        }
    }

    /// Gives places to the files after the last placed, in order, while each is indexed, not
    /// named after a month, or read.
    private func advance(_ s: inout State) {
        while !s.full, s.next < counts.count {
            let k = s.next
            if !named[k] {
                s.next += 1
                continue
            }
            var records: [ActivitySummary]?
            if counts[k] == nil {
                guard let read = s.waiting.removeValue(forKey: k) else { return }
                records = read
            }
            let count = counts[k] ?? records?.count ?? 0
            guard count <= s.all.count - s.end else {
                // No room left (far smaller activities than the loader allowed for): this month
                // and every later one are gathered from their own arrays.
                if let records { s.waiting[k] = records }
                s.full = true
                return
            }
            let place = s.end..<(s.end + count)
            if let read = records.take() {
                _ = UnsafeMutableBufferPointer(rebasing: s.all[place]).initialize(fromContentsOf: read)
                s.arrays.append(read)
            }
            s.places[k] = place
            s.end += count
            s.next += 1
        }
    }

    /// Once every month is read: each file's place (nil for one without), how many records are
    /// in place, and the records of the months that got no place.
    func finish() -> (places: [Range<Int>?], end: Int, unplaced: [Int: [ActivitySummary]]) {
        lock.withLock {
            defer {
                state.waiting = [:]
                state.arrays = []
            }
            return (state.places, state.end, state.waiting)
        }
    }
}

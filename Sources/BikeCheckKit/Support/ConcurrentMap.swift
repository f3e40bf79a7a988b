import Foundation

/// `(0..<count).map(transform)` on all cores, in order. The work items are independent files or
/// bikes; each result goes to its own slot, so no lock is needed.
func concurrentMap<T>(_ count: Int, _ transform: (Int) -> T) -> [T] {
    let slots = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
    slots.initialize(repeating: nil)
    defer {
        slots.deinitialize()
        slots.deallocate()
    }
    nonisolated(unsafe) let shared = slots
    withoutActuallyEscaping(transform) { transform in
        nonisolated(unsafe) let work = transform
        DispatchQueue.concurrentPerform(iterations: count) { shared[$0] = work($0) }
    }
    return slots.compactMap { $0 }
}

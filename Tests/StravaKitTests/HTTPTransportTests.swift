import Foundation
@testable import StravaKit
import StravaStandIn
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// The libcurl transport against hostile answers from the stand-in: nothing unbounded, nothing
/// followed, no CPU burnt while waiting, plain words when there is no network.
@Suite(.serialized) struct HTTPTransportTests {
    /// Runs `body` against a started stand-in; stops it afterwards.
    func withServer(_ body: (StravaStandIn) async throws -> Void) async throws {
        let server = StravaStandIn()
        try await server.start()
        do { try await body(server) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Runs blocking code off the cooperative pool, so the server keeps serving.
    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in DispatchQueue.global().async { c.resume(with: Result { try work() }) } }
    }

    /// One GET with `limits`; the error it threw (nil when it got a reply), the reply, seconds
    /// taken and the CPU seconds of the calling thread meanwhile.
    func get(_ url: String, limits: CurlTransport.Limits = .init())
        async throws -> (error: HTTPTransportError?, reply: HTTPReply?, seconds: Double, cpu: Double)
    {
        try await blocking {
            let transport = CurlTransport(limits: limits)
            let started = Date(), cpu = Self.threadCPUSeconds()
            do {
                let reply = try transport.send(HTTPRequestSpec(method: "GET", url: URL(string: url)!))
                return (nil, reply, Date().timeIntervalSince(started), Self.threadCPUSeconds() - cpu)
            } catch let e as HTTPTransportError {
                return (e, nil, Date().timeIntervalSince(started), Self.threadCPUSeconds() - cpu)
            }
        }
    }

    /// User and system time of the calling thread (the one waiting in libcurl).
    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    @Test func aRedirectIsAReplyNeverFollowed() async throws {
        try await withServer { server in
            let other = LoopbackRecorder()
            try await other.start()
            server.hostile.arm(.redirect(to: await other.baseURL + "/api/v3/athlete"), on: "/api/v3/athlete")
            let r = try await get(await server.baseURL + "/api/v3/athlete")
            #expect(r.error == nil)
            #expect(r.reply?.status == 302)
            #expect(r.reply?.headers["location"] == (await other.baseURL) + "/api/v3/athlete")
            #expect(await other.received.isEmpty)
            await other.stop()
        }
    }

    @Test(arguments: [HostileFault.stall(seconds: 5), .stallAfterHeaders(seconds: 5)])
    func aStallEndsAtTheLowSpeedBoundWithoutBurningCPU(fault: HostileFault) async throws {
        try await withServer { server in
            // A total bound of 8 s gives a 2 s stall window (15 s by default).
            #expect(CurlTransport.Limits().stallSeconds == 15)
            let limits = CurlTransport.Limits(totalMilliseconds: 8_000)
            #expect(limits.stallSeconds == 2)
            server.hostile.arm(fault, on: "/api/v3/athlete")
            let r = try await get(await server.baseURL + "/api/v3/athlete", limits: limits)
            #expect(r.error?.kind == .stalled, "\(String(describing: r.error))")
            #expect(r.error?.requestSent == true)
            #expect(r.error?.description.contains("stalled (nothing for 2 s)") == true, "\(String(describing: r.error))")
            #expect(r.seconds >= 1.8 && r.seconds < 5, "\(r.seconds) s")
            #expect(r.cpu < 0.1, "\(r.cpu) s of CPU while waiting \(r.seconds) s")
            print("MEASURE \(fault): \(r.seconds) s wall, \(r.cpu) s CPU of the waiting thread")
        }
    }

    @Test func aTricklingAnswerEndsAtTheTotalBound() async throws {
        try await withServer { server in
            // 10 bytes a second passes the low-speed bound; the total bound ends it.
            server.hostile.arm(.trickle(interval: 0.1, seconds: 4), on: "/api/v3/athlete")
            let r = try await get(await server.baseURL + "/api/v3/athlete", limits: .init(totalMilliseconds: 1_500))
            #expect(r.error?.kind == .timedOut, "\(String(describing: r.error))")
            #expect(r.seconds >= 1.4 && r.seconds < 3, "\(r.seconds) s")
            #expect(r.cpu < 0.2, "\(r.cpu) s of CPU")
            print("MEASURE trickle: \(r.seconds) s wall, \(r.cpu) s CPU")
            #expect(r.error?.description.contains("no complete answer from '127.0.0.1:") == true)
            #expect(r.error?.description.contains("within 1.5 s") == true, "\(String(describing: r.error))")
        }
    }

    @Test func anEndlessChunkedBodyIsCutAt16MiB() async throws {
        try await withServer { server in
            server.hostile.arm(.endlessBody, on: "/api/v3/athlete/activities")
            let r = try await get(await server.baseURL + "/api/v3/athlete/activities")
            #expect(r.error?.kind == .tooLarge, "\(String(describing: r.error))")
            #expect(r.error?.description.contains("larger than 16 MiB") == true)
            #expect(r.seconds < 10)
        }
    }

    @Test func aBodyAnnouncedOverTheBoundIsRefusedAndOneJustUnderIsRead() async throws {
        try await withServer { server in
            server.hostile.arm(.hugeBody(bytes: 50 << 20), on: "/api/v3/athlete")
            let huge = try await get(await server.baseURL + "/api/v3/athlete")
            #expect(huge.error?.kind == .tooLarge, "\(String(describing: huge.error))")
            server.hostile.arm(.hugeBody(bytes: 1 << 20), on: "/api/v3/athlete")
            let fine = try await get(await server.baseURL + "/api/v3/athlete", limits: .init(maxBodyBytes: 1 << 20))
            #expect(fine.error == nil)
            #expect(fine.reply?.body.count == 1 << 20)
        }
    }

    @Test func gzipIsAcceptedAndABombIsCutAtTheBoundOfDecodedBytes() async throws {
        try await withServer { server in
            server.hostile.arm(.gzipBomb(decodedBytes: 100_000), on: "/api/v3/athlete")
            let small = try await get(await server.baseURL + "/api/v3/athlete")
            #expect(small.error == nil)
            #expect(small.reply?.body == Data(count: 100_000), "decoded by libcurl")
            server.hostile.arm(.gzipBomb(decodedBytes: 64 << 20), on: "/api/v3/athlete")
            let bomb = try await get(await server.baseURL + "/api/v3/athlete")
            #expect(bomb.error?.kind == .tooLarge, "\(String(describing: bomb.error))")
        }
    }

    @Test func onlyHTTPAndHTTPSAreSpoken() async throws {
        let r = try await get("file:///etc/passwd")
        #expect(r.error?.kind == .unsupported)
        #expect(r.reply == nil)
    }

    @Test func aNameThatCannotBeResolvedSaysNoNetworkAtOnceAndIsNotRetried() async throws {
        // A label over 63 bytes fails in the resolver itself: no packet leaves the machine.
        let host = String(repeating: "a", count: 70) + ".invalid"
        let settings = StravaSettings(
            baseURL: URL(string: "http://\(host)")!, configDirectory: "/nonexistent",
            clientID: "1", clientSecret: "s", retryBaseMilliseconds: 1000, maxAttempts: 4)
        let client = StravaClient(settings: settings)
        nonisolated(unsafe) let c = client
        let started = Date()
        let error = await #expect(throws: StravaError.self) { try await blocking { try c.exchange(code: "x", grantedScope: nil) } }
        #expect(Date().timeIntervalSince(started) < 1, "no retries with backoff")
        #expect(client.requestCount == 1)
        #expect(error?.description == "cannot reach Strava: no network, or the name '\(host)' cannot be resolved")
    }

    @Test func aMissingLibcurlIsAPlainErrorOnFirstUseNotACrashAtStartUp() throws {
        // libcurl is loaded on a transport's first use (dlopen): without it, only Strava
        // commands fail, and they say what is missing.
        let transport = CurlTransport(library: "libcurl-that-is-not-installed.so.4")
        let error = #expect(throws: HTTPTransportError.self) {
            try transport.send(HTTPRequestSpec(method: "GET", url: URL(string: "http://127.0.0.1:9/")!))
        }
        #expect(error?.requestSent == false)
        #expect(error?.description.hasPrefix("bikecheck needs libcurl to talk to Strava and cannot load it (") == true, "\(String(describing: error))")
        #expect(error?.description.contains("libcurl-that-is-not-installed.so.4") == true)
    }
}

import Foundation
import TestSupport
import Testing

/// `bikecheck lsp` under real clients: pytest-lsp (PyPI; pygls's client, which also checks the
/// server's messages against the protocol) and headless Neovim (Debian `neovim`). A missing tool
/// fails the test with the command that installs it: nothing is skipped.
@Suite struct RealClientTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients")
    /// `scripts/bootstrap --test` makes it.
    static let pytestPython = repositoryRoot.appendingPathComponent(".build-tools/pytest-lsp/bin/python3")

    func exampleCopy() throws -> TemporaryFolder {
        let garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        return garage
    }

    @Test func pytestLSPSeesTheValidatorsDiagnosticAndACompletion() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.pytestPython.path) else {
            Issue.record("no pytest-lsp environment at \(Self.pytestPython.path): run scripts/bootstrap --test")
            return
        }
        let garage = try exampleCopy()
        let result = try runProcess(
            Self.pytestPython, ["-m", "pytest", "-q", "-p", "no:cacheprovider", Self.clients.appendingPathComponent("test_bikecheck_lsp.py").path],
            in: garage.url,
            environment: ["BIKECHECK_BIN": bikecheckBinary.path, "BIKECHECK_LSP_GARAGE": garage.path, "PYTHONDONTWRITEBYTECODE": "1", "BIKECHECK_GARAGE": ""],
            timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("1 passed"), "\(result.stdout)")
    }

    @Test func headlessNeovimShowsTheValidatorsDiagnostic() throws {
        let nvim = ["/usr/bin/nvim", "/usr/local/bin/nvim"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let nvim else {
            Issue.record("Neovim is not installed: run scripts/bootstrap --test (it installs Debian's neovim)")
            return
        }
        let garage = try exampleCopy()
        let tarmac = try String(contentsOf: garage.url.appendingPathComponent("bikes/tarmac.yaml"), encoding: .utf8)
        try garage.write("bikes/tarmac.yaml", tarmac.replacingOccurrences(of: "templates: [road-basics]", with: "templates: [road-basic]"))
        let line = tarmac.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("templates:") }!
        let result = try runProcess(
            URL(fileURLWithPath: nvim),
            ["--headless", "--clean", "-u", Self.clients.appendingPathComponent("nvim-diagnostics.lua").path, "bikes/tarmac.yaml"],
            in: garage.url, environment: ["BIKECHECK_BIN": bikecheckBinary.path, "BIKECHECK_GARAGE": ""], timeout: 60)
        let lines = result.stdout.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).filter { $0.hasPrefix("DIAGNOSTIC") }
        #expect(
            lines == ["DIAGNOSTIC \(line):12 unknown-template unknown template 'road-basic'; did you mean 'road-basics'?"], "\(result.stdout)\n\(result.stderr)"
        )
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    }
}

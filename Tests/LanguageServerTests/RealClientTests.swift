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

    /// The one Lua block of docs/editor.md's Neovim section, as the page has it.
    static func documentedNeovimSetUp() throws -> String {
        let (block, section) = try documentedBlock(heading: "Neovim", fence: "lua")
        #expect(section.components(separatedBy: "```lua").count == 2, "one set-up for every Neovim")
        return block
    }

    /// The first `fence` block under docs/editor.md's `## heading`, as the page has it, and the
    /// whole section.
    static func documentedBlock(heading: String, fence: String) throws -> (block: String, section: Substring) {
        let page = try String(decoding: Data(contentsOf: repositoryRoot.appendingPathComponent("docs/editor.md")), as: UTF8.self)
        let section = try #require(page.range(of: "\n## \(heading)\n"))
        let start = try #require(page.range(of: "```\(fence)\n", range: section.upperBound..<page.endIndex))
        let end = try #require(page.range(of: "\n```\n", range: start.upperBound..<page.endIndex))
        let next = page.range(of: "\n## ", range: section.upperBound..<page.endIndex)?.lowerBound ?? page.endIndex
        return (String(page[start.upperBound..<end.lowerBound]) + "\n", page[section.upperBound..<next])
    }

    /// The demo garage with tarmac's template misspelled (a diagnostic to show, a completion to
    /// offer on its line), and a folder whose `bin/` holds `bikecheck` by name, as the page's
    /// set-ups find it on PATH; `setUp` is written there as `file`.
    struct DocumentedClientWorld {
        let garage: TemporaryFolder
        let tools: TemporaryFolder
        /// The line (0-based) of tarmac's `templates:`.
        let line: Int
        let setUp: URL

        init(setUp text: String, file: String) throws {
            garage = try TemporaryFolder()
            try garage.copyExampleGarage()
            let tarmac = try String(contentsOf: garage.url.appendingPathComponent("bikes/tarmac.yaml"), encoding: .utf8)
            try garage.write("bikes/tarmac.yaml", tarmac.replacingOccurrences(of: "templates: [road-basics]", with: "templates: [road-basic]"))
            line = try #require(tarmac.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("templates:") })
            tools = try TemporaryFolder()
            try FileManager.default.createDirectory(at: tools.url.appendingPathComponent("bin"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: tools.url.appendingPathComponent("bin/bikecheck"), withDestinationURL: bikecheckBinary)
            try tools.write(file, text)
            setUp = tools.url.appendingPathComponent(file)
        }

        /// PATH with the folder's `bin/` first.
        var path: String { tools.url.appendingPathComponent("bin").path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") }
    }

    @Test func theNeovimSetUpInTheDocsRunsAsWrittenAndShowsADiagnosticAndACompletion() throws {
        let nvim = ["/usr/bin/nvim", "/usr/local/bin/nvim"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let nvim else {
            Issue.record("Neovim is not installed: run scripts/bootstrap --test (it installs Debian's neovim)")
            return
        }
        let world = try DocumentedClientWorld(setUp: try Self.documentedNeovimSetUp(), file: "init.lua")
        let line = world.line
        let result = try runProcess(
            URL(fileURLWithPath: nvim),
            [
                "--headless", "--clean", "-u", world.setUp.path, "-c",
                "luafile " + Self.clients.appendingPathComponent("nvim-documented.lua").path, "bikes/tarmac.yaml",
            ],
            in: world.garage.url,
            environment: ["PATH": world.path, "BIKECHECK_GARAGE": "", "BIKECHECK_COMPLETE_AT": "\(line):22"], timeout: 60)
        let lines = result.stdout.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map(String.init)
        #expect(
            lines.filter { $0.hasPrefix("DIAGNOSTIC") } == [
                "DIAGNOSTIC \(line):12 unknown-template unknown template 'road-basic'; did you mean 'road-basics'?"
            ],
            "\(result.stdout)\n\(result.stderr)")
        #expect(lines.filter { $0.hasPrefix("COMPLETION") } == ["COMPLETION road-basics"], "\(result.stdout)\n\(result.stderr)")
        #expect(lines.filter { $0.hasPrefix("CLIENT") } == ["CLIENT bikecheck"], "\(result.stdout)")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    }

    /// The elisp block of docs/editor.md's eglot section, as the page has it.
    static func documentedEglotSetUp() throws -> String { try documentedBlock(heading: "Emacs (eglot)", fence: "elisp").block }

    @Test func theEglotSetUpInTheDocsRunsAsWrittenInBatchEmacsAndShowsADiagnosticAndACompletion() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/emacs") else {
            Issue.record("Emacs is not installed: run scripts/bootstrap --test (it installs Debian's emacs-nox, elpa-eglot and elpa-yaml-mode)")
            return
        }
        let world = try DocumentedClientWorld(setUp: try Self.documentedEglotSetUp(), file: "setup.el")
        let line = world.line
        let result = try runProcess(
            URL(fileURLWithPath: "/usr/bin/emacs"),
            ["--batch", "-l", world.setUp.path, "-l", Self.clients.appendingPathComponent("eglot-documented.el").path],
            in: world.garage.url,
            environment: [
                "PATH": world.path, "HOME": world.tools.path, "BIKECHECK_GARAGE": "", "BIKECHECK_FILE": "bikes/tarmac.yaml",
                "BIKECHECK_COMPLETE_AT": "\(line):22",
            ], timeout: 60)
        let lines = result.stdout.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map(String.init)
        let diagnostics = lines.filter { $0.hasPrefix("DIAGNOSTIC") }
        #expect(
            diagnostics.count == 1 && diagnostics[0].hasPrefix("DIAGNOSTIC \(line):12 ")
                && diagnostics[0].contains("[unknown-template]: unknown template 'road-basic'; did you mean 'road-basics'?"),
            "\(result.stdout)\n\(result.stderr)")
        #expect(lines.filter { $0.hasPrefix("COMPLETION") } == ["COMPLETION road-basics"], "\(result.stdout)\n\(result.stderr)")
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    }
}

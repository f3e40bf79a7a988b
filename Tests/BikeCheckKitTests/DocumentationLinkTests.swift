import Foundation
import TestSupport
import Testing

/// The README is a front door and the manual is `docs/`, one page per topic, linked to each
/// other: every relative link (a file, a folder, an image, a `#heading` in a page) must lead
/// somewhere, so moving a section or renaming a heading cannot leave a dead link behind.
@Suite struct DocumentationLinkTests {
    /// The Markdown files whose links are checked: the README, every page of `docs/`, and the
    /// schemas' README.
    static func pages() throws -> [URL] {
        let docs = repositoryRoot.appendingPathComponent("docs")
        let inDocs = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
            .map { docs.appendingPathComponent($0) }
        return [repositoryRoot.appendingPathComponent("README.md"), repositoryRoot.appendingPathComponent("schemas/README.md")] + inDocs
    }

    @Test func everyRelativeLinkAndAnchorResolves() throws {
        var broken: [String] = []
        for page in try Self.pages() {
            let text = try String(contentsOf: page, encoding: .utf8)
            for target in MarkdownLinks.targets(in: text) where !target.contains("://") && !target.hasPrefix("mailto:") {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? page : page.deletingLastPathComponent().appendingPathComponent(parts[0]).standardizedFileURL
                let name = "\(page.lastPathComponent) → \(target)"
                guard FileManager.default.fileExists(atPath: file.path) else {
                    broken.append("\(name): no such file")
                    continue
                }
                if parts.count == 2, file.pathExtension == "md" {
                    let anchors = MarkdownLinks.anchors(in: try String(contentsOf: file, encoding: .utf8))
                    if !anchors.contains(parts[1]) { broken.append("\(name): no such heading") }
                }
            }
        }
        #expect(broken.isEmpty, "broken links: \(broken)")
    }

    @Test func theDocsIndexAndTheReadmeLinkEveryPage() throws {
        let index = MarkdownLinks.targets(in: try String(contentsOf: repositoryRoot.appendingPathComponent("docs/README.md"), encoding: .utf8))
        let readme = MarkdownLinks.targets(in: try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8))
        for page in try Self.pages() where page.deletingLastPathComponent().lastPathComponent == "docs" && page.lastPathComponent != "README.md" {
            let name = page.lastPathComponent
            #expect(index.contains { $0 == name || $0.hasPrefix("\(name)#") }, "docs/README.md does not link \(name)")
            #expect(readme.contains { $0 == "docs/\(name)" || $0.hasPrefix("docs/\(name)#") }, "README.md does not link docs/\(name)")
        }
    }

    @Test func anchorsAreGitHubsHeadingSlugs() {
        let text = "# The garage\n## A bike: `bikes/ID.yaml`\n```\n# not a heading\n```\n## What \"due\" means\n## Notes\n## Notes\n<a id=\"stale-data\"></a>"
        #expect(MarkdownLinks.anchors(in: text) == ["the-garage", "a-bike-bikesidyaml", "what-due-means", "notes", "notes-1", "stale-data"])
        #expect(MarkdownLinks.targets(in: "[a](x.md) `[b](y.md)` ![c](p.png \"t\")\n```\n[d](z.md)\n```") == ["x.md", "p.png"])
    }
}

/// Links and heading anchors of a Markdown page, as GitHub renders them, outside code.
enum MarkdownLinks {
    /// The lines outside fenced code blocks.
    static func prose(_ text: String) -> [Substring] {
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop { $0 == " " }.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if !inFence { lines.append(line) }
        }
        return lines
    }

    /// Each link's and image's target, `[text](target)` or `[text](target "title")`, leaving out
    /// code spans (a code span inside a link's text is kept out of the way, not the link).
    static func targets(in text: String) -> [String] {
        let link = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)
        let code = try! NSRegularExpression(pattern: #"`[^`]*`"#)
        var found: [String] = []
        for line in prose(text) {
            let s = String(line)
            let lineWithoutCode = code.stringByReplacingMatches(in: s, range: NSRange(s.startIndex..., in: s), withTemplate: "")
            for m in link.matches(in: lineWithoutCode, range: NSRange(lineWithoutCode.startIndex..., in: lineWithoutCode)) {
                found.append(String(lineWithoutCode[Range(m.range(at: 1), in: lineWithoutCode)!]))
            }
        }
        return found
    }

    /// GitHub's heading anchors (lowercased; only letters, digits, spaces, `-` and `_` kept;
    /// spaces become `-`; a repeated one gets `-1`, `-2`…) and explicit `<a id="…">` anchors.
    static func anchors(in text: String) -> [String] {
        let explicit = try! NSRegularExpression(pattern: #"<a (?:id|name)="([^"]+)""#)
        var seen: [String: Int] = [:]
        var anchors: [String] = []
        for line in prose(text) {
            let s = String(line)
            if let heading = s.firstMatch(of: /^#{1,6} (.*)$/) {
                let slug = String(
                    heading.1.lowercased().unicodeScalars.filter {
                        CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
                    }
                ).replacingOccurrences(of: " ", with: "-")
                let count = seen[slug, default: 0]
                seen[slug] = count + 1
                anchors.append(count == 0 ? slug : "\(slug)-\(count)")
            }
            for m in explicit.matches(in: s, range: NSRange(s.startIndex..., in: s)) {
                anchors.append(String(s[Range(m.range(at: 1), in: s)!]))
            }
        }
        return anchors
    }
}

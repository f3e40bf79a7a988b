/// What `bikecheck report --serve` serves beside the report's own page: the token that says
/// whether a page changed, the script that asks for it, and the page of the garage's errors.
///
/// A page's token is a checksum of its bytes as `report --html` would print them (without the
/// script): the page changes exactly when something it shows changed (a file edited, a sync, a
/// new day), and nothing else makes it reload.
package enum LivePage {
    /// How often the open page asks whether it changed, as Fava's does.
    package static let pollSeconds = 5

    /// The token of `page`, rendered without the script.
    package static func token(_ page: HTML) -> String {
        let sum = ActivityIndex.checksum(Array(page.string.utf8))
        let hex = String(sum, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The script that asks `changed?page=PATH&since=TOKEN` every few seconds and reloads the
    /// page when the answer says it changed. A server that went away is asked again, quietly.
    package static func script(token: String, path: String) -> HTML {
        """
        <script>
        (function () {
          var since = "\(token)", page = "\(path)";
          setInterval(function () {
            fetch("/changed?page=" + encodeURIComponent(page) + "&since=" + since, { cache: "no-store" })
              .then(function (r) { return r.json(); })
              .then(function (a) { if (a.changed) location.reload(); })
              .catch(function () {});
          }, \(pollSeconds * 1000));
        })();
        </script>

        """
    }

    /// `/changed`'s answer: whether the page's token is no longer `since`, and its token now.
    package static func changed(since: String, now: String) -> String {
        "{\"changed\":\(since != now),\"token\":\"\(now)\"}\n"
    }

    /// The garage's errors as `bikecheck validate` prints them (`text`, uncoloured), one
    /// preformatted block, under a title that says the report waits for them to be fixed.
    package static func errors(_ text: String, garage: String, errors: Int, script: HTML = "") -> HTML {
        let count: HTML = "\(errors) error\(errors == 1 ? "" : "s")"
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { HTML(escaping: $0) }
        let style: HTML = "pre.diagnostics { overflow-x: auto; padding: .75rem; background: var(--head); border: 1px solid var(--rule); }\n"
        return """
            \(HTMLReportRenderer.head(title: "\(garage): \(count) in the garage", style: style))<body>
            <main>
            <header>
            <h1>\(garage): \(count) in the garage</h1>
            <p class="meta">The report shows again when the files are fixed: this page reloads by itself. The same as <code>bikecheck validate</code>:</p>
            </header>
            <pre class="diagnostics">\(lines.joined(separator: "\n"))</pre>
            </main>
            \(script)</body>
            </html>

            """
    }
}

import Diagnostics
import Foundation
import Testing

@testable import BikeCheckKit

/// The merge driver's conflict messages mask secrets as `validate` masks them: a webhook token or
/// an SMTP password changed on both sides never reaches the terminal or a CI log.
@Suite struct MergeSecretMaskingTests {
    static func settings(token: String, password: String, server: String) -> String {
        """
        units: metric
        notify:
          webhook:
            url: https://hooks.example.com/services/bikes?token=\(token)
          email:
            to: [rider@example.com]
            from: bikes@example.com
            smtp: \(server)
            password: \(password)

        """
    }

    @Test func aConflictOverSecretsQuotesNoneOfThem() {
        let base = Self.settings(token: "base-token-0000", password: "base-password-0000", server: "mail.example.org:587")
        let ours = Self.settings(token: "ours-token-1111", password: "ours-password-1111", server: "rider:ours-smtp-1111@mail.example.org:587")
        let theirs = Self.settings(token: "theirs-token-2222", password: "theirs-password-2222", server: "rider:theirs-smtp-2222@mail.example.org")
        let outcome = GarageMerge.merge(base: Array(base.utf8), ours: Array(ours.utf8), theirs: Array(theirs.utf8), path: "garage.yaml")
        #expect(outcome.merged == nil && !outcome.diagnostics.isEmpty)
        let rendered = DiagnosticRenderer(sources: outcome.sources).render(outcome.diagnostics).description
        for secret in ["0000", "1111", "2222"] { #expect(!rendered.contains(secret), "\(secret) in:\n\(rendered)") }
        #expect(rendered.contains("****"), "\(rendered)")
        #expect(rendered.contains("notify.webhook.url"), "the conflict still says where: \(rendered)")
    }

    @Test func aMessageCutShortMasksTheStartOfASecret() {
        let d = Diagnostic.error(
            .mergeConflict, "here to 'https://hooks.example.com/x?token=abcdefgh…', there to 'zzz'", at: SourceLocation(file: "garage.yaml"))
        let masked = d.masking(["https://hooks.example.com/x?token=abcdefghijklmnop"])
        #expect(masked.message == "here to '****…', there to 'zzz'", "\(masked.message)")
    }
}

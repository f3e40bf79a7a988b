import Foundation
import TestSupport
import Testing

/// Snoozes and to-dos through the built binary with hostile text: control characters in a
/// to-do never reach the terminal raw, and `todo add` refuses to write them.
@Suite struct SnoozeTodoHostileEndToEndTests {
    @Test func aToDoWithControlCharactersIsShownEscapedByStatus() throws {
        let garage = try SnoozeTodoEndToEndTests.garage(extra: "todo:\n  - \"fit \\e[31mmudguards\\r\\nX: forged line\"\n")
        let r = try garage.run(["status", "grail", "--color", "never", "--as-of", "2026-01-15"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\r") && !r.stdout.contains("\nX: forged"), "\(r.stdout)")
        #expect(r.stdout.contains("to-do  fit \\u{1B}[31mmudguards\\u{D}\\u{A}X: forged line"), "\(r.stdout)")
    }

    @Test func todoAddRefusesTextWithALineBreakOrAControlCharacter() throws {
        let garage = try SnoozeTodoEndToEndTests.garage(extra: "")
        let before = try garage.read("bikes/grail.yaml")
        for text in ["fit mudguards\r\nX: forged", "tab\there", "\u{1B}[31mred", "next\u{2028}line"] {
            let r = try garage.run(["todo", "add", "grail", text])
            #expect(r.status == 2, "\(text.debugDescription): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains("the to-do's text has a line break or a control character"), "\(r.stderr)")
        }
        #expect(try garage.read("bikes/grail.yaml") == before)
    }
}

extension SnoozeTodoHostileEndToEndTests {
    @Test func todoAddRefusesATextOrIdThatAnotherToDoAlreadyAnswersTo() throws {
        let garage = try SnoozeTodoEndToEndTests.garage(extra: "todo:\n  - {task: replace the hanger, id: hanger}\n  - mudguards\n")
        let before = try garage.read("bikes/grail.yaml")
        // 'done --todo hanger' would close the first; 'done --todo mudguards' the new one.
        for arguments in [["hanger"], ["fit mudguards", "--id", "mudguards"]] {
            let r = try garage.run(["todo", "add", "grail"] + arguments)
            #expect(r.status == 2, "\(arguments): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains("bike 'grail' already has the to-do"), "\(r.stderr)")
        }
        #expect(try garage.read("bikes/grail.yaml") == before)
    }
}

extension SnoozeTodoHostileEndToEndTests {
    /// The duplicate check once compared each to-do with every earlier one: 40,000 took seconds
    /// and a million never finished. Four times the to-dos must cost about four times as long.
    @Test func validateTimeGrowsLinearlyWithTheNumberOfToDos() throws {
        func seconds(_ count: Int) throws -> Double {
            var text = "name: Big\nbought: 2023-01-01\ntodo:\n"
            for i in 0..<count { text += "  - task number \(i)\n" }
            text += "  - task number 0\n"  // one duplicate, still found
            let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/big.yaml": text])
            let start = Date()
            let r = try garage.run(["validate"])
            let elapsed = Date().timeIntervalSince(start)
            #expect(r.status == 1 && r.stderr.contains("to-do 'task number 0' is listed twice [duplicate-todo]"), "\(r.stderr)")
            return elapsed
        }
        let small = try seconds(10_000)
        // Quadratic, the small run alone takes half a minute in a debug build: stop there.
        try #require(small < 20, "10,000 to-dos took \(small) s")
        let large = try seconds(40_000)
        #expect(large < small * 8 + 0.5, "10,000 to-dos: \(small) s, 40,000: \(large) s")
    }
}

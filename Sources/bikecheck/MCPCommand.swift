import ArgumentParser
import BikeCheckKit
import BikeCheckMCP
import Foundation

struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Run an MCP server (newline-delimited JSON-RPC over standard input and output) for an assistant.",
        discussion: """
            Started by the assistant (Claude Desktop, an MCP client), not by hand. Tools named as \
            the commands (status, validate, history, costs, usage, rides, part_list, part_show, \
            calendar) answer with the JSON the command prints with --format json (calendar: its \
            iCalendar text); their arguments are the options, with '_' for '-' (as_of, since, by, \
            within, rider). They only read. One tool writes, done, in two calls: the first writes \
            nothing and answers with the diff and a confirm token; only a second call with that \
            token writes the change, and only while the files are as they were. The garage's YAML \
            files are resources (bikecheck://garage/bikes/grail.yaml). --rider and --as-of are the \
            tools' defaults. Set-up for Claude Desktop and a Python client: docs/mcp.md. Exits 0 \
            when the client closes standard input.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The rider whose bikes and parts the tools show unless a call names another.", valueName: "name"))
    var rider: String?

    @OptionGroup var asOf: AsOfOptions

    func run() throws {
        let root = try global.garageRoot()
        // A client that closes the pipe must end the server quietly, not with a signal.
        signal(SIGPIPE, SIG_IGN)
        // The protocol gets standard output to itself: anything else printed there would be read
        // as a message, so it goes to standard error instead.
        let protocolOutput = dup(1)
        guard protocolOutput >= 0, dup2(2, 1) >= 0 else {
            throw UsageError("cannot set up standard output for the protocol: \(String(cString: strerror(errno)))")
        }
        let tools = MCPTools(root: root, rider: rider, asOf: asOf.asOf)
        let server = MCPServer(tools: tools.all, resources: GarageResources(root: root), instructions: MCPTools.instructions)
        let code = MCPServerLoop.run(server, output: protocolOutput) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        throw ExitCode(code)
    }
}

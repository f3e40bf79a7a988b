import Foundation

/// A shared library of bikecheck's own, loaded with dlopen only by the command that needs it, so
/// that no other command pays for loading it and what it links: `report --serve`'s HTTP server
/// (FoundationNetworking, libcurl) and the TCX and GPX parser (FoundationXML, libxml2, ICU). It is
/// found beside the running executable, symlinks resolved, so a linked install finds it
/// (scripts/install puts each beside the binary; `swift build` builds them beside it).
package enum CompanionLibrary {
    /// Why a library cannot be had: its path, and the reason in words ("it is missing").
    package struct LoadFailure: Error, Sendable {
        package let path: String
        package let reason: String
    }

    /// Where the library named `fileName` must be: beside the executable, symlinks resolved.
    package static func path(_ fileName: String) -> String {
        #if os(Linux)
            let executable = realpath("/proc/self/exe", nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            }
        #else
            let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().path
        #endif
        let folder = URL(fileURLWithPath: executable ?? CommandLine.arguments[0]).deletingLastPathComponent().path
        return folder + "/" + fileName
    }

    /// The address of `symbol` in the library named `fileName`, loaded (once: dlopen counts), or
    /// why it cannot be had.
    package static func symbol(_ symbol: String, in fileName: String) -> Result<UnsafeMutableRawPointer, LoadFailure> {
        let path = path(fileName)
        guard FileManager.default.fileExists(atPath: path) else { return .failure(LoadFailure(path: path, reason: "it is missing")) }
        guard let library = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(LoadFailure(path: path, reason: dlerror().map { String(cString: $0) } ?? "dlopen failed"))
        }
        guard let address = dlsym(library, symbol) else { return .failure(LoadFailure(path: path, reason: "it has no \(symbol)")) }
        return .success(address)
    }
}

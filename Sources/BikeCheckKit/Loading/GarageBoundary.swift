import Diagnostics
import Foundation

/// The symlink policy of a garage: bikecheck reads only files whose real path is inside the
/// garage. A link that stays inside (`bikes/old.yaml` → `../archive/old.yaml`) is followed; a link
/// that leaves it (`bikes/evil.yaml` → `~/.config/bikecheck/strava-token.json`), directly or
/// through a linked folder, is refused with `symlink-outside-garage`, and nothing of what it
/// points at is read, so nothing of it can be echoed. A cloned garage cannot make bikecheck print
/// another file of the machine.
package struct GarageBoundary: Sendable {
    /// The garage folder as given, and its real path (nil when it cannot be resolved).
    package let root: String
    let realRoot: String?

    package init(root: String) {
        self.root = root
        realRoot = Self.realPath(root)
    }

    /// What to do with one file of the garage.
    package enum Access: Sendable, Equatable {
        /// Read it at this path (its resolved real path when it is a link inside the garage).
        case read(String)
        /// A link that leads outside the garage: do not read it.
        case outside
    }

    /// Whether `relative` (a path inside the garage) may be read, and where.
    package func access(_ relative: String) -> Access {
        let path = root + "/" + relative
        guard let realRoot, let real = Self.realPath(path) else { return .read(path) }
        if real == path { return .read(path) }
        return Self.isInside(real, realRoot) ? .read(real) : .outside
    }

    /// `access` for the files of one folder of the garage (`relative`, e.g. `bikes`), the folder's
    /// real path looked up once rather than once per file: a load asks of every file of a folder.
    func folder(_ relative: String) -> Folder {
        let realFolder = realRoot == nil ? nil : Self.realPath(root + "/" + relative)
        return Folder(boundary: self, realFolder: realFolder, isReal: realFolder == root + "/" + relative)
    }

    /// The files of one folder of the garage (`GarageBoundary.folder`).
    struct Folder: Sendable {
        let boundary: GarageBoundary
        let realFolder: String?
        /// Whether the folder's path as given is its real path (no link, no `.`, no `//`).
        let isReal: Bool

        /// `boundary.access(relative)` for the file `name` of the folder (`relative`: the folder's
        /// path, a slash and `name`; `path`: the garage's, a slash and `relative`, when made
        /// already). A file that is not a link is, really, in the folder's real path; a link (or
        /// what cannot be looked at) is resolved as `access` does.
        func access(_ name: String, _ relative: String, path: String? = nil) -> Access {
            let path = path ?? boundary.root + "/" + relative
            var info = stat()
            guard let realRoot = boundary.realRoot, let realFolder, lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFLNK else {
                return boundary.access(relative)
            }
            // The real path is the path itself.
            if isReal { return .read(path) }
            let real = realFolder + "/" + name
            if real == path { return .read(path) }
            return GarageBoundary.isInside(real, realRoot) ? .read(real) : .outside
        }
    }

    static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// The path with every link and `.`/`..` resolved, or nil when it does not exist.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The located error for a file (or folder) of the garage that links outside it.
    package static func outsideDiagnostic(_ relative: String) -> Diagnostic {
        .error(
            .symlinkOutsideGarage, "'\(shown(relative))' is a symbolic link that leads outside the garage; it was not read",
            at: SourceLocation(file: relative),
            help: "bikecheck reads only files inside the garage: replace the link with a copy of the file, or point it at a file in the garage")
    }
}

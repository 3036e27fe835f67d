import AmbleBoard
import Testing

struct DefaultBoardTests {
    let checkoutBinary = "/home/ana/amble/.build/x86_64-unknown-linux-gnu/debug/ambled"

    @Test func theInstalledBoardComesFirst() throws {
        let files: Set = ["/etc/amble/board.toml", "/home/ana/amble/boards/sim.toml", "/srv/boards/sim.toml"]
        let path = try defaultBoardPath(fileExists: files.contains, executablePath: checkoutBinary, currentDirectory: "/srv")
        #expect(path == "/etc/amble/board.toml")
    }

    @Test func aCheckoutsBinaryFindsTheCheckoutsSimulatedBoard() throws {
        let files: Set = ["/home/ana/amble/boards/sim.toml", "/srv/boards/sim.toml"]
        #expect(try defaultBoardPath(fileExists: files.contains, executablePath: checkoutBinary, currentDirectory: "/srv")
            == "/home/ana/amble/boards/sim.toml", "next to the binary before the current folder")
        // .build/debug/ambled when the symbolic link was not resolved, and a relative path.
        #expect(try defaultBoardPath(fileExists: files.contains, executablePath: "/home/ana/amble/.build/debug/ambled", currentDirectory: nil)
            == "/home/ana/amble/boards/sim.toml")
        #expect(try defaultBoardPath(fileExists: files.contains, executablePath: "./.build/debug/ambled", currentDirectory: "/home/ana/amble")
            == "/home/ana/amble/boards/sim.toml")
    }

    @Test func aReleaseFolderFindsItsOwnBoards() throws {
        let files: Set = ["/opt/amble/boards/sim.toml"]
        #expect(try defaultBoardPath(fileExists: files.contains, executablePath: "/opt/amble/ambled", currentDirectory: "/") == "/opt/amble/boards/sim.toml")
        #expect(try defaultBoardPath(fileExists: files.contains, executablePath: "/opt/amble/bin/ambled", currentDirectory: "/") == "/opt/amble/boards/sim.toml")
    }

    @Test func otherwiseTheCurrentFolder() throws {
        let files: Set = ["/home/ana/amble/boards/sim.toml"]
        #expect(try defaultBoardPath(fileExists: files.contains, executablePath: "/usr/local/bin/ambled", currentDirectory: "/home/ana/amble")
            == "/home/ana/amble/boards/sim.toml")
        #expect(try defaultBoardPath(fileExists: { $0 == "boards/sim.toml" }, executablePath: nil, currentDirectory: nil) == "boards/sim.toml")
    }

    @Test func theSearchGoesOnlyAFewFoldersUp() {
        let files: Set = ["/a/boards/sim.toml"]
        #expect(throws: DefaultBoardError.self) {
            try defaultBoardPath(fileExists: files.contains, executablePath: "/a/b/c/d/e/ambled", currentDirectory: "/tmp")
        }
    }

    @Test func nothingFoundNamesEveryPlaceAndSaysToPassBoard() {
        let error = #expect(throws: DefaultBoardError.self) {
            try defaultBoardPath(fileExists: { _ in false }, executablePath: checkoutBinary, currentDirectory: "/home/ana/amble")
        }
        #expect(error?.searchedPaths == [
            "/etc/amble/board.toml",
            "/home/ana/amble/.build/x86_64-unknown-linux-gnu/debug/boards/sim.toml",
            "/home/ana/amble/.build/x86_64-unknown-linux-gnu/boards/sim.toml",
            "/home/ana/amble/.build/boards/sim.toml",
            "/home/ana/amble/boards/sim.toml",
        ], "the checkout itself is looked at once")
        let text = error?.description ?? ""
        #expect(text.contains("/etc/amble/board.toml, /home/ana/amble/.build/x86_64-unknown-linux-gnu/debug/boards/sim.toml"))
        #expect(text.contains("--board"))
    }

    @Test func aBinaryAtTheRootAndNoCurrentFolder() {
        #expect(DefaultBoard.candidates(executablePath: "/ambled", currentDirectory: nil) == ["/etc/amble/board.toml", "boards/sim.toml"])
        #expect(DefaultBoard.candidates(executablePath: "ambled", currentDirectory: nil) == ["/etc/amble/board.toml", "boards/sim.toml"])
        #expect(DefaultBoard.candidates(executablePath: nil, currentDirectory: "/") == ["/etc/amble/board.toml", "/boards/sim.toml"])
    }
}

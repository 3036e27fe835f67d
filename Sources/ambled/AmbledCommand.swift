import AmbleBand
import AmbleBoard
import AmbleLinux
import AmbleVersion
import ArgumentParser
import Logging

/// `ambled`: the band program.
struct AmbledCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ambled",
        abstract: "The Amble band: counts steps, estimates heart rate, runs the mindful-walking practice and stores every session.",
        discussion: """
        On the simulated board (boards/sim.toml) the chips are emulated at register level and \
        fed by a synthetic wearer or a recording; buttons come from the keyboard or --script, \
        and the motor and a status line are drawn in the terminal. SIGTERM or SIGINT closes \
        the session under way, stores it and stops.
        """,
        version: AmbleVersion.string
    )

    @Option(help: "The board file (boards/*.toml). Default: /etc/amble/board.toml when present, else the simulated board (boards/sim.toml) next to ambled or in the current directory.",
            completion: .file(extensions: ["toml"]))
    var board: String?

    @Option(help: "Where the band keeps its store. Default: $XDG_DATA_HOME/ambled or ~/.local/share/ambled.", completion: .directory)
    var dataDir: String?

    @Option(help: "Serve sessions to companions over TCP at HOST:PORT (e.g. 127.0.0.1:7070; port 0 picks one).")
    var listen: String?

    @Option(help: "Serve sessions over this serial device (e.g. /dev/ttyGS0).", completion: .shellCommand("ls -d /dev/tty* 2>/dev/null"))
    var serial: String?

    @Option(help: "Baud rate of --serial.")
    var baud: Int = 115_200

    @Option(help: "Run the simulated board's time this many times faster than real time (0.1-1000).")
    var speed: Double = 1

    @Option(help: "A scenario script of timed button presses and wearer actions for the simulated board.", completion: .file())
    var script: String?

    @Flag(help: "Stop when the script reaches its `end` line.")
    var exitAfterScript = false

    @Flag(help: "Do not read buttons from the keyboard.")
    var noKeyboard = false

    @Option(help: "Log level: debug, info, notice, warning, error.", completion: .list(Logger.Level.allCases.map(\.rawValue)))
    var logLevel: String = "info"

    func validate() throws {
        guard speed >= 0.1, speed <= 1000 else { throw ValidationError("--speed must be between 0.1 and 1000") }
        if let listen, HostPort(parsing: listen) == nil {
            throw ValidationError("--listen must be HOST:PORT, e.g. 127.0.0.1:7070")
        }
        guard LinuxSerialPort.standardBaudRates[baud] != nil else {
            throw ValidationError("--baud \(baud) is not a standard rate (9600, 19200, 38400, 57600, 115200, 230400, ...)")
        }
        if exitAfterScript && script == nil { throw ValidationError("--exit-after-script needs --script") }
        if serial == nil && baud != 115_200 { throw ValidationError("--baud is for --serial") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of debug, info, notice, warning, error")
        }
    }

    func run() throws {
        let console = Console(isTerminal: standardOutputIsTerminal(), columns: { standardOutputColumns() })
        let environment = processEnvironment()
        let level = Logger.Level(rawValue: logLevel) ?? .info
        // On a terminal, logs share it with the status line; otherwise (a service, a pipe)
        // they go to standard error, with the journal's priorities when it is the journal.
        var logger = Logger(label: "ambled") { label in
            console.isTerminal ? ConsoleLogHandler(label: label, console: console) as any LogHandler
                : ServiceLogHandler.standardError(label: label, environment: environment)
        }
        logger.logLevel = level

        let configuration: BoardConfiguration
        do {
            let path = try board ?? defaultBoardPath(fileExists: somethingMayBeAt, executablePath: currentExecutablePath(),
                                                     currentDirectory: currentDirectoryPath())
            configuration = try BoardFile.load(path: path)
        } catch {
            failToStart(error, environment: environment)
            throw ExitCode(2)
        }
        var options = BandOptions(dataDirectory: dataDir ?? BandOptions.defaultDataDirectory)
        options.listen = listen.flatMap(HostPort.init(parsing:))
        options.serialPath = serial
        options.serialBaudRate = baud
        options.speed = speed
        options.scriptPath = script
        options.exitAfterScript = exitAfterScript
        options.keyboard = !noKeyboard
        let band: Band
        do {
            band = try BandAssembly.build(board: configuration, options: options, console: console, logger: logger)
        } catch {
            failToStart(error, environment: environment)
            throw ExitCode(2)
        }
        do {
            band.serviceNotifier = try ServiceNotifier(environment: environment)
        } catch {
            logger.warning("cannot tell systemd the band's state: \(error)")
        }
        logger.info("\(configuration.name) started (\(configuration.platform.rawValue), store \(options.dataDirectory)/band.sqlite\(speed != 1 ? ", speed x\(speed)" : ""))")
        let status = band.run()
        if status != 0 { throw ExitCode(status) }
    }
}

/// Says why the band cannot start, on standard error: with the journal's error priority when
/// systemd reads it (so `journalctl -p err` shows it), else as `ambled: error: ...`.
private func failToStart(_ error: any Error, environment: [String: String]) {
    let prefix = standardErrorLogStyle(environment: environment) == .journal ? "<3>" : ""
    _ = writeStandardError("\(prefix)ambled: error: \(error)\n")
}

/// Where a study server is and how to trust it: `https://HOST:PORT` with the SHA-256 of its
/// certificate pinned (the join link's `#sha256=HEX`, or `--fingerprint HEX`), or plain
/// `http://` to a loopback host only.
struct ServerEndpoint: Equatable, Sendable {
    var secure: Bool
    var host: String
    var port: Int
    /// SHA-256 of the server's certificate (DER), 64 lowercase hex digits. Nil over https:
    /// the system's certificate authorities decide (a server with a certificate they sign).
    var fingerprint: String?

    /// `https://HOST:PORT` (or `http://`), as the store keeps it.
    var baseURL: String {
        (secure ? "https://" : "http://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// What is wrong with a server address a person gave.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses `https://HOST[:PORT][/][#sha256=HEX]` (port 443 by default; `http://`, port 80,
    /// only for a loopback host), with `fingerprint` given apart (`--fingerprint`, which must
    /// agree with the link's if both are given). Colons in the fingerprint are allowed.
    init(parsing text: String, fingerprint given: String? = nil) throws(Problem) {
        var rest = Substring(text).drop(while: \.isWhitespace)
        while rest.last?.isWhitespace == true { rest = rest.dropLast() }
        var pinned: String?
        if let hash = rest.firstIndex(of: "#") {
            let fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
            guard fragment.hasPrefix("sha256=") else {
                throw Problem(description: "\(text): the part after # must be sha256=HEX (the server's certificate fingerprint that amble-server init printed)")
            }
            pinned = try Self.fingerprint(String(fragment.dropFirst("sha256=".count)), source: text)
        }
        if let given {
            let other = try Self.fingerprint(given, source: "--fingerprint")
            if let pinned, pinned != other {
                throw Problem(description: "--fingerprint \(other) and the link's sha256=\(pinned) differ; give the one amble-server init printed")
            }
            pinned = other
        }
        let secure: Bool
        if rest.lowercased().hasPrefix("https://") {
            secure = true
            rest = rest.dropFirst(8)
        } else if rest.lowercased().hasPrefix("http://") {
            secure = false
            rest = rest.dropFirst(7)
        } else {
            throw Problem(description: "\(text) is not a server address: give https://HOST:PORT (the join link the research team sent)")
        }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("@"), !rest.contains("?") else {
            throw Problem(description: "\(text): give only https://HOST:PORT, without a path, user or query")
        }
        let host: Substring, portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw Problem(description: "\(text): an IPv6 address needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex) ..< close]
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw Problem(description: "\(text): expected :PORT after the IPv6 address") }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
            portText = nil
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:".contains($0)) }) else {
            throw Problem(description: "\(text): \"\(host)\" is not a host name or address")
        }
        var port = secure ? 443 : 80
        if let portText {
            guard let n = Int(portText), (1 ... 65535).contains(n) else { throw Problem(description: "\(text): the port \"\(portText)\" is not 1 to 65535") }
            port = n
        }
        if !secure {
            guard Self.isLoopback(String(host)) else {
                throw Problem(description: "\(text): plain http is only for a server on this machine (127.0.0.1, ::1, localhost); "
                              + "use https:// with the fingerprint amble-server init printed")
            }
            guard pinned == nil else { throw Problem(description: "\(text): a fingerprint pins an https server's certificate; use https://") }
        }
        self.init(secure: secure, host: String(host).lowercased(), port: port, fingerprint: pinned)
    }

    init(secure: Bool, host: String, port: Int, fingerprint: String?) {
        self.secure = secure
        self.host = host
        self.port = port
        self.fingerprint = fingerprint
    }

    /// 127.0.0.0/8, ::1 and localhost.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `host` is an IP address (no SNI is sent for one).
    var hostIsAddress: Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    /// 64 hex digits (colons and case ignored), lowercased.
    static func fingerprint(_ text: String, source: String) throws(Problem) -> String {
        let hex = text.filter { $0 != ":" }.lowercased()
        guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit }) else {
            throw Problem(description: "\(source): the fingerprint must be 64 hex digits (SHA-256 of the server's certificate), not \"\(text)\"")
        }
        return hex
    }
}

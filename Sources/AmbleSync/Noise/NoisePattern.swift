/// A Noise handshake pattern (spec revision 34, section 7): what each side knows in advance
/// (the pre-messages) and the tokens of each handshake message. Messages alternate
/// initiator, responder, initiator, ...; one-way patterns (N, K, X) have a single message.
///
/// Amble pairs with `.xx` and reconnects with `.ik` or `.kk`; the other fundamental and
/// deferred patterns, and `pskN` modifiers, come from `init(name:)` and are checked against
/// the published test vectors along with those three.
public struct NoisePattern: Equatable, Sendable, CustomStringConvertible {
    /// A step of a handshake message. `e` and `s` send a public key; the two-letter tokens
    /// are Diffie-Hellman results between the initiator's key (first letter) and the
    /// responder's (second letter); `psk` mixes in the next pre-shared key.
    public enum Token: String, Equatable, Sendable {
        case e, s, ee, es, se, ss, psk
    }

    /// The name inside a protocol name, e.g. "XX", "IK", "XXpsk3", "X1K1".
    public let name: String
    /// Keys the responder knows of the initiator before the handshake (`-> s`).
    public let initiatorPreMessage: [Token]
    /// Keys the initiator knows of the responder before the handshake (`<- s`).
    public let responderPreMessage: [Token]
    /// The handshake messages' tokens, in sending order.
    public let messages: [[Token]]

    init(_ name: String, initiatorPreMessage: [Token] = [], responderPreMessage: [Token] = [], messages: [[Token]]) {
        self.name = name
        self.initiatorPreMessage = initiatorPreMessage
        self.responderPreMessage = responderPreMessage
        self.messages = messages
    }

    /// XX: both static keys travel encrypted. Amble's pairing pattern (no keys known yet).
    public static let xx = NoisePattern("XX", messages: [[.e], [.e, .ee, .s, .es], [.s, .se]])
    /// IK: the initiator knows the responder's static key and sends its own in the first
    /// message; one round trip. A laptop reconnecting to a paired band.
    public static let ik = NoisePattern("IK", responderPreMessage: [.s], messages: [[.e, .es, .s, .ss], [.e, .ee, .se]])
    /// KK: both static keys known to both sides in advance; one round trip.
    public static let kk = NoisePattern("KK", initiatorPreMessage: [.s], responderPreMessage: [.s], messages: [[.e, .es, .ss], [.e, .ee, .se]])

    /// The pattern with this name: a fundamental or deferred pattern of the spec, optionally
    /// followed by `psk` modifiers ("XXpsk3", "NNpsk0+psk2"). `pskN` puts a `psk` token at the
    /// start of the first message (N = 0) or at the end of message N.
    public init(name: String) throws(NoiseError) {
        let base: Substring
        var modifiers: [Substring] = []
        if let pskStart = name.firstRange(of: "psk") {
            base = name[..<pskStart.lowerBound]
            modifiers = name[pskStart.lowerBound...].split(separator: "+", omittingEmptySubsequences: false)
        } else {
            base = name[...]
        }
        guard let pattern = Self.basePatterns.first(where: { $0.name == base }) else {
            throw .unknownPattern(name)
        }
        var messages = pattern.messages
        for modifier in modifiers {
            guard modifier.hasPrefix("psk"), let position = Int(modifier.dropFirst(3)), position >= 0,
                  position <= messages.count, String(position) == modifier.dropFirst(3)
            else { throw .unknownPattern(name) }
            if position == 0 {
                messages[0].insert(.psk, at: 0)
            } else {
                messages[position - 1].append(.psk)
            }
        }
        self.init(name, initiatorPreMessage: pattern.initiatorPreMessage, responderPreMessage: pattern.responderPreMessage, messages: messages)
    }

    /// Whether every message goes from initiator to responder (N, K, X and their variants).
    public var isOneWay: Bool { messages.count == 1 }

    /// Whether `psk` tokens appear, which also makes every `e` mix its key into the cipher key.
    public var usesPresharedKeys: Bool { presharedKeyCount > 0 }

    /// How many pre-shared keys (32 bytes each) the handshake takes, in token order.
    public var presharedKeyCount: Int { messages.joined().filter { $0 == .psk }.count }

    /// The full protocol name Amble speaks, e.g. "Noise_XX_25519_ChaChaPoly_SHA256".
    public var protocolName: String { "Noise_\(name)_25519_ChaChaPoly_SHA256" }

    public var description: String {
        let pre = [("->", initiatorPreMessage), ("<-", responderPreMessage)]
            .filter { !$0.1.isEmpty }
            .map { "\($0.0) \($0.1.map(\.rawValue).joined(separator: ", "))" }
        let steps = messages.enumerated().map { index, tokens in
            "\(index % 2 == 0 ? "->" : "<-") \(tokens.map(\.rawValue).joined(separator: ", "))"
        }
        return "\(name): " + (pre.isEmpty ? "" : pre.joined(separator: "; ") + "; ...; ") + steps.joined(separator: "; ")
    }

    /// The spec's one-way (7.4), fundamental interactive (7.5) and deferred (7.6) patterns.
    static let basePatterns: [NoisePattern] = [
        NoisePattern("N", responderPreMessage: [.s], messages: [[.e, .es]]),
        NoisePattern("K", initiatorPreMessage: [.s], responderPreMessage: [.s], messages: [[.e, .es, .ss]]),
        NoisePattern("X", responderPreMessage: [.s], messages: [[.e, .es, .s, .ss]]),

        NoisePattern("NN", messages: [[.e], [.e, .ee]]),
        NoisePattern("NK", responderPreMessage: [.s], messages: [[.e, .es], [.e, .ee]]),
        NoisePattern("NX", messages: [[.e], [.e, .ee, .s, .es]]),
        NoisePattern("KN", initiatorPreMessage: [.s], messages: [[.e], [.e, .ee, .se]]),
        kk,
        NoisePattern("KX", initiatorPreMessage: [.s], messages: [[.e], [.e, .ee, .se, .s, .es]]),
        NoisePattern("XN", messages: [[.e], [.e, .ee], [.s, .se]]),
        NoisePattern("XK", responderPreMessage: [.s], messages: [[.e, .es], [.e, .ee], [.s, .se]]),
        xx,
        NoisePattern("IN", messages: [[.e, .s], [.e, .ee, .se]]),
        ik,
        NoisePattern("IX", messages: [[.e, .s], [.e, .ee, .se, .s, .es]]),

        NoisePattern("NK1", responderPreMessage: [.s], messages: [[.e], [.e, .ee, .es]]),
        NoisePattern("NX1", messages: [[.e], [.e, .ee, .s], [.es]]),
        NoisePattern("X1N", messages: [[.e], [.e, .ee], [.s], [.se]]),
        NoisePattern("X1K", responderPreMessage: [.s], messages: [[.e, .es], [.e, .ee], [.s], [.se]]),
        NoisePattern("XK1", responderPreMessage: [.s], messages: [[.e], [.e, .ee, .es], [.s, .se]]),
        NoisePattern("X1K1", responderPreMessage: [.s], messages: [[.e], [.e, .ee, .es], [.s], [.se]]),
        NoisePattern("X1X", messages: [[.e], [.e, .ee, .s, .es], [.s], [.se]]),
        NoisePattern("XX1", messages: [[.e], [.e, .ee, .s], [.es, .s, .se]]),
        NoisePattern("X1X1", messages: [[.e], [.e, .ee, .s], [.es, .s], [.se]]),
        NoisePattern("K1N", initiatorPreMessage: [.s], messages: [[.e], [.e, .ee], [.se]]),
        NoisePattern("K1K", initiatorPreMessage: [.s], responderPreMessage: [.s], messages: [[.e, .es], [.e, .ee], [.se]]),
        NoisePattern("KK1", initiatorPreMessage: [.s], responderPreMessage: [.s], messages: [[.e], [.e, .ee, .se, .es]]),
        NoisePattern("K1K1", initiatorPreMessage: [.s], responderPreMessage: [.s], messages: [[.e], [.e, .ee, .es], [.se]]),
        NoisePattern("K1X", initiatorPreMessage: [.s], messages: [[.e], [.e, .ee, .s, .es], [.se]]),
        NoisePattern("KX1", initiatorPreMessage: [.s], messages: [[.e], [.e, .ee, .se, .s], [.es]]),
        NoisePattern("K1X1", initiatorPreMessage: [.s], messages: [[.e], [.e, .ee, .s], [.se, .es]]),
        NoisePattern("I1N", messages: [[.e, .s], [.e, .ee], [.se]]),
        NoisePattern("I1K", responderPreMessage: [.s], messages: [[.e, .es, .s], [.e, .ee], [.se]]),
        NoisePattern("IK1", responderPreMessage: [.s], messages: [[.e, .s], [.e, .ee, .se, .es]]),
        NoisePattern("I1K1", responderPreMessage: [.s], messages: [[.e, .s], [.e, .ee, .es], [.se]]),
        NoisePattern("I1X", messages: [[.e, .s], [.e, .ee, .s, .es], [.se]]),
        NoisePattern("IX1", messages: [[.e, .s], [.e, .ee, .se, .s], [.es]]),
        NoisePattern("I1X1", messages: [[.e, .s], [.e, .ee, .s], [.se, .es]]),
    ]
}

/// `POST /v1/items`: many items in one request, for a laptop catching up (docs/server.md, "API
/// v1"). Each entry is checked and stored exactly as `PUT /v1/items/{kind}/{id}` would check and
/// store it alone; the answer gives, in request order, the status that PUT would have answered.
public struct ItemBatch: Codable, Sendable, Equatable {
    /// At most `maxItems` entries in a body of at most `StudyAPILimits.maxItemBytes` bytes.
    public static let maxItems = 500

    public struct Entry: Codable, Sendable, Equatable {
        /// `session`, `answer` or `consent`; another kind is answered 404 `unknown_kind` for this entry.
        public var kind: String
        /// 32 lowercase hex characters made on the laptop.
        public var id: String
        /// The lowercase hex SHA-256 of the bytes (PUT's `X-Amble-SHA256`); absent: 400 `missing_digest`.
        public var sha256: String?
        /// The item's bytes in standard base64 (RFC 4648, with padding).
        public var bytes: String
        public init(kind: String, id: String, sha256: String?, bytes: String) {
            self.kind = kind
            self.id = id
            self.sha256 = sha256
            self.bytes = bytes
        }
    }

    public var items: [Entry]
    public init(items: [Entry]) { self.items = items }
}

/// The answer to `POST /v1/items` (200): one result per entry, in request order.
public struct ItemBatchResults: Codable, Sendable, Equatable {
    public struct Result: Codable, Sendable, Equatable {
        public var kind: String
        public var id: String
        /// What `PUT` would answer for this item alone: 201 stored, 200 stored before with the
        /// same bytes, 409 other bytes under this id, 400/404/422 refused.
        public var status: Int
        /// The error code PUT would answer (`conflict`, `digest_mismatch`, ...); null for 200 and 201.
        public var error: String?
        public init(kind: String, id: String, status: Int, error: String?) {
            self.kind = kind
            self.id = id
            self.status = status
            self.error = error
        }

        enum CodingKeys: String, CodingKey { case kind, id, status, error }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encode(id, forKey: .id)
            try container.encode(status, forKey: .status)
            try container.encode(error, forKey: .error)  // null, never left out
        }
    }

    public var results: [Result]
    public init(results: [Result]) { self.results = results }
}

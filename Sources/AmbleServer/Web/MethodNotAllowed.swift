import AmbleStudyAPI
import HTTPTypes
import Hummingbird

/// 405 with `Allow` for a method a known path does not take (`TRACE /v1/token`), rather than
/// the router's 404: the path exists, the method is what is wrong. Added to the router after
/// every route, so it wraps only the router's not-found answer.
struct MethodNotAllowed<Context: RequestContext>: RouterMiddleware {
    /// Every path of the API (docs/server-api.yaml) with its methods; `*` is one path component.
    static var paths: [(pattern: [Substring], methods: [HTTPRequest.Method])] {
        [("/v1/join/*", [.get]), ("/v1/join", [.post]), ("/v1/token", [.post]), ("/v1/study", [.get]),
         ("/v1/items/*/*", [.put]), ("/v1/items", [.post]), ("/v1/withdraw", [.post]),
         ("/login", [.get, .post]), ("/logout", [.post]), ("/studies", [.get]),
         ("/studies/*/dashboard", [.get]), ("/studies/*/export", [.get])]
            .map { ($0.0.split(separator: "/"), $0.1) }
    }

    static func allowed(_ path: String) -> [HTTPRequest.Method]? {
        let components = path.split(separator: "/")
        return paths.first { entry in
            entry.pattern.count == components.count && zip(entry.pattern, components).allSatisfy { $0 == "*" || $0 == $1 }
        }?.methods
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let methods = Self.allowed(request.uri.path), !methods.contains(request.method) else { throw error }
            let allow = methods.map(\.rawValue).joined(separator: ", ")
            var response = try JSONBody.response(APIError(error: "method_not_allowed", message: "\(request.uri.path) takes \(allow) only."),
                                                 status: .methodNotAllowed)
            response.headers[.allow] = allow
            return response
        }
    }
}

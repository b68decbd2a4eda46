public import Hummingbird
import InterPayMetrics

/// Counts the web app's answers by status and route (`InterPayMetric.webRequests`).
///
/// Hummingbird's `MetricsMiddleware` labels its counters with the request's method as the client sent it, and any
/// local user may send any method token: an unbounded label set. Here the labels are the status the app answered and
/// the route the router matched (its pattern, such as `/api/:method`), or `other` when none did: values the app chose,
/// never the client's text.
public struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The middleware.
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            let response = try await next(request, context)
            Self.count(status: response.status.code, context: context)
            return response
        } catch {
            Self.count(status: (error as? any HTTPResponseError)?.status.code ?? 500, context: context)
            throw error
        }
    }

    private static func count(status: Int, context: Context) {
        InterPayMetric.webRequests.counter([
            ("status", (100...599).contains(status) ? String(status) : "other"),
            ("route", context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "other"),
        ]).increment()
    }
}

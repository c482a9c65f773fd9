// The client speaks the shared HTTP vocabulary (headers, entity tags,
// preconditions, Retry-After, dates), the same types as lib-server.
@_exported import LibHTTP

// The server speaks the shared HTTP vocabulary (headers, entity tags,
// preconditions, dates): whoever uses the server uses it too.
@_exported import LibHTTP

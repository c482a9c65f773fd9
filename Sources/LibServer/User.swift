import LibJSON

/// What a user may do: librarians write, readers only read.
public enum Role: String, Sendable, CaseIterable {
    case librarian
    case reader
}

/// A signed-in user, as the routes see them.
struct User: Sendable, Equatable {
    let id: String
    let username: String
    let role: Role

    var json: JSONValue { ["id": .string(id), "username": .string(username), "role": .string(role.rawValue)] }
}

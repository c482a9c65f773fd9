import LibJSON

/// What a three-way merge makes of a conflicting document's three versions:
/// nil `mine` is a delete, nil `theirs` a document the server no longer has,
/// nil `base` a create.
public enum DocumentMerge: Equatable, Sendable {
    /// A document to send (with the field-level details).
    case document(FieldMerge)
    /// Both sides delete it, or the server's copy is what mine would make: nothing to send.
    case theirs
    /// Delete the server's copy (mine deletes, theirs did not change it).
    case delete
    /// Cannot be merged.
    case clash(Clash)

    public enum Clash: Equatable, Sendable {
        case deletedHereChangedThere
        case changedHereDeletedThere
        /// Fields changed on both sides to different values, in document order.
        case fields([String])
    }

    public init(base: JSONObject?, mine: JSONObject?, theirs: JSONObject?) {
        switch (mine, theirs) {
        case (nil, nil):
            self = .theirs
        case (nil, let theirs?):
            self = theirs == base ? .delete : .clash(.deletedHereChangedThere)
        case (let mine?, nil):
            self = base != nil && mine == base ? .theirs : .clash(.changedHereDeletedThere)
        case (let mine?, let theirs?):
            let merge = FieldMerge(base: base ?? JSONObject(), mine: mine, theirs: theirs)
            self = merge.isClean ? .document(merge) : .clash(.fields(merge.clashes))
        }
    }
}

import LibJSON

/// `lib revert PATH`: the inverse of this account's last pushed write of a
/// document, queued as an ordinary write. A change sets each field it set
/// back to the value it had in the version the change was sent against
/// (removing a field the change added); a create becomes a delete; a
/// delete becomes a create of the document it deleted.
///
/// The write goes against the version this device last saw (its cached
/// copy), as an edit does, when nothing it puts back was changed there
/// since the pushed write. When something was (the device has already
/// seen someone else's value), it goes against the version the pushed
/// write made instead: the server has moved past that version, so the push
/// is an ordinary conflict, never an overwrite of the other change.
public enum Reversal {
    public enum Outcome: Sendable, Equatable {
        /// Queue this write.
        case write(Outbox.NewWrite, againstSeen: Bool)
        /// The document already is as the revert would leave it.
        case nothingToUndo
        /// The log's entry cannot be undone (a delete of a document whose content lib never had).
        case unknownContent
    }

    /// The intent that undoes `pushed`; nil for a delete whose document is unknown.
    public static func inverse(of pushed: PushedWrite) -> WriteIntent? {
        switch pushed.intent {
        case .create:
            return .delete
        case .delete:
            return pushed.base.map { .create($0) }
        case .change(let changes):
            let base = pushed.base
            var inverse = FieldChanges()
            for (name, _) in changes.fields { inverse[name] = .some(base?[name]) }
            return .change(inverse)
        }
    }

    /// What reverting `pushed` queues, given the cached copy (nil: this
    /// device has no copy, the document is gone here).
    public static func outcome(undoing pushed: PushedWrite, cached: CachedDocument?) -> Outcome {
        guard let inverse = inverse(of: pushed) else { return .unknownContent }
        let seen = cached?.json?.objectValue
        if inverse.applied(to: seen) == seen { return .nothingToUndo }
        let made = pushed.made
        if inverse.clashes(base: made, target: seen) {
            let body = made.map { JSONValue.object($0).serialized() }
            return .write(Outbox.NewWrite(path: pushed.path, intent: inverse, baseBody: inverse.isCreate ? nil : body,
                                          baseETag: inverse.isCreate ? nil : pushed.etag), againstSeen: false)
        }
        return .write(Outbox.NewWrite(path: pushed.path, intent: inverse,
                                      baseBody: inverse.isCreate ? nil : cached?.body,
                                      baseETag: inverse.isCreate ? nil : cached?.etag), againstSeen: true)
    }
}

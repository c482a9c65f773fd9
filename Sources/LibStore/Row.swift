/// One result row, read by column name or position.
public struct Row: Sendable, Equatable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(index: Int) -> SQLValue { values[index] }

    public subscript(name: String) -> SQLValue {
        guard let i = columns.firstIndex(of: name) else { return .null }
        return values[i]
    }
}

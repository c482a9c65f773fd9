import LibJSON

/// One (sub)schema, for the JSON Schema 2020-12 keywords a book schema may
/// use: type, properties, required, additionalProperties, items, minLength,
/// maxLength, minimum, maximum, minItems, maxItems, enum, const. Annotations
/// ($schema, $id, title, description, …) are ignored; any other keyword is
/// refused when the schema is read, so that no rule is silently skipped.
struct SchemaNode: Sendable, Equatable {
    var types: [String]?
    var properties: [(name: String, schema: SchemaNode)] = []
    var required: [String] = []
    /// What `additionalProperties` says about properties not listed.
    var additionalProperties: Extra = .allowed

    enum Extra: Sendable, Equatable {
        case allowed
        case forbidden
        case checked(Box)
    }
    var items: Box?
    var minLength: Int?
    var maxLength: Int?
    var minimum: Double?
    var maximum: Double?
    var minItems: Int?
    var maxItems: Int?
    var allowed: [JSONValue]?

    /// A subschema held indirectly (structs cannot contain themselves).
    final class Box: Sendable, Equatable {
        let node: SchemaNode
        init(_ node: SchemaNode) { self.node = node }
        static func == (a: Box, b: Box) -> Bool { a.node == b.node }
    }

    static let annotations: Set<String> = ["$schema", "$id", "$comment", "title", "description", "default", "examples",
                                           "readOnly", "writeOnly", "deprecated", "$defs"]

    init(_ value: JSONValue, at location: String) throws(SchemaError) {
        if value == .bool(true) { return }
        guard let object = value.objectValue else {
            throw SchemaError("\(location) must be a JSON object (a schema), not \(value.typeName)")
        }
        for (keyword, argument) in object {
            let here = "\(location)/\(keyword)"
            switch keyword {
            case "type":
                if let one = argument.stringValue { types = [one] }
                else if let many = argument.arrayValue?.compactMap(\.stringValue), many.count == argument.arrayValue?.count { types = many }
                else { throw SchemaError("\(here) must be a type name or a list of them") }
                let known: Set<String> = ["null", "boolean", "integer", "number", "string", "array", "object"]
                if let unknown = types?.first(where: { !known.contains($0) }) { throw SchemaError("\(here): unknown type '\(unknown)'") }
            case "properties":
                guard let members = argument.objectValue else { throw SchemaError("\(here) must be an object") }
                for (name, schema) in members { properties.append((name, try SchemaNode(schema, at: "\(here)/\(name)"))) }
            case "required":
                guard let names = argument.arrayValue?.compactMap(\.stringValue), names.count == argument.arrayValue?.count else {
                    throw SchemaError("\(here) must be a list of property names")
                }
                required = names
            case "additionalProperties":
                additionalProperties = argument == .bool(false) ? .forbidden
                    : argument == .bool(true) ? .allowed : .checked(Box(try SchemaNode(argument, at: here)))
            case "items":
                items = Box(try SchemaNode(argument, at: here))
            case "minLength": minLength = try Self.count(argument, here)
            case "maxLength": maxLength = try Self.count(argument, here)
            case "minItems": minItems = try Self.count(argument, here)
            case "maxItems": maxItems = try Self.count(argument, here)
            case "minimum": minimum = try Self.number(argument, here)
            case "maximum": maximum = try Self.number(argument, here)
            case "enum":
                guard let values = argument.arrayValue else { throw SchemaError("\(here) must be a list") }
                allowed = values
            case "const":
                allowed = [argument]
            default:
                guard Self.annotations.contains(keyword) else {
                    throw SchemaError("\(here): the keyword '\(keyword)' is not supported (lib understands \(Self.supported))")
                }
            }
        }
    }

    static let supported = "type, properties, required, additionalProperties, items, minLength, maxLength, minimum, maximum, minItems, maxItems, enum and const"

    private static func count(_ value: JSONValue, _ location: String) throws(SchemaError) -> Int {
        guard let n = value.integerValue, n >= 0 else { throw SchemaError("\(location) must be a non-negative integer") }
        return Int(n)
    }

    private static func number(_ value: JSONValue, _ location: String) throws(SchemaError) -> Double {
        switch value {
        case .integer(let n): return Double(n)
        case .double(let d): return d
        default: throw SchemaError("\(location) must be a number")
        }
    }

    static func == (a: SchemaNode, b: SchemaNode) -> Bool {
        a.types == b.types && a.properties.map(\.name) == b.properties.map(\.name)
            && a.properties.map(\.schema) == b.properties.map(\.schema) && a.required == b.required
            && a.additionalProperties == b.additionalProperties && a.items == b.items && a.minLength == b.minLength
            && a.maxLength == b.maxLength && a.minimum == b.minimum && a.maximum == b.maximum
            && a.minItems == b.minItems && a.maxItems == b.maxItems && a.allowed == b.allowed
    }

    // MARK: Checking a value

    /// The problem of a top-level field's value; nil when it is valid.
    func fieldProblem(_ field: String, _ value: JSONValue) -> FieldProblem? {
        problem(with: value).map { detail in
            FieldProblem(field: field, detail: detail, refusedType: refusesType(of: value) ? value.typeName : nil)
        }
    }

    func refusesType(of value: JSONValue) -> Bool {
        guard let types else { return false }
        return !types.contains(where: { Self.matches(value, $0) })
    }

    /// What is wrong with `value`, phrased to follow the field's name
    /// ("must be an integer, not string"); nil when it is valid. Only the
    /// first problem of a value is told: it is the one to fix first.
    func problem(with value: JSONValue) -> String? {
        if refusesType(of: value) {
            return "must be \(typePhrase), not \(value.typeName)"
        }
        if let allowed, !allowed.contains(value) {
            let list = allowed.map { $0.serialized() }
            return list.count == 1 ? "must be \(list[0])" : "must be one of \(list.joined(separator: ", "))"
        }
        switch value {
        case .string(let text):
            let length = text.unicodeScalars.count
            switch (minLength, maxLength) {
            case (let low?, let high?) where length < low || length > high:
                return "must be \(low) to \(high) characters long (it has \(length))"
            case (let low?, nil) where length < low:
                return "must be at least \(low) characters long (it has \(length))"
            case (nil, let high?) where length > high:
                return "must be at most \(high) characters long (it has \(length))"
            default: break
            }
        case .integer, .double:
            let number: Double = value.integerValue.map(Double.init) ?? { if case .double(let d) = value { return d } else { return 0 } }()
            if let minimum, number < minimum { return "must be \(Self.spell(minimum)) or more (not \(value.serialized()))" }
            if let maximum, number > maximum { return "must be \(Self.spell(maximum)) or less (not \(value.serialized()))" }
        case .array(let elements):
            if let minItems, elements.count < minItems { return "must have at least \(minItems) item\(minItems == 1 ? "" : "s") (it has \(elements.count))" }
            if let maxItems, elements.count > maxItems { return "must have at most \(maxItems) item\(maxItems == 1 ? "" : "s") (it has \(elements.count))" }
            if let items = items?.node {
                for (index, element) in elements.enumerated() {
                    if let types = items.types, !types.contains(where: { Self.matches(element, $0) }) {
                        return "must be \(typePhrase) (item \(index) is \(element.typeName))"
                    }
                    if let problem = items.problem(with: element) { return "item \(index) \(problem)" }
                }
            }
        case .object(let object):
            for (name, schema) in properties {
                if let member = object[name], let problem = schema.problem(with: member) { return "'\(name)' \(problem)" }
            }
            if let missing = required.first(where: { object[$0] == nil }) { return "needs '\(missing)'" }
        default: break
        }
        return nil
    }

    /// "an integer", "a string or null", "an array of strings".
    var typePhrase: String {
        guard let types else { return "a value" }
        return types.map { type -> String in
            if type == "array", let itemTypes = items?.node.types, itemTypes.count == 1 {
                return "an array of \(itemTypes[0] == "boolean" ? "booleans" : itemTypes[0] + "s")"
            }
            return (["array", "integer", "object"].contains(type) ? "an " : "a ") + type
        }.joined(separator: " or ")
    }

    static func matches(_ value: JSONValue, _ type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("integer", .integer), ("number", .integer), ("number", .double),
             ("string", .string), ("array", .array), ("object", .object): return true
        default: return false
        }
    }

    private static func spell(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}

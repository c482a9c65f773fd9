import LibHTTP
import Testing

@Suite struct EntityTagTests {
    @Test func parsesStrongAndWeakTags() {
        #expect(EntityTag(parsing: "\"3-ab\"") == EntityTag(opaque: "\"3-ab\""))
        #expect(EntityTag(parsing: "W/\"3-ab\"") == EntityTag(opaque: "\"3-ab\"", isWeak: true))
        #expect(EntityTag(parsing: "3-ab") == nil)
        #expect(EntityTag(parsing: "\"a b\"") == nil)
        #expect(EntityTag(parsing: "w/\"x\"") == nil, "the W is case-sensitive")
        #expect(EntityTag(parsing: "W/\"x\"")?.description == "W/\"x\"")
    }

    @Test func comparesStronglyAndWeakly() {
        let strong = EntityTag(opaque: "\"1\""), weak = EntityTag(opaque: "\"1\"", isWeak: true)
        #expect(strong.matchesStrongly(strong))
        #expect(!weak.matchesStrongly(strong) && !strong.matchesStrongly(weak) && !weak.matchesStrongly(weak))
        #expect(weak.matchesWeakly(strong) && strong.matchesWeakly(weak))
        #expect(!strong.matchesWeakly(EntityTag(opaque: "\"2\"")))
    }

    @Test func parsesFieldLists() {
        #expect(EntityTagCondition(fieldValues: ["*"]) == .any)
        #expect(EntityTagCondition(fieldValues: ["\"a\", W/\"b\"", "\"c,d\""]) == .tags([
            EntityTag(opaque: "\"a\""), EntityTag(opaque: "\"b\"", isWeak: true), EntityTag(opaque: "\"c,d\""),
        ]))
        #expect(EntityTagCondition(fieldValues: ["*, \"a\""]) == nil)
        #expect(EntityTagCondition(fieldValues: ["a"]) == nil)
        #expect(EntityTagCondition(fieldValues: [""]) == nil)
    }
}

/// RFC 9110 §13.2.2 as a table: (If-Match, If-None-Match, method, current) → outcome.
@Suite struct PreconditionsTests {
    static let current = "\"2-cur\""

    @Test(arguments: [
        (nil, nil, "PUT", current, Preconditions.Outcome.proceed),
        ("\"2-cur\"", nil, "PUT", current, .proceed),
        ("W/\"2-cur\"", nil, "PUT", current, .failed(field: "If-Match")),
        ("\"1-old\"", nil, "PUT", current, .failed(field: "If-Match")),
        ("\"1-old\", \"2-cur\"", nil, "PUT", current, .proceed),
        ("*", nil, "PUT", current, .proceed),
        ("*", nil, "PUT", nil, .failed(field: "If-Match")),
        ("\"2-cur\"", nil, "PUT", nil, .failed(field: "If-Match")),
        (nil, "*", "PUT", nil, .proceed),
        (nil, "*", "PUT", current, .failed(field: "If-None-Match")),
        ("\"2-cur\"", "*", "PUT", current, .failed(field: "If-None-Match")),
        ("*", "*", "PUT", current, .failed(field: "If-None-Match")),
        ("\"1-old\"", "*", "PUT", current, .failed(field: "If-Match")),
        ("\"2-cur\"", "\"1-old\"", "PUT", current, .proceed),
        ("\"2-cur\"", "W/\"2-cur\"", "PUT", current, .failed(field: "If-None-Match")),
        (nil, "\"2-cur\"", "GET", current, .notModified),
        (nil, "W/\"2-cur\"", "GET", current, .notModified),
        (nil, "W/\"2-cur\"", "HEAD", current, .notModified),
        (nil, "\"1-old\"", "GET", current, .proceed),
        (nil, "*", "GET", current, .notModified),
        (nil, "*", "GET", nil, .proceed),
        ("\"1-old\"", "\"2-cur\"", "GET", current, .failed(field: "If-Match")),
        ("W/\"2-cur\"", nil, "GET", current, .failed(field: "If-Match")),
    ] as [(String?, String?, String, String?, Preconditions.Outcome)])
    func evaluatesInTheRFCsOrder(ifMatch: String?, ifNoneMatch: String?, method: String, current: String?,
                                 outcome: Preconditions.Outcome) throws {
        var headers = HTTPHeaders()
        if let ifMatch { headers.add("If-Match", ifMatch) }
        if let ifNoneMatch { headers.add("If-None-Match", ifNoneMatch) }
        let conditions = try Preconditions(headers: headers)
        #expect(conditions.evaluate(method: method, current: current.flatMap { EntityTag(parsing: $0) }) == outcome)
    }

    @Test func aMalformedFieldIsNamed() {
        #expect(throws: Preconditions.InvalidField(name: "If-Match")) {
            try Preconditions(headers: ["If-Match": "2-cur"])
        }
    }
}

@Suite struct RetryAfterTests {
    @Test func parsesSecondsAndDates() {
        #expect(RetryAfter(headerValue: " 120 ", now: 0)?.seconds == 120)
        #expect(RetryAfter(headerValue: "Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 - 30)?.seconds == 30)
        #expect(RetryAfter(headerValue: "soon", now: 0) == nil)
        #expect(RetryAfter(seconds: 7).headerValue == "7")
        #expect(HTTPDate.secondsSince1970(imfFixdate: HTTPDate.format(secondsSince1970: 1_700_000_000)) == 1_700_000_000)
    }
}

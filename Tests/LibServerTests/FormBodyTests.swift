@testable import LibServer
import Testing

/// Form bodies decode as browsers and RFC 8628 clients encode them.
@Test func formFieldsDecodePlusAsASpaceAndEscapesAsBytes() {
    #expect(FormBody.fields(Array("user_code=BCDF-GHJK&name=a+b%2B%C3%A9&name=second".utf8)) == ["user_code": "BCDF-GHJK", "name": "a b+é"])
    #expect(FormBody.fields(Array("flag&empty=".utf8)) == ["flag": "", "empty": ""])
    #expect(FormBody.fields(Array("bad=%4".utf8)) == nil, "a cut escape")
    #expect(FormBody.fields(Array("bad=%ZZ".utf8)) == nil)
    #expect(FormBody.fields(Array("bad=%FF".utf8)) == nil, "not UTF-8")
}

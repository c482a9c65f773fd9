@testable import LibClient
import LibJSON
import Testing

/// A listing page carries each book's title, author and tags for the search
/// index as the store's SQL would read them out of the JSON, or none when a
/// book has one of another type (the store then reads them itself).
@Suite struct ListingSearchFieldsTests {
    func fields(_ json: String) throws -> ListingPage.SearchFields? {
        ListingPage.searchFields(of: try #require(try JSONParser.parse(json).objectValue))
    }

    @Test func textIsTakenAsItIsAndTagsAreJoinedBySpaces() throws {
        let all = try #require(try fields(#"{"title":"Søren \"S\"","author":"A\nB","tags":["sf","new wave"]}"#))
        #expect(all.title == "Søren \"S\"" && all.author == "A\nB" && all.tags == "sf new wave")
        let none = try #require(try fields(#"{"title":null,"tags":[]}"#))
        #expect(none.title == nil && none.author == nil && none.tags == nil)
        let tagsNotAList = try #require(try fields(#"{"title":"T","tags":"sf"}"#))
        #expect(tagsNotAList.title == "T" && tagsNotAList.tags == nil, "the index has no tags for a tags that is not a list")
    }

    @Test func aFieldOfAnotherTypeGivesNone() throws {
        #expect(try fields(#"{"title":42}"#) == nil)
        #expect(try fields(#"{"title":"T","author":["A","B"]}"#) == nil)
        #expect(try fields(#"{"title":"T","tags":["sf",3]}"#) == nil)
    }
}

import LibHTTP
import Testing

/// IMF-fixdate both ways, at the edges the http-date fuzz target found.
@Suite struct HTTPDateTests {
    @Test func writesFourDigitYears() {
        // 0997-11-06T08:49:37Z, written "997" before the fix.
        #expect(HTTPDate.format(secondsSince1970: -30_678_102_623) == "Mon, 06 Nov 0997 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: HTTPDate.representable.lowerBound) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSince1970: HTTPDate.representable.upperBound) == "Fri, 31 Dec 9999 23:59:59 GMT")
        // Beyond the four-digit years: the nearest end, never a five-digit year.
        #expect(HTTPDate.format(secondsSince1970: Int.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(secondsSince1970: Int.min) == "Mon, 01 Jan 0001 00:00:00 GMT")
    }

    @Test func readsBackWhatItWrites() {
        for instant in [-30_678_102_623, 0, 784_111_777, 1_700_000_000, HTTPDate.representable.lowerBound,
                        HTTPDate.representable.upperBound] {
            #expect(HTTPDate.secondsSince1970(imfFixdate: HTTPDate.format(secondsSince1970: instant)) == instant)
        }
    }

    @Test func refusesWhatIsNotAnIMFFixdate() {
        #expect(HTTPDate.secondsSince1970(imfFixdate: "Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.secondsSince1970(imfFixdate: "Tue, 29 Feb 2000 00:00:00 GMT") == 951_782_400)
        #expect(HTTPDate.secondsSince1970(imfFixdate: "Sat, 31 Dec 2016 23:59:60 GMT") == 1_483_228_800)
        for text in [
            "Sun, 06 Nov 99999 08:49:37 GMT",  // five-digit year
            "Sun, 06 Nov 19084 9:49:37 GMT",
            "Sun, 06 Nov 9999999999999999 08:49:37 GMT",  // overflowed the day arithmetic (a trap)
            "Sun, 06 Nov 0000 08:49:37 GMT",  // year 0 is not in the grammar's range of instants
            "Sun, 06 Nov 994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:+7 GMT",
            "Sun,  06 Nov 1994 08:49:37 GMT",
            "Sunday, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Fri, 31 Dec 9999 23:59:60 GMT",  // a leap second into year 10000 (fuzz finding)
            "Sun, 30 Feb 2000 08:49:37 GMT",
            "Sun, 29 Feb 1900 08:49:37 GMT",
            "Sun, 31 Apr 2000 08:49:37 GMT",
        ] {
            #expect(HTTPDate.secondsSince1970(imfFixdate: text) == nil, "\(text)")
        }
    }

    @Test func retryAfterWithAFarDateIsRefusedAndAFarClockDoesNotTrap() {
        #expect(RetryAfter(headerValue: "Sun, 06 Nov 99999 08:49:37 GMT", now: 0) == nil)
        #expect(RetryAfter(headerValue: "Sun, 06 Nov 9999999999999999 08:49:37 GMT", now: 0) == nil)
        #expect(RetryAfter(headerValue: "Sun, 06 Nov 1994 08:49:37 GMT", now: Int.max)?.seconds == 0)
        #expect(RetryAfter(headerValue: "Sun, 06 Nov 1994 08:49:37 GMT", now: Int.min)?.seconds == Int.max)
    }
}

@testable import LibCommands
import Testing

/// After an empty feed page that came early (a full server's waiter caps),
/// the watcher pauses 0.5 to 1.5 s before asking again; after one that came
/// at the end of its wait, it asks again at once.
@Test func anEarlyEmptyPageMakesTheWatcherPauseAboutASecond() {
    #expect(EarlyEmptyPage.pause(waited: 0.01, asked: 50, random: 0) == 0.5)
    #expect(EarlyEmptyPage.pause(waited: 20, asked: 50, random: 1) == 1.5)
    #expect(EarlyEmptyPage.pause(waited: 49.5, asked: 50, random: 0.5) == 0, "at the end of its wait")
    #expect(EarlyEmptyPage.pause(waited: 50, asked: 50, random: 0.5) == 0)
    #expect(EarlyEmptyPage.pause(waited: 0.01, asked: 0, random: 0.5) == 0, "no wait asked")
}

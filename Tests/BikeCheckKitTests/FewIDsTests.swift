import Testing

@testable import BikeCheckKit

/// `FewIDs` finds a done id among a bike's few interval ids by comparing, lengths first; over its
/// limit, in a dictionary. Either way the answer is the first place of the id in the list.
@Suite struct FewIDsTests {
    @Test func eachIdIsFoundAtItsFirstPlaceAndOthersOfTheSameLengthAreNot() {
        let list = ["chain", "tyres", "drive-inspection", "chain", "drive-inspection-rear"].map(IntervalID.init)
        let ids = FewIDs(list)
        #expect(ids.position(of: IntervalID("chain")) == 0)
        #expect(ids.position(of: IntervalID("tyres")) == 1)
        #expect(ids.position(of: IntervalID("drive-inspection")) == 2)
        #expect(ids.position(of: IntervalID("drive-inspection-rear")) == 4)
        // The same lengths as known ids, other text.
        #expect(ids.position(of: IntervalID("brake")) == nil)
        #expect(!ids.contains(IntervalID("drive-inspectoin")))
        #expect(!ids.contains(IntervalID("")))
        #expect(!FewIDs<IntervalKind>([]).contains(IntervalID("chain")))
    }

    @Test func moreIdsThanTheLimitAnswerAsFewDo() {
        let list = (0...(FewIDs<IntervalKind>.limit + 3)).map { IntervalID("service-\($0 % 18)") }
        #expect(list.count > FewIDs<IntervalKind>.limit)
        let many = FewIDs(list)
        let few = FewIDs(Array(list.prefix(FewIDs<IntervalKind>.limit)))
        for k in 0..<FewIDs<IntervalKind>.limit { #expect(many.position(of: list[k]) == k && few.position(of: list[k]) == k) }
        #expect(many.position(of: IntervalID("service-17")) == 17)
        #expect(many.position(of: IntervalID("service-0")) == 0)
        #expect(many.position(of: IntervalID("service-18")) == nil)
        #expect(few.position(of: IntervalID("service-17")) == nil)
    }
}

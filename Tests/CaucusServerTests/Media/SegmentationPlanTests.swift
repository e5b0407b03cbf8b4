import CaucusCore
import PropertyBased
import Testing
@testable import CaucusServer

/// How a flush's datagrams are grouped into runs the kernel cuts up (UDP GSO): by destination,
/// one length per run with a shorter last, within the kernel's limits, each stream's order kept.
@Suite struct SegmentationPlanTests {
    typealias Plan = SegmentationPlan<String>

    private func runs(_ datagrams: [(String, Int)], joinable: (String) -> Bool = { _ in true }) -> [[Int]] {
        runs(datagrams.map { ($0.0, $0.1, nil) }, joinable: joinable)
    }

    private func runs(_ datagrams: [(String, Int, UInt32?)], joinable: (String) -> Bool = { _ in true }) -> [[Int]] {
        let plan = Plan(datagrams.map { (destination: $0.0, length: $0.1, stream: $0.2) }, joinable: joinable)
        return plan.runs.map { Array(plan.members(of: $0)) }
    }

    @Test func eachDestinationsDatagramsOfOneLengthMakeOneRun() {
        // A video frame of three packets to Ann and to Bo, interleaved as the router queues copies.
        let datagrams = [("ann", 1_100), ("bo", 1_100), ("ann", 1_100), ("bo", 1_100), ("ann", 700), ("bo", 700)]
        #expect(runs(datagrams) == [[0, 2, 4], [1, 3, 5]])
        let plan = Plan(datagrams.map { (destination: $0.0, length: $0.1, stream: nil) })
        #expect(plan.runs.map(\.segment) == [1_100, 1_100])
        #expect(plan.runs.map(\.bytes) == [2_900, 2_900])
    }

    @Test func aShorterDatagramEndsItsRun() {
        // The kernel cuts every segment but the last at the run's length.
        #expect(runs([("ann", 1_000), ("ann", 600), ("ann", 1_000), ("ann", 1_000)]) == [[0, 1], [2, 3]])
    }

    @Test func aLongerDatagramStartsANewRunAfterTheOpenOne() {
        #expect(runs([("ann", 600), ("ann", 600), ("ann", 1_000), ("ann", 1_000)]) == [[0, 1], [2, 3]])
    }

    @Test func aLongerPacketOfAnotherStreamLeadsAnOpenRunOfOne() {
        // Three speakers' audio to Ann in one flush, Opus lengths differing: the longer second
        // packet leaves first and the shorter first one is the run's last.
        let audio: [(String, Int, UInt32?)] = [("ann", 90, 1), ("bo", 90, 1), ("ann", 110, 2), ("ann", 100, 3)]
        #expect(runs(audio) == [[2, 0], [1], [3]])
        let plan = Plan(audio.map { (destination: $0.0, length: $0.1, stream: $0.2) })
        #expect(plan.runs.map(\.segment) == [110, 90, 100])
        #expect(plan.runs.map(\.bytes) == [200, 90, 100])
    }

    @Test func oneStreamsPacketsAndRTCPKeepTheirOrder() {
        // The same stream: a longer later packet may not overtake its earlier one.
        #expect(runs([("ann", 90, 1), ("ann", 110, 1)]) == [[0], [1]])
        // RTCP (no stream) neither overtakes nor is overtaken.
        #expect(runs([("ann", 90, nil), ("ann", 110, 2)]) == [[0], [1]])
        #expect(runs([("ann", 90, 2), ("ann", 110, nil)]) == [[0], [1]])
        // Only a run of one is led: one of two already has its segment length.
        #expect(runs([("ann", 90, 1), ("ann", 90, 2), ("ann", 110, 3)]) == [[0, 1], [2]])
        // Nor a datagram too large to join.
        #expect(runs([("ann", 90, 1), ("ann", 1_300, 2)]) == [[0], [1]])
    }

    @Test func aRunStopsAtTheKernelsSegmentAndByteLimits() {
        let many = Array(repeating: ("ann", 100), count: 130)
        #expect(runs(many).map(\.count) == [64, 64, 2])
        // 54 segments of 1,200 bytes fit in 65,000; the 55th does not.
        let large = Array(repeating: ("ann", 1_200), count: 60)
        #expect(runs(large).map(\.count) == [54, 6])
    }

    @Test func datagramsLargerThanAnyPathsSegmentLeaveAlone() {
        #expect(runs([("ann", 1_300), ("ann", 1_300), ("ann", 1_232), ("ann", 1_232)]) == [[0], [1], [2, 3]])
    }

    @Test func aDestinationThatCannotJoinLeavesEachDatagramAlone() {
        #expect(runs([("tcp", 500), ("ann", 500), ("tcp", 500), ("ann", 500)], joinable: { $0 != "tcp" }) == [[0], [1, 3], [2]])
    }

    /// Whatever comes: every datagram in exactly one run, every run one destination's of one
    /// length but a shorter last and within the limits, and, when the runs are written in order,
    /// a destination's datagrams in the order queued but where a later one of a stream leaves
    /// before an earlier one of another.
    @Test(.shrinking(false))
    func everyDatagramLeavesOnceInItsStreamsOrder() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix64(seed: UInt64(seed))
            let lengths = [60, 90, 120, 120, 900, 1_100, 1_100, 1_200, 1_300]
            let streams: [UInt32?] = [nil, 1, 2, 3]
            let datagrams = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                (
                    "peer \(Int.random(in: 0..<6, using: &random))", lengths[Int.random(in: 0..<lengths.count, using: &random)],
                    streams[Int.random(in: 0..<streams.count, using: &random)]
                )
            }
            let plan = Plan(datagrams.map { (destination: $0.0, length: $0.1, stream: $0.2) })
            var written: [Int] = []
            for run in plan.runs {
                let members = Array(plan.members(of: run))
                #expect(members.count == run.count && members.first == run.first)
                #expect(Set(members.map { datagrams[$0].0 }).count == 1)
                #expect(members.dropLast().allSatisfy { datagrams[$0].1 == run.segment })
                #expect(datagrams[members.last!].1 <= run.segment)
                #expect(run.count == 1 || (run.segment <= Plan.maximumSegmentBytes && run.count <= Plan.maximumSegments && run.bytes <= Plan.maximumRunBytes))
                #expect(run.bytes == members.map { datagrams[$0].1 }.reduce(0, +))
                written += members
            }
            #expect(written.sorted() == Array(datagrams.indices))
            let position = Dictionary(uniqueKeysWithValues: written.enumerated().map { ($1, $0) })
            for earlier in datagrams.indices {
                for later in datagrams.indices where later > earlier && datagrams[later].0 == datagrams[earlier].0 {
                    guard position[later]! < position[earlier]! else { continue }
                    let (first, second) = (datagrams[earlier].2, datagrams[later].2)
                    #expect(first != nil && second != nil && first != second, "only another stream's packet overtakes")
                }
            }
        }
    }
}

@testable import CaucusServer
import Testing

/// When a measured skew refuses a node: beyond the allowance by more than the measurement's
/// own uncertainty (half its round trip), and never on a round trip too slow to tell.
@Suite struct ClockSkewJudgementTests {
    static let allowance = Duration.milliseconds(1_250)

    @Test(arguments: [
        (15_000, 10, "15.0 s ahead of"), (-15_000, 10, "15.0 s behind"), (1_400, 10, "1.4 s ahead of"),
    ] as [(Int64, Int64, String)])
    func aSkewBeyondTheAllowanceIsNamed(_ skew: Int64, _ roundTrip: Int64, _ said: String) throws {
        let problem = try #require(ClockSkewWatch.problem(.milliseconds(skew), roundTrip: .milliseconds(roundTrip), allowance: Self.allowance))
        #expect(problem.contains(said) && problem.contains("NTP"), "\(problem)")
    }

    @Test(arguments: [
        (1_000, 10), (-1_000, 10), (0, 10),
        // Beyond the allowance only within the measurement's uncertainty.
        (1_300, 200),
        // A round trip too slow to judge: a busy database does not stop a node.
        (15_000, 2_000),
    ] as [(Int64, Int64)])
    func aSkewWithinTheAllowanceOrTooUncertainIsNot(_ skew: Int64, _ roundTrip: Int64) {
        #expect(ClockSkewWatch.problem(.milliseconds(skew), roundTrip: .milliseconds(roundTrip), allowance: Self.allowance) == nil)
    }
}

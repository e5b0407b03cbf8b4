import Testing
@testable import CaucusServer

/// `--media-gso`: `auto` sends runs only where the kernel segments for any device (Linux 6.11
/// on), `on` only where SwiftNIO can, `off` never.
@Suite struct MediaSegmentationOffloadSettingTests {
    @Test(arguments: [
        ("6.18.44-fc-v669", true), ("6.11.0", true), ("7.0.1", true), ("6.10.14-generic", false), ("6.8.0-45-generic", false),
        ("5.15.0-91-generic", false), ("4.18.0", false),
    ])
    func autoUsesItFromLinux611On(release: String, used: Bool) {
        #expect(MediaSegmentationOffload.automatic.isUsed(kernelRelease: release, supported: true) == used)
    }

    @Test func autoNeverUsesItWhereItCannotOrTheKernelIsUnknown() {
        #expect(MediaSegmentationOffload.automatic.isUsed(kernelRelease: "6.18.0", supported: false) == false)
        #expect(MediaSegmentationOffload.automatic.isUsed(kernelRelease: nil, supported: true) == false)
        #expect(MediaSegmentationOffload.automatic.isUsed(kernelRelease: "unknown", supported: true) == false)
    }

    @Test func onIsRefusedWhereItCannotBeSentAndOffNeverSends() {
        #expect(MediaSegmentationOffload.on.isUsed(kernelRelease: "5.4.0", supported: true) == true)
        #expect(MediaSegmentationOffload.on.isUsed(kernelRelease: "6.18.0", supported: false) == nil)
        #expect(MediaSegmentationOffload.off.isUsed(kernelRelease: "6.18.0", supported: true) == false)
    }

    @Test(arguments: [
        ("6.18.44-fc-v669", 6, 18), ("6.1-rc3", 6, 1), ("5.15.0-91-generic", 5, 15), ("10.2", 10, 2),
    ])
    func releasesReadAsMajorAndMinor(release: String, major: Int, minor: Int) {
        let version = MediaSegmentationOffload.version(ofRelease: release)
        #expect(version?.major == major && version?.minor == minor)
    }

    @Test(arguments: ["", "6", "six.eleven", "6.x", ".11"])
    func otherReleasesReadAsUnknown(release: String) {
        #expect(MediaSegmentationOffload.version(ofRelease: release) == nil)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Whether forwarded media leaves in runs cut by the kernel (UDP generic segmentation offload,
/// `SegmentationPlan`): `--media-gso auto|on|off`.
///
/// Before Linux 6.11 the kernel refuses such a send (`EIO`) when the outgoing device lacks
/// checksum offload (TUN devices, some virtual NICs), and SwiftNIO closes a datagram channel on
/// a write error it cannot attribute to one datagram: the media port would stop for everyone.
/// So `auto` uses it only from 6.11 on, where the kernel computes the checksums itself; what
/// still refuses it there is a route through kernel IPsec (xfrm), for which `off` is the setting.
public enum MediaSegmentationOffload: String, Sendable, CaseIterable {
    case automatic = "auto"
    case on
    case off

    /// The first kernel that segments for any device (Linux 6.11).
    static let safeKernel = (major: 6, minor: 11)

    /// Whether the media port uses it on a kernel of `release` (as `uname -r` prints it) where
    /// SwiftNIO can send it (`supported`); nil for `on` where it cannot.
    func isUsed(kernelRelease release: String?, supported: Bool) -> Bool? {
        switch self {
        case .off: return false
        case .on: return supported ? true : nil
        case .automatic:
            guard supported, let version = release.flatMap(Self.version(ofRelease:)) else { return false }
            return version >= Self.safeKernel
        }
    }

    /// "6.18.44-fc-v669" → (6, 18); nil when it does not start with two numbers.
    static func version(ofRelease release: String) -> (major: Int, minor: Int)? {
        let numbers = release.split(separator: ".", maxSplits: 2)
        guard numbers.count >= 2, let major = Int(numbers[0]) else { return nil }
        guard let minor = Int(numbers[1].prefix { $0.isNumber }) else { return nil }
        return (major, minor)
    }

    /// The running kernel's release (`uname -r`); nil where there is none to read.
    static var runningKernelRelease: String? {
        #if canImport(Glibc)
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        return withUnsafeBytes(of: &names.release) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        #else
        return nil
        #endif
    }
}

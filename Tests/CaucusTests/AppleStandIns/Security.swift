// A stand-in for Apple's Security framework, for AppleOnlyCodeTests: only what
// TrustedTLSOptions.swift calls, declared as Apple's SDK declares it (imported C functions,
// whose results may be left unused; Core Foundation types, bridged from Foundation's). Not
// part of any target.
import Dispatch
import Foundation

public typealias CFData = NSData
public typealias CFArray = NSArray
public typealias CFError = NSError
public typealias CFAllocator = NSObject
public typealias OSStatus = Int32

public final class SecCertificate {}
public final class SecTrust {}

public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { nil }
@discardableResult public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray) -> OSStatus { 0 }
@discardableResult public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus { 0 }
public typealias SecTrustWithErrorCallback = (SecTrust, Bool, CFError?) -> Void
@discardableResult public func SecTrustEvaluateAsyncWithError(
    _ trust: SecTrust, _ queue: DispatchQueue, _ result: @escaping SecTrustWithErrorCallback
) -> OSStatus { 0 }

public final class sec_protocol_options_t {}
public final class sec_protocol_metadata_t {}
public final class sec_trust_t {}
public enum tls_protocol_version_t { case TLSv12, TLSv13 }
public typealias sec_protocol_verify_complete_t = (Bool) -> Void
public typealias sec_protocol_verify_t = (sec_protocol_metadata_t, sec_trust_t, @escaping sec_protocol_verify_complete_t) -> Void

public func sec_protocol_options_set_min_tls_protocol_version(_ options: sec_protocol_options_t, _ version: tls_protocol_version_t) {}
public func sec_protocol_options_set_verify_block(
    _ options: sec_protocol_options_t, _ verifyBlock: @escaping sec_protocol_verify_t, _ verifyBlockQueue: DispatchQueue
) {}
public func sec_trust_copy_ref(_ trust: sec_trust_t) -> Unmanaged<SecTrust> { Unmanaged.passRetained(SecTrust()) }

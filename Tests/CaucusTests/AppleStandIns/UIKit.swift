// A stand-in for UIKit, for AppleOnlyCodeTests: only what PlatformNetworkSources.swift uses.
// The notification's name is taken as isolated to the main actor with its class, the
// strictest reading of UIKit's interface. Not part of any target.
import Foundation

@MainActor
open class UIApplication {
    public class var willEnterForegroundNotification: NSNotification.Name {
        NSNotification.Name("UIApplicationWillEnterForegroundNotification")
    }
}

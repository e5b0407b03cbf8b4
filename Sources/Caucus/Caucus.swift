// The SDK's public face. Its session objects arrive with the SDK issue; until then it offers
// the wire types apps share with the server.
@_exported import CaucusProtocol

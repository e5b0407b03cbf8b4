"""An aiortc peer in a process of its own (`python3 aiortc_process.py CONFIG`, in a lab
namespace through `ip netns exec NS …`, or beside others on one machine, where one Python process
cannot carry many peers' packets): a media_peers.Peer that joins, publishes its tone and colour,
and answers the test's questions as JSON lines (one request on stdin, one answer on stdout).

CONFIG (JSON): base (http(s)://address:port), session, name, token, tone, colour, size, palette
(name -> [tone, colour]), and optionally iceServers (RTCIceServer fields; or, with
iceServersFromJoin, those of the join reply: the TURN servers the server hands out), audioSlots /
videoSlots, recogniseTones (false: received audio is decoded and dropped).
Requests: {"op": "report", "since": wall time} -> per kind, label -> wall times it was recognised
(one per audio window or video frame); per slot, its kind, the user the slot map puts there and
the labels recognised; {"op": "history"} -> every video frame recognised per slot (wall time,
label) and every slot map received (wall time, its video slots' mid and user);
{"op": "request", "name": op, "arguments": {…}} -> the reply's result to a request on the peer's
WebSocket (or {"error": …}); {"op": "path"} -> the selected ICE pair's local candidate type and
transport; {"op": "stats"} -> per receiving mid, aiortc's inbound RTP counts (packets received,
packets lost and never repaired, jitter), which a failed test prints; {"op": "close"}."""

import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "MediaInterop"))
from aiortc import RTCIceServer  # noqa: E402
from media_peers import Peer  # noqa: E402  (the path is set just above)

# Reception times are monotonic; answers are in wall-clock time, which the test shares.
WALL_OFFSET = time.time() - time.monotonic()


class FixedToken:
    """The Peer's `server`: where to connect and the token the test minted."""

    def __init__(self, base, token):
        self.base = base
        self._token = token

    def token(self, *_):
        return self._token


def report(peer, since):
    moment = since - WALL_OFFSET
    kinds = {"audio": {}, "video": {}}
    slots = {}
    users = {slot["mid"]: slot.get("user") for slot in peer.slot_map}
    for mid, reception in peer.receptions.items():
        labels = set()
        for at, label, _ in reception.seen:
            if at >= moment and label is not None:
                kinds[reception.kind].setdefault(label, []).append(round(at + WALL_OFFSET, 3))
                labels.add(label)
        slots[mid] = {"kind": reception.kind, "user": users.get(mid), "labels": sorted(labels)}
    return {"kinds": kinds, "slots": slots, "user": peer.user}


def history(peer):
    frames = {mid: [[round(at + WALL_OFFSET, 3), label] for at, label, _ in reception.seen]
              for mid, reception in peer.receptions.items() if reception.kind == "video"}
    maps = [[round(at + WALL_OFFSET, 3), [[slot["mid"], slot.get("user")] for slot in slots if slot["kind"] == "video"]]
            for at, slots, _ in peer.slot_maps]
    return {"frames": frames, "maps": maps, "user": peer.user}


async def relay_request(peer, name, arguments):
    try:
        return {"result": await peer.request(name, **arguments)}
    except AssertionError as refused:
        return {"error": str(refused)}


def selected_path(peer):
    """The nominated pair of the one (bundled) ICE transport."""
    transport = peer.pc.getTransceivers()[0].sender.transport.transport
    connection = transport._connection  # aioice's Connection: aiortc keeps the pair there
    pair = next(iter(connection._nominated.values()), None)
    if pair is None:
        return {"state": transport.state}
    local, remote = pair.local_candidate, pair.remote_candidate
    return {"state": transport.state, "localType": local.type, "localTransport": local.transport,
            "remote": f"{remote.host}:{remote.port}", "remoteTransport": remote.transport}


async def receive_stats(peer):
    """mid -> aiortc's inbound-rtp counts of the stream that mid receives."""
    stats = {}
    for transceiver in peer.pc.getTransceivers():
        if transceiver.mid is None or transceiver.direction == "sendonly":
            continue
        for item in (await transceiver.receiver.getStats()).values():
            if item.type == "inbound-rtp":
                stats[transceiver.mid] = {"packetsReceived": item.packetsReceived, "packetsLost": item.packetsLost,
                                          "jitter": item.jitter}
    return stats


async def main(config):
    palette = {name: (tone, tuple(colour)) for name, (tone, colour) in config["palette"].items()}
    ice_servers = [RTCIceServer(urls=server["urls"], username=server.get("username"), credential=server.get("credential"))
                   for server in config.get("iceServers", [])]
    peer = Peer(FixedToken(config["base"], config["token"]), config["session"], config["name"], "participant",
                config["tone"], tuple(config["colour"]), palette, size=tuple(config["size"]), ice_servers=ice_servers)
    joined = await peer.join()
    if config.get("iceServersFromJoin"):
        peer.ice_servers = [RTCIceServer(urls=server["urls"], username=server["username"], credential=server["credential"])
                            for server in joined.get("iceServers", [])]
    await peer.start_media(config.get("audioSlots", 3), config.get("videoSlots", 3), recognise_tones=config.get("recogniseTones", True))
    print(json.dumps({"ready": True, "user": peer.user, "iceServers": joined.get("iceServers")}), flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        request = json.loads(line)
        if request["op"] == "report":
            answer = report(peer, request["since"])
        elif request["op"] == "history":
            answer = history(peer)
        elif request["op"] == "request":
            answer = await relay_request(peer, request["name"], request.get("arguments", {}))
        elif request["op"] == "path":
            answer = selected_path(peer)
        elif request["op"] == "stats":
            answer = await receive_stats(peer)
        elif request["op"] == "close":
            break
        else:
            answer = {"error": f"unknown op {request['op']}"}
        print(json.dumps(answer), flush=True)
    await peer.close()


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))

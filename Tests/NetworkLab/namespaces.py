"""Linux network namespaces for the network lab (netlab.py): making and deleting them with every
process inside, entering one from a thread of this process, sweeping the ones a killed run left,
and whether they can be made here at all."""

import ctypes
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import unittest

PREFIX = "caucuslab"
CLONE_NEWNET = 0x40000000
NETNS_DIR = "/run/netns"
# `ip netns exec NS` bind-mounts the files of /etc/netns/NS over /etc: a namespace's own hosts file.
NETNS_ETC = "/etc/netns"
COMMAND_SECONDS = 10

_libc = ctypes.CDLL(None, use_errno=True)


def run(*argv, check=True, input=None):
    """Runs a command of the lab's plumbing (ip, nft, tc, conntrack); raises with its output."""
    result = subprocess.run(argv, capture_output=True, text=True, input=input, timeout=COMMAND_SECONDS)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip() or result.stdout.strip()}")
    return result


def why_impossible():
    """Why no lab can be made here, or None."""
    if os.geteuid() != 0:
        return "the network lab needs root (network namespaces, nftables)"
    for tool in ("ip", "nft", "conntrack"):
        if shutil.which(tool) is None:
            return f"the network lab needs `{tool}` (apt-get install iproute2 nftables conntrack)"
    name = f"{PREFIX}-{os.getpid()}-probe"
    probe = run("ip", "netns", "add", name, check=False)
    if probe.returncode != 0:
        return f"network namespaces are unavailable: {probe.stderr.strip()}"
    run("ip", "netns", "delete", name, check=False)
    return None


def skip_unless_possible(test_class):
    """Class decorator: skips every test of the class, with the reason, where no lab can be made;
    with CAUCUS_NETWORK_LAB=required (scripts/test as root) they fail instead, with the reason."""
    reason = why_impossible()
    if not reason:
        return test_class
    if os.environ.get("CAUCUS_NETWORK_LAB") == "required":
        def refuse(cls):
            raise AssertionError(f"CAUCUS_NETWORK_LAB=required, but {reason}")

        test_class.setUpClass = classmethod(refuse)
        return test_class
    return unittest.skip(reason)(test_class)


def lab_namespaces():
    return [line.split()[0] for line in run("ip", "netns", "list").stdout.splitlines() if line.startswith(PREFIX + "-")]


def namespace_pids(namespace):
    result = run("ip", "netns", "pids", namespace, check=False)
    return [int(pid) for pid in result.stdout.split()]


def delete_namespace(namespace):
    """Ends every process still in the namespace, then deletes it (with its interfaces and rules)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = namespace_pids(namespace)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 3
        while pids and namespace_pids(namespace) and time.monotonic() < deadline:
            time.sleep(0.05)
    run("ip", "netns", "delete", namespace, check=False)
    shutil.rmtree(os.path.join(NETNS_ETC, namespace), ignore_errors=True)
    try:
        os.rmdir(NETNS_ETC)  # only when no other namespace keeps files there
    except OSError:
        pass


def sweep():
    """Removes the namespaces of labs whose process is gone (a run that was killed)."""
    for namespace in lab_namespaces():
        match = re.match(rf"{PREFIX}-(\d+)-", namespace)
        if match and not os.path.exists(f"/proc/{match.group(1)}"):
            delete_namespace(namespace)


def in_namespace(namespace, action):
    """Calls `action()` on a thread that entered the namespace, and returns its result: a socket
    made there stays in that namespace wherever it is used afterwards."""
    outcome = {}

    def enter_and_act():
        try:
            with open(os.path.join(NETNS_DIR, namespace)) as handle:
                if _libc.setns(handle.fileno(), CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns into {namespace}")
            outcome["value"] = action()
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=enter_and_act)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]

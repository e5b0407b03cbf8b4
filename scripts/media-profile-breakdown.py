#!/usr/bin/env python3
"""Splits a `perf` profile of the media server into where a forwarded packet's CPU goes.

Usage (see docs/benchmarks.md, "Media: where the time goes per forwarded packet"):
    perf record -e cpu-clock -F 999 --call-graph dwarf,16384 -p <caucus serve pid> -o media.data -- sleep 6
    perf script -i media.data -F comm,tid,time,ip,sym,dso | swift demangle --simplified > media.txt
    scripts/media-profile-breakdown.py media.txt

Each sample goes to one category: a kernel stack to the system call it is under; a leaf in the
allocator or ARC to "allocation / ARC" (and, in the detail, to whoever allocated); anything
else to the first frame, from the leaf up, that names SRTP, STUN/ICE/DTLS, the forwarding
engine, the server's media shell, metrics or NIO. Then inclusive shares of the main steps.
"""
import sys,re,collections
# reads demangled `perf script` text; prints self-time categories and inclusive shares
samples=[];cur=None
for line in open(sys.argv[1],errors='replace'):
    if not line.strip():
        if cur is not None: samples.append(cur); cur=None
        continue
    if not line.startswith(('\t',' ')):
        cur=[]; continue
    if cur is None: continue
    m=re.match(r'\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$',line)
    if m: cur.append((m.group(1),m.group(2)))
if cur: samples.append(cur)
N=len(samples)
ALLOC=re.compile(r'^(swift_retain|swift_release|swift_allocObject|swift_deallocClassInstance|swift_deallocObject|swift_bridgeObject|swift_isUniquelyReferenced|swift_slowAlloc|swift_slowDealloc|malloc|free|_int_malloc|_int_free|cfree|__libc_malloc|__libc_free|malloc_consolidate|tcache|swift_retain_n|swift_release_n|_swift_release_dealloc|swift_unknownObject|swift_beginAccess|swift_endAccess|swift_arrayInitWithCopy|swift_arrayDestroy|.*_swift_allocObject|swift_dynamicCast|swift_getGenericMetadata|swift_once)')
rules=[
 ('SRTP (AES/HMAC/GCM and SRTP bookkeeping)',re.compile(r'SRTP|AES_|aes_|aesni|gcm_|GCM|HMAC|SHA1|sha1_|EVP_|CRYPTO_|ERR_clear')),
 ('STUN / ICE / DTLS / demux',re.compile(r'STUN|ICEAgent|ICE\w*\.|DatagramKind|DTLS|owner\(of:|ConsentFreshness|hasConsent')),
 ('engine (routing lookups, rewrite, translation, up-track, speaker level)',re.compile(r'ForwardingEngine|SlotRewriter|HeaderTranslation|RoutingTable|UpTrack|SpeakerRanking|RTPHeaderFields|KeyframeRequests|DownlinkEstimator|TransportFeedback|FormatCatalog')),
 ('server shell (peer table, router, handler: copies, outbox, addresses)',re.compile(r'MediaPeerTable|MediaRouter|MediaChannelHandler|TransportAddress|MediaPeer\.|MediaClock')),
 ('metrics',re.compile(r'Prometheus|CoreMetrics|Metrics\.|Counter')),
 ('NIO (event loop, pipeline, buffers, pending writes)',re.compile(r'NIO|ByteBuffer|SocketAddress|AddressedEnvelope|Selector|EventLoop|Channel')),
]
def syscall_of(frames):
    for s,d in frames:
        m=re.search(r'__x64_sys_(\w+)|^__(?:GI___)?libc_(\w+)|^(sendmmsg|recvmmsg|epoll_wait|__sendmmsg|__recvmmsg)\b',s)
        if m: return next(g for g in m.groups() if g).lstrip('_')
    for s,d in frames:
        for k in ('sendmmsg','recvmmsg','epoll_wait','epoll_ctl','eventfd','write','read','timerfd','futex','clock_gettime','sendmsg','recvmsg'):
            if re.search(r'(__x64_sys_|__sys_|^)'+k+r'\b',s) or s.startswith('__libc_'+k) or s.startswith(k): return k
    return None
cat=collections.Counter(); detail=collections.Counter()
for fr in samples:
    if not fr: cat['unknown']+=1; continue
    leaf,dso=fr[0]
    if 'kernel' in dso or dso.startswith('[') or leaf.startswith(('entry_SYSCALL','syscall')) :
        sc=syscall_of(fr)
        if sc is None and all(('kernel' in d) for s,d in fr): sc='interrupt/other kernel'
        if sc in ('malloc','free','mprotect','calloc','realloc','cfree'): cat['allocation / ARC']+=1; continue
        cat['kernel: '+str(sc)]+=1; continue
    if re.match(r'(__libc_|__GI___|__sendmmsg|__recvmmsg|sendmmsg|recvmmsg|epoll_wait)',leaf):
        cat['kernel: '+str(syscall_of(fr))]+=1; continue
    if ALLOC.match(leaf):
        # who allocates / retains
        owner='other'
        for s,d in fr[1:]:
            hit=None
            for name,rx in rules:
                if rx.search(s): hit=name;break
            if hit: owner=hit;break
        cat['allocation / ARC']+=1; detail['alloc/ARC under: '+owner]+=1; continue
    name='other'
    for s,d in fr:
        hit=None
        for nm,rx in rules:
            if rx.search(s): hit=nm;break
        if hit: name=hit;break
    cat[name]+=1
    if name=='other': detail['other leaf: '+leaf[:90]]+=1
print(f'samples {N}')
for k,v in cat.most_common(): print(f'{100*v/N:5.1f}%  {k}')
print('--- detail')
for k,v in detail.most_common(25): print(f'{100*v/N:5.1f}%  {k}')
incl={'MediaChannelHandler.channelRead':r'MediaChannelHandler\.channelRead','MediaPeerTable.receive':r'MediaPeerTable\.receive','MediaPeer.receive':r'MediaPeer\.receive\(','SRTP unprotect':r'SRTPContext\.unprotect','SRTP protect':r'SRTPContext\.protect','MediaPeerTable.protect(rtp:)':r'MediaPeerTable\.protect\(rtp','ForwardingEngine.receive(rtp:)':r'ForwardingEngine\.receive\(rtp','ForwardingEngine.forward':r'ForwardingEngine\.forward','MediaRouter.perform':r'MediaRouter\.perform','writeOutbox':r'writeOutbox','receiveHanded (other loop)':r'receiveHanded','handOver':r'handOver','sendmmsg':r'sendmmsg','recvmmsg':r'recvmmsg','epoll_wait':r'epoll_wait','flush':r'flush','tick/deadlines':r'handleDeadlines|tick\(now','metrics increment':r'Prometheus|CoreMetrics'}
print('--- inclusive')
for k,rx in incl.items():
    r=re.compile(rx); c=sum(1 for fr in samples if any(r.search(s) for s,d in fr))
    print(f'{100*c/N:5.1f}%  {k}')

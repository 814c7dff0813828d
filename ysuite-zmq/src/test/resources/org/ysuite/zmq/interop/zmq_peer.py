"""A libzmq peer (through pyzmq) for ysuite-zmq's interop tests, driven over stdin/stdout lines.

    python3 zmq_peer.py TYPE bind|connect ENDPOINT [OPTION=VALUE ...]
    python3 zmq_peer.py keypair        prints a CURVE key pair from zmq_curve_keypair: "PUBLIC SECRET" (Z85)

TYPE is a libzmq socket type (PAIR, PUSH, PULL, PUB, SUB, XPUB, XSUB, REQ, REP, DEALER, ROUTER).
OPTION is a libzmq socket option without its ZMQ_ prefix (ROUTING_ID, PLAIN_USERNAME, PLAIN_PASSWORD,
ZAP_DOMAIN and the CURVE_*KEY options, in Z85, take text; the others integers), set before bind/connect. A bound ENDPOINT may use port *
(libzmq's wildcard). ZAP_USERS=user:password,... is no libzmq option: it starts a ZAP handler (RFC 27) in
the peer's context at inproc://zeromq.zap.01 that allows PLAIN clients with those credentials (status
200, user id = the username) and refuses the rest (400); ZAP_KEYS=Z85,... does the same for CURVE clients
whose public keys are listed (user id = the key in Z85).

The peer prints "READY <endpoint>" (the bound endpoint, the wildcard resolved), then answers each
command line with one line:
    send HEX...         sends one message, a frame per argument ("-" is an empty frame)  -> OK
    sendseq FROM TO     sends the decimal numbers FROM..TO-1, one single-frame message each -> OK
    recv MILLIS         receives one message                          -> MSG HEX... | TIMEOUT
    sub HEX | unsub HEX sets ZMQ_SUBSCRIBE / ZMQ_UNSUBSCRIBE ("-" is the empty prefix)    -> OK
    events              the socket monitor's events so far (libzmq's names, ZMQ_EVENT_ dropped)
                        -> EVENTS NAME...
    close MILLIS        closes the socket with that linger and terminates the context     -> CLOSED
Errors answer "ERROR <text>". End of input closes the socket (linger 0) and exits.
"""
import sys
import threading

import zmq
import zmq.utils.z85
from zmq.utils.monitor import recv_monitor_message


def enc(frame):
    return frame.hex() if frame else "-"


def dec(text):
    return b"" if text == "-" else bytes.fromhex(text)


EVENT_NAMES = {getattr(zmq, n): n[len("EVENT_"):] for n in dir(zmq)
               if n.startswith("EVENT_") and n not in ("EVENT_ALL",) and isinstance(getattr(zmq, n), int)}


def start_zap_handler(ctx, users, asked, keys=()):
    """A ZAP handler (RFC 27) allowing PLAIN clients whose username and password are in users, and CURVE
    clients whose public key (Z85) is in keys."""
    zap = ctx.socket(zmq.REP)
    zap.bind("inproc://zeromq.zap.01")

    def serve():
        while True:
            try:
                req = zap.recv_multipart()
            except zmq.ZMQError:
                zap.close(0)
                return
            version, rid, domain, address, identity, mechanism = req[:6]
            creds = req[6:]
            if mechanism == b"CURVE" and len(creds) == 1:
                user = zmq.utils.z85.encode(creds[0]).decode()
                ok = user in keys
            else:
                user = creds[0].decode() if mechanism == b"PLAIN" and len(creds) == 2 else ""
                ok = mechanism == b"PLAIN" and len(creds) == 2 and users.get(user, None) == creds[1].decode()
            asked.append("%s/%s/%s" % (domain.decode() or "-", mechanism.decode(), user or "-"))
            if ok:
                zap.send_multipart([b"1.0", rid, b"200", b"OK", user.encode(), b""])
            else:
                zap.send_multipart([b"1.0", rid, b"400", b"bad credentials", b"", b""])

    threading.Thread(target=serve, daemon=True).start()


def main():
    if sys.argv[1] == "keypair":
        public, secret = zmq.curve_keypair()
        print(public.decode(), secret.decode(), flush=True)
        return
    kind, how, endpoint = sys.argv[1], sys.argv[2], sys.argv[3]
    ctx = zmq.Context(1)
    sock = ctx.socket(getattr(zmq, kind))
    zap_asked = []
    for opt in sys.argv[4:]:
        name, value = opt.split("=", 1)
        if name == "ZAP_USERS":
            start_zap_handler(ctx, dict(u.split(":", 1) for u in value.split(",")), zap_asked)
        elif name == "ZAP_KEYS":
            start_zap_handler(ctx, {}, zap_asked, value.split(","))
        elif name in ("ROUTING_ID", "PLAIN_USERNAME", "PLAIN_PASSWORD", "ZAP_DOMAIN", "CURVE_PUBLICKEY",
                      "CURVE_SECRETKEY", "CURVE_SERVERKEY"):
            sock.setsockopt(getattr(zmq, name), value.encode())
        else:
            sock.setsockopt(getattr(zmq, name), int(value))
    events = []
    monitor = sock.get_monitor_socket()

    def watch():
        while True:
            try:
                ev = recv_monitor_message(monitor)
            except zmq.ZMQError:
                return
            if ev["event"] == zmq.EVENT_MONITOR_STOPPED:
                return
            events.append(EVENT_NAMES.get(ev["event"], str(ev["event"])))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    if how == "bind":
        sock.bind(endpoint)
        endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)
    else:
        sock.connect(endpoint)
    print("READY " + endpoint, flush=True)
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    for line in sys.stdin:
        args = line.split()
        if not args:
            continue
        cmd = args[0]
        try:
            if cmd == "send":
                sock.send_multipart([dec(a) for a in args[1:]])
                out = "OK"
            elif cmd == "sendseq":
                for i in range(int(args[1]), int(args[2])):
                    sock.send(str(i).encode())
                out = "OK"
            elif cmd == "recv":
                if poller.poll(int(args[1])):
                    out = "MSG " + " ".join(enc(f) for f in sock.recv_multipart())
                else:
                    out = "TIMEOUT"
            elif cmd == "sub":
                sock.setsockopt(zmq.SUBSCRIBE, dec(args[1]))
                out = "OK"
            elif cmd == "unsub":
                sock.setsockopt(zmq.UNSUBSCRIBE, dec(args[1]))
                out = "OK"
            elif cmd == "zapasked":
                out = " ".join(["ZAP"] + list(zap_asked))
            elif cmd == "events":
                out = " ".join(["EVENTS"] + list(events))
            elif cmd == "close":
                sock.disable_monitor()
                sock.close(int(args[1]))
                monitor.close(0)
                ctx.term()
                print("CLOSED", flush=True)
                return
            else:
                out = "ERROR unknown command " + cmd
        except zmq.ZMQError as e:
            out = "ERROR " + str(e)
        print(out, flush=True)
    sock.disable_monitor()
    sock.close(0)
    monitor.close(0)
    ctx.term()


if __name__ == "__main__":
    main()

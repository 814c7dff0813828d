"""A libzmq peer (through pyzmq) for ysuite-zmq's interop tests, driven over stdin/stdout lines.

    python3 zmq_peer.py TYPE bind|connect ENDPOINT [OPTION=VALUE ...]

TYPE is a libzmq socket type (PAIR, PUSH, PULL, PUB, SUB, XPUB, XSUB, REQ, REP, DEALER, ROUTER).
OPTION is a libzmq socket option without its ZMQ_ prefix (ROUTING_ID takes text; the others integers),
set before bind/connect. A bound ENDPOINT may use port * (libzmq's wildcard).

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
from zmq.utils.monitor import recv_monitor_message


def enc(frame):
    return frame.hex() if frame else "-"


def dec(text):
    return b"" if text == "-" else bytes.fromhex(text)


EVENT_NAMES = {getattr(zmq, n): n[len("EVENT_"):] for n in dir(zmq)
               if n.startswith("EVENT_") and n not in ("EVENT_ALL",) and isinstance(getattr(zmq, n), int)}


def main():
    kind, how, endpoint = sys.argv[1], sys.argv[2], sys.argv[3]
    ctx = zmq.Context(1)
    sock = ctx.socket(getattr(zmq, kind))
    for opt in sys.argv[4:]:
        name, value = opt.split("=", 1)
        if name == "ROUTING_ID":
            sock.setsockopt(zmq.ROUTING_ID, value.encode())
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

package org.ysuite.zmq.internal;

import org.ysuite.zmq.ZmqError;
import org.ysuite.zmq.ZmqException;

/**
 * A parsed endpoint: {@code tcp://host:port}, {@code ipc://path}, {@code inproc://name}.
 *
 * @param transport "tcp", "ipc" or "inproc"
 * @param address what follows {@code ://}
 * @param host tcp: the host ("*" for every interface), else null
 * @param port tcp: the port (0 for any), else -1
 */
public record Endpoint(String transport, String address, String host, int port) {

    /**
     * Parses {@code endpoint}.
     *
     * @throws ZmqException EINVAL naming the endpoint and the rule it breaks, EPROTONOSUPPORT for another transport
     */
    public static Endpoint parse(String endpoint) {
        if (endpoint == null) {
            throw new ZmqException(ZmqError.EINVAL, "endpoint: null");
        }
        int sep = endpoint.indexOf("://");
        if (sep <= 0) {
            throw new ZmqException(ZmqError.EINVAL, "endpoint " + endpoint + ": expected transport://address");
        }
        String transport = endpoint.substring(0, sep);
        String address = endpoint.substring(sep + 3);
        if (address.isEmpty()) {
            throw new ZmqException(ZmqError.EINVAL, "endpoint " + endpoint + ": empty address");
        }
        switch (transport) {
            case "tcp": {
                int colon = address.lastIndexOf(':');
                if (colon <= 0 || colon == address.length() - 1) {
                    throw new ZmqException(ZmqError.EINVAL, "endpoint " + endpoint + ": expected tcp://host:port");
                }
                String host = address.substring(0, colon);
                if (host.startsWith("[") && host.endsWith("]")) {
                    host = host.substring(1, host.length() - 1);
                }
                String p = address.substring(colon + 1);
                int port;
                if (p.equals("*")) {
                    port = 0;
                } else {
                    try {
                        port = Integer.parseInt(p);
                    } catch (NumberFormatException e) {
                        throw new ZmqException(ZmqError.EINVAL, "endpoint " + endpoint + ": port " + p + " is not a number");
                    }
                }
                if (port < 0 || port > 65535) {
                    throw new ZmqException(ZmqError.EINVAL, "endpoint " + endpoint + ": port " + port + " outside 0..65535");
                }
                return new Endpoint(transport, address, host, port);
            }
            case "ipc":
            case "inproc":
                return new Endpoint(transport, address, null, -1);
            default:
                throw new ZmqException(ZmqError.EPROTONOSUPPORT, "endpoint " + endpoint
                        + ": transport " + transport + " (supported: tcp, ipc, inproc)");
        }
    }

    /** The endpoint as text. */
    @Override
    public String toString() {
        return transport + "://" + address;
    }
}

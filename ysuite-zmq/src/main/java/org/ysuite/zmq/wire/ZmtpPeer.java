package org.ysuite.zmq.wire;

import java.util.Map;
import org.ysuite.zmq.SocketType;

/**
 * What a peer announced once the handshake completed.
 *
 * @param socketType the peer's {@code Socket-Type}, already checked compatible with ours
 * @param identity the peer's {@code Identity} property (empty if none)
 * @param minorVersion the ZMTP 3.x minor version the connection speaks (0 or 1): the lower of ours and the peer's
 * @param mechanism the security mechanism's name, e.g. {@code "NULL"}
 * @param properties every metadata property of the peer's READY, names as sent, values as bytes (unmodifiable)
 */
public record ZmtpPeer(SocketType socketType, byte[] identity, int minorVersion, String mechanism,
                       Map<String, byte[]> properties) {
}

/**
 * The sockets' plumbing (not exported): the per-peer lanes (ysuite pipes with a high-water mark), the
 * peers, the ways a socket spreads and gathers messages over its peers (load balancer, fair queue,
 * distributor), the TCP/IPC transport over Netty and the ZMTP engine, and the inproc registry.
 */
package org.ysuite.zmq.internal;

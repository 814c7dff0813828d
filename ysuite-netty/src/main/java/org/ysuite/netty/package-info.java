/**
 * ysuite on Netty 4.2: {@link org.ysuite.netty.LoopMailbox}, application threads' ypipes drained
 * on an epoll or NIO {@link io.netty.channel.IoEventLoop}, which is woken through Netty's own
 * wake-up only when it went to sleep on a pipe, and {@link org.ysuite.netty.MessageStream},
 * length-prefixed messages over a TCP channel with ysuite pipes between the application threads
 * and the loop (or a {@link org.ysuite.netty.LoopHandler} that answers on the loop).
 *
 * <p>Netty is a {@code provided} dependency: the application brings its own Netty 4.2 (and, for
 * epoll, {@code netty-transport-classes-epoll} with its native library).
 */
package org.ysuite.netty;

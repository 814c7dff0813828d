/**
 * Runnable programs that wait for sockets and ysuite pipes together: over {@code poll(2)}
 * ({@link org.ysuite.examples.PollLoop}), {@code epoll} ({@link org.ysuite.examples.EpollLoop}) and
 * a JDK {@link java.nio.channels.Selector} ({@link org.ysuite.examples.NioSelectorLoop}); and a
 * Netty service whose application threads publish replies to the event loop through a ysuite
 * mailbox ({@link org.ysuite.examples.NettyEchoService}).
 */
package org.ysuite.examples;

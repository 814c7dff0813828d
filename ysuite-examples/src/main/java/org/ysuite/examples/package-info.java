/**
 * Runnable programs that wait for sockets and ysuite pipes together: over {@code poll(2)}
 * ({@link org.ysuite.examples.PollLoop}), {@code epoll} ({@link org.ysuite.examples.EpollLoop}) and
 * a JDK {@link java.nio.channels.Selector} ({@link org.ysuite.examples.NioSelectorLoop}).
 */
package org.ysuite.examples;

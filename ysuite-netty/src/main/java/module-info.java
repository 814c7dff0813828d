/**
 * ysuite-netty: a ysuite mailbox drained on a Netty 4.2 event loop ({@code LoopMailbox}) and
 * messages over TCP with ysuite pipes on both application sides ({@code MessageStream}).
 *
 * <p>Only {@code org.ysuite.netty} is exported. A modular application declares
 * {@code requires org.ysuite.netty;}; that makes it read {@code org.ysuite} and
 * {@code io.netty.transport} as well, whose types appear in this module's API. Netty itself is the
 * application's (the Maven dependency is {@code provided}): the modules below must be on its module
 * path.
 * <ul>
 *   <li>{@code io.netty.transport}, {@code io.netty.buffer}, {@code io.netty.common}: always.</li>
 *   <li>{@code io.netty.transport.classes.epoll} and {@code io.netty.transport.unix.common}:
 *       only for an epoll event loop, hence {@code requires static}; an application that creates an
 *       epoll loop requires them itself, and this module then reads them. The native library's jar
 *       ({@code io.netty.transport.epoll.linux.x86_64}, no package of its own) is required by nobody:
 *       the application adds it with {@code --add-modules}.</li>
 *   <li>{@code io.netty.handler} (and what it requires): only for TLS
 *       ({@code MessageStreamBuilder.tls}), hence {@code requires static}; an application that builds
 *       an {@code SslContext} requires it itself.</li>
 * </ul>
 *
 * <p>On JDK 24 and later, {@code --enable-native-access=io.netty.common,org.jnrproject.jffi}
 * silences the JDK's restricted-method warnings on the module path: Netty's native loader lives in
 * {@code io.netty.common}, jnr-ffi's in {@code org.jnrproject.jffi}.
 */
module org.ysuite.netty {
    requires transitive org.ysuite;
    requires transitive io.netty.transport;
    requires io.netty.buffer;
    requires io.netty.common;
    requires static io.netty.transport.classes.epoll;
    requires static io.netty.transport.unix.common;
    requires static io.netty.handler;

    exports org.ysuite.netty;
}

/**
 * A consumer of ysuite-netty on the module path, compiled and run by {@code NettyModulePathTest}:
 * it requires what the README tells a modular Netty application to require, ysuite-netty and the
 * Netty transports it creates its event loops with.
 */
module org.ysuite.moduletest.netty {
    requires org.ysuite.netty;
    requires io.netty.transport.classes.epoll;

    exports org.ysuite.moduletest.netty;
}

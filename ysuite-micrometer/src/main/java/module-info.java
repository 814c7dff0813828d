/**
 * ysuite-micrometer: Micrometer meters for ysuite-netty's {@code LoopMailbox}
 * ({@code org.ysuite.micrometer.LoopMailboxMetrics}).
 *
 * <p>Only {@code org.ysuite.micrometer} is exported. {@code requires org.ysuite.micrometer;} also
 * gives the application {@code org.ysuite.netty} and {@code micrometer.core} (Micrometer's
 * automatic module name), whose types appear in this module's API. Micrometer and Netty are the
 * application's (both Maven dependencies are {@code provided}).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // micrometer.core: no descriptor
module org.ysuite.micrometer {
    requires transitive org.ysuite.netty;
    requires transitive micrometer.core;

    exports org.ysuite.micrometer;
}

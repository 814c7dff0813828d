/**
 * A consumer of ysuite-micrometer on the module path, compiled and run by
 * {@code MicrometerModulePathTest}: it requires nothing but {@code org.ysuite.micrometer}, whose
 * {@code requires transitive} must give it ysuite-netty (and through it Netty's transport) and
 * Micrometer's {@code micrometer.core}, the modules whose types it uses.
 */
module org.ysuite.moduletest.micrometer {
    requires org.ysuite.micrometer;

    exports org.ysuite.moduletest.micrometer;
}

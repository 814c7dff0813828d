/**
 * ysuite-agrona: an Agrona {@code IdleStrategy} that sleeps on a ysuite {@code SharedSignaler}
 * ({@code org.ysuite.agrona.SharedSignalerIdleStrategy}).
 *
 * <p>Only {@code org.ysuite.agrona} is exported. {@code requires org.ysuite.agrona;} also gives the
 * application {@code org.ysuite} and {@code org.agrona} (Agrona's automatic module name), whose types
 * appear in this module's API. Agrona is the application's (the Maven dependency is {@code provided}).
 * Agrona itself needs {@code --add-opens java.base/jdk.internal.misc=ALL-UNNAMED} (its
 * {@code UnsafeApi}); no other ysuite module does.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // org.agrona: no descriptor
module org.ysuite.agrona {
    requires transitive org.ysuite;
    requires transitive org.agrona;

    exports org.ysuite.agrona;
}

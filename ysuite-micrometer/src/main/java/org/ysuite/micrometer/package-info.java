/**
 * Micrometer meters for ysuite-netty's {@link org.ysuite.netty.LoopMailbox}:
 * {@link org.ysuite.micrometer.LoopMailboxMetrics}, a {@code MeterBinder}.
 */
package org.ysuite.micrometer;

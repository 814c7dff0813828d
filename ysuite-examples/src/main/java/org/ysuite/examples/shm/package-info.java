/**
 * Two services in two processes joined by a {@link org.ysuite.shared.SharedYPipe} over a file in
 * {@code /dev/shm}: {@link org.ysuite.examples.shm.Producer} creates the pipe and sends numbered
 * messages, {@link org.ysuite.examples.shm.Consumer} opens it, checks and counts them, and ends
 * at the producer's clean close.
 */
package org.ysuite.examples.shm;

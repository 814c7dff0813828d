/**
 * Internals of ysuite: the jnr-ffi binding to the C library and the helpers the signalers share.
 *
 * <p>Nothing here is public API: names and signatures may change in any release. The classes are
 * public only so that the examples and benchmarks of this project can reach the same system calls.
 */
package org.ysuite.internal;

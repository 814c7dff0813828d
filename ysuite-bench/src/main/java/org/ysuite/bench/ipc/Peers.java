package org.ysuite.bench.ipc;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The peers of the {@code ipc} benchmarks, one JMH state each: a {@link Session} with an
 * {@link IpcChild} over that transport, shared by {@link IpcWorstCase}, {@link IpcThroughput} and
 * {@link IpcIdle} (the child echoes or counts by the message's first byte).
 */
public final class Peers {

    private Peers() {
    }

    /** ysuite: a {@link org.ysuite.shared.SharedYPipe} each way ({@link YsuiteLink}). */
    @State(Scope.Benchmark)
    public static class Ysuite extends Session {
        /** Every side's waiting policy as spins before parking: 0 is pure park, 200 the default. */
        @Param({"0", "200"})
        public int spin;

        /** The state. */
        public Ysuite() {
            super(null);
        }

        @Override
        protected String transport() {
            return "ysuite:" + spin;
        }
    }

    /**
     * ysuite with pollable readers waiting in {@code epoll_wait} on the wake-up FIFO
     * ({@link YsuiteLink}'s {@code ysuite-epoll}), both sides pure park: the futex wake-up of
     * {@link Ysuite} {@code spin=0} against the same wake-up through epoll.
     */
    @State(Scope.Benchmark)
    public static class YsuiteEpoll extends Session {
        /** The state. */
        public YsuiteEpoll() {
            super("ysuite-epoll:0");
        }
    }

    /** AF_UNIX socket ({@link UnixLink}). */
    @State(Scope.Benchmark)
    public static class Unix extends Session {
        /** The state. */
        public Unix() {
            super("unix");
        }
    }

    /** Aeron IPC, both sides polling with a spinning idle strategy ({@link AeronLink}). */
    @State(Scope.Benchmark)
    public static class Aeron extends Session {
        /** Aeron's idle strategy: {@code busyspin} or {@code backoff}. */
        @Param({"busyspin", "backoff"})
        public String idle;

        /** The state. */
        public Aeron() {
            super(null);
        }

        @Override
        protected String transport() {
            return "aeron:" + idle;
        }
    }

    /** Aeron IPC, both sides polling every millisecond ({@link AeronLink}). */
    @State(Scope.Benchmark)
    public static class AeronSleeping extends Session {
        /** The state. */
        public AeronSleeping() {
            super("aeron:sleep1ms");
        }
    }
}

package org.ysuite.bench.profile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Instructions per message of {@link OneThread}'s steps, for {@code valgrind --tool=callgrind},
 * which counts instructions repeatably on a noisy machine (and where {@code perf} is not
 * supported): {@code ysuite-bench/instructions.sh} drives it.
 *
 * <p>After a warm-up of {@value #WARM} messages, in calls of {@value #WARM_CALL} (so that the
 * counted loop runs code compiled as a method, not only replaced on the stack), the program prints
 * {@code READY} and waits for a line on standard input; it then runs the {@code n} counted
 * messages, prints {@code DONE} and waits for another line before it exits. The script runs it
 * under callgrind with instrumentation off, turns it on and zeroes the counts at {@code READY},
 * and dumps them at {@code DONE}: the count is the compiled loop's alone, with none of start-up,
 * class loading, the interpreter or the JIT's own threads ({@code -Xbatch}: the loop waits for
 * its compilation, so each run compiles the same code at the same point).
 *
 * <pre>{@code
 * ysuite-bench/instructions.sh ysuite-bench/target/ysuite-bench.jar offheap 200000
 * }</pre>
 */
public final class InstructionProfile {

    /** The warm-up: C2 compiles the loop long before it ends. */
    private static final long WARM = 200_000;
    /** The warm-up's messages per call of the loop. */
    private static final int WARM_CALL = 1_000;

    private InstructionProfile() {
    }

    /**
     * Runs the loop.
     *
     * @param args transport (one of {@link OneThread}'s) and the count of messages
     * @throws IOException if standard input closes before the script answers
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: InstructionProfile TRANSPORT N");
        }
        long n = Long.parseLong(args[1]);
        BufferedReader script = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        long seen;
        try (OneThread.Step step = OneThread.step(args[0])) {
            for (long done = 0; done < WARM; done += WARM_CALL) {
                loop(step, WARM_CALL);
            }
            gate(script, "READY");
            seen = loop(step, n);
            gate(script, "DONE");
        }
        System.out.println(args[0] + " " + n + " " + seen);
    }

    private static long loop(OneThread.Step step, long count) {
        long seen = 0;
        for (long i = 0; i < count; i++) {
            seen = step.once();
        }
        return seen;
    }

    /** Tells the script {@code line} and waits for its answer. */
    private static void gate(BufferedReader script, String line) throws IOException {
        System.out.println(line);
        System.out.flush();
        if (script.readLine() == null) {
            throw new IOException("standard input closed before " + line + " was answered");
        }
    }
}

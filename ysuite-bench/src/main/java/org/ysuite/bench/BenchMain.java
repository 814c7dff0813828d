package org.ysuite.bench;

import java.util.Arrays;
import org.ysuite.bench.report.ReportRunner;

/**
 * Entry point of the benchmark jar: {@code report ...} runs the curated seed set and writes the
 * report; anything else goes to the plain JMH command line ({@code org.openjdk.jmh.Main}).
 */
public final class BenchMain {

    private BenchMain() {
    }

    /**
     * Dispatches to the report runner or to JMH.
     *
     * @param args {@code report [--smoke|--quick|--full] [--out DIR]}, or JMH's arguments
     * @throws Exception whatever the runner throws
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && "report".equals(args[0])) {
            System.exit(ReportRunner.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        org.openjdk.jmh.Main.main(args);
    }
}

package org.ysuite.bench;

import java.util.Arrays;
import org.ysuite.bench.report.Help;
import org.ysuite.bench.report.ReportRunner;

/**
 * Entry point of the benchmark jar: {@code report ...} runs the curated seed set and writes the
 * report; {@code --help}, {@code -h} (and {@code report --help}) print the one help ({@link Help});
 * {@code -jmh-help} prints JMH's own; anything else goes to the plain JMH command line
 * ({@code org.openjdk.jmh.Main}).
 */
public final class BenchMain {

    private BenchMain() {
    }

    /**
     * Dispatches to the report runner or to JMH.
     *
     * @param args {@code report ...} ({@link Help#text()}), a help flag, or JMH's arguments
     * @throws Exception whatever the runner throws
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && Help.isHelp(args[0])) {
            System.out.print(Help.text());
            return;
        }
        if (args.length == 1 && "-jmh-help".equals(args[0])) {
            org.openjdk.jmh.Main.main(new String[] {"-h"});
            return;
        }
        if (args.length > 0 && "report".equals(args[0])) {
            System.exit(ReportRunner.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        org.openjdk.jmh.Main.main(args);
    }
}

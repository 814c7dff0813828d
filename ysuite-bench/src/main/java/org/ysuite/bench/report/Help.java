package org.ysuite.bench.report;

import java.util.Locale;

/**
 * The one help of the benchmark jar ({@code --help}, {@code -h}, {@code report --help}): every
 * command, every plan and option of {@code report} and its sections, and how to run raw JMH.
 */
public final class Help {

    private Help() {
    }

    /**
     * The help text.
     *
     * @return the text, ending with a newline
     */
    public static String text() {
        return "ysuite-bench: ysuite's JMH benchmarks, and the report that runs a curated set of them.\n"
                + "\n"
                + "Usage:\n"
                + "  java -jar ysuite-bench.jar report [PLAN] [OPTIONS]   in-process: seed 000 against local sockets and the peers\n"
                + "  java -jar ysuite-bench.jar report net [PLAN] [OPTIONS]   between processes over TCP (seeds 002, 003, 004, the 16 B round trip)\n"
                + "  java -jar ysuite-bench.jar report amqp [PLAN] [--out DIR]   AMQP publishing with confirms (seed 003's AMQP row)\n"
                + "  java -jar ysuite-bench.jar report zmq [PLAN] [--out DIR]    ZeroMQ sockets (ZMTP 3.1) against JeroMQ\n"
                + "  java -jar ysuite-bench.jar report zmq-peers [OPTIONS]    one ROUTER and one PUB with many peers, against libzmq\n"
                + "  java -jar ysuite-bench.jar [JMH OPTIONS] [REGEX...]  raw JMH (anything that is not `report` or a help flag)\n"
                + "  java -jar ysuite-bench.jar --help | -h | report --help   this help\n"
                + "\n"
                + "Plans of `report` (one at most; the figures are JMH's mean ± its 99.9 % error, every row marked\n"
                + "\"unstable\" when its error or its forks' spread exceeds " + Math.round(Result.UNSTABLE_FRACTION * 100)
                + " % of its mean):\n"
                + plan("--seed", "the default: seed 000's worst case and maximal throughput, YPipe + YSemaphore and "
                        + "YPollset against local sockets and every peer (about 5 minutes on 2 cores)",
                        ReportRunner.Mode.SEED)
                + plan("--all", "every scenario of the seed set (sender batching, message sizes, poll overhead, "
                        + "sparse traffic, fan-in, scaling, Netty hand-off, across processes); --quick is its former "
                        + "name", ReportRunner.Mode.QUICK)
                + plan("--full", "every parameter, longer iterations: the figures to publish", ReportRunner.Mode.FULL)
                + plan("--smoke", "every benchmark once, briefly: a build check, not a measurement",
                        ReportRunner.Mode.SMOKE)
                + "  Before it starts, the report prints how many benchmarks and forks the plan has and about how long\n"
                + "  it takes; it needs two idle cores to mean anything, and prints the load it had beside it.\n"
                + "\n"
                + "Options of `report`:\n"
                + "  --out DIR         write into DIR, overwriting its files of the same names (default: a new folder\n"
                + "                    results/<date>T<time> per run, earlier runs kept, results/latest pointing at the newest)\n"
                + "  --from DIR        render an earlier run's folder again (tables, CSV, charts), running nothing\n"
                + "  --include REGEX   run only the benchmarks matching REGEX, with the plan's run lengths\n"
                + "  --help, -h        this help\n"
                + "\n"
                + "`report net`: plans --quick (the default; --seed means it too), --full, --smoke; options --out DIR\n"
                + "  (default results-net/<date>T<time>), --streams N (seed 004's most streams, default 3),\n"
                + "  --veth / --no-veth (also across a veth pair into a network namespace: only in --full by default).\n"
                + "`report amqp`: plans --quick (the default), --full, --smoke; --out DIR (default results-amqp/<date>T<time>);\n"
                + "  the embedded broker, and RabbitMQ too when YSUITE_RABBITMQ_URI names one.\n"
                + "`report zmq`: ZeroMQ sockets over ZMTP 3.1 against JeroMQ; see its own output for the plans.\n"
                + "`report zmq-peers`: ysuite's and libzmq's ROUTER and PUB, each with N libzmq DEALERs/SUBs in one or more\n"
                + "  other processes (gcc and libzmq3-dev needed; descriptor limit raised to " + ZmqPeersRunner.FD_LIMIT + " or the hard limit):\n"
                + "  every peer served, the server's RSS per idle peer, one PUB message's fan-out time. Options:\n"
                + "  --peers N[,N...] (default 10000), --sockets router,pub (default both), --rounds R (fan-out\n"
                + "  rounds, default 10), --out DIR (default results-zmq-peers), --examples-jar JAR (default\n"
                + "  ysuite-examples/target/ysuite-examples.jar).\n"
                + "\n"
                + "Every report writes jmh-result.json (JMH's own), jmh.log, machine.md (machine, JMH settings, load),\n"
                + "results.csv, report.md (every table, the targets with y-suite's advantage: above 1.00x is better)\n"
                + "and PNG charts that carry the run's load line.\n"
                + "\n"
                + "Raw JMH (the benchmarks are ordinary JMH benchmarks in org.ysuite.bench):\n"
                + "  java -jar ysuite-bench.jar -l                          list them\n"
                + "  java -jar ysuite-bench.jar -lp                         list them with their parameters\n"
                + "  java -jar ysuite-bench.jar 'Throughput.ypipe$' -p signaler=semaphore -f 2 -wi 5 -w 400ms -i 8 -r 250ms\n"
                + "  java -jar ysuite-bench.jar -jmh-help                   JMH's own help (every JMH option)\n";
    }

    private static String plan(String flag, String what, ReportRunner.Mode mode) {
        String lengths = mode == ReportRunner.Mode.SMOKE
                ? String.format(Locale.ROOT, "%d fork, %d iteration of %d ms, no warm-up", mode.forks,
                        mode.iterations, mode.iterationMs)
                : String.format(Locale.ROOT, "%d fork%s%s, warm-up %d x %s s, measured %d x %s s",
                        mode.forks, mode.forks == 1 ? "" : "s",
                        mode.headlineForks == mode.forks ? "" : " (" + mode.headlineForks + " for the headline)",
                        mode.warmups, seconds(mode.warmupMs), mode.iterations, seconds(mode.iterationMs));
        return String.format(Locale.ROOT, "  %-8s %s.%n           %s.%n", flag, what, lengths);
    }

    private static String seconds(int ms) {
        return ms % 1000 == 0 ? Integer.toString(ms / 1000) : String.format(Locale.ROOT, "%.2f", ms / 1000.0)
                .replaceAll("0+$", "");
    }

    /**
     * Whether {@code arg} asks for help.
     *
     * @param arg a command-line argument
     * @return true for {@code --help}, {@code -h}, {@code -help} and {@code help}
     */
    public static boolean isHelp(String arg) {
        return "--help".equals(arg) || "-h".equals(arg) || "-help".equals(arg) || "help".equals(arg);
    }
}

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
                + "  java -jar ysuite-bench.jar report amqp [PLAN] [OPTIONS]   AMQP publishing with confirms (seed 003's AMQP row)\n"
                + "  java -jar ysuite-bench.jar report zmq [PLAN] [OPTIONS]    ZeroMQ sockets (ZMTP 3.1) against libzmq and JeroMQ\n"
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
                + "Plans of the other sections: net and amqp take --seed (= --quick, their default), --all/--quick,\n"
                + "  --full and --smoke; zmq takes --all/--quick (16 B only, a tenth of the counts) and --full (its\n"
                + "  default); zmq-peers has none. amqp also runs on RabbitMQ when YSUITE_RABBITMQ_URI names one.\n"
                + "  zmq-peers needs gcc and libzmq3-dev; it raises the descriptor limit to " + ZmqPeersRunner.FD_LIMIT
                + " (or the hard limit).\n"
                + "\n"
                + "Options (one parser for every section; [the sections that take each]):\n"
                + ReportArgs.help()
                + "  --help, -h           this help [every section]\n"
                + "  The default --out of report, net and amqp is a new folder per run (results/<date>T<time>,\n"
                + "  results-net/..., results-amqp/...), earlier runs kept, results/latest pointing at the newest.\n"
                + "\n"
                + "Every report writes jmh-result.json (JMH's own), jmh.log, machine.md (machine, JMH settings, load),\n"
                + "results.csv, report.md (every table, the targets with y-suite's advantage: above 1.00x is better)\n"
                + "and PNG charts that carry the run's load line.\n"
                + "\n"
                + "Raw JMH (the benchmarks are ordinary JMH benchmarks in org.ysuite.bench):\n"
                + "  java -jar ysuite-bench.jar -l                          list them\n"
                + "  java -jar ysuite-bench.jar -lp                         list them with their parameters\n"
                + "  java -jar ysuite-bench.jar 'Throughput.ypipe$' -p signaler=semaphore -f 2 -wi 5 -w 400ms -i 8 -r 250ms\n"
                + "  java -jar ysuite-bench.jar 'WorstCase.peer$' -p peer=jctoolsMpscBlocking,parkUnpark   contenders by name\n"
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

package org.ysuite.bench.report;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The one command line of {@code report} and its sections ({@code report [SECTION] [PLAN] [OPTIONS]}):
 * every option, the sections that take it and what it does ({@link Option}), parsed once for every
 * section, and the options part of {@link Help}. An option a section does not take is refused with
 * the sections that do take it; a plan a section does not know likewise.
 */
final class ReportArgs {

    /** A section of the report: the word after {@code report} (none: the in-process report). */
    enum Section {
        /** {@code report}: in process, seed 000 and the rest of the seed set ({@link ReportRunner}). */
        MAIN(""),
        /** {@code report net}: between processes over TCP ({@link NetReportRunner}). */
        NET("net"),
        /** {@code report amqp}: AMQP publishing with confirms ({@link AmqpReportRunner}). */
        AMQP("amqp"),
        /** {@code report zmq}: ZeroMQ sockets against libzmq's and JeroMQ's perf tools ({@link ZmqReportRunner}). */
        ZMQ("zmq"),
        /** {@code report zmq-peers}: one ROUTER and one PUB with many peers ({@link ZmqPeersRunner}). */
        ZMQ_PEERS("zmq-peers");

        final String word;

        Section(String word) {
            this.word = word;
        }

        /** {@code report} and the section's word. */
        String command() {
            return word.isEmpty() ? "report" : "report " + word;
        }
    }

    private static final Set<Section> JMH = EnumSet.of(Section.MAIN, Section.NET, Section.AMQP);
    private static final Set<Section> JMH_AND_ZMQ = EnumSet.of(Section.MAIN, Section.NET, Section.AMQP, Section.ZMQ);

    /** Every option of {@code report}: its flag, its value (null: none), the sections that take it. */
    enum Option {
        SEED("--seed", null, ReportRunner.Mode.SEED, "plan: the headline (report); the default plan elsewhere", JMH),
        ALL("--all", null, ReportRunner.Mode.QUICK, "plan: every scenario, short iterations (zmq: 16 B only, one round)", JMH_AND_ZMQ),
        QUICK("--quick", null, ReportRunner.Mode.QUICK, "plan: the former name of --all; the default of net and amqp", JMH_AND_ZMQ),
        FULL("--full", null, ReportRunner.Mode.FULL, "plan: every parameter, longer iterations (zmq: its default)", JMH_AND_ZMQ),
        SMOKE("--smoke", null, ReportRunner.Mode.SMOKE, "plan: every benchmark once, briefly (a build check)", JMH),
        OUT("--out", "DIR", null, "write into DIR (default: a new folder per run under results, results-net, "
                + "results-amqp; zmq: results; zmq-peers: results-zmq-peers)", EnumSet.allOf(Section.class)),
        FROM("--from", "DIR", null, "render an earlier run's folder again (tables, CSV, charts), running nothing",
                EnumSet.of(Section.MAIN)),
        INCLUDE("--include", "REGEX", null, "run only the benchmarks matching REGEX, with the plan's run lengths",
                EnumSet.of(Section.MAIN)),
        STREAMS("--streams", "N", null, "seed 004's most streams (default 3)", EnumSet.of(Section.NET)),
        VETH("--veth", null, null, "also across a veth pair into a network namespace (default: in --full only)",
                EnumSet.of(Section.NET)),
        NO_VETH("--no-veth", null, null, "loopback only, even in --full", EnumSet.of(Section.NET)),
        ROUNDS("--rounds", "N", null, "rounds (zmq: interleaved rounds, default 2, 1 with --quick; zmq-peers: "
                + "fan-out rounds, 1 to 999, default 10)", EnumSet.of(Section.ZMQ, Section.ZMQ_PEERS)),
        PEERS("--peers", "N[,N...]", null, "peers per run (default 10000)", EnumSet.of(Section.ZMQ_PEERS)),
        SOCKETS("--sockets", "router,pub", null, "the server sockets to run (default both)",
                EnumSet.of(Section.ZMQ_PEERS)),
        EXAMPLES_JAR("--examples-jar", "JAR", null, "ysuite's side (default ysuite-examples/target/ysuite-examples.jar)",
                EnumSet.of(Section.ZMQ, Section.ZMQ_PEERS));

        final String flag;
        final String value;
        final ReportRunner.Mode plan;
        final String what;
        final Set<Section> sections;

        Option(String flag, String value, ReportRunner.Mode plan, String what, Set<Section> sections) {
            this.flag = flag;
            this.value = value;
            this.plan = plan;
            this.what = what;
            this.sections = sections;
        }

        static Option of(String flag) {
            return Arrays.stream(values()).filter(o -> o.flag.equals(flag)).findFirst().orElse(null);
        }

        String usage() {
            return value == null ? flag : flag + " " + value;
        }
    }

    final Section section;
    private final Map<Option, String> given = new EnumMap<>(Option.class);
    private ReportRunner.Mode plan;

    private ReportArgs(Section section) {
        this.section = section;
    }

    /**
     * Parses a command line after {@code report}: the section's word (if any), then its plan and options.
     *
     * @param args the arguments after {@code report}
     * @return the parsed line
     * @throws IllegalArgumentException naming the argument, when an option is unknown, not one of
     *     the section's, or lacks its value
     */
    static ReportArgs parse(String[] args) {
        Section section = sectionOf(args);
        ReportArgs a = new ReportArgs(section);
        for (int i = section == Section.MAIN ? 0 : 1; i < args.length; i++) {
            Option o = Option.of(args[i]);
            if (o == null) {
                throw new IllegalArgumentException("unknown argument " + args[i]);
            }
            if (!o.sections.contains(section)) {
                throw new IllegalArgumentException(o.flag + " is not an option of " + section.command() + " (it is one of "
                        + o.sections.stream().map(Section::command).collect(Collectors.joining(", ")) + ")");
            }
            if (o.value != null && i + 1 >= args.length) {
                throw new IllegalArgumentException(o.flag + " needs a value: " + o.usage());
            }
            a.given.put(o, o.value == null ? "" : args[++i]);
            if (o.plan != null) {
                a.plan = o.plan; // the last plan named wins
            }
        }
        return a;
    }

    /**
     * The section a command line after {@code report} names: its first word, or the in-process report.
     *
     * @param args the arguments after {@code report}
     * @return the section
     */
    static Section sectionOf(String[] args) {
        return args.length == 0 ? Section.MAIN : Arrays.stream(Section.values())
                .filter(s -> !s.word.isEmpty() && s.word.equals(args[0])).findFirst().orElse(Section.MAIN);
    }

    /**
     * The plan named, or {@code dflt}.
     *
     * @param dflt the section's default plan
     * @return the plan
     */
    ReportRunner.Mode plan(ReportRunner.Mode dflt) {
        return plan == null ? dflt : plan;
    }

    boolean has(Option o) {
        return given.containsKey(o);
    }

    /** The option's value, or null when it was not given. */
    String value(Option o) {
        return given.get(o);
    }

    /** The option's value as a path, or {@code dflt}. */
    Path path(Option o, Path dflt) {
        return has(o) ? Paths.get(value(o)) : dflt;
    }

    /**
     * The option's whole-number value, or {@code dflt} when it was not given.
     *
     * @throws IllegalArgumentException naming the option and its limits, when the value is not a
     *     number from {@code min} to {@code max}
     */
    int intValue(Option o, int dflt, int min, int max) {
        if (!has(o)) {
            return dflt;
        }
        try {
            int v = Integer.parseInt(value(o));
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(o.flag + " " + value(o) + " must be a number from " + min + " to " + max);
    }

    /**
     * Says what is wrong and how the section's command line reads, on standard error.
     *
     * @param section the section
     * @param problem what is wrong
     * @return 2, the exit code of bad arguments
     */
    static int usage(Section section, String problem) {
        System.err.println(section.command() + ": " + problem);
        System.err.println("usage: " + section.command() + " " + Arrays.stream(Option.values())
                .filter(o -> o.sections.contains(section)).map(o -> "[" + o.usage() + "]")
                .collect(Collectors.joining(" ")) + " (report --help: every plan and option)");
        return 2;
    }

    /** The options part of the help: every option, what it does and the sections that take it. */
    static String help() {
        StringBuilder b = new StringBuilder();
        for (Option o : Option.values()) {
            b.append(String.format(Locale.ROOT, "  %-20s %s [%s]%n", o.usage(), o.what,
                    o.sections.size() == Section.values().length ? "every section"
                            : o.sections.stream().map(s -> s.word.isEmpty() ? "report" : s.word)
                                    .collect(Collectors.joining(", "))));
        }
        return b.toString();
    }
}

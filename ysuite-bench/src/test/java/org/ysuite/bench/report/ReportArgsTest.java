package org.ysuite.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The one command line of {@code report}: every section parsed by {@link ReportArgs}, one help for all. */
class ReportArgsTest {

    @Test
    void eachSectionTakesItsPlanAndOptions() {
        ReportArgs net = ReportArgs.parse(new String[] {"net", "--smoke", "--streams", "2", "--no-veth", "--out", "x"});
        assertEquals(ReportArgs.Section.NET, net.section);
        assertEquals(ReportRunner.Mode.SMOKE, net.plan(ReportRunner.Mode.QUICK));
        assertEquals(2, net.intValue(ReportArgs.Option.STREAMS, 3, 1, 99));
        assertTrue(net.has(ReportArgs.Option.NO_VETH));
        assertEquals(Paths.get("x"), net.path(ReportArgs.Option.OUT, null));
        ReportArgs main = ReportArgs.parse(new String[] {"--quick", "--include", "WorstCase"});
        assertEquals(ReportArgs.Section.MAIN, main.section);
        assertEquals(ReportRunner.Mode.QUICK, main.plan(ReportRunner.Mode.SEED), "--quick is --all's former name");
        assertEquals("WorstCase", main.value(ReportArgs.Option.INCLUDE));
        assertEquals(ReportRunner.Mode.SEED, ReportArgs.parse(new String[0]).plan(ReportRunner.Mode.SEED));
        ReportArgs peers = ReportArgs.parse(new String[] {"zmq-peers", "--peers", "10,20", "--rounds", "3"});
        assertEquals("10,20", peers.value(ReportArgs.Option.PEERS));
        assertEquals(3, peers.intValue(ReportArgs.Option.ROUNDS, 10, 1, 999));
    }

    @Test
    void anOptionOfAnotherSectionIsRefusedWithTheSectionsThatTakeIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReportArgs.parse(new String[] {"--streams", "2"}));
        assertTrue(e.getMessage().contains("report net"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReportArgs.parse(new String[] {"zmq-peers", "--full"}));
        assertThrows(IllegalArgumentException.class, () -> ReportArgs.parse(new String[] {"amqp", "--bogus"}));
        IllegalArgumentException noValue = assertThrows(IllegalArgumentException.class,
                () -> ReportArgs.parse(new String[] {"--out"}));
        assertTrue(noValue.getMessage().contains("--out DIR"), noValue.getMessage());
        IllegalArgumentException limit = assertThrows(IllegalArgumentException.class,
                () -> ReportArgs.parse(new String[] {"zmq", "--rounds", "0"}).intValue(ReportArgs.Option.ROUNDS, 2, 1, 9));
        assertTrue(limit.getMessage().contains("from 1 to 9"), limit.getMessage());
    }

    @Test
    void badArgumentsOfEverySectionExitWithTwoBeforeRunning() throws Exception {
        // only arguments that no parse could turn into a run: an option another section takes is
        // checked on ReportArgs.parse above, where a slip fails fast instead of starting a report
        for (String[] args : new String[][] {{"--bogus"}, {"amqp", "--out"}, {"zmq", "--rounds", "none"},
            {"net", "--streams", "0"}, {"zmq-peers", "--peers", "x"}}) {
            assertEquals(2, ReportRunner.run(args), String.join(" ", args));
        }
    }

    @Test
    void theHelpListsEveryOptionAndSection() {
        String help = Help.text();
        for (ReportArgs.Option o : ReportArgs.Option.values()) {
            assertTrue(help.contains(o.usage()), "the help names " + o.usage());
        }
        for (ReportArgs.Section s : ReportArgs.Section.values()) {
            assertTrue(help.contains(s.command()), "the help names " + s.command());
        }
        assertFalse(help.contains("report  "), "no empty section word");
    }
}

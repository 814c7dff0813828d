package org.ysuite.bench.report;

/** Placeholder. */
public final class ReportRunner {
    private ReportRunner() {
    }

    /**
     * Runs.
     * @param args args
     * @return exit code
     */
    public static int run(String[] args) {
        return 0;
    }
}

package org.ysuite.reliability;

import org.ysuite.YPipe;

import java.util.List;

/** The bad-input rows of {@link YPipe}. */
final class YPipeBadInputs {

    private YPipeBadInputs() {
    }

    static List<BadInput> rows() {
        BadInput.Rows t = new BadInput.Rows("YPipe");
        String max = String.valueOf(YPipe.MAX_CHUNK_SIZE);
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE, YPipe.MAX_CHUNK_SIZE + 1, Integer.MAX_VALUE}) {
            t.iae("new YPipe(" + bad + ")", () -> new YPipe<>(bad), "chunkSize", max, bad);
        }
        YPipe<String> pipe = new YPipe<>();
        t.npe("write(v)", () -> pipe.write(null), "value");
        t.npe("write(v, true)", () -> pipe.write(null, true), "value");
        t.npe("write(v, false)", () -> pipe.write(null, false), "value");
        t.npe("readBatch", () -> pipe.readBatch(null), "handler");
        t.npe("probe", () -> pipe.probe(null), "predicate");
        return t.rows;
    }
}

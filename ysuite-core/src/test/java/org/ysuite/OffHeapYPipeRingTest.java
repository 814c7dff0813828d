package org.ysuite;

import java.nio.ByteBuffer;
import org.ysuite.internal.RecordRingContract;

/** The record ring's contract over {@link OffHeapYPipe}'s direct memory. */
class OffHeapYPipeRingTest extends RecordRingContract {

    @Override
    protected Ends open(int capacityBytes) {
        OffHeapYPipe pipe = new OffHeapYPipe(capacityBytes);
        return new Ends() {
            @Override
            public boolean write(byte[] src, int offset, int length, boolean incomplete) {
                return pipe.write(src, offset, length, incomplete);
            }

            @Override
            public int claim(int length) {
                return pipe.claim(length);
            }

            @Override
            public ByteBuffer claimBuffer() {
                return pipe.claimBuffer();
            }

            @Override
            public void commit(boolean incomplete) {
                pipe.commit(incomplete);
            }

            @Override
            public boolean unwrite() {
                return pipe.unwrite();
            }

            @Override
            public void flush() {
                pipe.flush();
            }

            @Override
            public int read(byte[] dst) {
                return pipe.read(dst);
            }

            @Override
            public int readBatch(MessageHandler handler) {
                return pipe.readBatch(handler);
            }

            @Override
            public int maxMessageLength() {
                return pipe.maxMessageLength();
            }

            @Override
            public void close() {
                pipe.close();
            }
        };
    }
}

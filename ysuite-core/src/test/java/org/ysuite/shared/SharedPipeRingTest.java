package org.ysuite.shared;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.ysuite.MessageHandler;
import org.ysuite.internal.RecordRingContract;

/** The record ring's contract over the shared pipe's mapped file (both ends in this JVM). */
class SharedPipeRingTest extends RecordRingContract {

    @Override
    protected Ends open(int capacityBytes) throws IOException {
        Path dir = SharedMessages.newDir("ysuite-SharedPipeRingTest");
        Path file = dir.resolve("pipe");
        SharedPipeWriter writer = SharedYPipe.createWriter(file, capacityBytes);
        SharedPipeReader reader = SharedYPipe.openReader(file);
        return new Ends() {
            @Override
            public boolean write(byte[] src, int offset, int length, boolean incomplete) {
                return writer.write(src, offset, length, incomplete);
            }

            @Override
            public int claim(int length) {
                return writer.claim(length);
            }

            @Override
            public ByteBuffer claimBuffer() {
                return writer.claimBuffer();
            }

            @Override
            public void commit(boolean incomplete) {
                writer.commit(incomplete);
            }

            @Override
            public boolean unwrite() {
                return writer.unwrite();
            }

            @Override
            public void flush() {
                writer.flush();
            }

            @Override
            public int read(byte[] dst) {
                return reader.read(dst);
            }

            @Override
            public int readBatch(MessageHandler handler) {
                return reader.readBatch(handler);
            }

            @Override
            public int maxMessageLength() {
                return writer.maxMessageLength();
            }

            @Override
            public void close() {
                writer.close();
                reader.close();
                try {
                    SharedMessages.removeDir(dir);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }
}

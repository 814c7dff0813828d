package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** The writer's store: chunk and slot of the next write, and chunks ready for reuse. */
abstract class YPipeWriterStore extends PipeProtocol {
    /** Writer: chunk and slot of the next write. */
    YPipeChunks.Chunk backChunk;
    int backPos;
    /** Writer: drained chunks taken from the reader, ready for reuse. */
    YPipeChunks.Chunk freeChunks;
    /** Writer's counter: flushes that found the reader asleep (read racily by stats()). */
    long wakeupsSent;
    /**
     * The thread inside the writer side's window (a mailbox writer's signal; in checked mode,
     * every writer call), else null: see {@link ThreadCheck}. Never read by the protocol.
     */
    Thread writerInside;
}

/** Padding between the writer's and the reader's store. */
abstract class YPipePad4 extends YPipeWriterStore {
    byte p400, p401, p402, p403, p404, p405, p406, p407, p408, p409, p40a, p40b, p40c, p40d, p40e, p40f,
            p410, p411, p412, p413, p414, p415, p416, p417, p418, p419, p41a, p41b, p41c, p41d, p41e, p41f,
            p420, p421, p422, p423, p424, p425, p426, p427, p428, p429, p42a, p42b, p42c, p42d, p42e, p42f,
            p430, p431, p432, p433, p434, p435, p436, p437, p438, p439, p43a, p43b, p43c, p43d, p43e, p43f,
            p440, p441, p442, p443, p444, p445, p446, p447, p448, p449, p44a, p44b, p44c, p44d, p44e, p44f,
            p450, p451, p452, p453, p454, p455, p456, p457, p458, p459, p45a, p45b, p45c, p45d, p45e, p45f,
            p460, p461, p462, p463, p464, p465, p466, p467, p468, p469, p46a, p46b, p46c, p46d, p46e, p46f,
            p470, p471, p472, p473, p474, p475, p476, p477, p478, p479, p47a, p47b, p47c, p47d, p47e, p47f;
}

/** The reader's store: chunk and slot of the next read. */
abstract class YPipeReaderStore extends YPipePad4 {
    YPipeChunks.Chunk frontChunk;
    int frontPos;
    /**
     * Reader: the thread running a readBatch handler or a probe predicate, or spinning before it
     * sleeps (in checked mode: inside any reader call), else null. Every reader call refuses to
     * start while it is set: a re-entrant call from the handler, or a second reader thread (which
     * sees it: the handler that blocks or signals is after the store). See {@link ThreadCheck}.
     */
    Thread readerInside;
    /** Slots of the front chunk below this one are nulled (consumed and released). */
    int clearedPos;
}

/** Padding between the reader's store and the spare list. */
abstract class YPipePad5 extends YPipeReaderStore {
    byte p500, p501, p502, p503, p504, p505, p506, p507, p508, p509, p50a, p50b, p50c, p50d, p50e, p50f,
            p510, p511, p512, p513, p514, p515, p516, p517, p518, p519, p51a, p51b, p51c, p51d, p51e, p51f,
            p520, p521, p522, p523, p524, p525, p526, p527, p528, p529, p52a, p52b, p52c, p52d, p52e, p52f,
            p530, p531, p532, p533, p534, p535, p536, p537, p538, p539, p53a, p53b, p53c, p53d, p53e, p53f,
            p540, p541, p542, p543, p544, p545, p546, p547, p548, p549, p54a, p54b, p54c, p54d, p54e, p54f,
            p550, p551, p552, p553, p554, p555, p556, p557, p558, p559, p55a, p55b, p55c, p55d, p55e, p55f,
            p560, p561, p562, p563, p564, p565, p566, p567, p568, p569, p56a, p56b, p56c, p56d, p56e, p56f,
            p570, p571, p572, p573, p574, p575, p576, p577, p578, p579, p57a, p57b, p57c, p57d, p57e, p57f;
}

/** The spare-chunk list, shared: the reader pushes drained chunks, the writer takes them all. */
abstract class YPipeSpareList extends YPipePad5 {
    private static final VarHandle SPARES;

    static {
        try {
            SPARES = MethodHandles.lookup().findVarHandle(
                    YPipeSpareList.class, "spares", YPipeChunks.Chunk.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Shared: drained chunks pushed by the reader, taken all at once by the writer. */
    private YPipeChunks.Chunk spares;

    /** Writer: takes the whole spare list (acquire, pairing with {@link #recycle}'s release). */
    final YPipeChunks.Chunk takeSpares() {
        return (YPipeChunks.Chunk) SPARES.getAndSetAcquire(this, (YPipeChunks.Chunk) null);
    }

    /**
     * Reader: pushes a drained chunk onto the spare list, or drops it when the list is long. The
     * CAS (release) publishes the reader's last reads and nulling of the chunk before the writer
     * can take it; it fails only if the writer just took the list (or spuriously). No ABA: only
     * the reader pushes, the writer only swaps the whole list out, so head is always either null
     * or a chunk this thread pushed (hence an opaque read is enough).
     */
    final void recycle(YPipeChunks.Chunk drained) {
        YPipeChunks.Chunk head;
        do {
            head = (YPipeChunks.Chunk) SPARES.getOpaque(this);
            int count = head == null ? 0 : head.spares;
            if (count >= YPipe.MAX_SPARE_CHUNKS) {
                drained.next = null;
                return; // enough spares: let the GC have it
            }
            drained.next = head;
            drained.spares = count + 1;
        } while (!SPARES.weakCompareAndSetRelease(this, head, drained));
    }
}

/** Padding after the spare list. */
abstract class YPipeSpares extends YPipeSpareList {
    byte p600, p601, p602, p603, p604, p605, p606, p607, p608, p609, p60a, p60b, p60c, p60d, p60e, p60f,
            p610, p611, p612, p613, p614, p615, p616, p617, p618, p619, p61a, p61b, p61c, p61d, p61e, p61f,
            p620, p621, p622, p623, p624, p625, p626, p627, p628, p629, p62a, p62b, p62c, p62d, p62e, p62f,
            p630, p631, p632, p633, p634, p635, p636, p637, p638, p639, p63a, p63b, p63c, p63d, p63e, p63f,
            p640, p641, p642, p643, p644, p645, p646, p647, p648, p649, p64a, p64b, p64c, p64d, p64e, p64f,
            p650, p651, p652, p653, p654, p655, p656, p657, p658, p659, p65a, p65b, p65c, p65d, p65e, p65f,
            p660, p661, p662, p663, p664, p665, p666, p667, p668, p669, p66a, p66b, p66c, p66d, p66e, p66f,
            p670, p671, p672, p673, p674, p675, p676, p677, p678, p679, p67a, p67b, p67c, p67d, p67e, p67f;
}

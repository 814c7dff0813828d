package org.ysuite;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The pipes' heap layout as the running JVM lays it out: no field of one group (the writer's, the
 * reader's, the shared word's) may share a 64-byte cache line with a field of another, wherever
 * the object starts. HotSpot fills holes in a superclass's layout with a subclass's small fields,
 * so the padding classes alone do not prove it; this reads the offsets the JVM chose.
 */
class FieldLayoutTest {

    /** Bytes between two fields of different groups, last byte of one to first of the other. */
    private static final int LINE = 64;

    private static final sun.misc.Unsafe UNSAFE;

    static {
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            UNSAFE = (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Test
    void ypipeGroupsNeverShareALine() {
        assertApart(YPipe.class,
                "writer: w f tail backChunk backPos freeChunks wakeupsSent writerInside",
                "reader: front r readerPolicy readerSpin batchPauses frontChunk frontPos clearedPos readerInside",
                "shared c: c closedAt",
                "shared spares: spares name");
    }

    @Test
    void offHeapYPipeGroupsNeverShareALine() {
        assertApart(OffHeapYPipe.class,
                "writer: w f tail headCache claimStart claimLength claimThread writerWord messagesWritten anchorSeq anchorAt anchorCount"
                        + " wakeupsSent writerWaits",
                "reader: front r readerPolicy readerSpin batchPauses",
                "shared c: c closedAt",
                "reader word: readerWord consumed waitingWriter ringUsers readerSleep sleepingReader finalFlushed finalDepth sleeps"
                        + " sleepNanos",
                "final: capacity maxMessageLength memory records ring consumedStep writerPolicy roomWait blockedWait name");
    }

    /**
     * Fails unless every two fields of different groups are a cache line apart.
     *
     * @param type the class
     * @param groups one per group: its name, a colon, its fields' names
     */
    private static void assertApart(Class<?> type, String... groups) {
        Map<String, String> groupOf = new HashMap<>();
        for (String spec : groups) {
            String[] parts = spec.split(":");
            for (String name : parts[1].trim().split(" ")) {
                groupOf.put(name, parts[0]);
            }
        }
        List<Slot> slots = new ArrayList<>();
        for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                String group = groupOf.get(field.getName());
                if (group == null) {
                    assertTrue(field.getType().isPrimitive() && field.getName().matches("p[0-9a-f]{2,3}"),
                            () -> type.getSimpleName() + ": field " + field.getName()
                                    + " belongs to no group (add it to the test)");
                    continue;
                }
                long offset = UNSAFE.objectFieldOffset(field);
                slots.add(new Slot(field.getName(), group, offset, offset + size(field.getType()) - 1));
            }
        }
        assertTrue(slots.size() == groupOf.size(),
                () -> type.getSimpleName() + ": a grouped field is missing: " + slots);
        for (Slot a : slots) {
            for (Slot b : slots) {
                if (a.group.equals(b.group) || a.first > b.first) {
                    continue;
                }
                if (b.first - a.last < LINE) {
                    fail(type.getSimpleName() + ": " + a.name + " (" + a.group + ", bytes " + a.first
                            + ".." + a.last + ") and " + b.name + " (" + b.group + ", from byte " + b.first
                            + ") can share a cache line");
                }
            }
        }
    }

    private static int size(Class<?> type) {
        if (type == long.class || type == double.class) {
            return 8;
        }
        if (type == boolean.class || type == byte.class) {
            return 1;
        }
        if (type == short.class || type == char.class) {
            return 2;
        }
        if (type == int.class || type == float.class) {
            return 4;
        }
        return UNSAFE.arrayIndexScale(Object[].class); // a reference: 4 compressed, 8 if not
    }

    private record Slot(String name, String group, long first, long last) {
        @Override
        public String toString() {
            return name + "@" + first;
        }
    }
}

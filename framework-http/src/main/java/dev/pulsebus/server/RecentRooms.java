package dev.pulsebus.server;

import dev.pulsebus.internal.LruTable;
import dev.pulsebus.transcript.TranscriptRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The newest committed messages of recently active rooms, so that history and polls of a busy room are
 * answered from memory, on the I/O thread, without a query. At most {@code rooms} rooms (least recently
 * used evicted) of at most {@code perRoom} messages each.
 *
 * <p>Why the memory never disagrees with the store: every message of an {@code http} room is committed
 * through {@link HttpChat} and added here after its commit, in seq order (a later commit with a lower seq
 * is inserted in place). Messages of earlier runs have lower seqs than any of this run, so a room's
 * messages here are always a contiguous newest run of its history. A read is answered from here only
 * when that run covers it; otherwise it goes to the store.
 */
final class RecentRooms {

    /**
     * The longest message JSON kept (a chat line is some 200-400 bytes of it); a longer one is written
     * anew at each read. With 100 messages of 1024 rooms kept, the kept JSON stays within about 100 MiB.
     */
    static final int MAX_KEPT_JSON = 1024;

    private final LruTable<Room> rooms;
    private final int perRoom;

    RecentRooms(int rooms, int perRoom) {
        this.rooms = new LruTable<>(rooms);
        this.perRoom = perRoom;
    }

    /** A room's newest messages, seq ascending. */
    private static final class Room {
        final TranscriptRecord[] records;
        /** Each record's chat-API JSON, written the first time it is read as such; null until then. */
        final byte[][] json;
        int size;

        Room(int capacity) {
            records = new TranscriptRecord[capacity];
            json = new byte[capacity][];
        }
    }

    void committed(String room, TranscriptRecord r) {
        Room ring;
        synchronized (rooms) {
            ring = rooms.get(room);
            if (ring == null) {
                ring = new Room(perRoom);
                rooms.put(room, ring);
            }
        }
        synchronized (ring) {
            TranscriptRecord[] a = ring.records;
            int i = ring.size;
            if (i > 0 && a[i - 1].seq() > r.seq()) { // rare: a lower seq committed late
                while (i > 0 && a[i - 1].seq() > r.seq()) {
                    i--;
                }
            }
            byte[][] json = ring.json;
            if (ring.size == a.length) { // full: drop the oldest
                if (i == 0) {
                    return; // older than everything kept: the store has it
                }
                System.arraycopy(a, 1, a, 0, a.length - 1);
                System.arraycopy(json, 1, json, 0, json.length - 1);
                ring.size--;
                i--;
            }
            System.arraycopy(a, i, a, i + 1, ring.size - i);
            System.arraycopy(json, i, json, i + 1, ring.size - i);
            a[i] = r;
            json[i] = null;
            ring.size++;
        }
    }

    /**
     * The newest {@code n} messages with {@code seq < before}, oldest first, each as its chat-API JSON
     * (written by {@code writer} the first time it is read and kept beside it, so that a busy room's
     * history is copied, not written, per request); null when memory does not cover it.
     */
    @Nullable List<byte[]> lastJson(String room, int n, long before, Function<TranscriptRecord, byte[]> writer) {
        Room ring = room(room);
        if (ring == null) {
            return null;
        }
        synchronized (ring) {
            int end = ring.size;
            while (end > 0 && ring.records[end - 1].seq() >= before) {
                end--;
            }
            if (end < n) {
                return null; // older messages may be in the store only
            }
            List<byte[]> out = new ArrayList<>(n);
            for (int i = end - n; i < end; i++) {
                byte[] json = ring.json[i];
                if (json == null) {
                    json = writer.apply(ring.records[i]);
                    if (json.length <= MAX_KEPT_JSON) {
                        ring.json[i] = json;
                    }
                }
                out.add(json);
            }
            return out;
        }
    }

    /**
     * The messages with {@code seq > after}, the newest {@code limit}, oldest first; null when memory does
     * not cover it (its oldest kept message is newer than {@code after}, so some may be in the store only).
     */
    @Nullable List<TranscriptRecord> after(String room, long after, int limit) {
        Room ring = room(room);
        if (ring == null) {
            return null;
        }
        synchronized (ring) {
            if (ring.size == 0 || ring.records[0].seq() > after) {
                return null;
            }
            int from = ring.size;
            while (from > 0 && ring.records[from - 1].seq() > after) {
                from--;
            }
            from = Math.max(from, ring.size - limit);
            List<TranscriptRecord> out = new ArrayList<>(ring.size - from);
            for (int i = from; i < ring.size; i++) {
                out.add(ring.records[i]);
            }
            return out;
        }
    }

    private @Nullable Room room(String room) {
        synchronized (rooms) {
            return rooms.get(room);
        }
    }
}

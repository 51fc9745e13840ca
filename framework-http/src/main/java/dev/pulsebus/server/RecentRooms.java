package dev.pulsebus.server;

import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import dev.pulsebus.internal.LruTable;
import dev.pulsebus.transcript.TranscriptRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The newest committed messages of recently active rooms, so that history and polls of a busy room are
 * answered from memory, on the I/O thread, without a query. At most {@code rooms} rooms (least recently
 * used evicted), each with at most {@code perRoom} messages weighing at most {@code weightPerRoom}
 * together (a message weighs its text's and its user's length plus {@link #OVERHEAD}; only its text is
 * kept): the oldest go first, and a message heavier than a whole room is not kept at all.
 *
 * <p>Why the memory never disagrees with the store: every message of an {@code http} room is committed
 * through {@link HttpChat} and added here after its commit, in seq order (a later commit with a lower seq
 * is inserted in place). Messages of earlier runs have lower seqs than any of this run. A room remembers
 * the highest seq it let go of or did not keep, or that any room had when it was made (its floor), and
 * keeps nothing at or below it, so its messages here are always a contiguous newest run of its history.
 * A read is answered from here only when that run covers it; otherwise it goes to the store.
 */
final class RecentRooms {

    /**
     * The longest message JSON kept (a chat line is some 200-400 bytes of it); a longer one is written
     * anew at each read.
     */
    static final int MAX_KEPT_JSON = 1024;

    /** What a message weighs beyond its text: its record, ids, time and kept JSON, roughly. */
    static final int OVERHEAD = 200;

    private final LruTable<Room> rooms;
    /** The highest seq committed here in any room, so far (guarded by {@link #rooms}). */
    private long highest = Long.MIN_VALUE;
    private final int perRoom;
    private final int weightPerRoom;

    RecentRooms(int rooms, int perRoom, int weightPerRoom) {
        this.rooms = new LruTable<>(rooms);
        this.perRoom = perRoom;
        this.weightPerRoom = weightPerRoom;
    }

    /** A room's newest messages, seq ascending. */
    private static final class Room {
        final TranscriptRecord[] records;
        /** Each record's chat-API JSON, written the first time it is read as such; null until then. */
        final byte[][] json;
        final int[] weights;
        int size;
        int weight;
        /** Nothing at or below this seq is kept: it is where the store's part of the history ends. */
        long floor = Long.MIN_VALUE;

        Room(int capacity) {
            records = new TranscriptRecord[capacity];
            json = new byte[capacity][];
            weights = new int[capacity];
        }

        /** Lets the oldest {@code k} go. */
        void dropOldest(int k) {
            if (k <= 0) {
                return;
            }
            floor = Math.max(floor, records[k - 1].seq());
            for (int j = 0; j < k; j++) {
                weight -= weights[j];
            }
            int rest = size - k;
            System.arraycopy(records, k, records, 0, rest);
            System.arraycopy(json, k, json, 0, rest);
            System.arraycopy(weights, k, weights, 0, rest);
            Arrays.fill(records, rest, size, null);
            Arrays.fill(json, rest, size, null);
            size = rest;
        }
    }

    void committed(String room, TranscriptRecord r) {
        Room ring;
        synchronized (rooms) {
            ring = rooms.get(room);
            if (ring == null) {
                ring = new Room(perRoom);
                // All of the room's messages up to here are in the store only (it was let go, or is new).
                ring.floor = highest;
                rooms.put(room, ring);
            }
            highest = Math.max(highest, r.seq());
        }
        String text = r.text();
        if (r.message().segments().size() != 1 || !(r.message().segments().get(0) instanceof Segment.Text)) {
            // Kept as the text it is read as: an image's or another segment's data would weigh uncounted.
            r = new TranscriptRecord(r.seq(), r.chat(), r.userId(), r.time(), r.messageId(), Message.text(text),
                    r.outbound());
        }
        int w = text.length() + r.userId().length() + OVERHEAD;
        synchronized (ring) {
            if (r.seq() <= ring.floor) {
                return; // older than a message let go: the store has both
            }
            int i = ring.size;
            while (i > 0 && ring.records[i - 1].seq() > r.seq()) { // rare: a lower seq committed late
                i--;
            }
            if (w > weightPerRoom || (ring.size == ring.records.length && i == 0)) {
                // Not kept (too heavy, or older than all a full room keeps): the run starts again after it.
                ring.dropOldest(i);
                ring.floor = r.seq();
                return;
            }
            if (ring.size == ring.records.length) {
                ring.dropOldest(1);
                i--;
            }
            System.arraycopy(ring.records, i, ring.records, i + 1, ring.size - i);
            System.arraycopy(ring.json, i, ring.json, i + 1, ring.size - i);
            System.arraycopy(ring.weights, i, ring.weights, i + 1, ring.size - i);
            ring.records[i] = r;
            ring.json[i] = null;
            ring.weights[i] = w;
            ring.size++;
            ring.weight += w;
            int over = 0;
            for (int excess = ring.weight - weightPerRoom; excess > 0; over++) {
                excess -= ring.weights[over];
            }
            ring.dropOldest(over);
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
     * not cover it (some after {@code after} may be in the store only: its oldest kept message is newer,
     * and {@code after} is below the room's floor).
     */
    @Nullable List<TranscriptRecord> after(String room, long after, int limit) {
        Room ring = room(room);
        if (ring == null) {
            return null;
        }
        synchronized (ring) {
            boolean covered = (ring.size > 0 && ring.records[0].seq() <= after)
                    || (ring.floor != Long.MIN_VALUE && after >= ring.floor); // all after a let-go seq is here
            if (!covered) {
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

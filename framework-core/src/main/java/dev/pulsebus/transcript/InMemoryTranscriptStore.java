package dev.pulsebus.transcript;

import dev.pulsebus.internal.Require;
import dev.pulsebus.event.ChatRef;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link TranscriptStore} in memory, per chat, for {@code framework-core} alone, tests and the
 * benchmark. Nothing survives the process. Each chat keeps at most {@code maxPerChat} records (the oldest
 * go first), so memory stays bounded between retention runs.
 */
public final class InMemoryTranscriptStore implements TranscriptStore {

    private final Map<ChatRef, Deque<TranscriptRecord>> chats = new ConcurrentHashMap<>();
    private final int maxPerChat;
    private volatile long maxSeq;

    /** Keeps at most 10,000 records per chat. */
    public InMemoryTranscriptStore() {
        this(10_000);
    }

    public InMemoryTranscriptStore(int maxPerChat) {
        this.maxPerChat = Require.atLeast(maxPerChat, 1, "maxPerChat");
    }

    @Override
    public void append(List<TranscriptRecord> batch) {
        for (TranscriptRecord r : batch) {
            Deque<TranscriptRecord> d = chats.computeIfAbsent(r.chat(), c -> new ArrayDeque<>());
            synchronized (d) {
                d.addLast(r);
                if (d.size() > maxPerChat) {
                    d.pollFirst();
                }
            }
            maxSeq = Math.max(maxSeq, r.seq());
        }
    }

    @Override
    public List<TranscriptRecord> last(ChatRef chat, int n, long beforeSeq) {
        Deque<TranscriptRecord> d = chats.get(chat);
        if (d == null || n <= 0) {
            return List.of();
        }
        List<TranscriptRecord> out = new ArrayList<>(Math.min(n, 64));
        synchronized (d) {
            for (Iterator<TranscriptRecord> it = d.descendingIterator(); it.hasNext() && out.size() < n; ) {
                TranscriptRecord r = it.next();
                if (r.seq() < beforeSeq) {
                    out.add(r);
                }
            }
        }
        Collections.reverse(out);
        return out;
    }

    @Override
    public List<String> chatIds(String platform, String detailType, int limit) {
        record Newest(String id, long seq) {
        }
        List<Newest> found = new ArrayList<>();
        chats.forEach((chat, d) -> {
            if (chat.platform().equals(platform) && chat.detailType().equals(detailType)) {
                synchronized (d) {
                    if (!d.isEmpty()) {
                        found.add(new Newest(chat.id(), d.peekLast().seq()));
                    }
                }
            }
        });
        found.sort(java.util.Comparator.comparingLong(Newest::seq).reversed());
        return found.stream().limit(Math.max(0, limit)).map(Newest::id).toList();
    }

    @Override
    public long retain(int keepPerChat, Instant cutoff) {
        long deleted = 0;
        for (Deque<TranscriptRecord> d : chats.values()) {
            synchronized (d) {
                while (!d.isEmpty() && (d.size() > keepPerChat || d.peekFirst().time().isBefore(cutoff))) {
                    d.pollFirst();
                    deleted++;
                }
            }
        }
        return deleted;
    }

    @Override
    public long maxSeq() {
        return maxSeq;
    }
}

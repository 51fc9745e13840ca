package dev.pulsebus.onebot;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The bots one adapter has seen, by {@code self_id}: where each one's actions go, and whether it is up (a
 * WebSocket serving it is open, or over HTTP its heartbeats, when it sends them, are on time; and the
 * implementation has not said it is offline). At most
 * {@link #MAX} bots; events of one more are still handled, but it is not tracked and cannot be answered.
 * Thread-safe; lookups take no lock.
 */
final class Bots {

    static final int MAX = 1024;

    static final class Bot {
        final String selfId;
        volatile @Nullable Link link;
        volatile @Nullable String platform;
        final AtomicInteger open = new AtomicInteger();
        volatile long lastBeatNanos;
        volatile long beatWindowNanos;
        /** What the implementation last said of the bot (v11 heartbeat status.online, v12 status_update). */
        volatile boolean online = true;

        Bot(String selfId) {
            this.selfId = selfId;
        }
    }

    private final Map<String, Bot> bots = new ConcurrentHashMap<>();
    private final String prefix;
    /** Bumped on every change of who is up, so /health can tell its cached answer is still right. */
    final AtomicLong changes = new AtomicLong();

    Bots(String platform) {
        this.prefix = platform + ":";
    }

    /** The bot {@code selfId}, tracked from now on; null for an empty id or past {@link #MAX}. */
    @Nullable Bot bot(String selfId) {
        if (selfId.isEmpty()) {
            return null;
        }
        Bot b = bots.get(selfId);
        if (b == null && bots.size() < MAX) {
            b = bots.computeIfAbsent(selfId, Bot::new);
            changes.incrementAndGet();
        }
        return b;
    }

    @Nullable Bot find(String selfId) {
        return bots.get(selfId);
    }

    void opened(Bot b) {
        b.open.incrementAndGet();
        changes.incrementAndGet();
    }

    void closed(Bot b, Link link) {
        b.open.decrementAndGet();
        if (b.link == link) {
            b.link = null;
        }
        changes.incrementAndGet();
    }

    /** The implementation says whether the bot is online on its chat platform. */
    void online(Bot b, boolean online) {
        if (b.online != online) {
            b.online = online;
            changes.incrementAndGet();
        }
    }

    /** An HTTP-posted heartbeat: the bot is down once none has come for twice {@code intervalMs}. */
    void beat(Bot b, long intervalMs) {
        boolean wasDown = !upOverHttp(b, System.nanoTime());
        b.beatWindowNanos = TimeUnit.MILLISECONDS.toNanos(2 * intervalMs);
        b.lastBeatNanos = System.nanoTime();
        if (wasDown) {
            changes.incrementAndGet();
        }
    }

    private static boolean upOverHttp(Bot b, long now) {
        return b.beatWindowNanos == 0 || now - b.lastBeatNanos < b.beatWindowNanos;
    }

    /**
     * {@code onebot11:<self_id>} to whether it is up, in id order; {@code onebot11} alone, down, while no bot
     * has been seen. {@code http}: up is judged by heartbeats (a bot that posted no heartbeat is up).
     */
    Map<String, Boolean> components(boolean http) {
        Map<String, Boolean> out = new TreeMap<>();
        long now = System.nanoTime();
        for (Bot b : bots.values()) {
            out.put(prefix + b.selfId, b.online && (http ? upOverHttp(b, now) : b.open.get() > 0));
        }
        if (out.isEmpty()) {
            out.put(prefix.substring(0, prefix.length() - 1), false);
        }
        return out;
    }

    /** The bots whose actions a connection to this instance takes, and that are online. */
    java.util.List<String> reachableHere() {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (Bot b : bots.values()) {
            if (b.link != null && b.online) {
                out.add(b.selfId);
            }
        }
        return out;
    }

    /** A number that changes whenever {@link #components} may have (HTTP heartbeats going late count too). */
    long state(boolean http) {
        if (!http) {
            return changes.get();
        }
        long now = System.nanoTime();
        long late = 0;
        for (Bot b : bots.values()) {
            if (!upOverHttp(b, now)) {
                late++;
            }
        }
        return changes.get() * 1031 + late;
    }
}

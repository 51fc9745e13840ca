package dev.pulsebus.onebot;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The bots one adapter has seen, by {@code self_id}: where each one's actions go, and whether it is up (a
 * WebSocket serving it is open, or over HTTP its heartbeats, when it sends them, are on time; and the
 * implementation has not said it is offline).
 *
 * <p>Bounded, and never full for good: at most {@link #MAX} bots. A bot is <i>gone</i> once no WebSocket serves
 * it (over HTTP: its heartbeats are late, or, sending none, it posted nothing for {@link #HTTP_IDLE_NANOS});
 * a bot gone for {@link #EXPIRY_NANOS} is forgotten, and a new bot that finds the table full takes the place
 * of the one gone longest. Only when all {@link #MAX} are connected is a new one not tracked (its events are
 * still handled, but it cannot be answered; counted). {@link #components} names at most
 * {@link #LISTED} bots, the ones down first. Thread-safe; lookups take no lock, a new bot takes one.
 */
final class Bots {

    static final int MAX = 1024;
    /** How many bots {@code /health} names; the rest are a count. */
    static final int LISTED = 16;
    /** How long a bot that is gone stays in the table (and in {@code /health}, down). */
    static final long EXPIRY_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** Over HTTP without heartbeats: how long a bot posts nothing before it counts as gone. */
    static final long HTTP_IDLE_NANOS = TimeUnit.MINUTES.toNanos(5);

    static final class Bot {
        final String selfId;
        volatile @Nullable Link link;
        volatile @Nullable String platform;
        final AtomicInteger open = new AtomicInteger();
        volatile long lastBeatNanos;
        volatile long beatWindowNanos;
        /** When it was last seen: tracked, its last connection closed, or (HTTP) it last posted. */
        volatile long seenNanos;
        /** What the implementation last said of the bot (v11 heartbeat status.online, v12 status_update). */
        volatile boolean online = true;

        Bot(String selfId, long now) {
            this.selfId = selfId;
            this.seenNanos = now;
        }
    }

    private final Map<String, Bot> bots = new ConcurrentHashMap<>();
    private final String prefix;
    /** Whether the bots post over HTTP (up by heartbeats) rather than keep a WebSocket open. */
    private final boolean http;
    private final LongSupplier nanoTime;
    /** Bumped on every change of who is up, so /health can tell its cached answer is still right. */
    final AtomicLong changes = new AtomicLong();
    /** Counts the bots not tracked because all {@link #MAX} were connected. */
    private final LongAdder untracked;

    Bots(String platform, boolean http, LongAdder untracked) {
        this(platform, http, untracked, System::nanoTime);
    }

    /** For tests: {@code nanoTime} is the clock. */
    Bots(String platform, boolean http, LongAdder untracked, LongSupplier nanoTime) {
        this.untracked = untracked;
        this.prefix = platform + ":";
        this.http = http;
        this.nanoTime = nanoTime;
    }

    /**
     * The bot {@code selfId}, tracked from now on (in place of the one gone longest when the table is full);
     * null for an empty id, or when all {@link #MAX} bots are connected.
     */
    @Nullable Bot bot(String selfId) {
        if (selfId.isEmpty()) {
            return null;
        }
        Bot b = bots.get(selfId);
        return b != null ? b : track(selfId);
    }

    private synchronized @Nullable Bot track(String selfId) {
        Bot b = bots.get(selfId);
        if (b != null) {
            return b;
        }
        long now = nanoTime.getAsLong();
        if (bots.size() >= MAX) {
            sweep(now);
        }
        if (bots.size() >= MAX) {
            Bot oldest = null;
            for (Bot o : bots.values()) {
                if (gone(o, now) && (oldest == null || o.seenNanos - oldest.seenNanos < 0)) {
                    oldest = o;
                }
            }
            if (oldest == null) {
                untracked.increment();
                return null;
            }
            bots.remove(oldest.selfId, oldest);
        }
        b = new Bot(selfId, now);
        bots.put(selfId, b);
        changes.incrementAndGet();
        return b;
    }

    /** Forgets the bots gone for {@link #EXPIRY_NANOS}. */
    private void sweep(long now) {
        if (bots.values().removeIf(b -> gone(b, now) && now - b.seenNanos > EXPIRY_NANOS)) {
            changes.incrementAndGet();
        }
    }

    /** Whether {@code b} has no connection: no WebSocket serves it, or over HTTP it went quiet. */
    private boolean gone(Bot b, long now) {
        if (!http) {
            return b.open.get() <= 0;
        }
        return b.beatWindowNanos != 0 ? !upOverHttp(b, now) : now - b.seenNanos > HTTP_IDLE_NANOS;
    }

    @Nullable Bot find(String selfId) {
        return bots.get(selfId);
    }

    int size() {
        return bots.size();
    }

    void opened(Bot b) {
        b.open.incrementAndGet();
        changes.incrementAndGet();
    }

    void closed(Bot b, Link link) {
        b.seenNanos = nanoTime.getAsLong(); // gone from now, if this was its last connection
        b.open.decrementAndGet();
        if (b.link == link) {
            b.link = null;
        }
        changes.incrementAndGet();
    }

    /** Over HTTP: {@code b} posted an event now. */
    void posted(Bot b) {
        b.seenNanos = nanoTime.getAsLong();
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
        long now = nanoTime.getAsLong();
        boolean wasDown = !upOverHttp(b, now);
        b.beatWindowNanos = TimeUnit.MILLISECONDS.toNanos(2 * intervalMs);
        b.lastBeatNanos = now;
        b.seenNanos = now;
        if (wasDown) {
            changes.incrementAndGet();
        }
    }

    private static boolean upOverHttp(Bot b, long now) {
        return b.beatWindowNanos == 0 || now - b.lastBeatNanos < b.beatWindowNanos;
    }

    /**
     * {@code onebot11:<self_id>} to whether it is up, in id order; {@code onebot11} alone, down, while no bot
     * is known. Over HTTP, up is judged by heartbeats (a bot that posted no heartbeat is up).
     */
    Map<String, Boolean> components() {
        Map<String, Boolean> out = new TreeMap<>();
        long now = nanoTime.getAsLong();
        for (Bot b : bots.values()) {
            out.put(prefix + b.selfId, b.online && (http ? upOverHttp(b, now) : b.open.get() > 0));
        }
        if (out.isEmpty()) {
            out.put(prefix.substring(0, prefix.length() - 1), false);
        }
        return out;
    }

    /**
     * At most {@code limit} of {@code components} (in their order), those down first: the rest are only
     * counted, in {@code unlisted[0]}.
     */
    static Map<String, Boolean> listed(Map<String, Boolean> components, int limit, int[] unlisted) {
        if (components.size() <= limit) {
            unlisted[0] = 0;
            return components;
        }
        Map<String, Boolean> out = new java.util.LinkedHashMap<>();
        for (boolean up : new boolean[] {false, true}) {
            for (Map.Entry<String, Boolean> e : components.entrySet()) {
                if (out.size() == limit) {
                    break;
                }
                if (e.getValue() == up) {
                    out.put(e.getKey(), up);
                }
            }
        }
        unlisted[0] = components.size() - out.size();
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

    /**
     * A number that changes whenever {@link #components} may have (HTTP heartbeats going late count too);
     * forgets the bots gone for {@link #EXPIRY_NANOS} first.
     */
    long state() {
        long now = nanoTime.getAsLong();
        sweep(now);
        if (!http) {
            return changes.get();
        }
        long late = 0;
        for (Bot b : bots.values()) {
            if (!upOverHttp(b, now)) {
                late++;
            }
        }
        return changes.get() * 1031 + late;
    }
}

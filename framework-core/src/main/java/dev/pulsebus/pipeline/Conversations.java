package dev.pulsebus.pipeline;

import dev.pulsebus.event.Ask;
import dev.pulsebus.event.AskException;
import dev.pulsebus.event.ChannelMessage;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.internal.ClockTimer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The pending asks of one pipeline ({@link MessageEvent#ask}), and the answers it finds for them.
 *
 * <h2>The message path</h2>
 * {@link #offer} runs for every inbound message before the command router. Asks are indexed by the
 * chat's own id string (the group's, the private chat's user's, the channel's), read from a field of
 * the event. In front of that map a bit per hash slot ({@link #maybe}, a Bloom filter with one hash: the
 * string's cached one) says whether any chat with an ask hashes there, so a message in a chat with no
 * pending ask usually costs one array read, else one {@link ConcurrentHashMap#get}, and allocates
 * nothing. Bits are set as asks are added and cleared by rebuilding the array from the map once removals
 * have left enough stale ones. A hit compares the full chat (platform and kind), then the asker's user
 * (unless the ask takes {@linkplain Ask#anyoneInChat() anyone}), then the ask's filters.
 *
 * <p>The bits are plain array elements, written under {@link #lock}: a message that answers an ask
 * reaches {@link #offer} through the prompt's delivery and the platform's reply, a chain of
 * synchronizing actions, so the ask's bit is visible to it; a message racing an ask it cannot have seen
 * may miss it, as it would miss an ask added a moment later.
 *
 * <h2>Bounds</h2>
 * At most {@code maxPerChat} asks per chat and {@code maxTotal} in all; a new ask beyond either fails the
 * oldest pending one (of the chat, or of all) with {@link AskException.Reason#EVICTED}, counted in
 * {@code pulsebus_asks_ended_total{result="evicted"}}. Timeouts run on the pipeline's clock through a
 * {@link ClockTimer}, so a test's fake clock moves them.
 *
 * <h2>Threads</h2>
 * Mutations take one lock (asks and answers are rare next to messages); the message path's probe takes
 * none. An answer and a {@code /cancel} complete their stages on the thread that delivered the message,
 * as an inline handler runs; timeouts complete theirs on a virtual thread, never on the timer's. Nothing
 * is persisted: a restart forgets every pending ask.
 */
final class Conversations implements AutoCloseable {

    private final ClockTimer timer;
    private final Duration defaultTimeout;
    private final int maxPerChat;
    private final int maxTotal;
    private final Set<String> cancelWords;
    private final Consumer<MessageEvent> cancelReply;

    /** Chat id -> its pending asks, oldest first (copy on write, replaced under {@link #lock}). */
    private final ConcurrentHashMap<String, Pending[]> byChat = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    /** Hash slots of chats with asks (bits); replaced by {@link #rebuildBits()} under {@link #lock}. */
    private volatile long[] maybe;
    private final int slotMask;
    /** Asks removed since the bits were last rebuilt. Guarded by {@link #lock}. */
    private int staleBits;
    /** Every pending ask, oldest first: a ring through {@link Pending#older}/{@link Pending#newer}. */
    private final Pending oldest = new Pending();
    private int total;
    private boolean closed;

    private final LongAdder started = new LongAdder();
    /** How asks ended, as {@code pulsebus_asks_ended_total{result}} names it, indexed as {@link #ends}. */
    private static final String[] RESULTS = {"answered", "timeout", "cancelled", "unloaded", "evicted", "closed"};
    private static final int ANSWERED = 0;
    private static final int TIMEOUT = 1;
    private static final int CANCELLED = 2;
    private static final int UNLOADED = 3;
    private static final int EVICTED = 4;
    private static final int CLOSED = 5;
    /**
     * The buckets of {@code pulsebus_asks_duration_seconds}: a person's answer takes seconds to minutes, past
     * the 10 s of the latency timers' buckets.
     */
    private static final Duration[] ASK_BUCKETS = {Duration.ofSeconds(1), Duration.ofMillis(2500),
        Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1),
        Duration.ofMinutes(2), Duration.ofMinutes(5), Duration.ofMinutes(10)};
    private final LongAdder[] ends = new LongAdder[RESULTS.length];
    /** The time from each ask to its end, by {@link #RESULTS}; null until {@link #bindMeters}. */
    private volatile Timer @Nullable [] durations;

    Conversations(ClockTimer timer, Duration defaultTimeout, int maxPerChat, int maxTotal, Set<String> cancelWords,
            Consumer<MessageEvent> cancelReply) {
        this.timer = timer;
        this.defaultTimeout = defaultTimeout;
        this.maxPerChat = maxPerChat;
        this.maxTotal = maxTotal;
        this.cancelWords = Set.copyOf(cancelWords.stream().map(w -> w.strip().toLowerCase(Locale.ROOT)).toList());
        this.cancelReply = cancelReply;
        for (int i = 0; i < ends.length; i++) {
            ends[i] = new LongAdder();
        }
        oldest.older = oldest;
        oldest.newer = oldest;
        int want = (int) Math.min(1L << 26, Math.max(64L, maxTotal) * 16L);
        int slots = Integer.highestOneBit(want - 1) << 1; // at most about 6 % of the bits set when full
        this.slotMask = slots - 1;
        this.maybe = new long[slots >>> 6];
    }

    /** The key of a message's chat in {@link #byChat}: a field of the event, never made. */
    private static String chatKey(MessageEvent m) {
        // instanceof tests, not a pattern switch: these inline to a class check each on the message path
        if (m instanceof GroupMessage g) {
            return g.groupId();
        }
        if (m instanceof PrivateMessage p) {
            return p.userId();
        }
        return ((ChannelMessage) m).channelId();
    }

    // ------------------------------------------------------------------ asking

    /**
     * Registers {@code ask} for the chat and user of {@code to}, then sends its prompt. The stage completes
     * with the answer or fails with an {@link AskException}; cancelling it (or failing it from outside)
     * withdraws the ask.
     */
    CompletableFuture<MessageEvent> ask(MessageEvent to, Ask ask) {
        Duration timeout = ask.timeout() != null ? ask.timeout() : defaultTimeout;
        Pending p = new Pending(chatKey(to), to.chat(), to.userId(), ask, new CompletableFuture<>(),
                timer.clock().millis());
        List<Pending> pushedOut = new ArrayList<>(0);
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new AskException(AskException.Reason.CLOSED,
                        "the pipeline is closed"));
            }
            String key = p.key;
            Pending[] current = byChat.get(key);
            int inChat = 0;
            Pending oldestInChat = null;
            if (current != null) {
                for (Pending q : current) {
                    if (q.chat.equals(p.chat)) {
                        inChat++;
                        if (oldestInChat == null) {
                            oldestInChat = q;
                        }
                    }
                }
            }
            if (inChat >= maxPerChat && oldestInChat != null && removeLocked(oldestInChat)) {
                pushedOut.add(oldestInChat);
            }
            current = byChat.get(key);
            Pending[] next = current == null ? new Pending[1] : Arrays.copyOf(current, current.length + 1);
            next[next.length - 1] = p;
            byChat.put(key, next);
            int slot = slot(key);
            maybe[slot >>> 6] |= 1L << slot;
            p.newer = oldest;
            p.older = oldest.older;
            oldest.older.newer = p;
            oldest.older = p;
            total++;
            while (total > maxTotal) {
                Pending first = oldest.newer;
                if (removeLocked(first)) {
                    pushedOut.add(first);
                }
            }
            long deadline = safeAdd(timer.clock().millis(), timeout.toMillis());
            p.timeout = timer.at(deadline, () -> expire(p));
        }
        started.increment();
        for (Pending q : pushedOut) {
            ended(q, EVICTED);
            q.future.completeExceptionally(new AskException(AskException.Reason.EVICTED,
                    "too many asks were pending; this was the oldest (" + q.ask.prompt() + ")"));
        }
        p.future.whenComplete((answer, failure) -> {
            // Completed from outside (an owner's unload, a cancel, a caller's own complete): withdraw it too.
            if (withdraw(p)) {
                ended(p, failure instanceof AskException ae && ae.reason() == AskException.Reason.UNLOADED ? UNLOADED
                        : failure != null ? CANCELLED : ANSWERED);
            }
        });
        if (!ask.prompt().isEmpty()) {
            to.reply(ask.prompt());
        }
        return p.future;
    }

    /** Counts how {@code p} ended, and the time it waited (on the pipeline's clock). */
    private void ended(Pending p, int result) {
        ends[result].increment();
        Timer[] timers = durations;
        if (timers != null) {
            timers[result].record(Math.max(0, timer.clock().millis() - p.startMillis), TimeUnit.MILLISECONDS);
        }
    }

    private static long safeAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    private void expire(Pending p) {
        if (withdraw(p)) {
            ended(p, TIMEOUT);
            Duration t = p.ask.timeout() != null ? p.ask.timeout() : defaultTimeout;
            Thread.ofVirtual().name("pulsebus-ask-timeout").start(() -> p.future.completeExceptionally(
                    new AskException(AskException.Reason.TIMEOUT, "no answer within " + t + " (" + p.ask.prompt() + ")")));
        }
    }

    private boolean withdraw(Pending p) {
        synchronized (lock) {
            return removeLocked(p);
        }
    }

    /** Takes {@code p} out of every table; false when it was out already. Holds {@link #lock}. */
    private boolean removeLocked(Pending p) {
        if (p.removed) {
            return false;
        }
        p.removed = true;
        p.older.newer = p.newer;
        p.newer.older = p.older;
        total--;
        ClockTimer.Timeout t = p.timeout;
        if (t != null) {
            t.cancel();
        }
        String key = p.key;
        Pending[] current = byChat.get(key);
        if (current != null) {
            if (current.length == 1) {
                byChat.remove(key);
                if (++staleBits > Math.max(1024, total)) {
                    rebuildBits();
                }
            } else {
                Pending[] next = new Pending[current.length - 1];
                int j = 0;
                for (Pending q : current) {
                    if (q != p && j < next.length) {
                        next[j++] = q;
                    }
                }
                byChat.put(key, next);
            }
        }
        return true;
    }

    /** The filter slot of a chat key: the string's cached hash, spread. */
    private int slot(String key) {
        int h = key.hashCode();
        return (h ^ (h >>> 16)) & slotMask;
    }

    /** New bits from the chats that have asks now. Holds {@link #lock}. */
    private void rebuildBits() {
        long[] bits = new long[maybe.length];
        for (String key : byChat.keySet()) {
            int slot = slot(key);
            bits[slot >>> 6] |= 1L << slot;
        }
        maybe = bits;
        staleBits = 0;
    }

    // ------------------------------------------------------------------ the message path

    /**
     * Gives {@code message} to the asks pending in its chat; returns whether one consumed it (then it must
     * not be routed or published). With no ask in the chat: a bit test (a map probe when another chat shares
     * its bit), no allocation.
     */
    boolean offer(MessageEvent message) {
        String key = chatKey(message);
        int slot = slot(key);
        if ((maybe[slot >>> 6] & (1L << slot)) == 0) {
            return false;
        }
        Pending[] asks = byChat.get(key);
        return asks != null && answer(message, asks);
    }

    private boolean answer(MessageEvent message, Pending[] asks) {
        ChatRef chat = message.chat();
        String user = message.userId();
        if (!cancelWords.isEmpty() && isCancel(message) && cancel(asks, chat, user)) {
            cancelReply.accept(message);
            return true;
        }
        boolean consumed = false;
        for (Pending p : asks) {
            if (!p.chat.equals(chat) || !(p.ask.anyone() || p.user.equals(user))) {
                continue;
            }
            boolean observing = p.ask.observes();
            if ((observing || !consumed) && p.ask.accepts(message) && withdraw(p)) {
                ended(p, ANSWERED);
                consumed |= !observing;
                p.future.complete(message);
            }
        }
        return consumed;
    }

    private boolean isCancel(MessageEvent message) {
        String text = message.message().commandText(message.self().userId());
        return text.length() <= 64 && cancelWords.contains(text.strip().toLowerCase(Locale.ROOT));
    }

    /** Ends the asks of {@code chat} that {@code user} could answer; returns whether there were any. */
    private boolean cancel(Pending[] asks, ChatRef chat, String user) {
        boolean any = false;
        for (Pending p : asks) {
            if (p.chat.equals(chat) && (p.ask.anyone() || p.user.equals(user)) && withdraw(p)) {
                any = true;
                ended(p, CANCELLED);
                p.future.completeExceptionally(new AskException(AskException.Reason.CANCELLED,
                        "cancelled by " + user + " (" + p.ask.prompt() + ")"));
            }
        }
        return any;
    }

    // ------------------------------------------------------------------ bookkeeping

    /** How many asks are pending. */
    int pending() {
        synchronized (lock) {
            return total;
        }
    }

    /** Fails every pending ask ({@link AskException.Reason#CLOSED}) and refuses new ones. Idempotent. */
    @Override
    public void close() {
        List<Pending> all = new ArrayList<>();
        synchronized (lock) {
            closed = true;
            while (oldest.newer != oldest) {
                Pending p = oldest.newer;
                removeLocked(p);
                all.add(p);
            }
        }
        timer.close();
        for (Pending p : all) {
            ended(p, CLOSED);
            p.future.completeExceptionally(new AskException(AskException.Reason.CLOSED, "the pipeline closed"));
        }
    }

    /** Registers the {@code pulsebus.asks.*} meters in {@code registry}, adding them to {@code meters}. */
    void bindMeters(MeterRegistry registry, List<Meter> meters) {
        meters.add(FunctionCounter.builder("pulsebus.asks.started", started, LongAdder::sum)
                .description("Asks made (a question waiting for a chat's next message)").register(registry));
        String ended = "Asks ended, by how: answered, timeout, cancelled, unloaded (owner gone), evicted (the oldest "
                + "when too many were pending), closed";
        Timer[] timers = new Timer[RESULTS.length];
        for (int i = 0; i < RESULTS.length; i++) {
            meters.add(FunctionCounter.builder("pulsebus.asks.ended", ends[i], LongAdder::sum)
                    .tag("result", RESULTS[i]).description(ended).register(registry));
            timers[i] = Timer.builder("pulsebus.asks.duration").tag("result", RESULTS[i])
                    .description("From an ask to its end (the answer, the timeout, the cancel, ...), by how it "
                            + "ended: the time a dialog waited for the user, which command timers leave out")
                    .serviceLevelObjectives(ASK_BUCKETS).register(registry);
            meters.add(timers[i]);
        }
        durations = timers;
        meters.add(Gauge.builder("pulsebus.asks.pending", this, Conversations::pending)
                .description("Asks waiting for an answer").register(registry));
    }

    /** One pending ask; its links are guarded by {@link #lock}. */
    private static final class Pending {
        final String key;
        final ChatRef chat;
        final String user;
        final Ask ask;
        final CompletableFuture<MessageEvent> future;
        Pending older;
        Pending newer;
        boolean removed;
        ClockTimer.@Nullable Timeout timeout;
        /** When it was asked, on the pipeline's clock. */
        final long startMillis;

        Pending(String key, ChatRef chat, String user, Ask ask, CompletableFuture<MessageEvent> future,
                long startMillis) {
            this.key = key;
            this.chat = chat;
            this.user = user;
            this.ask = ask;
            this.future = future;
            this.startMillis = startMillis;
        }

        /** The ring's head. */
        @SuppressWarnings("NullAway") // the head is its own neighbour, set by the constructor of Conversations
        Pending() {
            this.key = "";
            this.chat = ChatRef.group("-", "-");
            this.user = "";
            this.ask = Ask.of("");
            this.future = new CompletableFuture<>();
            this.startMillis = 0;
        }
    }
}

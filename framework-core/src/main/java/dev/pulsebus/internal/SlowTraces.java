package dev.pulsebus.internal;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Traces of slow command calls, built on Micrometer's Observation API: each command call is an observation
 * ({@value #COMMAND}), and what it does on the way are its children: each KV call ({@value #KV}), each reply
 * until the platform answered it ({@value #REPLY}), each wait for a user's answer ({@value #ASK}). This
 * handler keeps, of the calls that took {@code bus.slow_handler_ms} or longer (waits for answers left out, as
 * the slow-call check does), the last {@link #KEPT} as {@link Trace}s: the time the message waited in its
 * lane and for the transcript writer before the call, then every child with its time. A handler a user adds
 * to the same registry (Micrometer Tracing with an OTLP exporter, say) sees the same observations.
 *
 * <p>Bounded: {@link #KEPT} traces of at most {@link #MAX_SPANS} spans each; a slow call whose children still
 * run when it returns (a reply not answered yet, a KV write not committed yet) is held until they end, at most
 * {@link #KEPT} of them (past that it is kept with what it has). Thread-safe. Internal to PulseBus:
 * not an API.
 */
public final class SlowTraces implements ObservationHandler<SlowTraces.Call> {

    public static final String COMMAND = "pulsebus.command";
    public static final String KV = "pulsebus.kv";
    public static final String REPLY = "pulsebus.reply";
    public static final String ASK = "pulsebus.ask";
    public static final int KEPT = 100;
    public static final int MAX_SPANS = 64;

    private final long thresholdNanos;
    private final ArrayDeque<Trace> kept = new ArrayDeque<>();
    private int waiting;

    /** @param threshold a call this long or longer is kept; zero keeps none */
    public SlowTraces(Duration threshold) {
        this.thresholdNanos = Require.notNegative(threshold, "threshold").toNanos();
    }

    /** A registry with this handler: the one the bot's command router, pipeline and modules observe into. */
    public static ObservationRegistry registry(SlowTraces traces) {
        ObservationRegistry r = ObservationRegistry.create();
        r.observationConfig().observationHandler(traces);
        return r;
    }

    /** The threshold, in milliseconds. */
    public long thresholdMillis() {
        return thresholdNanos / 1_000_000;
    }

    /**
     * The observation of a part of a command's call, {@code what} ({@link #KV}, {@link #REPLY}, {@link #ASK})
     * named {@code name}, not started: a child of the call observed on this thread. Without one ({@link #within}
     * is false), {@link Observation#NOOP}.
     */
    public static Observation child(@Nullable ObservationRegistry registry, String what, String name) {
        if (!within(registry)) {
            return Observation.NOOP; // not within a command: nothing to trace it in
        }
        return Observation.createNotStarted(what, () -> new Call(what, name), registry).contextualName(name);
    }

    /** Whether a command's call is observed on this thread: a child of it would be traced. */
    public static boolean within(@Nullable ObservationRegistry registry) {
        return registry != null && !registry.isNoop() && registry.getCurrentObservation() != null;
    }

    /** An observation's context: what it is, when it ran, and for a command its children. */
    public static final class Call extends Observation.Context {
        final String what;
        final String label;
        long begin;
        long end;
        private final long startedMillis = System.currentTimeMillis();
        private final @Nullable String module;
        private final @Nullable String chat;
        private final @Nullable String user;
        private long queuedNanos;
        private long transcriptNanos;
        private long waitedNanos;
        private @Nullable String outcome;
        /** Drawn when first asked for. */
        private @Nullable String traceId;
        /** Ended, and not slow: its late children are not kept. Guarded by this. */
        private boolean fast;
        /** Children ended so far, and how many are still running (a reply, a write not yet committed). Guarded by this. */
        private @Nullable List<Span> spans;
        private int childrenOut;
        private int spansDropped;
        private boolean ended;

        Call(String what, String label) {
            this(what, label, null, null, null, 0, 0);
        }

        /**
         * A command's call: its module, chat and user, and how long its message waited before it: in its lane,
         * and handing its record to the transcript writer.
         */
        public Call(String what, String label, @Nullable String module, @Nullable String chat, @Nullable String user,
                    long queuedNanos, long transcriptNanos) {
            this.what = what;
            this.label = label;
            this.module = module;
            this.chat = chat;
            this.user = user;
            this.queuedNanos = queuedNanos;
            this.transcriptNanos = transcriptNanos;
            if (module != null) {
                addLowCardinalityKeyValues(KeyValues.of("module", module, "command", label));
            }
        }

        /** How the call ended ({@code ok}, {@code error}, ...), once it has. */
        public void outcome(String outcome) {
            this.outcome = outcome;
            addLowCardinalityKeyValue(io.micrometer.common.KeyValue.of("outcome", outcome));
        }

        /** Time this command's call spent waiting for a user's answer: not its slowness. */
        public void waited(long nanos) {
            this.waitedNanos = nanos;
        }

        /** Whether it is a command's call (not one of its parts). */
        public boolean isCommand() {
            return what.equals(COMMAND);
        }

        /** The id its trace is kept under, and the exemplars of what is timed within it name. */
        public synchronized String traceId() {
            String id = traceId;
            if (id == null) {
                traceId = id = Long.toHexString(ThreadLocalRandom.current().nextLong() | 1L << 63);
            }
            return id;
        }
    }

    /** One part of a trace: its kind, name, start from the call's start and duration, in nanoseconds. */
    public record Span(String kind, String name, long startNanos, long durationNanos) {
    }

    /**
     * A slow command's call: which, where, when, how long in all (waits for answers included) and how long its
     * own code ran (the total less its KV calls, the replies it waited for, and its waits for answers), and
     * its spans ({@code queued} and {@code transcript} before the call, negative starts).
     */
    public record Trace(String traceId, String module, String command, String chat, String user, Instant started,
                        String outcome, long totalNanos, long ownNanos, List<Span> spans, int spansDropped) {
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof Call;
    }

    @Override
    public void onStart(Call call) {
        call.begin = System.nanoTime();
        if (!call.what.equals(COMMAND) && parent(call) instanceof Call command) {
            synchronized (command) {
                command.childrenOut++;
            }
        }
    }

    @Override
    public void onStop(Call call) {
        call.end = System.nanoTime();
        if (call.what.equals(COMMAND)) {
            ended(call);
        } else if (parent(call) instanceof Call command) {
            child(command, call);
        }
    }

    private static Observation.@Nullable ContextView parent(Call call) {
        var parent = call.getParentObservation();
        return parent == null ? null : parent.getContextView();
    }

    private void child(Call command, Call child) {
        Trace done = null;
        synchronized (command) {
            if (command.fast) {
                return; // ended, and not slow: nothing of it is kept
            }
            if (command.spans == null) {
                command.spans = new ArrayList<>(4);
            }
            if (command.spans.size() < MAX_SPANS) {
                command.spans.add(new Span(kindOf(child.what), child.label, child.begin - command.begin,
                        child.end - child.begin));
            } else {
                command.spansDropped++;
            }
            if (--command.childrenOut == 0 && command.ended && slow(command)) {
                done = trace(command);
            }
        }
        if (done != null) {
            synchronized (this) {
                waiting--;
            }
            keep(done);
        }
    }

    private boolean slow(Call command) {
        return thresholdNanos > 0 && command.end - command.begin - command.waitedNanos >= thresholdNanos;
    }

    private void ended(Call command) {
        if (!slow(command)) {
            synchronized (command) {
                command.fast = true;
                command.spans = null;
            }
            return;
        }
        Trace done;
        synchronized (command) {
            command.ended = true;
            done = command.childrenOut == 0 ? trace(command) : null;
        }
        if (done != null) {
            keep(done);
            return;
        }
        synchronized (this) {
            if (waiting >= KEPT) { // too many waiting for their children: keep it now, with what it has
                synchronized (command) {
                    command.childrenOut = -1_000_000; // its late children keep nothing
                    done = trace(command);
                }
            } else {
                waiting++;
            }
        }
        if (done != null) {
            keep(done);
        }
    }

    private static String kindOf(String what) {
        return switch (what) {
            case KV -> "kv";
            case REPLY -> "reply";
            case ASK -> "ask";
            default -> what;
        };
    }

    /** The command's trace, from what it has now. Called holding its lock. */
    private static Trace trace(Call c) {
        List<Span> spans = new ArrayList<>();
        if (c.queuedNanos > 0) {
            spans.add(new Span("queued", "", -c.queuedNanos - c.transcriptNanos, c.queuedNanos));
        }
        if (c.transcriptNanos > 0) {
            spans.add(new Span("transcript", "", -c.transcriptNanos, c.transcriptNanos));
        }
        List<Span> children = c.spans == null ? List.of() : new ArrayList<>(c.spans);
        children.sort(Comparator.comparingLong(Span::startNanos));
        spans.addAll(children);
        long total = c.end - c.begin;
        long own = total - covered(children, total);
        return new Trace(c.traceId(), c.module == null ? "" : c.module, c.label, c.chat == null ? "" : c.chat,
                c.user == null ? "" : c.user, Instant.ofEpochMilli(c.startedMillis), c.outcome == null ? "" : c.outcome,
                total, Math.max(0, own),
                List.copyOf(spans), c.spansDropped);
    }

    /** How much of {@code [0, total)} the spans cover, overlaps counted once. */
    private static long covered(List<Span> sorted, long total) {
        long covered = 0;
        long reach = 0;
        for (Span s : sorted) {
            long from = Math.max(reach, Math.max(0, s.startNanos()));
            long to = Math.min(total, s.startNanos() + s.durationNanos());
            if (to > from) {
                covered += to - from;
                reach = to;
            }
        }
        return covered;
    }

    private synchronized void keep(Trace t) {
        kept.addLast(t);
        while (kept.size() > KEPT) {
            kept.removeFirst();
        }
    }

    /** The kept traces, newest first. */
    public synchronized List<Trace> traces() {
        List<Trace> out = new ArrayList<>(kept);
        java.util.Collections.reverse(out);
        return out;
    }
}

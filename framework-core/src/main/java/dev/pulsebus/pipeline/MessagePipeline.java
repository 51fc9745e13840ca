package dev.pulsebus.pipeline;

import dev.pulsebus.internal.Require;
import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.Outcome;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.ClockTimer;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.LruTable;
import dev.pulsebus.internal.RunningHandler;
import dev.pulsebus.internal.SlowTraces;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptWriter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The path of a platform message, in and out:
 *
 * <pre>
 * adapter -> deduplicate -> middleware (priority order) -> transcript -> pending asks -> command router -> event bus
 *                                                                          | hit                | miss
 *                                                                          v                    v
 *                                                                      command handler    subscribers
 *                                                                          \____ reply ____/
 *                                                                                 v
 *                                                     transcript &lt;- adapter.send &lt;- outbound
 * </pre>
 *
 * <p>{@link #accept} runs the inbound path on the adapter's thread; commands and inline handlers run
 * there too, so an adapter on an I/O thread should have its commands and subscribers be non-blocking or
 * blocking subscriptions ({@link dev.pulsebus.bus.SubscriptionBuilder#blocking()}).
 *
 * <p><b>Deduplication:</b> the last {@code dedupeCapacity} event ids are remembered (one table for all platforms,
 * keyed by platform and id); a repeat is dropped and counted. <b>Replies</b>, from a command's {@code call.reply}, an
 * event's {@code reply}, or {@link #message(Self)} to any chat, go through the platform's adapter; the returned stage
 * completes with the platform's message id or fails, and every failure is also counted in {@code
 * pulsebus_messages_sent_total{result="failed"}} and logged. Sent messages are recorded in the transcript too.
 *
 * <p><b>Asks</b> ({@link MessageEvent#ask}) wait for a chat's next message: a message that answers one is
 * consumed before the router sees it ({@link InboundResult#ANSWERED}); with no ask pending in its chat a
 * message pays a bit test (and a map probe when another chat shares its bit). Bounded per chat and in all ({@link Builder#maxAsks}); nothing survives a
 * restart.
 *
 * <p>The pipeline owns its adapters and its transcript writer: {@link #close()} stops and closes them.
 * The bus and the router are the caller's.
 */
public final class MessagePipeline implements Inbound, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MessagePipeline.class);

    private final EventBus bus;
    private final CommandRouter router;
    private final Map<String, Adapter> adapters;
    /** Copy-on-write: the inbound path reads one volatile array; {@link #addMiddleware} replaces it. */
    private volatile Ranked[] middlewares;
    private int middlewareOrder;
    private final TranscriptWriter transcripts;
    /** {@code null}: every chat. */
    private final @Nullable Predicate<ChatRef> recorded;
    private final LruTable<Boolean> seen;
    private final Locale locale;
    private final Clock clock;
    private final MeterRegistry registry;
    private final @Nullable ObservationRegistry observations;
    private final List<Meter> meters = new ArrayList<>();
    private final ReplyChannel replies = new Replies();
    private final Conversations conversations;
    private final HandlerWatch handlerWatch;

    private final LongAdder received = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder middlewareErrors = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder sendFailures = new LongAdder();
    private final FailureLog sendLog = new FailureLog(LOG, "Sending a message");
    private final FailureLog middlewareLog = new FailureLog(LOG, "A middleware");
    /** The adapters started, in start order. Guarded by {@code this}. */
    private final List<Adapter> running = new ArrayList<>();

    private MessagePipeline(Builder b) {
        this.bus = b.bus;
        this.router = b.router;
        this.adapters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.adapters)); // start order: as added
        Ranked[] ranked = b.middlewares.toArray(new Ranked[0]);
        Arrays.sort(ranked);
        this.middlewares = ranked;
        this.middlewareOrder = b.middlewares.size();
        this.transcripts = b.transcripts;
        this.recorded = b.recorded;
        this.seen = new LruTable<>(b.dedupeCapacity);
        this.locale = b.locale;
        this.clock = b.clock;
        this.registry = b.meterRegistry;
        this.observations = b.observations;
        this.handlerWatch = new HandlerWatch(b.stallAfter);
        this.conversations = new Conversations(new ClockTimer("pulsebus-ask-timer", clock, b.askRecheck),
                b.askTimeout, b.maxAsksPerChat, b.maxAsks, b.cancelWords, this::cancelled);
        bindMeters();
    }

    public static Builder builder(EventBus bus) {
        return new Builder(bus);
    }

    /**
     * Stops every adapter (no more inbound events; each finishes what it holds) and leaves sending and
     * transcripts working, so that code still running (a module unloading) can reply before
     * {@link #close()}. Idempotent.
     */
    public synchronized void stopAdapters() {
        for (int i = running.size() - 1; i >= 0; i--) { // newest first
            Adapter a = running.get(i);
            try {
                a.stop();
            } catch (Exception | LinkageError e) {
                LOG.warn("Adapter for {} failed to stop: {}", a.platform(), e.toString());
            }
        }
        running.clear();
    }

    /**
     * Starts every adapter; events flow from then on. When one fails to start, those already started are
     * stopped again (newest first) before the failure is thrown: a failed start leaves nothing running.
     */
    public synchronized MessagePipeline start() throws Exception {
        if (!running.isEmpty()) {
            return this;
        }
        try {
            for (Adapter a : adapters.values()) {
                running.add(a); // before its start: one that fails part way is stopped too
                a.start(this);
            }
        } catch (Exception | Error e) {
            stopAdapters();
            throw e;
        }
        return this;
    }

    // ------------------------------------------------------------------ inbound

    @Override
    public InboundResult accept(Event event) {
        received.increment();
        if (!firstSighting(event)) {
            duplicates.increment();
            return InboundResult.DUPLICATE;
        }
        event = bind(event);
        for (Ranked r : middlewares) {
            Event next;
            try {
                next = r.middleware.handle(event);
            } catch (Throwable t) {
                middlewareErrors.increment();
                middlewareLog.failed(t, "on event " + event.id() + "; the event passed on unchanged");
                continue;
            }
            if (next == null) {
                dropped.increment();
                return InboundResult.DROPPED;
            }
            event = bind(next);
        }
        if (event instanceof MessageEvent me) {
            if (transcripts != null && recorded(me.chat())) {
                long handing = System.nanoTime(); // waits while the writer's buffer is full: part of a slow trace
                transcripts.record(me.chat(), me.userId(), me.time(), me.messageId(), me.message(), false);
                RunningHandler.transcriptWaited(System.nanoTime() - handing);
            }
            if (conversations.offer(me)) {
                return InboundResult.ANSWERED;
            }
            if (router != null) {
                Outcome outcome = router.route(new MessageCommandSource(me, locale, this));
                if (outcome.matched() || (outcome == Outcome.UNKNOWN && router.answersUnknown())) {
                    return InboundResult.COMMAND;
                }
            }
        }
        bus.publish(event);
        return InboundResult.PUBLISHED;
    }

    /**
     * What watches the handlers its adapters' {@link ChatLanes} run: a run past {@link Builder#stallAfter} is
     * reported ({@code pulsebus_handler_stalled}) and its lane's other chats go on.
     */
    @Override
    public HandlerWatch handlerWatch() {
        return handlerWatch;
    }

    private boolean recorded(ChatRef chat) {
        return recorded == null || recorded.test(chat);
    }

    private boolean firstSighting(Event event) {
        String key = event.self().platform() + '\u0000' + event.id();
        synchronized (seen) {
            if (seen.get(key) != null) {
                return false;
            }
            seen.put(key, Boolean.TRUE);
            return true;
        }
    }

    private Event bind(Event event) {
        return event instanceof MessageEvent me && me.replyChannel() != replies ? me.withReplyChannel(replies) : event;
    }

    // ------------------------------------------------------------------ outbound

    /**
     * Sends through the adapter of the chat's platform. The stage completes with the platform's message
     * id, or fails (no adapter for the platform, the adapter's own failure); failures are also counted
     * and logged.
     */
    public CompletionStage<String> send(OutboundMessage message) {
        // within a command's call: a span of its trace, until the platform answered
        Observation reply = !SlowTraces.within(observations) ? Observation.NOOP : SlowTraces.child(observations,
                SlowTraces.REPLY, "to " + message.chat().platform() + " " + message.chat().id()).start();
        Adapter adapter = adapters.get(message.chat().platform());
        CompletionStage<String> stage;
        if (adapter == null) {
            stage = CompletableFuture.failedFuture(new IllegalStateException(
                    "no adapter for platform '" + message.chat().platform() + "'"));
        } else {
            try {
                stage = Objects.requireNonNull(adapter.send(message), "adapter returned no stage");
            } catch (Throwable t) {
                stage = CompletableFuture.failedFuture(t);
            }
        }
        CompletionStage<String> sent = stage.whenComplete(new Sent(message));
        if (reply != Observation.NOOP) {
            sent = sent.whenComplete((id, failure) -> {
                if (failure != null) {
                    reply.error(failure);
                }
                reply.stop();
            });
        }
        ReplyWatch.sent(sent);
        return sent;
    }

    /** Counts a send's outcome and records a sent message. */
    private final class Sent implements BiConsumer<String, Throwable> {
        private final OutboundMessage message;

        Sent(OutboundMessage message) {
            this.message = message;
        }

        @Override
        public void accept(String id, Throwable failure) {
            if (failure == null) {
                sent.increment();
                if (transcripts != null && recorded(message.chat())) {
                    recordSent(message, id);
                }
            } else {
                sendFailures.increment();
                sendLog.failed(failure, "to " + message.chat());
            }
        }
    }

    /** How replies and asks made through a {@link MessageEvent} leave: through this pipeline. */
    private final class Replies implements ReplyChannel {
        @Override
        public CompletionStage<String> reply(MessageEvent to, Message message) {
            return send(new OutboundMessage(to.self(), to.chat(), message, to.messageId()));
        }

        @Override
        public CompletionStage<MessageEvent> ask(MessageEvent to, Ask ask) {
            return conversations.ask(to, ask);
        }
    }

    /**
     * Asks the chat of {@code to} as {@link MessageEvent#ask(Ask)} does. The returned future is the ask's
     * own: completing or cancelling it from outside (an owner going away) withdraws the ask.
     */
    public CompletableFuture<MessageEvent> ask(MessageEvent to, Ask ask) {
        return conversations.ask(bind(to) instanceof MessageEvent bound ? bound : to, Objects.requireNonNull(ask, "ask"));
    }

    /**
     * The step of {@link #accept} that gives a message to the asks pending in its chat, for an inbound path
     * that routes by itself (and the benchmark): returns whether an ask consumed it, so that it must not be
     * routed or published. With no ask pending in the chat: a bit test (a map probe when another chat shares
     * its bit), no allocation.
     */
    public boolean offerToAsks(MessageEvent message) {
        return conversations.offer(message);
    }

    /** Events given to the pipeline by every adapter since the start, duplicates included. */
    public long eventsReceived() {
        return received.sum();
    }

    /**
     * Events that went on to an ask, a command or the bus, since the start: those received that were neither
     * duplicates nor dropped by a middleware.
     */
    public long eventsHandled() {
        return Math.max(0, received.sum() - duplicates.sum() - dropped.sum());
    }

    /** How many asks are pending, in every chat. */
    public int pendingAsks() {
        return conversations.pending();
    }

    /** Answers a {@code /cancel} that ended asks, in the pipeline's language. */
    private void cancelled(MessageEvent message) {
        String text = router != null ? router.text(locale, "ask.cancelled") : "Cancelled.";
        reply(message, text);
    }

    private void recordSent(OutboundMessage message, String id) {
        try {
            transcripts.record(message.chat(), message.bot().userId(), clock.instant(), id, message.message(), true);
        } catch (IllegalStateException closed) {
            LOG.debug("Sent message not recorded: the transcript writer is closed");
        }
    }

    /** Starts a message from {@code bot} to any chat on its platform. */
    public Outgoing message(Self bot) {
        return new Outgoing(this, bot);
    }

    /** A command's answer: sent, and a failure is counted and logged (the command has returned). */
    CompletionStage<String> reply(MessageEvent to, String text) {
        return send(new OutboundMessage(to.self(), to.chat(), Message.text(text), to.messageId()));
    }

    // ------------------------------------------------------------------ transcripts

    /**
     * The last {@code n} messages of {@code chat} before {@code beforeSeq}, oldest first, including those
     * not yet written; empty when transcripts are off.
     */
    public List<TranscriptRecord> history(ChatRef chat, int n, long beforeSeq) throws Exception {
        return transcripts == null ? List.of() : transcripts.history(chat, n, beforeSeq);
    }

    /** {@link #close(Duration)} with 10 s for the transcripts. */
    @Override
    public void close() throws Exception {
        close(Duration.ofSeconds(10));
    }

    /**
     * Stops the adapters, then writes and closes the transcripts, giving them at most {@code timeout}
     * ({@link TranscriptWriter#close(Duration)}: what is not stored by then is spilled). Idempotent.
     */
    public void close(Duration timeout) throws Exception {
        stopAdapters();
        handlerWatch.close();
        conversations.close();
        if (transcripts != null) {
            transcripts.close(timeout);
        }
        if (registry != null) {
            meters.forEach(registry::remove);
            meters.clear();
        }
    }

    private void bindMeters() {
        if (registry == null) {
            return;
        }
        counter("pulsebus.messages.received", received, "Inbound events", null);
        counter("pulsebus.messages.duplicates", duplicates, "Inbound events dropped as repeats of a recent id", null);
        counter("pulsebus.messages.dropped", dropped, "Inbound events dropped by a middleware", null);
        counter("pulsebus.pipeline.middleware.errors", middlewareErrors, "Middleware failures", null);
        counter("pulsebus.messages.sent", sent, "Outbound messages by result", "ok");
        counter("pulsebus.messages.sent", sendFailures, "Outbound messages by result", "failed");
        conversations.bindMeters(registry, meters);
        meters.add(io.micrometer.core.instrument.Gauge.builder("pulsebus.handler.stalled", handlerWatch,
                        HandlerWatch::stalled)
                .description("Handler runs past bus.stall_ms now, not yet returned").register(registry));
        meters.add(FunctionCounter.builder("pulsebus.messages.dedupe.evictions", seen, LruTable::evictions)
                .description("Event ids forgotten by the deduplication table").register(registry));
    }

    private void counter(String name, LongAdder adder, String description, String result) {
        FunctionCounter.Builder<LongAdder> b = FunctionCounter.builder(name, adder, LongAdder::sum).description(description);
        if (result != null) {
            b.tag("result", result);
        }
        meters.add(b.register(registry));
    }

    /**
     * Adds a middleware while the pipeline runs (higher priorities first, then in the order added); the
     * returned handle removes it. Events already inside the chain finish with the chain they started with.
     */
    @SuppressWarnings("ReferenceEquality") // removes this registration's entry, whatever else equals it
    public Registration addMiddleware(int priority, Middleware middleware) {
        Objects.requireNonNull(middleware, "middleware");
        Ranked added;
        synchronized (this) {
            added = new Ranked(middleware, priority, middlewareOrder++);
            Ranked[] next = Arrays.copyOf(middlewares, middlewares.length + 1);
            next[next.length - 1] = added;
            Arrays.sort(next);
            middlewares = next;
        }
        return () -> {
            synchronized (this) {
                middlewares = Arrays.stream(middlewares).filter(r -> r != added).toArray(Ranked[]::new);
            }
        };
    }

    /**
     * A middleware added with {@link #addMiddleware}; {@link #remove()} takes it out (idempotent), and so
     * does {@link #close()}.
     */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {
        void remove();

        /** The same as {@link #remove()}. */
        @Override
        default void close() {
            remove();
        }
    }

    /** Ordered by priority descending, then in the order added. */
    private record Ranked(Middleware middleware, int priority, int order) implements Comparable<Ranked> {
        @Override
        public int compareTo(Ranked o) {
            return priority != o.priority ? Integer.compare(o.priority, priority) : Integer.compare(order, o.order);
        }
    }

    /** A message being composed: {@code pipeline.message(bot).to(chat).text("hi").send()}. */
    public static final class Outgoing {
        private final MessagePipeline pipeline;
        private final Self bot;
        private ChatRef chat;
        private Message message;
        private String replyTo;

        private Outgoing(MessagePipeline pipeline, Self bot) {
            this.pipeline = pipeline;
            this.bot = Objects.requireNonNull(bot, "bot");
        }

        public Outgoing to(ChatRef chat) {
            this.chat = chat;
            return this;
        }

        public Outgoing text(String text) {
            this.message = Message.text(text);
            return this;
        }

        public Outgoing message(Message message) {
            this.message = message;
            return this;
        }

        public Outgoing replyTo(String messageId) {
            this.replyTo = messageId;
            return this;
        }

        public CompletionStage<String> send() {
            if (chat == null || message == null) {
                return CompletableFuture.failedFuture(new IllegalStateException("a message needs a chat and a body"));
            }
            return pipeline.send(new OutboundMessage(bot, chat, message, replyTo));
        }
    }

    /** Settings of a {@link MessagePipeline}. */
    public static final class Builder {
        private final EventBus bus;
        private CommandRouter router;
        private final Map<String, Adapter> adapters = new LinkedHashMap<>();
        private final List<Ranked> middlewares = new ArrayList<>();
        private TranscriptWriter transcripts;
        private @Nullable Predicate<ChatRef> recorded;
        private int dedupeCapacity = 4096;
        private Locale locale = Locale.ENGLISH;
        private Clock clock = Clock.systemUTC();
        private MeterRegistry meterRegistry;
        private @Nullable ObservationRegistry observations;
        private Duration askTimeout = Duration.ofMinutes(5);
        private int maxAsksPerChat = 16;
        private int maxAsks = 10_000;
        private Set<String> cancelWords = Set.of("/cancel");
        private Duration askRecheck = Duration.ofSeconds(1);
        private Duration stallAfter = Duration.ofSeconds(10);

        private Builder(EventBus bus) {
            this.bus = Objects.requireNonNull(bus, "bus");
        }

        /** Commands are routed before the bus; without a router every event goes to the bus. */
        public Builder commands(CommandRouter router) {
            this.router = Objects.requireNonNull(router, "router");
            return this;
        }

        /** Adds the adapter of a platform (one per platform). */
        public Builder adapter(Adapter adapter) {
            if (adapters.putIfAbsent(adapter.platform(), adapter) != null) {
                throw new IllegalArgumentException("platform '" + adapter.platform() + "' already has an adapter");
            }
            return this;
        }

        /** Adds a middleware at priority 0. */
        public Builder middleware(Middleware middleware) {
            return middleware(0, middleware);
        }

        /** Adds a middleware; higher priorities run first, equal ones in the order added. */
        public Builder middleware(int priority, Middleware middleware) {
            middlewares.add(new Ranked(Objects.requireNonNull(middleware, "middleware"), priority, middlewares.size()));
            return this;
        }

        /** Records messages in and out through this writer (owned by the pipeline from now). Default: off. */
        public Builder transcripts(TranscriptWriter writer) {
            this.transcripts = Objects.requireNonNull(writer, "writer");
            return this;
        }

        /** Which chats are recorded when transcripts are on. Default: all. */
        public Builder recordWhen(Predicate<ChatRef> chats) {
            this.recorded = Objects.requireNonNull(chats, "chats");
            return this;
        }

        /** Event ids remembered for deduplication. Default 4096. */
        public Builder dedupeCapacity(int capacity) {
            this.dedupeCapacity = Require.atLeast(capacity, 1, "dedupeCapacity");
            return this;
        }

        /** The language of command answers (platform events carry none). Default English. */
        public Builder locale(Locale locale) {
            this.locale = Objects.requireNonNull(locale, "locale");
            return this;
        }

        /** The time recorded for sent messages. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Where a reply sent within a command's call is observed ({@value SlowTraces#REPLY}, until the platform
         * answered it): the registry the command router observes calls into. Default: none.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** How long an ask waits for its answer unless it says otherwise ({@link Ask#timeout}). Default 5 min. */
        public Builder askTimeout(Duration timeout) {
            this.askTimeout = Require.positive(timeout, "askTimeout");
            return this;
        }

        /** Pending asks kept per chat; a new one beyond it ends the chat's oldest. Default 16. */
        public Builder maxAsksPerChat(int max) {
            this.maxAsksPerChat = Require.atLeast(max, 1, "maxAsksPerChat");
            return this;
        }

        /** Pending asks kept in all; a new one beyond it ends the oldest. Default 10,000. */
        public Builder maxAsks(int max) {
            this.maxAsks = Require.atLeast(max, 1, "maxAsks");
            return this;
        }

        /**
         * The messages that cancel the sender's pending asks in a chat (compared without case and surrounding
         * spaces), answered with the catalogue's {@code ask.cancelled}. Default {@code /cancel}; none turns
         * cancelling off.
         */
        public Builder cancelWords(String... words) {
            this.cancelWords = Set.of(words);
            return this;
        }

        /**
         * How often the ask timer reads the clock at least, so a clock that jumps (a test's fake clock)
         * is noticed within it; with a steady clock timeouts fire on time whatever this is. Default 1 s.
         */
        public Builder askRecheck(Duration every) {
            this.askRecheck = Require.positive(every, "askRecheck");
            return this;
        }

        /**
         * How long a handler run on an adapter's {@link ChatLanes} may take before it is reported stalled (a WARN
         * naming the command, {@code pulsebus_handler_stalled}) and its lane's other chats move on without it.
         * Default 10 s ({@code bus.stall_ms}); zero: never.
         */
        public Builder stallAfter(Duration after) {
            this.stallAfter = Require.notNegative(after, "stallAfter");
            return this;
        }

        public MessagePipeline build() {
            return new MessagePipeline(this);
        }
    }
}

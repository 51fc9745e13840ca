package dev.pulsebus.server;

import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.cluster.Redelivery;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.HandlerWatch;
import dev.pulsebus.pipeline.Inbound;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.OutboundMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A platform adapter (OneBot, Telegram) in a cluster: the events it receives go through the broker to the
 * instance that holds their chat's partition, which handles them (in order per chat, taken over when an instance
 * dies), and whose replies leave through its own adapter of the platform. Meta events (heartbeats, lifecycle)
 * are about this instance's connection and stay here.
 *
 * <p>A platform that sends each event to every instance connected to it (OneBot over a WebSocket to each) has
 * each instance hand over its copy ({@link Cluster#dispatchCopy}): the holder handles the first copy and drops
 * the others, so an event is handled once, and the events of a chat in the order the platform sent them. An
 * event the broker does not confirm within {@link #HAND_OVER_WAIT_MILLIS} (broker down, queue full) is handled
 * here rather than lost (and by the holder too, should the broker have stored it after all).
 */
final class ClusteredAdapter implements Adapter {

    private static final Logger LOG = LoggerFactory.getLogger(ClusteredAdapter.class);
    /** The broker kind of a platform's events: this prefix, then the platform. */
    static final String KIND_PREFIX = "event:";
    static final long HAND_OVER_WAIT_MILLIS = 5_000;

    private final Adapter platform;
    private final Cluster cluster;
    private final String kind;
    private final FailureLog handOverFailures = FailureLog.warning(LOG, java.time.Duration.ofSeconds(10));
    private volatile @Nullable Inbound pipeline;
    final LongAdder handedOver = new LongAdder();
    final LongAdder handledHere = new LongAdder();

    /** @param recording times each reply's record ({@code pulsebus_cluster_reply_record_seconds}) */
    ClusteredAdapter(Adapter platform, Cluster cluster, io.micrometer.core.instrument.Timer recording) {
        this.recording = recording;
        this.platform = platform;
        this.cluster = cluster;
        this.kind = KIND_PREFIX + platform.platform();
    }

    String kind() {
        return kind;
    }

    @Override
    public String platform() {
        return platform.platform();
    }

    @Override
    public void start(Inbound inbound) throws Exception {
        this.pipeline = inbound;
        platform.start(new Inbound() { // its lanes watched by the pipeline: a broker down, events run here
            @Override
            public InboundResult accept(Event event) {
                return handOver(event);
            }

            @Override
            public HandlerWatch handlerWatch() {
                return inbound.handlerWatch();
            }
        });
    }

    /**
     * A reply made while this instance handles an event handed over ({@link #handle}, on the partition's thread) is
     * recorded in Redis once the platform took it, by the event and the reply's place among the event's replies;
     * so when the event is redelivered (this instance died before acknowledging it), the instance that runs it
     * again sends only the replies not recorded. A reply the platform took but whose record was not made (the
     * instance died within that round trip to Redis) is sent again. Other sends go straight to the platform.
     */
    @Override
    public CompletionStage<String> send(OutboundMessage message) {
        Handling h = HANDLING.get();
        if (h == null) {
            return platform.send(message);
        }
        int nth = ++h.made;
        if (Redelivery.current()) {
            String before = cluster.sentBefore(h.eventId, nth);
            if (before != null) {
                notResent.increment();
                return CompletableFuture.completedFuture(before);
            }
        }
        return platform.send(message).thenCompose(sent -> {
            long answered = System.nanoTime();
            return cluster.recordSent(h.eventId, nth, sent).thenApply(ok -> {
                recording.record(System.nanoTime() - answered, TimeUnit.NANOSECONDS);
                return sent;
            });
        });
    }

    /** The event {@link #handle} runs on this thread, and how many replies it made so far. */
    private static final ThreadLocal<Handling> HANDLING = new ThreadLocal<>();

    private static final class Handling {
        final String eventId;
        int made;

        Handling(String eventId) {
            this.eventId = eventId;
        }
    }

    /** Replies of redelivered events found sent by the instance that handled them before, not sent again. */
    final LongAdder notResent = new LongAdder();
    /**
     * From the platform's answer to a reply to its record in Redis: the part of the window in which a reply the
     * platform took is not recorded, so that a redelivery sends it again (the rest is the answer's way back).
     */
    private final io.micrometer.core.instrument.Timer recording;

    @Override
    public void stop() throws Exception {
        platform.stop();
    }

    /** An event this instance's adapter received: to the broker (see the class comment). */
    private InboundResult handOver(Event event) {
        Inbound in = pipeline;
        if (in == null) {
            throw new IllegalStateException("not started");
        }
        if (event instanceof MetaEvent) {
            return in.accept(event);
        }
        String id = eventId(event);
        try {
            cluster.dispatchCopy(kind, key(event), id, EventCodec.encode(event)).toCompletableFuture()
                    .get(HAND_OVER_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            handedOver.increment();
            return InboundResult.PUBLISHED;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            handOverFailures.warn("A {} event was not handed to the cluster ({}); handling it here", platform(),
                    e instanceof ExecutionException x && x.getCause() != null ? x.getCause() : e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        handledHere.increment();
        return in.accept(event);
    }

    /** An event handed over by an instance (this one too), of a partition this instance holds. */
    void handle(byte[] body) {
        Inbound in = pipeline;
        if (in == null) {
            throw new IllegalStateException("an event of " + platform() + " arrived before its adapter started");
        }
        Event event = EventCodec.decode(body);
        HANDLING.set(new Handling(eventId(event)));
        try {
            in.accept(event);
        } finally {
            HANDLING.remove();
        }
    }

    /** The event's id in the cluster (the dedupe set's, the reply records'). */
    private String eventId(Event event) {
        return platform() + ":" + event.id();
    }

    /** The partition key: the chat for a message, else the bot (its notices and requests in order). */
    static String key(Event event) {
        if (event instanceof MessageEvent m) {
            return m.chat().platform() + "/" + m.chat().detailType() + "/" + m.chat().id();
        }
        return event.self().platform() + "/self/" + event.self().userId();
    }
}

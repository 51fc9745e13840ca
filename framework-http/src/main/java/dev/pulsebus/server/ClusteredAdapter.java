package dev.pulsebus.server;

import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.HandlerWatch;
import dev.pulsebus.pipeline.Inbound;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.OutboundMessage;
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

    ClusteredAdapter(Adapter platform, Cluster cluster) {
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

    @Override
    public CompletionStage<String> send(OutboundMessage message) {
        return platform.send(message);
    }

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
        String id = platform() + ":" + event.id();
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
        in.accept(EventCodec.decode(body));
    }

    /** The partition key: the chat for a message, else the bot (its notices and requests in order). */
    static String key(Event event) {
        if (event instanceof MessageEvent m) {
            return m.chat().platform() + "/" + m.chat().detailType() + "/" + m.chat().id();
        }
        return event.self().platform() + "/self/" + event.self().userId();
    }
}

package dev.pulsebus.cluster;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.SharedControls;
import dev.pulsebus.module.ScheduleClaims;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * This instance's part in a cluster of PulseBus instances that act as one bot (see {@code docs/CLUSTER.md}):
 * events handed to {@link #dispatch} are handled by exactly one instance (the one holding the key's partition),
 * in order per key, with failover; {@link #broadcast} reaches every other instance; {@link #controls()} are the
 * cooldowns, rate limits and quotas shared in Redis, and a dedupe set there recognises an event redelivered after
 * it was handled; {@link #lease} gives a task to one instance at a time (a Redis key with a time to live).
 * Built on RabbitMQ and Redis; no election or consensus of its own.
 *
 * <p>Thread-safe. {@link #start} begins taking events: call it once the handlers can run them.
 */
public final class Cluster implements AutoCloseable, dev.pulsebus.platform.InstanceMessaging {

    /** Handles one event of a partition this instance holds, on that partition's thread, in order. */
    @FunctionalInterface
    public interface EventHandler {
        /**
         * Handles one event.
         *
         * @param kind        what {@code body} is, as given to {@link #dispatch}
         * @param redelivered the event was given to another instance before, which died or let its partition go
         *                    (spreading the partitions) before it acknowledged it (also {@link Redelivery#current()}
         *                    while this runs)
         */
        void handle(String kind, byte[] body, boolean redelivered) throws Exception;

        /**
         * A redelivered event found handled in the dedupe set (its instance died after marking it done, before its
         * acknowledgement): it is not handled again, but given here, on the partition's thread, for a handler
         * whose events' senders wait for an answer that may have been lost with that instance. Does nothing by
         * default.
         */
        default void handledBefore(String kind, byte[] body) throws Exception {
        }
    }

    /** The kind of the HTTP chat API's said messages (and of events from an instance that sent no kind). */
    public static final String ROOM_KIND = "room";

    /** A platform's messages ({@link #receive}): kinds starting with {@code kindPrefix}. */
    private record Receiver(String kindPrefix, BiConsumer<String, byte[]> receiver) {
    }

    private final java.util.List<Receiver> receivers = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** How long a handled event's id stays in the dedupe set: longer than any redelivery takes. */
    static final long DEDUPE_TTL_MILLIS = 3_600_000;

    private final ClusterSettings settings;
    private final RedisState redis;
    private final Broker broker;
    private final ClusterEvents events;
    final LongAdder remoteWakeups = new LongAdder();

    private Cluster(ClusterSettings settings, String namespace, String redisPrefix, int maxQueued)
            throws IOException, TimeoutException {
        this.settings = settings;
        this.redis = new RedisState(settings.redis(), redisPrefix, settings.instance());
        try {
            this.broker = new Broker(settings.broker(), namespace, settings.instance(), settings.partitions(), redis,
                    DEDUPE_TTL_MILLIS, maxQueued);
        } catch (IOException | TimeoutException | RuntimeException e) {
            redis.close();
            throw e;
        }
        this.events = new ClusterEvents(broker);
    }

    /**
     * Joins the cluster as {@code settings.instance()}: connects to the broker (and declares its exchanges and
     * queues) and to Redis (which may be down: the controls then stand in on local tables until it answers).
     *
     * @throws IOException when the broker cannot be reached or refuses the topology, or its queues were made
     *                     for another {@code cluster.partitions}
     */
    public static Cluster join(ClusterSettings settings) throws IOException {
        return join(settings, "pulsebus", "pulsebus:");
    }

    /** {@link #join(ClusterSettings)} with the broker's names and Redis keys under names of their own (tests). */
    public static Cluster join(ClusterSettings settings, String namespace, String redisPrefix) throws IOException {
        return join(settings, namespace, redisPrefix, Broker.MAX_QUEUED);
    }

    /** {@link #join(ClusterSettings, String, String)} with partitions' queues of {@code maxQueued} events (tests). */
    static Cluster join(ClusterSettings settings, String namespace, String redisPrefix, int maxQueued)
            throws IOException {
        if (!settings.enabled() || settings.instance().isEmpty()) {
            throw new IllegalArgumentException("the cluster is not enabled, or this instance has no name: " + settings);
        }
        try {
            return new Cluster(settings, namespace, redisPrefix, maxQueued);
        } catch (TimeoutException e) {
            throw new IOException("the broker at " + settings.broker().getHost() + ":" + settings.broker().getPort()
                    + " did not answer", e);
        } catch (IOException e) {
            throw new IOException("cannot join the cluster through the broker at " + settings.broker().getHost() + ":"
                    + settings.broker().getPort() + ": " + (e.getMessage() != null ? e.getMessage() : e.getCause()), e);
        }
    }

    /**
     * Removes the cluster named {@code namespace} from the broker: its exchanges and queues, with the events they
     * hold (a test's, or a cluster retired or re-partitioned while every instance is stopped).
     */
    public static void deleteFromBroker(ClusterSettings settings, String namespace) throws IOException {
        try {
            Broker.delete(settings.broker(), namespace, settings.partitions());
        } catch (TimeoutException e) {
            throw new IOException("the broker did not answer", e);
        }
    }

    @Override
    public String instance() {
        return settings.instance();
    }

    /** Cooldowns, rate limits and quotas shared in Redis, for the command router. */
    public SharedControls controls() {
        return redis;
    }

    /**
     * Hands an event to the instance that holds {@code key}'s partition (every event of one key goes to the same
     * one, in the order they are handed over). Completes once the broker has stored it.
     *
     * @param kind what {@code body} is, handed to the holder's {@link EventHandler} with it
     * @param id the event's id, unique in the cluster: a redelivery of an event already handled is recognised by it
     */
    public CompletionStage<Void> dispatch(String kind, String key, String id, byte[] body) {
        return broker.dispatch(kind, key, id, body, false);
    }

    /**
     * {@link #dispatch} for an event that other instances may hand over too, each copy with the same {@code id}
     * (a platform that sends each event to every instance connected to it): the holder handles the first copy it
     * gets and drops the others, found in the dedupe set (counted in {@code pulsebus_cluster_copies_dropped_total}).
     * The first copies reach the holder in the order the platform sent the events, whichever instance's copy
     * each is. While Redis is down the dedupe set cannot answer: the holder's pipeline still drops a copy whose
     * id it saw lately, but not once the partition has moved.
     */
    public CompletionStage<Void> dispatchCopy(String kind, String key, String id, byte[] body) {
        return broker.dispatch(kind, key, id, body, true);
    }

    /** Sends {@code body} to the broadcast handler of every other instance (at most once each; not confirmed). */
    @Override
    public void broadcast(String kind, byte[] body) {
        broker.broadcast(kind, body);
    }

    /**
     * Sends {@code body} to the broadcast handler of the one instance reached at {@code address} (its
     * {@link #address()}), as {@code kind}: at most once, not confirmed, lost when that instance is gone.
     */
    @Override
    public void send(String address, String kind, byte[] body) {
        broker.send(address, kind, body);
    }

    /**
     * Where {@link #send} reaches this instance, for the answer to a request it broadcasts; empty before
     * {@link #start}. It changes when the client recovers the broker connection.
     */
    @Override
    public String address() {
        return broker.address();
    }

    /**
     * Claims {@code id} for this instance for {@code ttlMillis} ({@code SET NX PX} in Redis): true for the first
     * instance to ask, false for the others. True also while Redis cannot answer (then more than one may).
     */
    @Override
    public boolean claim(String id, long ttlMillis) {
        return redis.claim(id, ttlMillis);
    }

    /**
     * The id the platform gave reply {@code nth} (from 1) of event {@code eventId} when an instance that handled the
     * event before recorded it sent ({@link #recordSent}); null when none did (the reply was not sent, or sent and
     * not recorded: its instance died in between), or Redis cannot answer. Asked while a redelivered event runs
     * again, so that it sends only the replies that were not sent.
     */
    public @Nullable String sentBefore(String eventId, int nth) {
        return redis.sent(eventId, nth);
    }

    /**
     * Records that reply {@code nth} (from 1) of event {@code eventId} was sent, and the platform's id for it, for
     * as long as the dedupe set keeps a handled event; completes once Redis has it, with false when Redis could not
     * take it (a redelivery would send it again).
     */
    public CompletionStage<Boolean> recordSent(String eventId, int nth, String sentId) {
        return redis.recordSent(eventId, nth, sentId, DEDUPE_TTL_MILLIS);
    }

    /**
     * {@inheritDoc}
     *
     * <p>In Redis, under the cluster's prefix ({@code lease:<name>}): taken with a {@code SET ... PX} when nobody
     * holds it and renewed with {@code PEXPIRE} while it still holds this run's value (one Lua script, so a
     * lease another took after ours expired is never renewed as ours). The value is the instance's name and a
     * token of this run.
     */
    @Override
    public Lease lease(String name, long ttlMillis) {
        long r = redis.lease(name, ttlMillis);
        return r == 1 ? Lease.HELD : r == 0 ? Lease.ELSEWHERE : Lease.UNKNOWN;
    }

    @Override
    public void release(String name) {
        redis.release(name);
    }

    /**
     * Modules' cron jobs run each time on one instance, one run of a job at a time in the cluster: the first
     * instance to claim the job's time in Redis (the claim kept an hour: instances' clocks differ by less) runs
     * it, unless a run of the job still goes (its mark, set with the claim, kept until that run ends or for the
     * run's hold). While Redis cannot answer, each instance runs it.
     */
    public ScheduleClaims scheduleClaims() {
        return new ScheduleClaims() {
            @Override
            public Claim claim(String job, Instant time, Duration hold) {
                long r = redis.scheduleClaim(job, time.toEpochMilli(), holder(time), SCHEDULE_CLAIM_MILLIS,
                        Math.max(1, hold.toMillis()));
                return r == 1 ? Claim.ELSEWHERE : r == 2 ? Claim.BUSY : Claim.RUN;
            }

            @Override
            public void ended(String job, Instant time) {
                redis.scheduleEnded(job, holder(time));
            }

            private String holder(Instant time) {
                return instance() + "@" + time.toEpochMilli();
            }
        };
    }

    private static final long SCHEDULE_CLAIM_MILLIS = 3_600_000;

    /** Counts a waiting poll of this instance woken by another instance's message (for {@code /metrics}). */
    public void wokeRemotely(int polls) {
        remoteWakeups.add(polls);
    }

    /** Clustered events: what a module publishes there reaches the bus of every instance. */
    public ClusterEvents events() {
        return events;
    }

    /**
     * Runs {@code r} whenever this instance is given a partition (another instance held it, or none did), on the
     * partition's thread, before the first of its events is handled here: what this instance writes for the
     * partition's chats from then on must come after what the previous holder wrote (a shared seq taken anew).
     * Set before {@link #start}.
     */
    public void onPartitionGained(Runnable r) {
        broker.gained = r;
    }

    /**
     * Starts taking this instance's share of events (handled by {@code handler}) and the broadcasts of the others
     * ({@code broadcasts}, by kind; clustered events go to {@code bus}).
     */
    public void start(EventHandler handler, BiConsumer<String, byte[]> broadcasts, EventBus bus) throws IOException {
        events.deliverTo(bus);
        broker.start(handler, (kind, body) -> {
            if (events.received(kind, body)) {
                return;
            }
            for (Receiver r : receivers) {
                if (kind.startsWith(r.kindPrefix)) {
                    r.receiver.accept(kind, body);
                    return;
                }
            }
            broadcasts.accept(kind, body);
        });
    }

    /** Hands the messages of kinds starting with {@code kindPrefix} to {@code receiver} before the broadcast handler. */
    @Override
    public void receive(String kindPrefix, BiConsumer<String, byte[]> receiver) {
        receivers.add(new Receiver(kindPrefix, receiver));
    }

    /** Whether the broker connection is open and Redis answers; a cluster with Redis down is DEGRADED. */
    public boolean brokerUp() {
        return broker.connected();
    }

    public boolean redisUp() {
        return redis.up();
    }

    /** Times this instance let a partition go to spread the partitions (tests, {@code /metrics}). */
    long steppedBack() {
        return broker.steppedBack.sum();
    }

    /** Partitions this instance holds now. */
    public int partitionsHeld() {
        return broker.partitionsHeld();
    }

    /** The {@code /health} component: engines, partitions. */
    public Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("status", !brokerUp() ? "DOWN" : !redisUp() ? "DEGRADED" : "UP");
        h.put("instance", instance());
        h.put("broker", brokerUp() ? "UP" : "DOWN");
        h.put("redis", redisUp() ? "UP" : "DOWN");
        h.put("partitions", settings.partitions());
        h.put("partitions_held", partitionsHeld());
        return h;
    }

    /** {@code pulsebus_cluster_*} meters. */
    public void bindMeters(MeterRegistry registry) {
        broker.meters.add(registry); // the timers of the events' way through the broker
        Gauge.builder("pulsebus.cluster.partitions.held", this, Cluster::partitionsHeld)
                .description("Partitions (queues) this instance holds now").register(registry);
        Gauge.builder("pulsebus.cluster.broker.up", this, c -> c.brokerUp() ? 1 : 0)
                .description("1 while the broker connection is open").register(registry);
        Gauge.builder("pulsebus.cluster.redis.up", this, c -> c.redisUp() ? 1 : 0)
                .description("1 while Redis answers (0: controls on this instance's own tables)").register(registry);
        counter(registry, "pulsebus.cluster.events.dispatched", broker.dispatched, "Events handed to the broker");
        counter(registry, "pulsebus.cluster.events.refused", broker.refused,
                "Events the broker refused (their partition's queue full), their says answered 503");
        counter(registry, "pulsebus.cluster.events.handled", broker.handled, "Events of held partitions handled here");
        counter(registry, "pulsebus.cluster.redeliveries", broker.redeliveries,
                "Events redelivered here after another instance had them unacknowledged");
        counter(registry, "pulsebus.cluster.dedupe.hits", redis.dedupeHits,
                "Redelivered events found already handled (dedupe set) and not handled again");
        counter(registry, "pulsebus.cluster.partitions.released", broker.steppedBack,
                "Partitions this instance let go to the next instance in line, to spread them evenly");
        counter(registry, "pulsebus.cluster.copies.dropped", redis.copiesDropped,
                "Copies of an event handed over by several instances, dropped as handled already");
        counter(registry, "pulsebus.cluster.remote.wakeups", remoteWakeups,
                "Waiting polls answered here for a message of another instance");
        counter(registry, "pulsebus.cluster.redis.outages", redis.outages,
                "Times Redis stopped answering (controls fell back to local tables)");
    }

    private static void counter(MeterRegistry registry, String name, LongAdder value, String description) {
        FunctionCounter.builder(name, value, LongAdder::sum).description(description).register(registry);
    }

    /** Leaves the cluster: closes the broker connection (its unacknowledged events go to the next instance). */
    @Override
    public void close() {
        broker.close();
        redis.close();
    }

    @Override
    public String toString() {
        return "Cluster[" + settings + "]";
    }

    /** Drops the broker connection as a killed process would (tests). */
    void abort() {
        broker.abort();
    }

    RedisState redisState() {
        return redis;
    }

    long refused() {
        return broker.refused.sum();
    }
}

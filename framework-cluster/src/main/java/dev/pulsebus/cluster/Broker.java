package dev.pulsebus.cluster;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RabbitMQ side of a cluster. Inbound events go to a direct exchange ({@code <ns>.dispatch}) bound to
 * {@code partitions} quorum queues ({@code <ns>.events.<i>}, routing key {@code <i>}), each with a single active
 * consumer: every instance consumes every queue, the broker lets one consumer per queue have its messages, and when
 * that consumer's connection goes (kill -9 closes its socket) the broker gives the queue, with the messages it had
 * not acknowledged, to the next one. The publishing instance computes a key's partition itself ({@link #partition},
 * the same on every instance, as the partition count is fixed by configuration and checked against the broker's
 * queues at start), so no broker plugin is needed. A chat's key always goes to the same queue, so a chat is handled
 * by one instance at a time, in the order its events reached the broker. Events are acknowledged after they were
 * handled.
 *
 * <p>What every instance must see (room wake-ups, clustered events) goes to a fanout exchange
 * ({@code <ns>.broadcast}), one exclusive queue per instance. Publishing events waits for the broker's confirm
 * (the caller's future); broadcasts do not.
 *
 * <p>No election, lease or membership of our own: which instance holds a queue is the broker's single active
 * consumer. Which partitions this instance holds is learnt from deliveries: each instance sends a small ping
 * through every queue every {@link #PING_MILLIS}, and a queue counts as held while its deliveries keep coming.
 * The broker gives a queue to the first consumer in line, so an instance holding more than its share lets the
 * excess go ({@link #balanceLoop}); the broker then gives each to the next in line.
 */
final class Broker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    static final long PING_MILLIS = 2_000;
    /** How long {@link #close} waits for the events being handled to finish. */
    static final long DRAIN_MILLIS = 3_000;
    /**
     * Events a partition's queue holds at most (its holder down or behind); past it the broker refuses new ones
     * ({@code reject-publish}): the dispatch fails, the say gets 503, counted in {@link #refused}.
     */
    static final int MAX_QUEUED = 100_000;
    private static final String KIND = "pulsebus-kind";
    private static final String FROM = "pulsebus-from";
    private static final String PING = "ping";
    /** Set on an event that other instances may hand over too: the holder handles the first copy it gets. */
    private static final String COPY = "pulsebus-copy";

    private final String namespace;
    private final String instance;
    private final int partitions;
    private final RedisState redis;
    private final long dedupeTtlMillis;
    /** Each partition's routing key, {@code "0"} to {@code partitions - 1} (made once: none per dispatch). */
    private final String[] routes;
    private final ExecutorService deliveries = Executors.newVirtualThreadPerTaskExecutor();
    /**
     * Acknowledges handled events once their done marks are in Redis, in the order the marks were answered (never
     * on Redis's I/O thread: an acknowledgement can wait for the broker's socket). Holds at most the events
     * delivered and not yet acknowledged: 256 a partition.
     */
    private final ExecutorService acks = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("pulsebus-cluster-acks").factory());
    private final Connection connection;
    private final Channel publisher;
    private final ConcurrentNavigableMap<Long, CompletableFuture<Void>> unconfirmed = new ConcurrentSkipListMap<>();
    private final Object publishing = new Object();
    private final AtomicLongArray lastDelivery;
    /**
     * Each partition's consumer, on a channel of its own; replaced when it is gone (this instance stepped back
     * from the partition, or its channel shut down: see {@link #repair}).
     */
    private final AtomicReferenceArray<PartitionConsumer> consumers;
    /** The consumer to step back from its partition at its next delivery (the balancer's request), else null. */
    private final AtomicReferenceArray<PartitionConsumer> leaving;
    private volatile Cluster.@Nullable EventHandler handler;
    private volatile @Nullable Thread pinger;
    private volatile @Nullable Thread balancer;
    private volatile boolean closed;
    /** Events being handled now, on any partition's thread ({@link #close} lets them finish). */
    private final java.util.concurrent.atomic.AtomicInteger handling = new java.util.concurrent.atomic.AtomicInteger();
    /** Run when this instance is given a partition, before its first event is handled here. */
    volatile @Nullable Runnable gained;
    /** This instance's broadcast queue, which {@link #send} reaches directly. */
    private volatile String address = "";
    /** The cluster's timers; {@link Cluster#bindMeters} adds the server's registry to it. */
    final io.micrometer.core.instrument.composite.CompositeMeterRegistry meters =
            new io.micrometer.core.instrument.composite.CompositeMeterRegistry();
    private final io.micrometer.core.instrument.Timer confirmTime = timer("pulsebus.cluster.dispatch.confirm",
            "From handing an event to the broker to the broker's confirm");
    private final io.micrometer.core.instrument.Timer deliveryTime = timer("pulsebus.cluster.event.delivery",
            "From an event's publish (the publishing instance's clock) to its delivery to its partition's holder");
    private final io.micrometer.core.instrument.Timer handlingTime = timer("pulsebus.cluster.event.handling",
            "From an event's delivery to the end of its handling on its partition's thread (its replies waited for)");
    private final io.micrometer.core.instrument.Timer settleTime = timer("pulsebus.cluster.event.settle",
            "From the end of an event's handling to its acknowledgement (its done mark in Redis first)");
    private final io.micrometer.core.instrument.Timer broadcastTime = timer("pulsebus.cluster.broadcast.delivery",
            "From a broadcast's publish (the publishing instance's clock) to its arrival here");
    final LongAdder dispatched = new LongAdder();
    final LongAdder handled = new LongAdder();
    final LongAdder redeliveries = new LongAdder();
    final LongAdder broadcastsReceived = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder steppedBack = new LongAdder();

    Broker(URI uri, String namespace, String instance, int partitions, RedisState redis, long dedupeTtlMillis)
            throws IOException, TimeoutException {
        this(uri, namespace, instance, partitions, redis, dedupeTtlMillis, MAX_QUEUED);
    }

    Broker(URI uri, String namespace, String instance, int partitions, RedisState redis, long dedupeTtlMillis,
           int maxQueued) throws IOException, TimeoutException {
        this.namespace = namespace;
        this.instance = instance;
        this.partitions = partitions;
        this.redis = redis;
        this.dedupeTtlMillis = dedupeTtlMillis;
        this.lastDelivery = new AtomicLongArray(partitions);
        this.consumers = new AtomicReferenceArray<>(partitions);
        this.leaving = new AtomicReferenceArray<>(partitions);
        this.routes = new String[partitions];
        for (int i = 0; i < partitions; i++) {
            routes[i] = Integer.toString(i);
        }
        ConnectionFactory f = new ConnectionFactory();
        try {
            f.setUri(uri);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalArgumentException("cluster.broker: " + e.getMessage(), e);
        }
        f.setAutomaticRecoveryEnabled(true);
        f.setTopologyRecoveryEnabled(true);
        f.setNetworkRecoveryInterval(1000);
        f.setConnectionTimeout(5000);
        f.setRequestedHeartbeat(10);
        this.connection = f.newConnection(deliveries, "pulsebus " + instance);
        try {
            checkPartitions();
        } catch (IOException | RuntimeException e) {
            connection.abort();
            throw e;
        }
        try (Channel setup = connection.createChannel()) {
            setup.exchangeDeclare(events(), "direct", true);
            setup.exchangeDeclare(broadcast(), "fanout", true);
            setup.queueDeclare(members(), false, false, true, null); // never holds a message: see members()
            for (int i = 0; i < partitions; i++) {
                setup.queueDeclare(queue(i), true, false, false,
                        Map.of("x-queue-type", "quorum", "x-single-active-consumer", true, "x-max-length", maxQueued,
                                "x-overflow", "reject-publish"));
                setup.queueBind(queue(i), events(), routes[i]);
            }
        }
        this.publisher = connection.createChannel();
        publisher.confirmSelect();
        publisher.addConfirmListener((tag, multiple) -> confirmed(tag, multiple, null),
                (tag, multiple) -> confirmed(tag, multiple, new IOException("the broker refused the event (its partition's "
                        + "queue is full: " + maxQueued + " events)")));
        publisher.addShutdownListener(this::publisherLost);
    }

    /**
     * Refuses to join a cluster whose queues on the broker were made for another partition count: every instance
     * computes a chat's partition itself, so two counts would hand one chat to two instances at once. The queues
     * are the record (the broker keeps them, durable): with {@code partitions} of them, queue {@code partitions - 1}
     * exists and queue {@code partitions} does not. A cluster re-partitioned is deleted from the broker first,
     * every instance stopped ({@link Cluster#deleteFromBroker}).
     */
    private void checkPartitions() throws IOException {
        boolean first = exists(queue(0));
        if (exists(queue(partitions))) {
            throw new IOException("the cluster '" + namespace + "' on this broker has more than " + partitions
                    + " partitions (queue " + queue(partitions) + " exists); every instance must have the same "
                    + "cluster.partitions (to change it, stop every instance and delete the cluster's queues)");
        }
        if (first && partitions > 1 && !exists(queue(partitions - 1))) {
            throw new IOException("the cluster '" + namespace + "' on this broker has fewer than " + partitions
                    + " partitions (queue " + queue(partitions - 1) + " is missing); every instance must have the "
                    + "same cluster.partitions (to change it, stop every instance and delete the cluster's queues)");
        }
    }

    /** Whether queue {@code name} exists (a passive declare, on a channel of its own: a miss closes it). */
    private boolean exists(String name) throws IOException {
        try (Channel ch = connection.createChannel()) {
            ch.queueDeclarePassive(name);
            return true;
        } catch (IOException e) {
            if (e.getCause() instanceof ShutdownSignalException s && !s.isHardError()
                    && s.getReason() instanceof AMQP.Channel.Close close && close.getReplyCode() == AMQP.NOT_FOUND) {
                return false;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new IOException("closing a channel timed out", e);
        } catch (com.rabbitmq.client.AlreadyClosedException e) {
            return false; // the passive declare's 404 closed the channel before try-with-resources did
        }
    }

    /**
     * The partition of {@code key} among {@code partitions}: the same on every instance and every JVM (it
     * depends only on {@link String#hashCode}, which the language fixes), its bits mixed (MurmurHash3's
     * finalizer) so that keys that differ in their last character still spread.
     */
    static int partition(String key, int partitions) {
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return Math.floorMod(h, partitions);
    }

    /** Deletes a cluster's exchanges and {@code partitions} queues, with what they hold. */
    static void delete(URI uri, String namespace, int partitions) throws IOException, TimeoutException {
        ConnectionFactory f = new ConnectionFactory();
        try {
            f.setUri(uri);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalArgumentException("cluster.broker: " + e.getMessage(), e);
        }
        try (Connection c = f.newConnection("pulsebus cleanup"); Channel ch = c.createChannel()) {
            for (int i = 0; i < partitions; i++) {
                ch.queueDelete(namespace + ".events." + i);
            }
            ch.queueDelete(namespace + ".members");
            ch.exchangeDelete(namespace + ".dispatch");
            ch.exchangeDelete(namespace + ".events"); // the consistent-hash exchange of earlier builds
            ch.exchangeDelete(namespace + ".broadcast");
        }
    }

    /** The direct exchange that routes an event to its partition's queue. */
    String events() {
        return namespace + ".dispatch";
    }

    String broadcast() {
        return namespace + ".broadcast";
    }

    String queue(int partition) {
        return namespace + ".events." + partition;
    }

    /**
     * A queue every instance consumes and nothing is sent to: its consumer count, kept by the broker (a dead
     * instance's connection closes and its consumer goes), is how many instances share the partitions.
     */
    String members() {
        return namespace + ".members";
    }

    boolean connected() {
        return connection.isOpen();
    }

    /** Partitions whose deliveries came to this instance lately (see the class comment). */
    int partitionsHeld() {
        int held = 0;
        for (int i = 0; i < partitions; i++) {
            if (held(i)) {
                held++;
            }
        }
        return held;
    }

    /**
     * Sends an event to the instance that holds {@code key}'s partition; completes once the broker has it
     * (stored in its queue), fails when it refuses it or the connection is lost first.
     */
    CompletionStage<Void> dispatch(String kind, String key, String id, byte[] body, boolean copy) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long at = nowMicros();
        long started = System.nanoTime();
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2)
                .headers(copy ? Map.of(KIND, kind, COPY, true, AT, at) : Map.of(KIND, kind, AT, at)).build();
        done.whenComplete((v, failed) -> confirmTime.record(System.nanoTime() - started, TimeUnit.NANOSECONDS));
        synchronized (publishing) {
            long tag = publisher.getNextPublishSeqNo();
            unconfirmed.put(tag, done);
            try {
                publisher.basicPublish(events(), routes[partition(key, partitions)], props, body);
            } catch (IOException | RuntimeException e) {
                unconfirmed.remove(tag);
                done.completeExceptionally(e);
                return done;
            }
        }
        dispatched.increment();
        return done;
    }

    /** Sends {@code body} to every other instance's broadcast handler, as {@code kind}. */
    void broadcast(String kind, byte[] body) {
        publishUnconfirmed(broadcast(), "", kind, body);
    }

    /**
     * Sends {@code body} to the broadcast handler of the one instance whose {@link #address()} is {@code to}, as
     * {@code kind} (at most once; lost when that instance is gone).
     */
    void send(String to, String kind, byte[] body) {
        publishUnconfirmed("", to, kind, body);
    }

    /** Where {@link #send} reaches this instance: its broadcast queue's name (empty until started). */
    String address() {
        return address;
    }

    private void publishUnconfirmed(String exchange, String routingKey, String kind, byte[] body) {
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .headers(Map.of(KIND, kind, FROM, instance, AT, nowMicros())).build();
        synchronized (publishing) {
            long tag = publisher.getNextPublishSeqNo();
            try {
                publisher.basicPublish(exchange, routingKey, props, body);
            } catch (IOException | RuntimeException e) {
                LOG.warn("A {} message to other instances was not sent: {}", kind, e.toString());
            }
            // confirms of broadcasts are not waited for: take the tag out of the way of dispatch's
            unconfirmed.remove(tag);
        }
    }

    private void confirmed(long tag, boolean multiple, @Nullable Exception failure) {
        Map<Long, CompletableFuture<Void>> done = multiple ? unconfirmed.headMap(tag, true) : unconfirmed.subMap(tag, true, tag, true);
        for (CompletableFuture<Void> f : done.values()) {
            if (failure == null) {
                f.complete(null);
            } else {
                refused.increment();
                f.completeExceptionally(failure);
            }
        }
        done.clear();
    }

    private void publisherLost(ShutdownSignalException cause) {
        // Recovery opens the channel again with fresh tags: what was not confirmed will not be.
        IOException lost = new IOException("the broker connection was lost before it confirmed the event: "
                + cause.getMessage());
        for (CompletableFuture<Void> f : unconfirmed.values()) {
            f.completeExceptionally(lost);
        }
        unconfirmed.clear();
    }

    /**
     * Starts consuming: every partition (a channel each, so each is handled in order, one event at a time) with
     * {@code events}, and this instance's broadcast queue with {@code broadcasts} (kind, body).
     */
    void start(Cluster.EventHandler events, BiConsumer<String, byte[]> broadcasts) throws IOException {
        this.handler = events;
        for (int i = 0; i < partitions; i++) {
            consume(i);
        }
        Channel m = connection.createChannel();
        // declared again: it deletes itself when its last consumer leaves, as every other instance may have since
        m.queueDeclare(members(), false, false, true, null);
        m.basicConsume(members(), true, "pulsebus-" + instance + "-member", new DefaultConsumer(m));
        Channel b = connection.createChannel();
        String mine = b.queueDeclare("", false, true, true, null).getQueue();
        b.queueBind(mine, broadcast(), "");
        if (connection instanceof com.rabbitmq.client.impl.recovery.AutorecoveringConnection recovering) {
            // the broker names the queue again when the client recovers it
            recovering.addQueueRecoveryListener((was, now) -> {
                if (was.equals(address)) {
                    address = now;
                }
            });
        }
        address = mine;
        b.basicConsume(mine, true, new DefaultConsumer(b) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
                Map<String, Object> h = props.getHeaders();
                if (h == null || (instance.equals(String.valueOf(h.get(FROM))) && !envelope.getExchange().isEmpty())) {
                    return; // our own broadcast: already applied here (a send to this instance's address is taken)
                }
                broadcastsReceived.increment();
                since(broadcastTime, h);
                try {
                    broadcasts.accept(String.valueOf(h.get(KIND)), body);
                } catch (RuntimeException e) {
                    LOG.error("A {} broadcast from {} failed here", h.get(KIND), h.get(FROM), e);
                }
            }
        });
        pinger = Thread.ofVirtual().name("pulsebus-cluster-ping").start(this::pingLoop);
        balancer = Thread.ofVirtual().name("pulsebus-cluster-balance").start(this::balanceLoop);
    }

    private io.micrometer.core.instrument.Timer timer(String name, String description) {
        return io.micrometer.core.instrument.Timer.builder(name).description(description).register(meters);
    }

    /** A header: when a message was published, in microseconds since the epoch. */
    private static final String AT = "pulsebus-at";

    private static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /** Records in {@code timer} the time since {@code at} ({@link #AT}) when it is there and not in the future. */
    private static void since(io.micrometer.core.instrument.Timer timer, @Nullable Map<String, Object> h) {
        if (h != null && h.get(AT) instanceof Long at) {
            long micros = nowMicros() - at;
            if (micros >= 0) {
                timer.record(micros, TimeUnit.MICROSECONDS);
            }
        }
    }

    /** Consumes partition {@code i} on a channel of its own: active when first in line, else waiting its turn. */
    private void consume(int i) throws IOException {
        Cluster.EventHandler events = handler;
        if (events == null) {
            throw new IllegalStateException("not started");
        }
        Channel ch = connection.createChannel();
        ch.basicQos(256);
        PartitionConsumer c = new PartitionConsumer(ch, i, events);
        // Once its channel shuts down, what it still has buffered was given back to the broker: never handled
        // here, not even after the client recovers the channel (then the repair replaces it).
        ch.addShutdownListener(cause -> c.gone = true);
        ch.basicConsume(queue(i), false, "pulsebus-" + instance + "-" + i, c);
        consumers.set(i, c);
    }

    /**
     * Replaces the consumers that are gone for a reason other than stepping back: a channel that shut down (the
     * connection dropped; the client may have recovered the channel, whose consumer then takes and holds events
     * it will not handle: it is closed, so they go back), or a {@link #consume} that failed.
     */
    private void repair() {
        if (!connection.isOpen()) {
            return; // the client is reconnecting: after it has
        }
        for (int i = 0; i < partitions && !closed; i++) {
            PartitionConsumer c = consumers.get(i);
            PartitionConsumer asked = leaving.get(i);
            if (asked != null && asked.gone && !asked.released) {
                leaving.compareAndSet(i, asked, null); // lost before it could step back: replaced below instead
            }
            if (leaving.get(i) != null || (c != null && !c.gone)) {
                continue;
            }
            if (c != null) {
                try {
                    c.getChannel().abort();
                } catch (IOException | RuntimeException e) {
                    LOG.debug("Closing partition {}'s old channel: {}", i, e.toString());
                }
            }
            try {
                consume(i);
                LOG.info("Consuming partition {} again after its channel was lost", i);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Could not consume partition {} again ({}); trying again in {} ms", i, e.toString(),
                        PING_MILLIS);
            }
        }
    }

    /**
     * Spreads the partitions: every {@link #PING_MILLIS}, an instance holding more than its share (the partitions
     * over the instances in {@link #members()}, rounded up) steps back from the excess. Stepping back happens on
     * the partition's own thread between two events ({@link PartitionConsumer}): the channel closes, the broker
     * gives the events it held, unacknowledged, in order, with the queue to the next instance in line, and this
     * instance queues up again behind it. The broker decides who is active; this only lets go.
     */
    private void balanceLoop() {
        Channel ask = null;
        while (!closed) {
            try {
                Thread.sleep(PING_MILLIS + java.util.concurrent.ThreadLocalRandom.current().nextLong(PING_MILLIS / 2));
                repair();
                if (ask == null || !ask.isOpen()) {
                    ask = connection.createChannel();
                }
                int members = Math.max(1, ask.queueDeclarePassive(members()).getConsumerCount());
                int share = (partitions + members - 1) / members;
                int excess = partitionsHeld() - share;
                // from a place of this instance's own (not everyone's the same), so instances let different ones go
                int from = Math.floorMod(instance.hashCode(), partitions);
                for (int k = 0; k < partitions && excess > 0; k++) {
                    int i = (from + k) % partitions;
                    PartitionConsumer c = consumers.get(i);
                    if (held(i) && c != null && leaving.compareAndSet(i, null, c)) {
                        excess--;
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                LOG.debug("Balancing the partitions: {}", e.toString()); // the connection is down: recovery's turn
            }
        }
    }

    /** Held: its deliveries keep coming here (see the class comment), and this instance is not letting it go. */
    private boolean held(int partition) {
        return leaving.get(partition) == null
                && lastDelivery.get(partition) >= System.currentTimeMillis() - 3 * PING_MILLIS;
    }

    /**
     * On consumer {@code c}'s thread, between two events: stops handling its deliveries (they stay unacknowledged)
     * and, on a thread of its own, closes its channel, so the broker gives them back, in order, with the queue to
     * the next instance in line, then queues up for the partition again.
     */
    private void stepBack(PartitionConsumer c) {
        int i = c.partition;
        c.released = true;
        c.gone = true; // this delivery and those buffered behind it go back, unhandled
        lastDelivery.set(i, 0);
        steppedBack.increment();
        Thread.ofVirtual().name("pulsebus-cluster-step-back").start(() -> {
            // what it handled is acknowledged first (its marks take a Redis round trip): else it would go to the
            // next holder too, and be found done there
            long by = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (c.marking.get() > 0 && System.nanoTime() < by) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    break;
                }
            }
            try {
                c.getChannel().abort();
            } catch (IOException | RuntimeException e) {
                LOG.debug("Stepping back from partition {}: {}", i, e.toString());
            }
            try {
                if (!closed) {
                    consume(i);
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("Could not queue up for partition {} again ({}); trying again in {} ms", i, e.toString(),
                        PING_MILLIS);
            } finally {
                leaving.set(i, null); // from here the repair replaces the consumer if consume failed
            }
        });
    }

    private void pingLoop() {
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().headers(Map.of(KIND, PING)).build();
        while (!closed) {
            for (int i = 0; i < partitions && !closed; i++) {
                try {
                    synchronized (publishing) {
                        long tag = publisher.getNextPublishSeqNo();
                        publisher.basicPublish("", queue(i), props, new byte[0]);
                        unconfirmed.remove(tag);
                    }
                } catch (IOException | RuntimeException e) {
                    break; // the connection is down; recovery will bring it back
                }
            }
            try {
                Thread.sleep(PING_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One partition: its events in order, acknowledged once handled. */
    private final class PartitionConsumer extends DefaultConsumer {
        final int partition;
        /** Set once its channel shut down or it stepped back; never cleared (a new consumer takes over). */
        volatile boolean gone;
        /** Set when it stepped back (its replacement is on the way), before {@link #gone}. */
        volatile boolean released;
        /** Its handled events whose done marks are on their way to Redis, not acknowledged yet. */
        final java.util.concurrent.atomic.AtomicInteger marking = new java.util.concurrent.atomic.AtomicInteger();
        /** Whether it has had a delivery: the broker made it the partition's active consumer. Its thread only. */
        private boolean active;
        private final Cluster.EventHandler events;

        PartitionConsumer(Channel channel, int partition, Cluster.EventHandler events) {
            super(channel);
            this.partition = partition;
            this.events = events;
        }

        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                throws IOException {
            if (gone || !getChannel().isOpen()) {
                // The connection (or this channel, stepping back) went with deliveries still buffered here: the
                // broker gives them, unacknowledged, to the partition's next holder, which may be handling them
                // already. Handling them here too would run them twice, and the chat on two instances at once.
                return;
            }
            if (leaving.get(partition) == this) {
                stepBack(this);
                return;
            }
            if (!active) {
                active = true;
                Runnable r = gained;
                if (r != null) {
                    r.run(); // before anything of the partition is handled here
                }
            }
            lastDelivery.set(partition, System.currentTimeMillis());
            Map<String, Object> h = props.getHeaders();
            Object k = h == null ? null : h.get(KIND);
            String kind = k == null ? Cluster.ROOM_KIND : k.toString(); // none: an instance of 0.1 (rooms only)
            if (PING.equals(kind)) {
                getChannel().basicAck(envelope.getDeliveryTag(), false);
                return;
            }
            handling.incrementAndGet();
            try {
                if (!closed) { // leaving: what is not begun goes back, unacknowledged, to the next holder
                    handle(envelope, props, h, kind, body);
                }
            } finally {
                handling.decrementAndGet();
            }
        }

        private void handle(Envelope envelope, AMQP.BasicProperties props, @Nullable Map<String, Object> h,
                            String kind, byte[] body) throws IOException {
            String id = props.getMessageId();
            boolean redelivered = envelope.isRedeliver();
            boolean copy = h != null && h.containsKey(COPY);
            if (redelivered) {
                redeliveries.increment();
            }
            // handled before: its acknowledgement lost with its instance, or another instance's copy came first
            if ((redelivered || copy) && id != null && redis.isDone(id)) {
                (redelivered ? redis.dedupeHits : redis.copiesDropped).increment();
                if (redelivered && !copy) {
                    try {
                        events.handledBefore(kind, body);
                    } catch (Exception e) {
                        LOG.warn("A redelivered event of partition {}, handled before, could not be answered again: {}",
                                partition, e.toString());
                    }
                }
                getChannel().basicAck(envelope.getDeliveryTag(), false);
                return;
            }
            since(deliveryTime, h);
            long started = System.nanoTime();
            Redelivery.set(redelivered);
            try {
                events.handle(kind, body, redelivered);
            } catch (Exception e) {
                LOG.error("An event of partition {} failed here; it is not retried", partition, e);
            } finally {
                Redelivery.set(false);
            }
            long ended = System.nanoTime();
            handlingTime.record(ended - started, TimeUnit.NANOSECONDS);
            handled.increment();
            if (id == null) {
                ack(envelope.getDeliveryTag(), null);
                return;
            }
            // The done mark goes to Redis now, on the connection the next delivery's check uses (so that check sees
            // it), and the event is acknowledged once Redis has it; meanwhile this partition goes on to its next
            // event. Should this instance die before the acknowledgement, the event is redelivered and found done.
            handling.incrementAndGet(); // until acknowledged: close waits for it, and stepping back
            marking.incrementAndGet();
            redis.markDoneAsync(id, dedupeTtlMillis).whenCompleteAsync((v, failed) -> {
                try {
                    ack(envelope.getDeliveryTag(), id);
                    settleTime.record(System.nanoTime() - ended, TimeUnit.NANOSECONDS);
                } finally {
                    marking.decrementAndGet();
                    handling.decrementAndGet();
                }
            }, acks);
        }

        private void ack(long deliveryTag, @Nullable String id) {
            try {
                getChannel().basicAck(deliveryTag, false);
            } catch (IOException | com.rabbitmq.client.AlreadyClosedException e) {
                // the connection went while it ran: the broker redelivers it, and the dedupe set knows it is done
                LOG.debug("Event {} handled but not acknowledged: {}", id, e.toString());
            }
        }
    }

    /** Drops the connection as a killed process would (tests): the broker redelivers what was not acknowledged. */
    void abort() {
        closed = true;
        connection.abort(0);
    }

    @Override
    public void close() {
        closed = true;
        for (Thread t : new Thread[] {pinger, balancer}) {
            if (t != null) {
                t.interrupt();
            }
        }
        // The events being handled finish and are acknowledged first (up to DRAIN_MILLIS): closed now, the
        // connection would give them to the next holder, which would handle them again.
        long by = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
        while (handling.get() > 0 && System.nanoTime() < by) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            connection.close(5000);
        } catch (IOException | RuntimeException e) {
            LOG.debug("Closing the broker connection: {}", e.toString());
        }
        deliveries.shutdown();
        acks.shutdown();
    }
}

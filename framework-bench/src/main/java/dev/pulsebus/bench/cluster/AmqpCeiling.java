package dev.pulsebus.bench.cluster;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.MessageProperties;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The peer {@code amqp_client} of the {@code cluster.inbound_N} rows: the same number of events through the same
 * broker with its plain Java client and nothing of PulseBus: {@code connections} connections each publish their
 * share (persistent, publisher confirms every {@value #CONFIRM_BATCH}) round-robin to {@code queues} quorum queues
 * consumed on the same connections (prefetch {@value #PREFETCH}, an ack each). No hashing exchange, no dedupe mark,
 * no handler: what the broker itself carries on this machine, the ceiling of any client of it.
 */
final class AmqpCeiling {

    private static final int CONFIRM_BATCH = 256;
    private static final int PREFETCH = 256;

    private AmqpCeiling() {
    }

    /** Events per second from the first publish to the last ack. */
    static double rate(int connections, int queues, int events) throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        String ns = "pulsebus-bench-amqp-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        List<Connection> open = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                open.add(f.newConnection("bench-amqp-" + c));
            }
            Channel admin = open.get(0).createChannel();
            for (int q = 0; q < queues; q++) {
                admin.queueDeclare(ns + "-" + q, true, false, false, Map.of("x-queue-type", "quorum"));
            }
            LongAdder acked = new LongAdder();
            for (int q = 0; q < queues; q++) {
                Channel ch = open.get(q % connections).createChannel();
                ch.basicQos(PREFETCH);
                ch.basicConsume(ns + "-" + q, false, new DefaultConsumer(ch) {
                    @Override
                    public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties,
                                               byte[] body) throws IOException {
                        getChannel().basicAck(envelope.getDeliveryTag(), false);
                        acked.increment();
                    }
                });
            }
            int each = events / connections;
            long start = System.nanoTime();
            List<Thread> publishers = new ArrayList<>();
            List<Exception> failed = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int c = 0; c < connections; c++) {
                Connection conn = open.get(c);
                publishers.add(Thread.ofPlatform().name("bench-amqp-publisher-" + c).start(() -> {
                    try {
                        Channel ch = conn.createChannel();
                        ch.confirmSelect();
                        byte[] body = new byte[8];
                        for (int i = 0; i < each; i++) {
                            ch.basicPublish("", ns + "-" + (i % queues), MessageProperties.PERSISTENT_BASIC, body);
                            if (i % CONFIRM_BATCH == CONFIRM_BATCH - 1) {
                                ch.waitForConfirmsOrDie(60_000);
                            }
                        }
                        ch.waitForConfirmsOrDie(60_000);
                    } catch (Exception e) {
                        failed.add(e);
                    }
                }));
            }
            for (Thread t : publishers) {
                t.join();
            }
            if (!failed.isEmpty()) {
                throw failed.get(0);
            }
            long total = (long) each * connections;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (acked.sum() < total && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            if (acked.sum() < total) {
                throw new IllegalStateException("the plain client got " + acked.sum() + " of " + total + " in 120 s");
            }
            double rate = total / ((System.nanoTime() - start) / 1e9);
            for (int q = 0; q < queues; q++) {
                admin.queueDelete(ns + "-" + q);
            }
            return rate;
        } finally {
            for (Connection c : open) {
                try {
                    c.close();
                } catch (IOException | RuntimeException ignored) {
                    // already gone with the broker
                }
            }
        }
    }
}

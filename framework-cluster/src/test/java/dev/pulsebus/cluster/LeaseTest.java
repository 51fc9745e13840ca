package dev.pulsebus.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.platform.InstanceMessaging.Lease;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases ({@link Cluster#lease}) taken by three instances in a real Redis, each on its own connection: one
 * holder at a time, renewed only by it, taken by another once the holder stops renewing and it expires, the
 * old holder told it is another's; unknown to everyone while Redis is cut off.
 */
class LeaseTest {

    private static final long TTL = 1_000;
    /** This test's Redis connections, closed after it. */
    @AutoClose
    private final Closer open = new Closer();
    private final String prefix = Servers.prefix();

    @BeforeEach
    void redis() {
        Servers.require("Redis", Servers.REDIS_PORT, "LeaseTest");
    }

    private RedisState state(int port, String instance) {
        return open.add(new RedisState(URI.create("redis://127.0.0.1:" + port), prefix, instance));
    }

    /** What a test opened, closed in the reverse order. */
    private static final class Closer implements AutoCloseable {
        private final List<AutoCloseable> opened = new ArrayList<>();

        <T extends AutoCloseable> T add(T c) {
            opened.add(c);
            return c;
        }

        @Override
        public void close() throws Exception {
            for (int i = opened.size() - 1; i >= 0; i--) {
                opened.get(i).close();
            }
        }
    }

    private static Lease lease(RedisState s, String name) {
        long r = s.lease(name, TTL);
        return r == 1 ? Lease.HELD : r == 0 ? Lease.ELSEWHERE : Lease.UNKNOWN;
    }

    @Test
    void oneHolderRenewsItAndAnotherTakesItOnlyOnceItExpired() throws Exception {
        RedisState a = state(Servers.REDIS_PORT, "a");
        RedisState b = state(Servers.REDIS_PORT, "b");
        RedisState c = state(Servers.REDIS_PORT, "c");
        assertThat(lease(a, "poll:1")).isEqualTo(Lease.HELD);
        assertThat(lease(b, "poll:1")).isEqualTo(Lease.ELSEWHERE);
        assertThat(lease(c, "poll:1")).isEqualTo(Lease.ELSEWHERE);
        assertThat(lease(b, "poll:2")).as("another lease is its own").isEqualTo(Lease.HELD);
        for (int i = 0; i < 5; i++) { // renewed past its first ttl: still a's
            Thread.sleep(TTL / 3);
            assertThat(lease(a, "poll:1")).isEqualTo(Lease.HELD);
            assertThat(lease(b, "poll:1")).isEqualTo(Lease.ELSEWHERE);
        }
        long stopped = System.nanoTime(); // a stops renewing (killed)
        Lease[] won = new Lease[2];
        assertThat(Await.until(Duration.ofSeconds(5), Duration.ofMillis(50), () -> {
            won[0] = lease(b, "poll:1");
            won[1] = lease(c, "poll:1");
            return won[0] == Lease.HELD || won[1] == Lease.HELD;
        })).isTrue();
        long millis = (System.nanoTime() - stopped) / 1_000_000;
        assertThat(millis).as("taken once expired, not before").isBetween(TTL - 100, TTL + 1_000);
        assertThat(won).as("one new holder").containsOnlyOnce(Lease.HELD);
        assertThat(lease(a, "poll:1")).as("the old holder is told").isEqualTo(Lease.ELSEWHERE);
        RedisState holder = won[0] == Lease.HELD ? b : c;
        holder.release("poll:1");
        assertThat(a.release("poll:1")).isTrue(); // not a's: nothing happens
        assertThat(lease(a, "poll:1")).as("given up: free at once").isEqualTo(Lease.HELD);
        assertThat(lease(holder, "poll:1")).isEqualTo(Lease.ELSEWHERE);
    }

    @Test
    void aRestartedInstanceOfTheSameNameWaitsForItsOldRunsLease() {
        RedisState first = state(Servers.REDIS_PORT, "a");
        assertThat(lease(first, "poll:1")).isEqualTo(Lease.HELD);
        RedisState again = state(Servers.REDIS_PORT, "a");
        assertThat(lease(again, "poll:1")).isEqualTo(Lease.ELSEWHERE);
    }

    @Test
    void whileRedisIsCutOffNobodyKnowsWhoHoldsIt() throws Exception {
        try (TcpProxy proxy = new TcpProxy(Servers.REDIS_PORT)) {
            RedisState a = state(proxy.port(), "a");
            RedisState b = state(Servers.REDIS_PORT, "b");
            assertThat(lease(a, "poll:1")).isEqualTo(Lease.HELD);
            proxy.cut();
            assertThat(lease(a, "poll:1")).isEqualTo(Lease.UNKNOWN);
            assertThat(lease(b, "poll:1")).as("not expired yet").isEqualTo(Lease.ELSEWHERE);
            proxy.restore();
            assertThat(Await.until(Duration.ofSeconds(5), Duration.ofMillis(50), () -> a.up())).isTrue();
            assertThat(lease(a, "poll:1")).isIn(Lease.HELD, Lease.ELSEWHERE); // HELD when back within its ttl
        }
    }

    @Test
    void theClusterAnswersItsLeasesThroughTheSpi() throws Exception {
        Servers.require("RabbitMQ", Servers.RABBITMQ_PORT, "LeaseTest");
        String namespace = "pulsebus-lease-" + prefix.substring(prefix.indexOf(':') + 1, prefix.length() - 1);
        try (Cluster a = Cluster.join(settings("a"), namespace, prefix);
             Cluster b = Cluster.join(settings("b"), namespace, prefix)) {
            assertThat(a.lease("telegram:1", TTL)).isEqualTo(Lease.HELD);
            assertThat(b.lease("telegram:1", TTL)).isEqualTo(Lease.ELSEWHERE);
            a.release("telegram:1");
            assertThat(b.lease("telegram:1", TTL)).isEqualTo(Lease.HELD);
            assertThat(a.lease("telegram:1", TTL)).isEqualTo(Lease.ELSEWHERE);
        } finally {
            Cluster.deleteFromBroker(settings("cleanup"), namespace);
        }
    }

    private static ClusterSettings settings(String name) {
        return new ClusterSettings(true, name, URI.create(ClusterSettings.DEFAULT_BROKER), 2,
                URI.create("redis://127.0.0.1:" + Servers.REDIS_PORT));
    }
}

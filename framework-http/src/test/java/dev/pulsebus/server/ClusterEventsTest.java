package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.cluster.ClusterEvents;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.Listening;
import dev.pulsebus.testing.PostgresSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A module's clustered event, from two servers in this JVM on the local RabbitMQ, Redis and PostgreSQL: what one
 * publishes through {@code ctx.service(ClusterEvents.class)} reaches the other's bus; a plain {@code bus.publish}
 * does not. Skipped, saying why, when a server is absent.
 */
class ClusterEventsTest {

    @TempDir
    Path dir;

    /** A module's event type: a record, sent as JSON. */
    public record Announcement(String from, String text) {
    }

    /** Registers {@link Announcement} as clustered and keeps what reaches this instance's bus. */
    static final class Announcer implements BotModule {
        final List<String> seen = new CopyOnWriteArrayList<>();
        ClusterEvents events;

        @Override
        public String name() {
            return "announcer";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            events = ctx.service(ClusterEvents.class).get();
            events.register(Announcement.class);
            ctx.bus().subscribe(Announcement.class, a -> seen.add(a.from() + ":" + a.text()));
        }
    }

    @Test
    void aClusteredEventOfAModuleReachesTheOtherServersBus() throws Exception {
        Listening.require("ClusterEventsTest", "RabbitMQ", 5672);
        Listening.require("ClusterEventsTest", "Redis", 6379);
        String ns = "pulsebus-test-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        System.setProperty("pulsebus.cluster.namespace", ns);
        try (PostgresSchema schema = PostgresSchema.create("ClusterEventsTest")) {
            String storage = "jdbc_url = \"" + schema.jdbcUrl() + "\"\n";
            Path a = Files.createDirectories(dir.resolve("a"));
            Path b = Files.createDirectories(dir.resolve("b"));
            try (TestServer one = new TestServer(a, "[cluster]\nenabled = true\ninstance = \"one\"\npartitions = 2\n", storage);
                 TestServer two = new TestServer(b, "[cluster]\nenabled = true\ninstance = \"two\"\npartitions = 2\n", storage)) {
                Announcer first = new Announcer();
                Announcer second = new Announcer();
                one.server.modules().load(first);
                two.server.modules().load(second);
                first.events.publish(new Announcement("one", "hello"));
                one.server.bus().publish(new Announcement("one", "local only"));
                assertThat(Await.until(Duration.ofSeconds(10), () -> second.seen.contains("one:hello"))).isTrue();
                Thread.sleep(200);
                assertThat(first.seen).containsExactlyInAnyOrder("one:hello", "one:local only");
                assertThat(second.seen).containsExactly("one:hello");
            }
        } finally {
            System.clearProperty("pulsebus.cluster.namespace");
            Cluster.deleteFromBroker(ServerConfig.defaults().cluster().enabledAs("cleanup").withPartitions(2), ns);
        }
    }
}

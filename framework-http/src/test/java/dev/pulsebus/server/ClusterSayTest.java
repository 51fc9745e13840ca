package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Self;
import dev.pulsebus.pipeline.ReplyWatch;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A say in a cluster is stored by the instance holding its room: when that instance cannot store it (the database
 * does not answer), the instance that took it answers 503 ("not stored": the client may send it again), not 202
 * ("will be stored": do not send it again). A message the bot sends to a room on its own is stored by the room's
 * holder too, not by the instance that sends it. Skipped, saying why, when a server is absent.
 */
@Timeout(120)
class ClusterSayTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void aSayTheHolderCannotStoreIsRefusedNotAccepted() throws Exception {
        try (TestCluster cluster = new TestCluster("ClusterSayTest"); TcpProxy database = new TcpProxy(5432)) {
            PulseBusServer a = cluster.start(dir, "a", "", database.port());
            assertThat(say(a, "/echo 1").statusCode()).isEqualTo(201);
            database.cut();
            Thread.sleep(300); // the seqs it took ahead have aged: the next one needs the database
            HttpResponse<String> refused = say(a, "/echo 2");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
            assertThat(refused.body()).contains("not stored");
            database.restore();
        }
    }

    @Test
    void aMessageTheBotSendsIsStoredByTheRoomsHolderNotBySendingInstance() throws Exception {
        try (TestCluster cluster = new TestCluster("ClusterSayTest"); TcpProxy database = new TcpProxy(5432)) {
            PulseBusServer b = cluster.start(dir, "b", "");
            PulseBusServer a = cluster.start(dir, "a", "", database.port());
            assertThat(Await.until(Duration.ofSeconds(30), () -> TestCluster.metric(a, "pulsebus_cluster_partitions_held",
                    "") >= 1 && TestCluster.metric(b, "pulsebus_cluster_partitions_held", "") >= 1))
                    .as("the partitions spread over a and b").isTrue();
            database.cut(); // a cannot store anything now
            Thread.sleep(300); // the seqs it took ahead have aged

            Self bot = new Self("http", "bot");
            List<CompletableFuture<String>> sent = new ArrayList<>();
            for (int i = 0; i < 16; i++) { // as a module's scheduled message: not a reply to anything
                sent.add(a.pipeline().message(bot).to(ChatRef.group("http", "room" + i)).text("hello " + i).send()
                        .toCompletableFuture());
            }
            List<Integer> stored = new ArrayList<>();
            int failed = 0;
            for (int i = 0; i < sent.size(); i++) {
                try {
                    sent.get(i).get(30, TimeUnit.SECONDS);
                    stored.add(i);
                } catch (ExecutionException e) {
                    failed++; // a room a holds: a cannot store it
                }
            }
            assertThat(stored).as("the rooms b holds: b stores them").isNotEmpty();
            assertThat(failed).as("the rooms a holds: a cannot store them").isPositive();
            for (int i : stored) {
                assertThat(history(b, "room" + i)).contains("\"user\":\"bot\"").contains("hello " + i);
            }
            database.restore();
        }
    }

    @Test
    void aMessageSentOnAWatchedThreadIsDoneOnceTheBrokerHasItNotWhenTheHolderStoresIt() throws Exception {
        try (TestCluster cluster = new TestCluster("ClusterSayTest"); TcpProxy database = new TcpProxy(5432)) {
            PulseBusServer a = cluster.start(dir, "a", "", database.port()); // holds every room
            assertThat(Await.until(Duration.ofSeconds(30), () -> TestCluster.metric(a,
                    "pulsebus_cluster_partitions_held", "") == TestCluster.PARTITIONS)).isTrue();
            database.cut(); // the holder cannot store
            Thread.sleep(300); // the seqs it took ahead have aged
            Self bot = new Self("http", "bot");

            CompletableFuture<String> unwatched = a.pipeline().message(bot).to(ChatRef.group("http", "lobby"))
                    .text("waits for the holder").send().toCompletableFuture();
            // As on a partition's thread, which waits for the sends it makes: the room may be its own partition's,
            // so waiting for the holder would be waiting for itself.
            List<CompletableFuture<String>> watched = new ArrayList<>();
            ReplyWatch.run(() -> watched.add(a.pipeline().message(bot).to(ChatRef.group("http", "lobby"))
                    .text("done at the confirm").send().toCompletableFuture()));

            assertThat(watched.get(0).get(30, TimeUnit.SECONDS)).isNotEmpty();
            try {
                unwatched.get(30, TimeUnit.SECONDS);
                throw new AssertionError("stored, though the holder's database is cut");
            } catch (ExecutionException expected) {
                // the holder answered that it could not store it
            }
            database.restore();
        }
    }

    private static String history(PulseBusServer server, String room) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "/api/rooms/" + room + "/messages"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static HttpResponse<String> say(PulseBusServer server, String text) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "/api/rooms/lobby/messages"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"ann\",\"text\":\"" + text + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}

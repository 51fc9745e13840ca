package dev.pulsebus.bench;

import dev.pulsebus.bench.http.RawHttp;
import dev.pulsebus.bench.overall.MixedBench;
import dev.pulsebus.internal.Json;
import dev.pulsebus.server.PulseBusServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The {@code overall} suite. {@code mixed} under JMH ({@link MixedBench}); {@code e2e_roundtrip}: a command
 * said over HTTP ({@code /echo n}) until the bot's reply reaches a poll, paced at 1000 a second; each round
 * trip is timed from its intended start, so a slow one also delays (and counts against) the ones after
 * it. The client sleeps until just before each start rather than spinning (on two cores a spinning
 * client takes most of a core from the server it measures) and records from the first round trip,
 * clearing the histogram when warm-up ends (a branch first taken there would deoptimize the loop).
 */
final class OverallSuite implements Suite {

    static final double RATE = 1000;

    @Override
    public String name() {
        return "overall";
    }

    @Override
    public List<Row> run(BenchOptions options) throws Exception {
        List<Row> rows = new ArrayList<>(new JmhSuite("overall", MixedBench.class, List.of(), List.of(
                new JmhSuite.RowSpec("mixed", true, "per operation: 20 config reads, 1 config write, 1 KV write"
                        + " (committed), 1 KV read, 1 event, 1 reply", null))).run(options));
        rows.add(roundTrip(options));
        return rows;
    }

    private Row roundTrip(BenchOptions options) throws Exception {
        int warm = options.quick ? 2000 : 10_000; // seconds at 1 k/s: the JIT is still busy after 3 s here
        int measured = options.quick ? 1000 : 10_000;
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        PulseBusServer server = ServerFixture.start(options, "overall", "");
        long started;
        long allocated = 0;
        try (RawHttp sayer = new RawHttp(server.url().getHost(), server.url().getPort());
             RawHttp poller = new RawHttp(server.url().getHost(), server.url().getPort())) {
            HttpSuite.progress("overall.e2e_roundtrip: " + (warm + measured) + " round trips at " + (long) RATE + "/s");
            long interval = (long) (1e9 / RATE);
            started = System.nanoTime();
            for (int i = 0; i < warm + measured; i++) {
                long intended = started + i * interval;
                if (i == warm) { // measuring starts: the one branch first taken here, before any timing
                    h.reset();
                    allocated = ServerFixture.allocatedBytes();
                    if (System.nanoTime() > intended) { // a lag the warm-up left is not the measured trips' to pay
                        started = System.nanoTime() - i * interval;
                        intended = started + i * interval;
                    }
                }
                for (long left; (left = intended - System.nanoTime()) > 200_000; ) {
                    LockSupport.parkNanos(left - 150_000);
                }
                while (System.nanoTime() < intended) {
                    Thread.onSpinWait();
                }
                long seq = LongPollSuite.seq(sayer.exchange("POST", "/api/rooms/e2e/messages",
                        "{\"user\":\"bench\",\"text\":\"/echo " + i + "\"}"));
                String expected = Integer.toString(i);
                while (true) {
                    RawHttp.Response r = poller.exchange("GET", "/api/rooms/e2e/poll?after=" + seq + "&timeout_ms=10000", null);
                    if (r.status() != 200) {
                        throw new IllegalStateException("no reply to /echo " + i + " within 10 s");
                    }
                    var messages = Json.MAPPER.readTree(r.body()).get("messages");
                    var reply = messages.get(messages.size() - 1);
                    seq = reply.get("seq").asLong();
                    if (reply.get("user").asText().equals("bot") && reply.get("text").asText().equals(expected)) {
                        break;
                    }
                }
                h.recordValue(Math.min(System.nanoTime() - intended, h.getHighestTrackableValue()));
            }
            allocated = ServerFixture.allocatedBytes() - allocated;
        } finally {
            server.close();
        }
        double p99 = h.getValueAtPercentile(99) / 1e3;
        return ServerFixture.row("overall", "overall.e2e_roundtrip", "ops/s", null, h, (double) allocated / measured,
                ServerFixture.peers(), String.format("POST /echo n until the bot's reply reaches a poll, paced at"
                        + " %.0f/s, %d round trips after %d warm-up; B/op is the whole process (client included)"
                        + " per round trip; target p99 <= 2000 us at 1 k/s: %s",
                        RATE, measured, warm, p99 <= 2000 ? "met" : "MISSED"));
    }
}

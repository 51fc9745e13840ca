package dev.pulsebus.bench.overall;

import dev.pulsebus.bench.harness.BenchOptions;
import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import dev.pulsebus.bench.harness.Suite;
import dev.pulsebus.bench.http.RawHttp;
import dev.pulsebus.internal.Json;
import dev.pulsebus.server.PulseBusServer;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
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
 * client takes most of a core from the server it measures). Warm-up lasts until the JIT has settled
 * (at most {@value #JIT_QUIET_MILLIS} ms of compiling in the last 10 s; at least 10 s, at most 60 s):
 * the JIT goes on compiling well past the first seconds of a run, in bursts that each take a core the
 * round trips need, so a fixed short warm-up would measure the compiler. Warm-up and measuring are two
 * loops around one round-trip method, so nothing is first taken (and deoptimized) as measuring starts.
 */
public final class OverallSuite implements Suite {

    static final double RATE = 1000;

    /**
     * Warm-up checks the JIT's compile time every {@code JIT_WINDOW} round trips (1 s); it has settled when it
     * compiled for less than {@code JIT_QUIET_MILLIS} over the last {@code JIT_WINDOWS} of them (5 s).
     */
    private static final int JIT_WINDOW = 1000;
    private static final int JIT_WINDOWS = 5;
    private static final long JIT_QUIET_MILLIS = 10;
    /** The measured trips are split into this many rounds; the row reports the median of each percentile. */
    private static final int ROUNDS = 3;

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
        int minWarm = options.quick() ? 2000 : 10_000; // round trips, at 1 k/s: seconds
        int maxWarm = options.quick() ? 4000 : 60_000;
        int measured = options.quick() ? 1000 : 10_000;
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        // Quick runs (and a JVM that cannot tell its compile time) warm up for a fixed maxWarm instead.
        boolean watchJit = !options.quick() && jit != null && jit.isCompilationTimeMonitoringSupported();
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        List<Histogram> rounds = new ArrayList<>();
        PulseBusServer server = ServerFixture.start(options, "overall", "");
        int warm;
        boolean settled = false;
        long allocated;
        long jitMillis;
        try (RawHttp sayer = new RawHttp(server.url().getHost(), server.url().getPort());
             RawHttp poller = new RawHttp(server.url().getHost(), server.url().getPort())) {
            Progress.print("overall.e2e_roundtrip: warm-up at " + (long) RATE + "/s"
                    + (watchJit ? " until the JIT settles" : ", " + maxWarm + " round trips"));
            long interval = (long) (1e9 / RATE);
            long started = System.nanoTime();
            long[] jitAt = new long[JIT_WINDOWS]; // compile time at the start of each of the last windows
            for (warm = 0; warm < maxWarm; warm++) {
                if (watchJit && warm % JIT_WINDOW == 0) {
                    long now = jit.getTotalCompilationTime();
                    int slot = warm / JIT_WINDOW % JIT_WINDOWS; // holds the time JIT_WINDOWS windows ago
                    if (warm >= Math.max(minWarm, JIT_WINDOW * JIT_WINDOWS) && now - jitAt[slot] < JIT_QUIET_MILLIS) {
                        settled = true;
                        break;
                    }
                    jitAt[slot] = now;
                }
                trip(sayer, poller, warm, started + warm * interval, h);
            }
            h.reset();
            Progress.print("overall.e2e_roundtrip: " + measured + " round trips at " + (long) RATE + "/s");
            started = System.nanoTime() - warm * interval; // a lag the warm-up left is not the measured trips' to pay
            allocated = ServerFixture.allocatedBytes();
            jitMillis = watchJit ? jit.getTotalCompilationTime() : 0;
            int perRound = measured / ROUNDS;
            for (int round = 0; round < ROUNDS; round++) {
                Histogram r = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                int from = warm + round * perRound;
                for (int i = from; i < from + perRound; i++) { // its own loop: no branch first taken mid-run
                    trip(sayer, poller, i, started + i * interval, r);
                }
                rounds.add(r);
                h.add(r);
            }
            allocated = ServerFixture.allocatedBytes() - allocated;
            jitMillis = watchJit ? jit.getTotalCompilationTime() - jitMillis : -1;
        } finally {
            server.close();
        }
        double p99 = ServerFixture.medianUs(rounds, 99);
        String warmUp = watchJit
                ? String.format("%d of warm-up (%s: the JIT compiled for < %d ms in the last %d s, at most %d); the"
                        + " JIT compiled for %d ms while measuring", warm, settled ? "settled" : "NOT settled",
                        JIT_QUIET_MILLIS, JIT_WINDOW * JIT_WINDOWS / 1000, maxWarm, jitMillis)
                : String.format("a fixed warm-up of %d", warm);
        Row row = ServerFixture.row("overall", "overall.e2e_roundtrip", "ops/s", null, h, (double) allocated / measured,
                ServerFixture.peers(), String.format("POST /echo n until the bot's reply reaches a poll, paced at"
                        + " %.0f/s, %d round trips in %d rounds after %s; percentiles are the median of the rounds'; B/op"
                        + " is the whole process (client included) per round trip; target p99 <= 2000 us at 1 k/s: %s",
                        RATE, measured, ROUNDS, warmUp, p99 <= 2000 ? "met" : "MISSED"));
        return ServerFixture.medianOfRounds(row, rounds);
    }

    /**
     * One round trip: {@code /echo i} said through {@code sayer} at {@code intended} (ns), until the bot's reply
     * reaches a poll through {@code poller}; recorded into {@code h} from {@code intended}.
     */
    private static void trip(RawHttp sayer, RawHttp poller, int i, long intended, Histogram h) throws IOException {
        String room = "e2e";
        for (long left; (left = intended - System.nanoTime()) > 200_000; ) {
            LockSupport.parkNanos(left - 150_000);
        }
        while (System.nanoTime() < intended) {
            Thread.onSpinWait();
        }
        long seq = RawHttp.seq(sayer.exchange("POST", "/api/rooms/" + room + "/messages",
                "{\"user\":\"bench\",\"text\":\"/echo " + i + "\"}"));
        String expected = Integer.toString(i);
        while (true) {
            RawHttp.Response r = poller.exchange("GET", "/api/rooms/" + room + "/poll?after=" + seq + "&timeout_ms=10000",
                    null);
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
}

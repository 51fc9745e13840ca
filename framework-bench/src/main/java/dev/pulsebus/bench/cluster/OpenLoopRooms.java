package dev.pulsebus.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.bench.http.RawHttp;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * An open-loop load of {@code /echo n} over the HTTP chat API: says due on a fixed schedule (each sent when due,
 * from a pool of connections, whether or not earlier ones were answered), spread over {@link #ROOMS} rooms in
 * turn, through one server; a long poll per room on another (or the same) server reads the bot's replies. Each
 * trip is timed from its scheduled send until its reply reached the poll, so a server that falls behind shows as
 * latency rather than as a slower schedule.
 */
final class OpenLoopRooms implements AutoCloseable {

    static final int ROOMS = 50;
    /** Connections the says go out on: far more than the rate times a say's time. */
    private static final int SAYERS = 64;

    private final String prefix;
    private final URI sayTo;
    private final URI pollOn;
    private int unseen;
    private final BlockingQueue<RawHttp> sayers = new ArrayBlockingQueue<>(SAYERS);
    private final List<RawHttp> pollers = new ArrayList<>();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final AtomicLong[] due;
    /** Where each trip's latency goes: the round it belongs to, or none (warm-up). */
    private final Histogram[] roundOf;
    private final AtomicInteger answered = new AtomicInteger();
    private final AtomicInteger failedSays = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param prefix the rooms' names: this, then the room's number
     * @param trips  how many says at most this load sends over its life
     */
    OpenLoopRooms(URI sayTo, URI pollOn, String prefix, int trips) throws IOException {
        this.prefix = prefix;
        this.due = new AtomicLong[trips];
        this.roundOf = new Histogram[trips];
        this.sayTo = sayTo;
        this.pollOn = pollOn;
        for (int r = 0; r < ROOMS; r++) {
            RawHttp poller = new RawHttp(pollOn.getHost(), pollOn.getPort());
            pollers.add(poller);
            String room = prefix + r;
            threads.execute(() -> poll(poller, room));
        }
    }

    /**
     * Sends trips {@code from} (inclusive) to {@code to} (exclusive), trip {@code i} due at {@code start + (i -
     * from) / rate}, recording each into {@code into} (null: warm-up); then waits up to 30 s for their replies.
     *
     * @return how many of them got no reply in that time
     */
    int run(int from, int to, double rate, Histogram into) throws InterruptedException, IOException {
        int answeredBefore = answered.get();
        // connected for this run only: the server closes a connection idle for 10 s
        for (int i = 0; i < SAYERS; i++) {
            sayers.add(new RawHttp(sayTo.getHost(), sayTo.getPort()));
        }
        long start = System.nanoTime() + 10_000_000;
        double interval = 1e9 / rate;
        for (int i = from; i < to; i++) {
            long at = start + (long) ((i - from) * interval);
            for (long left; (left = at - System.nanoTime()) > 200_000; ) {
                LockSupport.parkNanos(left - 150_000);
            }
            while (System.nanoTime() < at) {
                Thread.onSpinWait();
            }
            roundOf[i] = into;
            due[i] = new AtomicLong(at);
            RawHttp c = sayers.take(); // 64 connections: a wait here still counts, from the trip's due time
            int n = i;
            threads.execute(() -> {
                try {
                    RawHttp.seq(c.exchange("POST", "/api/rooms/" + prefix + (n % ROOMS) + "/messages",
                            "{\"user\":\"bench\",\"text\":\"/echo " + n + "\"}"));
                } catch (IOException e) {
                    if (failedSays.getAndIncrement() == 0) {
                        dev.pulsebus.bench.harness.Progress.print("a say failed: " + e.getMessage());
                    }
                } finally {
                    sayers.add(c);
                }
            });
        }
        for (int i = 0; i < SAYERS; i++) {
            sayers.take().close(); // each back once its say was answered
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (answered.get() - answeredBefore < to - from && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        int unanswered = to - from - (answered.get() - answeredBefore);
        if (unanswered > 0) {
            unseen += storedButUnseen(from, to);
        }
        return unanswered;
    }

    /**
     * Of the trips {@code from} to {@code to} whose reply no poll saw, how many replies the room's history holds
     * (a poll passed over them: they committed after a message with a higher seq had reached it).
     */
    private int storedButUnseen(int from, int to) throws IOException {
        java.util.Set<String> rooms = new java.util.TreeSet<>();
        for (int i = from; i < to; i++) {
            if (due[i] != null && due[i].get() != 0) {
                rooms.add(prefix + (i % ROOMS));
            }
        }
        int found = 0;
        try (RawHttp history = new RawHttp(pollOn.getHost(), pollOn.getPort())) {
            for (String room : rooms) {
                RawHttp.Response r = history.exchange("GET", "/api/rooms/" + room + "/messages?limit=1000", null);
                for (JsonNode m : Json.MAPPER.readTree(r.body()).path("messages")) {
                    if ("bot".equals(m.path("user").asText())) {
                        int n = Integer.parseInt(m.path("text").asText());
                        if (n >= from && n < to && due[n] != null && due[n].get() != 0) {
                            found++;
                        }
                    }
                }
            }
        }
        return found;
    }

    /** Replies that were stored but that no poll returned (see {@link #storedButUnseen}), over all runs. */
    int unseen() {
        return unseen;
    }

    /** Says the server did not take (not 201). */
    int failedSays() {
        return failedSays.get();
    }

    private void poll(RawHttp poller, String room) {
        long after = 0;
        while (!closed) {
            try {
                RawHttp.Response r = poller.exchange("GET", "/api/rooms/" + room + "/poll?after=" + after
                        + "&timeout_ms=2000", null);
                if (r.status() != 200) {
                    continue; // nothing within the poll's time
                }
                long now = System.nanoTime();
                for (JsonNode m : Json.MAPPER.readTree(r.body()).path("messages")) {
                    after = Math.max(after, m.path("seq").asLong());
                    if (!"bot".equals(m.path("user").asText())) {
                        continue;
                    }
                    int n = Integer.parseInt(m.path("text").asText());
                    AtomicLong at = due[n];
                    long when = at == null ? 0 : at.getAndSet(0);
                    if (when == 0) {
                        continue; // answered twice: counted once
                    }
                    Histogram h = roundOf[n];
                    if (h != null) {
                        synchronized (h) {
                            h.recordValue(Math.min(now - when, h.getHighestTrackableValue()));
                        }
                    }
                    answered.incrementAndGet();
                }
            } catch (IOException e) {
                return; // the connection is gone (closed, or the server's): this room's replies go unanswered
            } catch (RuntimeException e) {
                LockSupport.parkNanos(10_000_000); // not a reply to /echo n: read on
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        threads.shutdownNow();
        for (RawHttp c : pollers) {
            c.close();
        }
        Arrays.fill(due, null);
    }
}

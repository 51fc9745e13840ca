package dev.pulsebus.bench.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * An in-process Bot API on loopback for {@code adapter.telegram_roundtrip} (the JDK's HTTP server on virtual
 * threads): {@code getMe} and {@code deleteWebhook} answer at once, {@code getUpdates} is held until an update
 * is due and answered with the updates due ({@code /echo@pulse_bench_bot hi} in a supergroup, its
 * {@code message_id} its {@code update_id}; at the row's rate, one per answer), and a {@code sendMessage} that replies to it (its
 * {@code reply_parameters.message_id}) ends that update's round trip. {@link #openLoop} sends updates on a
 * schedule and times each from its scheduled send, so a stall counts against every update it delays.
 */
final class FakeTelegram implements AutoCloseable {

    private static final byte[] EMPTY = "{\"ok\":true,\"result\":[]}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ME = ("{\"ok\":true,\"result\":{\"id\":" + TelegramUpdates.BOT_ID + ",\"is_bot\":true,"
            + "\"first_name\":\"Bench\",\"username\":\"" + TelegramUpdates.USERNAME + "\"}}").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "{\"ok\":true,\"result\":true}".getBytes(StandardCharsets.US_ASCII);

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    /** Updates due, by id, in the order they fell due. */
    private final BlockingQueue<Long> due = new LinkedBlockingQueue<>();
    /** Each update sent and not yet answered: its scheduled send, in ns. */
    private final Map<Long, Long> scheduled = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private final AtomicLong sentIds = new AtomicLong(1_000_000);
    /** getUpdates answers that carried more than one update (the poller had fallen behind), since the last run. */
    private final AtomicLong batched = new AtomicLong();
    private volatile Histogram recording = new Histogram(3);
    /** Updates scheduled from this time on (ns) are timed; those of the warm-up are not. */
    private volatile long measuredFrom = Long.MAX_VALUE;

    FakeTelegram() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Round trips of one open-loop run: the latencies (ns) of those answered, and how many were not. */
    record Result(Histogram latencyNanos, long unanswered, long batched) {
    }

    /**
     * Sends updates at {@code rate} per second for {@code warmup} then {@code measure}, timing those of the
     * measured part; waits up to 2 s for the last answers.
     */
    Result openLoop(double rate, Duration warmup, Duration measure) throws InterruptedException {
        long period = (long) (1e9 / rate);
        long start = System.nanoTime();
        long measureFrom = start + warmup.toNanos();
        long end = measureFrom + measure.toNanos();
        recording = new Histogram(3);
        measuredFrom = measureFrom;
        batched.set(0);
        for (long at = start; at < end; at += period) {
            long wait = at - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            long id = nextId.getAndIncrement();
            scheduled.put(id, at);
            due.add(id);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (!scheduled.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        long unanswered = scheduled.values().stream().filter(at -> at >= measureFrom).count();
        measuredFrom = Long.MAX_VALUE;
        scheduled.clear();
        due.clear();
        Histogram h = recording;
        recording = new Histogram(3);
        synchronized (h) {
            return new Result(h.copy(), unanswered, batched.get());
        }
    }

    private void handle(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        String method = path.substring(path.lastIndexOf('/') + 1);
        byte[] in = x.getRequestBody().readAllBytes();
        byte[] out;
        try {
            out = switch (method) {
                case "getUpdates" -> updates(in);
                case "sendMessage" -> sent(in);
                case "getMe" -> ME;
                default -> TRUE;
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out = EMPTY;
        }
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(200, out.length);
        x.getResponseBody().write(out);
        x.close();
    }

    /**
     * The updates due, held for up to the poll's timeout until one is: at the row's rate each answer carries
     * one; a poll that comes late gets every update due by then, as Telegram answers.
     */
    private byte[] updates(byte[] request) throws IOException, InterruptedException {
        long timeout = Json.MAPPER.readTree(request).path("timeout").asLong(0);
        Long id = due.poll(timeout, TimeUnit.SECONDS);
        if (id == null) {
            return EMPTY;
        }
        List<Long> ids = new ArrayList<>();
        ids.add(id);
        if (due.drainTo(ids, 99) > 0) {
            batched.incrementAndGet();
        }
        return TelegramUpdates.echoAnswer(ids);
    }

    private byte[] sent(byte[] request) throws IOException {
        long now = System.nanoTime();
        JsonNode params = Json.MAPPER.readTree(request);
        Long at = scheduled.remove(params.path("reply_parameters").path("message_id").asLong(-1));
        if (at != null && at >= measuredFrom) {
            Histogram h = recording;
            synchronized (h) {
                h.recordValue(Math.max(0, now - at));
            }
        }
        return ("{\"ok\":true,\"result\":{\"message_id\":" + sentIds.incrementAndGet() + ",\"date\":1733098000,"
                + "\"chat\":{\"id\":" + params.path("chat_id").asText() + ",\"type\":\"supergroup\"},\"text\":\"hi\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The soak of the long fault suite: says and /health at half of what this machine sustains for 60 s,
 * with the footprint after a full GC compared between warm-up and the end; then 10,000 parked polls
 * answered by one message.
 */
final class Soak {

    private static final Pattern HEAP = Pattern.compile("^jvm_memory_used_bytes\\{area=\"heap\"[^}]*} (\\S+)$",
            Pattern.MULTILINE);
    private static final int POLLS = 10_000;

    private Soak() {
    }

    static void run(Path config, Path data, Consumer<String> summary) throws Exception {
        // Native memory tracking (summary) tells what grew when RSS does.
        try (ServerProcess server = ServerProcess.fromJar(config, data, "-XX:NativeMemoryTracking=summary")) {
            ChatClient chat = new ChatClient(server.url, Duration.ofSeconds(10));
            double capacity = closedLoop(server, 8, Duration.ofSeconds(5));
            double rate = capacity / 2;
            paced(server, rate, Duration.ofSeconds(15)); // warm-up
            long[] warm = footprint(server, chat);
            Map<String, Long> warmClasses = histogram(server);
            jcmd(server, "VM.native_memory", "baseline");
            Map<Integer, LongAdder> statuses = paced(server, rate, Duration.ofSeconds(60));
            long[] end = footprint(server, chat);
            Map<String, Long> endClasses = histogram(server);
            int answered = parkedPolls(server, chat);
            double rss = (double) end[0] / warm[0] - 1;
            double heap = (double) end[1] / warm[1] - 1;
            summary.accept(String.format("soak (sqlite, 60 s of says at %.0f/s = half of the %.0f/s measured, and"
                            + " /health 10/s): says %s; after GC RSS %d -> %d MB (%+.1f %%), heap %d -> %d MB (%+.1f %%);"
                            + " %d of %d parked polls answered by one message", rate, capacity, statuses,
                    warm[0] >> 20, end[0] >> 20, rss * 100, warm[1] >> 20, end[1] >> 20, heap * 100, answered, POLLS));
            summary.accept("soak: native memory (NMT, committed) changed most in "
                    + nativeGrowth(jcmd(server, "VM.native_memory", "summary.diff")));
            if (heap > 0.10) {
                summary.accept("soak: heap grew most in " + grown(warmClasses, endClasses));
            }
            assertThat(statuses.keySet()).as("say statuses").containsOnly(201);
            assertThat(rss).as("RSS growth after GC").isLessThanOrEqualTo(0.10);
            assertThat(heap).as("heap growth after GC").isLessThanOrEqualTo(0.10);
            assertThat(answered).as("parked polls answered").isEqualTo(POLLS);
        }
    }

    /** Says per second that {@code clients} sustain, each waiting for its answer. */
    private static double closedLoop(ServerProcess server, int clients, Duration time) throws InterruptedException {
        LongAdder done = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            ChatClient chat = new ChatClient(server.url, Duration.ofSeconds(10));
            threads.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; !stop.get(); i++) {
                    try {
                        if (chat.say("soak", "ann", "probe " + i).statusCode() == 201) {
                            done.increment();
                        }
                    } catch (IOException | InterruptedException e) {
                        return;
                    }
                }
            }));
        }
        Thread.sleep(time.toMillis());
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        return done.sum() / (time.toMillis() / 1000.0);
    }

    /** Says at {@code rate} per second and /health at 10 per second for {@code time}; says' statuses. */
    private static Map<Integer, LongAdder> paced(ServerProcess server, double rate, Duration time)
            throws InterruptedException {
        Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        ChatClient chat = new ChatClient(server.url, Duration.ofSeconds(10));
        AtomicLong n = new AtomicLong();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        var work = Executors.newVirtualThreadPerTaskExecutor();
        long periodNanos = (long) (1e9 / rate);
        timer.scheduleAtFixedRate(() -> work.execute(() -> {
            try {
                HttpResponse<String> r = chat.say("soak", "ann", "m" + n.incrementAndGet());
                statuses.computeIfAbsent(r.statusCode(), s -> new LongAdder()).increment();
            } catch (IOException | InterruptedException e) {
                statuses.computeIfAbsent(-1, s -> new LongAdder()).increment();
            }
        }), 0, periodNanos, TimeUnit.NANOSECONDS);
        timer.scheduleAtFixedRate(() -> work.execute(() -> {
            try {
                chat.get("/health");
            } catch (IOException | InterruptedException e) {
                statuses.computeIfAbsent(-2, s -> new LongAdder()).increment();
            }
        }), 0, 100, TimeUnit.MILLISECONDS);
        Thread.sleep(time.toMillis());
        timer.shutdownNow();
        work.close();
        return statuses;
    }

    /** RSS and heap used, in bytes, after a full GC of the server ({@code jcmd GC.run}). */
    private static long[] footprint(ServerProcess server, ChatClient chat) throws Exception {
        Process gc = new ProcessBuilder(jcmd(), Long.toString(server.process.pid()), "GC.run")
                .redirectErrorStream(true).start();
        gc.getInputStream().readAllBytes();
        gc.waitFor(60, TimeUnit.SECONDS);
        Thread.sleep(500);
        Matcher m = HEAP.matcher(chat.get("/metrics").body());
        double heap = 0;
        while (m.find()) {
            heap += Double.parseDouble(m.group(1));
        }
        return new long[] {server.rssBytes(), (long) heap};
    }

    /** Bytes per class of the server's live heap ({@code jcmd GC.class_histogram}, which collects first). */
    private static Map<String, Long> histogram(ServerProcess server) throws Exception {
        Process p = new ProcessBuilder(jcmd(), Long.toString(server.process.pid()), "GC.class_histogram")
                .redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        Map<String, Long> bytes = new java.util.HashMap<>();
        Matcher m = Pattern.compile("^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)", Pattern.MULTILINE).matcher(text);
        while (m.find()) {
            bytes.merge(m.group(2), Long.parseLong(m.group(1)), Long::sum);
        }
        return bytes;
    }

    /** The five classes whose live bytes grew most from {@code before} to {@code after}. */
    private static String grown(Map<String, Long> before, Map<String, Long> after) {
        return after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                .map(e -> e.getKey() + " +" + e.getValue() / 1024 + " KB").toList().toString();
    }

    private static String jcmd(ServerProcess server, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(jcmd(), Long.toString(server.process.pid())));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return text;
    }

    /** The categories of a {@code VM.native_memory summary.diff} whose committed memory grew, most first. */
    private static String nativeGrowth(String diff) {
        Matcher m = Pattern.compile("^-\\s*(\\S[^(]*?) \\(reserved=\\S+, committed=(\\d+)KB ([+-]\\d+)KB\\)",
                Pattern.MULTILINE).matcher(diff);
        List<Map.Entry<String, Long>> grew = new ArrayList<>();
        while (m.find()) {
            grew.add(Map.entry(m.group(1).strip(), Long.parseLong(m.group(3))));
        }
        grew.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        return grew.stream().limit(5).map(e -> e.getKey() + " " + (e.getValue() >= 0 ? "+" : "") + e.getValue() + " KB")
                .toList().toString();
    }

    private static String jcmd() {
        return Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    }

    /** Parks {@link #POLLS} polls on one room, says one message there, and counts the polls answered 200. */
    private static int parkedPolls(ServerProcess server, ChatClient chat) throws Exception {
        long after = ChatClient.seq(chat.say("polls", "ann", "before"));
        byte[] request = ("GET /api/rooms/polls/poll?after=" + after + "&timeout_ms=60000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        InetSocketAddress address = new InetSocketAddress(server.url.getHost(), server.url.getPort());
        List<SocketChannel> channels = new ArrayList<>(POLLS);
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < POLLS; i++) {
                SocketChannel ch = SocketChannel.open(address);
                ch.write(ByteBuffer.wrap(request));
                ch.configureBlocking(false);
                ch.register(selector, SelectionKey.OP_READ, new StringBuilder());
                channels.add(ch);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (waiters(chat) < POLLS && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            chat.say("polls", "ann", "wake up");
            int answered = 0;
            int finished = 0; // answered, or closed without an answer
            ByteBuffer buf = ByteBuffer.allocate(4096);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (finished < POLLS && System.nanoTime() < until) {
                if (selector.select(1000) == 0) {
                    continue;
                }
                for (SelectionKey key : selector.selectedKeys()) {
                    StringBuilder got = (StringBuilder) key.attachment();
                    buf.clear();
                    int n = ((SocketChannel) key.channel()).read(buf);
                    if (n < 0) {
                        key.cancel();
                        finished++;
                        continue;
                    }
                    got.append(new String(buf.array(), 0, n, StandardCharsets.US_ASCII));
                    if (got.length() >= 12) {
                        if (got.substring(0, 12).equals("HTTP/1.1 200")) {
                            answered++;
                        }
                        key.cancel();
                        finished++;
                    }
                }
                selector.selectedKeys().clear();
            }
            return answered;
        } finally {
            for (SocketChannel ch : channels) {
                ch.close();
            }
        }
    }

    private static long waiters(ChatClient chat) throws IOException, InterruptedException {
        Matcher m = Pattern.compile("^pulsebus_longpoll_waiters(?:\\{[^}]*})? (\\S+)$", Pattern.MULTILINE)
                .matcher(chat.get("/metrics").body());
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }
}

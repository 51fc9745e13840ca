package dev.pulsebus.bench.adapter;

import dev.pulsebus.bench.harness.BenchOptions;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.config.Section;
import dev.pulsebus.irc.IrcProvider;
import dev.pulsebus.irc.IrcSettings;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.platform.HttpRoutes;
import dev.pulsebus.platform.InstanceMessaging;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformProvider;
import dev.pulsebus.testing.MemoryKvStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * {@code adapter.irc_roundtrip}: {@code !echo <n>} said in a channel of a real ngIRCd (Debian's {@code ngircd},
 * started here on a free port) on a schedule, each timed from its scheduled send until the bot's answer came
 * back through the server; the bot is the IRC adapter in a {@link MessagePipeline} with a command router, in
 * this JVM. The floor is a do-nothing IRC bot on the same server (a socket that answers each {@code !echo} at
 * once, no pipeline), in interleaved rounds at the same rate. The rate is low on purpose: ngIRCd reads about
 * three commands a second from a client, and a bot is held to its {@code send_rate}; so this row is the
 * latency an IRC user sees, not a throughput. Without ngIRCd the row has no figures and says why.
 */
final class IrcRoundtrip {

    static final double RATE = 2;
    private static final Path NGIRCD = Path.of(System.getProperty("pulsebus.bench.ngircd", "/usr/sbin/ngircd"));
    private static final double P99_TARGET_US = 20_000;

    private IrcRoundtrip() {
    }

    static Row run(BenchOptions options, int rounds) throws Exception {
        if (!Files.isExecutable(NGIRCD)) {
            return new Row("adapter", "adapter.irc_roundtrip", "us", null, null, null, null, null, null, null, 0,
                    ServerFixture.peers(), "not measured: no ngIRCd at " + NGIRCD + " (Debian's ngircd package)");
        }
        Duration warmup = options.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(3);
        Duration measure = options.quick() ? Duration.ofSeconds(3) : Duration.ofSeconds(15);
        Path dir = Files.createTempDirectory("pulsebus-bench-ircd");
        List<Histogram> floorRounds = new ArrayList<>();
        List<Histogram> ourRounds = new ArrayList<>();
        long unanswered = 0;
        try (Ircd ircd = new Ircd(dir); Line load = Line.connect(ircd.port, "load");
             Line floor = Line.connect(ircd.port, "floorbot")) {
            floor.join("#floor");
            floor.onLine(l -> {
                int at = l.indexOf(" PRIVMSG #floor :!echo ");
                if (at > 0) {
                    floor.sendQuietly("PRIVMSG #floor :" + l.substring(at + " PRIVMSG #floor :!echo ".length()));
                }
            });
            Pacer pacer = new Pacer(load);
            load.join("#floor");
            load.join("#bench");
            try (Bot bot = new Bot(ircd.port)) {
                bot.awaitJoined(load);
                for (int round = 1; round <= rounds; round++) {
                    Progress.print("adapter.irc_roundtrip: round " + round + ", do-nothing bot at " + (long) RATE
                            + "/s");
                    Pacer.Result f = pacer.run("#floor", "floorbot", RATE, warmup, measure);
                    floorRounds.add(f.latencyNanos());
                    Progress.print("adapter.irc_roundtrip: round " + round + ", pulsebus at " + (long) RATE
                            + "/s");
                    Pacer.Result r = pacer.run("#bench", "pulsebus", RATE, warmup, measure);
                    ourRounds.add(r.latencyNanos());
                    unanswered += r.unanswered();
                }
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        double floor50 = ServerFixture.medianUs(floorRounds, 50);
        double floor99 = ServerFixture.medianUs(floorRounds, 99);
        double p50 = ServerFixture.medianUs(ourRounds, 50);
        double p99 = ServerFixture.medianUs(ourRounds, 99);
        boolean met = unanswered == 0 && p99 <= P99_TARGET_US;
        Row row = ServerFixture.row("adapter", "adapter.irc_roundtrip", "us", null, ourRounds.get(0), null,
                ServerFixture.peers("noop_floor", floor99), String.format(Locale.ROOT, "!echo <n> said in a channel of a real ngIRCd"
                        + " (loopback, plain TCP) on a schedule at %.0f/s, each timed from its scheduled send until"
                        + " the bot's answer came back through the server (two relays by ngIRCd in each); the bot is"
                        + " the IRC adapter in a MessagePipeline with a command router (send_rate 5/s burst 5, so"
                        + " its bucket never holds a line back at this rate); each percentile the median of %d"
                        + " rounds' interleaved with a do-nothing IRC bot on the same server (floor p50 %.0f us,"
                        + " p99 %.0f us; ours/floor p50 %.2fx, p99 %.2fx); a low rate as ngIRCd reads about three"
                        + " commands a second from a client; %d not answered; target p99 <= %.0f us: %s", RATE,
                        rounds, floor50, floor99, p50 / floor50, p99 / floor99, unanswered, P99_TARGET_US,
                        met ? "met" : "MISSED (p50 " + Math.round(p50) + " us, p99 " + Math.round(p99) + " us, "
                                + unanswered + " unanswered)"));
        System.out.printf(Locale.ROOT, "IRC do-nothing bot (floor) at %.0f/s: p50 %.0f us, p99 %.0f us (median of %d"
                + " rounds)%n", RATE, floor50, floor99, rounds);
        return ServerFixture.medianOfRounds(row, ourRounds);
    }

    /** An ngIRCd of its own, on a free port, in the foreground. */
    private static final class Ircd implements AutoCloseable {
        final int port;
        private final Process process;

        Ircd(Path dir) throws Exception {
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path include = Files.createDirectories(dir.resolve("conf.d"));
            boolean root = "root".equals(System.getProperty("user.name"));
            Path conf = dir.resolve("ngircd.conf");
            Files.writeString(conf, "[Global]\nName = irc.bench\nInfo = bench\nListen = 127.0.0.1\nPorts = " + port
                    + "\nAdminInfo1 = bench\nAdminInfo2 = bench\nAdminEMail = bench@localhost\n"
                    + (root ? "ServerUID = 65534\nServerGID = 65534\n" : "")
                    + "[Limits]\nMaxConnectionsIP = 0\n[Options]\nPAM = no\nIdent = no\nDNS = no\nIncludeDir = "
                    + include + "\n");
            process = new ProcessBuilder(NGIRCD.toString(), "-n", "-f", conf.toString()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("ngircd.log").toFile()).start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (true) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                    return;
                } catch (IOException e) {
                    if (!process.isAlive() || System.nanoTime() > until) {
                        process.destroyForcibly();
                        throw new IOException("ngIRCd did not start: "
                                + Files.readString(dir.resolve("ngircd.log")), e);
                    }
                    Thread.sleep(20);
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /** PulseBus's bot: the IRC provider's adapter in a pipeline whose router answers {@code echo}. */
    private static final class Bot implements AutoCloseable, PlatformContext {
        private final EventBus bus = EventBus.builder().build();
        private final List<Adapter> adapters = new ArrayList<>();
        private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        private final Kv kv = new MemoryKvStore().namespace("irc");
        private final MessagePipeline pipeline;

        Bot(int port) throws Exception {
            IrcProvider provider = new IrcProvider();
            IrcSettings settings = provider.read(Section.of("adapters.irc", Map.of("server", "127.0.0.1",
                    "port", Integer.toString(port), "tls", "false", "nick", "pulsebus", "channels", "#bench",
                    "send_rate", "5/s burst 5"), Map.of(), provider.keys(), "bench"),
                    PlatformProvider.Deployment.ALONE);
            provider.create(settings, this);
            CommandRouter router = CommandRouter.builder().build();
            router.register(Command.named("echo").handler(c -> c.reply(c.rest())));
            MessagePipeline.Builder b = MessagePipeline.builder(bus).commands(router);
            adapters.forEach(b::adapter);
            pipeline = b.build().start();
        }

        /** Waits until the bot has joined {@code #bench}, as {@code client} (there) sees. */
        void awaitJoined(Line client) throws Exception {
            if (!client.awaitSeen(" JOIN ", ":pulsebus!", Duration.ofSeconds(30))) {
                throw new IllegalStateException("the IRC bot did not join #bench within 30 s");
            }
        }

        @Override
        public void close() throws Exception {
            pipeline.close();
            bus.close();
        }

        @Override
        public String instance() {
            return "bench";
        }

        @Override
        public void adapter(Adapter adapter) {
            adapters.add(adapter);
        }

        @Override
        public Kv kv() {
            return kv;
        }

        @Override
        public MeterRegistry meters() {
            return meters;
        }

        @Override
        public Clock clock() {
            return Clock.systemUTC();
        }

        @Override
        public HttpRoutes http() {
            return HttpRoutes.none("irc");
        }

        @Override
        public Optional<InstanceMessaging> cluster() {
            return Optional.empty();
        }
    }

    /** A bare IRC client: registers, answers PING, hands each line to its listeners. */
    private static final class Line implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final List<Consumer<String>> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

        private Line(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
            socket.setTcpNoDelay(true);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            Thread.ofVirtual().name("bench-irc-client").start(() -> {
                try {
                    for (String l; (l = in.readLine()) != null; ) {
                        if (l.startsWith("PING ")) {
                            sendQuietly("PONG " + l.substring(5));
                        }
                        for (Consumer<String> c : listeners) {
                            c.accept(l);
                        }
                        if (seen.size() < 1000) {
                            seen.add(l);
                        }
                    }
                } catch (IOException e) {
                    // closed
                }
            });
        }

        static Line connect(int port, String nick) throws Exception {
            Line l = new Line(new Socket(InetAddress.getLoopbackAddress(), port));
            l.send("NICK " + nick);
            l.send("USER " + nick + " 0 * :bench");
            if (!l.awaitSeen(" 001 ", "", Duration.ofSeconds(10))) {
                throw new IllegalStateException(nick + " was not welcomed by ngIRCd");
            }
            return l;
        }

        void join(String channel) throws Exception {
            send("JOIN " + channel);
            if (!awaitSeen(" 366 ", channel, Duration.ofSeconds(10))) {
                throw new IllegalStateException("could not join " + channel);
            }
        }

        boolean awaitSeen(String part, String also, Duration timeout) throws InterruptedException {
            long until = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < until) {
                for (String l : seen) {
                    if (l.contains(part) && l.contains(also)) {
                        return true;
                    }
                }
                Thread.sleep(10);
            }
            return false;
        }

        void onLine(Consumer<String> c) {
            listeners.add(c);
        }

        synchronized void send(String line) throws IOException {
            out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        void sendQuietly(String line) {
            try {
                send(line);
            } catch (IOException e) {
                // the round counts it unanswered
            }
        }

        @Override
        public void close() throws IOException {
            sendQuietly("QUIT :done");
            socket.close();
        }
    }

    /**
     * The open loop: {@code !echo <n>} to a channel on a schedule, each timed from its slot until the answer
     * {@code <n>} from the bot arrived (no coordinated omission: a late send still counts from its slot).
     */
    private static final class Pacer {
        record Result(Histogram latencyNanos, long unanswered) {
        }

        private final Line client;
        private final Map<Long, Long> due = new ConcurrentHashMap<>();
        private volatile String botPrefix = "";
        private volatile String channel = "";
        private volatile long measureFrom;
        private volatile Histogram histogram = new Histogram(3);
        private long next = 1;

        Pacer(Line client) {
            this.client = client;
            client.onLine(this::answer);
        }

        private void answer(String l) {
            long now = System.nanoTime();
            String head = " PRIVMSG " + channel + " :";
            int at = l.indexOf(head);
            if (at < 0 || !l.startsWith(botPrefix)) {
                return;
            }
            long n;
            try {
                n = Long.parseLong(l.substring(at + head.length()).trim());
            } catch (NumberFormatException e) {
                return;
            }
            Long slot = due.remove(n);
            if (slot != null) {
                if (slot >= measureFrom) {
                    synchronized (this) {
                        histogram.recordValue(Math.max(0, now - slot));
                    }
                }
            }
        }

        Result run(String target, String nick, double rate, Duration warmup, Duration measure) throws Exception {
            due.clear();
            channel = target;
            botPrefix = ":" + nick + "!";
            synchronized (this) {
                histogram = new Histogram(3);
            }
            long interval = (long) (1e9 / rate);
            long start = System.nanoTime() + 50_000_000L;
            measureFrom = start + warmup.toNanos();
            long end = measureFrom + measure.toNanos();
            for (long slot = start; slot < end; slot += interval) {
                long wait = slot - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                long n = next++;
                due.put(n, slot);
                client.send("PRIVMSG " + target + " :!echo " + n);
            }
            long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!due.isEmpty() && System.nanoTime() < drainUntil) {
                Thread.sleep(10);
            }
            synchronized (this) {
                return new Result(histogram.copy(), due.size());
            }
        }
    }
}

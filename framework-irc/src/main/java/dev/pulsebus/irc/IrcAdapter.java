package dev.pulsebus.irc;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import dev.pulsebus.pipeline.Adapter;
import dev.pulsebus.pipeline.ChatLanes;
import dev.pulsebus.pipeline.Inbound;
import dev.pulsebus.pipeline.OutboundMessage;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bot on one IRC server, as the pipeline's adapter of platform {@value #PLATFORM}.
 *
 * <p><b>Connection.</b> A virtual thread connects (TLS when {@code tls}), registers ({@code CAP LS 302} and
 * SASL PLAIN when {@code sasl_user} is set, then {@code PASS}, {@code NICK}, {@code USER}), joins the channels
 * once welcomed ({@code 001}) and reads. A nick in use takes the next of {@code alt_nicks}, then the nick with
 * {@code _} appended. It PINGs the server every {@link Timing#pingEvery} and reconnects when the PONG does not
 * come within {@link Timing#pongTimeout} (the round trip is {@code pulsebus_irc_lag_seconds}); a lost
 * connection is tried again after 0.5 s doubling to 60 s ({@link Reconnects}), and rejoins. A SASL failure
 * ({@code 904}, {@code 905}, no SASL offered) or a wrong server password ({@code 464}) gives up: retrying would
 * fail the same way; the bot shows down with the reason in {@link #warnings()}.
 *
 * <p><b>Inbound.</b> A {@code PRIVMSG} to a channel is a {@link GroupMessage} (group id the channel name in
 * lower case), one to the bot a {@link PrivateMessage}; the user id is the sender's nick, its whole prefix
 * ({@code nick!user@host}) is in {@code extra.prefix}. The command prefix ({@code !}) is read as the router's
 * ({@value #ROUTER_PREFIX}); a message addressed to the bot ({@code pulsebus: echo hi}, {@code pulsebus, ...})
 * is a mention of it followed by a command. CTCP {@code ACTION} is a message of sub type {@code action};
 * {@code VERSION} and {@code PING} are answered with a NOTICE. A {@code NOTICE} from a user is a
 * {@link NoticeEvent} ({@code irc_notice}): never a message, so no command answers it (RFC 2812, 3.3.2).
 * Events wait on {@link ChatLanes} (a chat's in order), so a slow handler never holds up the connection.
 *
 * <p><b>Outbound.</b> {@link #send} cuts the text into lines ({@link IrcText}) and queues them whole; a writer
 * thread says them under the token bucket of {@code send_rate}. At most {@value #MAX_QUEUED_LINES} lines
 * wait; a send that does not fit fails at once and its lines are counted
 * ({@code pulsebus_irc_dropped_lines_total}). Lines wait through a reconnect; the send's stage completes (with
 * a local id: IRC has no message ids) once its last line is written.
 */
final class IrcAdapter implements Adapter {

    static final String PLATFORM = "irc";
    /** The prefix the command router reads: the IRC command prefix is rewritten to it. */
    static final String ROUTER_PREFIX = "/";
    static final int MAX_QUEUED_LINES = 1024;
    /** The longest line read (IRCv3 tags may take 8191 bytes before the 512 of the message); longer ones are cut. */
    static final int MAX_LINE_BYTES = 8192 + 512;
    static final int LANES = 4;
    static final int LANE_CAPACITY = 256;
    private static final Logger LOG = LoggerFactory.getLogger(IrcAdapter.class);
    private static final long TICK_MILLIS = 250;
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private static final int MAX_UNDERSCORES = 8;
    private static final long QUIT_WAIT_NANOS = 1_500_000_000L;

    /** How often the bot checks the connection, and how long it waits. */
    record Timing(Duration pingEvery, Duration pongTimeout, Duration registerTimeout) {

        static final Timing DEFAULT = new Timing(Duration.ofSeconds(30), Duration.ofSeconds(60),
                Duration.ofSeconds(60));
    }

    /** A failure that another attempt would meet again (SASL refused, a wrong server password): no reconnect. */
    static final class GiveUp extends IOException {
        private static final long serialVersionUID = 1L;

        GiveUp(String message) {
            super(message);
        }
    }

    /** One send's lines, in order, and the stage completed when the last is written. */
    private static final class Send {
        final byte[][] lines;
        final CompletableFuture<String> done = new CompletableFuture<>();
        final String id;
        int next;

        Send(byte[][] lines, String id) {
            this.lines = lines;
            this.id = id;
        }
    }

    final IrcSettings settings;
    private final Timing timing;
    private final Clock clock;
    private final IrcMetrics metrics;
    private final Self self;
    private final String version;
    /** With {@code tls}: made at start, so a {@code tls_ca_file} that does not read stops the start. */
    private final @Nullable SSLSocketFactory tlsFactory;
    private final String runId = Long.toString(ThreadLocalRandom.current().nextLong() & 0xffffffffffL, 36);
    private final AtomicLong inSeq = new AtomicLong();
    private final AtomicLong outSeq = new AtomicLong();
    private final ConcurrentLinkedQueue<Send> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queuedLines = new AtomicInteger();
    private final AtomicLong healthState = new AtomicLong();
    private final ChatLanes<Event> lanes;
    private volatile @Nullable Inbound inbound;
    private volatile @Nullable Session session;
    private volatile boolean up;
    private volatile @Nullable String gaveUp;
    private volatile boolean stopping;
    /** Set first at stop: messages read from then on are not handed to the lanes, which are stopping. */
    private volatile boolean closing;
    /** When {@link #stopping} was set: the reader waits a while for the server to close after QUIT. */
    private volatile long stoppedAt;
    private volatile @Nullable Thread connector;
    private volatile @Nullable Thread writer;

    IrcAdapter(IrcSettings settings, Timing timing, Clock clock, MeterRegistry registry) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        this.self = new Self(PLATFORM, settings.nick());
        this.version = version();
        this.tlsFactory = settings.tls() ? tlsFactory(settings.tlsCaFile()) : null;
        this.lanes = new ChatLanes<>("pulsebus-irc-lane", LANES, LANE_CAPACITY, IrcAdapter::chatOf, this::handOver);
        this.metrics = new IrcMetrics(registry);
    }

    @Override
    public String platform() {
        return PLATFORM;
    }

    /** The bot's identity: platform {@value #PLATFORM}, user id its configured nick. */
    Self self() {
        return self;
    }

    /** Whether it is connected and registered. */
    boolean up() {
        return up;
    }

    /** Changes whenever {@link #up} or {@link #warnings} does. */
    long healthState() {
        return healthState.get();
    }

    /** What is wrong or weak: why it gave up, credentials sent without TLS. */
    List<String> warnings() {
        List<String> w = new ArrayList<>(2);
        String g = gaveUp;
        if (g != null) {
            w.add("irc:" + settings.server() + " gave up: " + g);
        }
        if (!settings.tls() && (!settings.password().isEmpty() || !settings.saslUser().isEmpty())) {
            w.add("irc:" + settings.server() + " sends its password without TLS (adapters.irc.tls = false)");
        }
        return w;
    }

    /** The nick the bot has now (the configured one until it is welcomed under another). */
    String nick() {
        Session s = session;
        return s != null && s.registered ? s.nick : settings.nick();
    }

    @Override
    public void start(Inbound inbound) {
        this.inbound = inbound;
        metrics.bind(settings.server(), this, a -> a.up ? 1 : 0, a -> a.queuedLines.get());
        lanes.start(inbound);
        writer = Thread.ofVirtual().name("pulsebus-irc-writer").start(this::write);
        connector = Thread.ofVirtual().name("pulsebus-irc-" + settings.server()).start(this::connect);
    }

    /**
     * Lets the lanes finish what they hold and the writer say what is queued (at most 2 s), then quits
     * ({@code QUIT :bye}), waits for the server to close (at most 2 s), closes, and removes the meters. Sends
     * still queued fail.
     */
    @Override
    public void stop() throws InterruptedException {
        closing = true; // what is said from now on is not taken
        lanes.stop(Duration.ofSeconds(5));
        long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while (queuedLines.get() > 0 && up && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        stoppedAt = System.nanoTime();
        stopping = true;
        Session s = session;
        if (s != null) {
            try {
                s.write("QUIT :bye");
            } catch (IOException e) {
                LOG.debug("IRC {}: QUIT not sent: {}", settings.server(), e.toString());
            }
        }
        Thread c = connector;
        if (c != null && s == null) {
            c.interrupt(); // waiting to connect again
        }
        if (c != null && !c.join(Duration.ofSeconds(2))) {
            Session now = session;
            if (now != null) {
                now.close();
            }
            c.interrupt();
            c.join(Duration.ofSeconds(2));
        }
        Thread w = writer;
        if (w != null) {
            LockSupport.unpark(w);
            w.join(Duration.ofSeconds(2));
        }
        failQueued();
        setUp(false);
        metrics.unbind();
    }

    // ------------------------------------------------------------------ outbound

    @Override
    public CompletionStage<String> send(OutboundMessage message) {
        ChatRef chat = message.chat();
        if (chat.detailType().equals(ChatRef.CHANNEL)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("IRC has no guild channels: send "
                    + "to a group (an IRC channel) or a private chat (a nick), not " + chat.id()));
        }
        return say("PRIVMSG", chat.id(), text(message.message()));
    }

    /** Queues {@code text} to {@code target} as {@code command} lines; fails when it does not fit the queue. */
    CompletionStage<String> say(String command, String target, String text) {
        if (target.isEmpty() || target.chars().anyMatch(c -> c <= ' ' || c == ',')) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("not an IRC target: \"" + target
                    + "\""));
        }
        if (stopping) {
            return CompletableFuture.failedFuture(new IllegalStateException("the IRC adapter is stopping"));
        }
        List<String> pieces = IrcText.split(text, IrcText.budget(command, target, nick()));
        if (pieces.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("nothing to say: IRC has no empty "
                    + "message"));
        }
        return enqueue(command, target, pieces);
    }

    /** Queues the lines of {@code pieces}, as they are, whole or not at all. */
    private CompletionStage<String> enqueue(String command, String target, List<String> pieces) {
        int n = pieces.size();
        while (true) {
            int q = queuedLines.get();
            if (q + n > MAX_QUEUED_LINES) {
                metrics.droppedLines.add(n);
                return CompletableFuture.failedFuture(new IllegalStateException("the IRC send queue is full ("
                        + q + " lines wait, at most " + MAX_QUEUED_LINES + "): " + n + " lines refused, counted in "
                        + "pulsebus_irc_dropped_lines_total"));
            }
            if (queuedLines.compareAndSet(q, q + n)) {
                break;
            }
        }
        byte[][] lines = new byte[n][];
        String head = command + " " + target + " :";
        for (int i = 0; i < n; i++) {
            lines[i] = (head + pieces.get(i) + "\r\n").getBytes(StandardCharsets.UTF_8);
        }
        Send send = new Send(lines, runId + "-o" + outSeq.incrementAndGet());
        queue.add(send);
        if (stopping) {
            failQueued(); // stop may have emptied the queue before this came
        }
        Thread w = writer;
        if (w != null) {
            LockSupport.unpark(w);
        }
        return send.done;
    }

    /** Fails the sends still queued (the adapter stopped). */
    private void failQueued() {
        for (Send send; (send = queue.poll()) != null; ) {
            queuedLines.addAndGet(-(send.lines.length - send.next));
            send.done.completeExceptionally(new IllegalStateException("the IRC adapter stopped before this was said"));
        }
    }

    /** Lines waiting for the flood control. */
    int queuedLines() {
        return queuedLines.get();
    }

    /** A message as IRC text: mentions as the nick, other segments as their plain text. */
    static String text(Message message) {
        StringBuilder sb = new StringBuilder();
        for (Segment s : message.segments()) {
            sb.append(s instanceof Segment.Mention m ? m.userId() : s.plainText());
        }
        return sb.toString();
    }

    /** The writer: says the queued lines in order, a line per token of the bucket, once a connection is ready. */
    private void write() {
        TokenBucket bucket = new TokenBucket(settings.sendRate(), System.nanoTime());
        Send cur = null;
        while (!stopping) {
            if (cur == null) {
                cur = queue.poll();
                if (cur == null) {
                    LockSupport.parkNanos(100_000_000L);
                    continue;
                }
            }
            Session s = session;
            if (s == null || !s.ready) {
                LockSupport.parkNanos(20_000_000L);
                continue;
            }
            long wait = bucket.nanosUntilToken(System.nanoTime());
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            try {
                s.write(cur.lines[cur.next]);
            } catch (IOException e) {
                s.ready = false; // said again on the next connection
                s.close(); // the reader sees it and reconnects
                continue;
            }
            bucket.take();
            metrics.sent.increment();
            queuedLines.decrementAndGet();
            if (++cur.next == cur.lines.length) {
                cur.done.complete(cur.id);
                cur = null;
            }
        }
        if (cur != null) {
            queuedLines.addAndGet(cur.next - cur.lines.length);
            cur.done.completeExceptionally(new IllegalStateException("the IRC adapter stopped before this was said"));
        }
    }

    // ------------------------------------------------------------------ connection

    /** One connection: its socket, and what registration learned. */
    private final class Session {
        final Socket socket;
        final OutputStream out;
        final ReentrantLock writeLock = new ReentrantLock();
        final long openedAt = System.nanoTime();
        volatile boolean registered;
        /** Registered and its channels joined: the writer may speak. */
        volatile boolean ready;
        volatile String nick;
        int nickAttempt;
        String chanTypes = "#&";
        final StringBuilder capLs = new StringBuilder();
        boolean saslDone;
        long lastPingAt;
        long pingSentAt;
        String pingToken = "";

        Session(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
            this.nick = settings.nick();
        }

        void write(String line) throws IOException {
            write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        }

        void write(byte[] line) throws IOException {
            writeLock.lock();
            try {
                out.write(line);
                out.flush();
            } finally {
                writeLock.unlock();
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                LOG.debug("IRC {}: close: {}", settings.server(), e.toString());
            }
        }
    }

    /** The connecting thread: connects, reads until the connection ends, waits, connects again. */
    private void connect() {
        Reconnects backoff = new Reconnects(() -> ThreadLocalRandom.current().nextDouble());
        while (!stopping) {
            Session s = null;
            try {
                s = open();
                session = s;
                register(s);
                read(s, backoff);
            } catch (GiveUp e) {
                gaveUp = e.getMessage();
                healthState.incrementAndGet();
                LOG.error("IRC {}: {}; not connecting again (fix adapters.irc and restart)", settings.server(),
                        e.getMessage());
                if (s != null) {
                    try {
                        s.write("QUIT :bye");
                    } catch (IOException ignored) {
                        // closing anyway
                    }
                }
                break;
            } catch (IOException | RuntimeException e) {
                if (!stopping) {
                    LOG.warn("IRC {}:{}: connection {}: {}", settings.server(), settings.port(),
                            s != null && s.registered ? "lost" : "failed", e.toString());
                }
            } finally {
                setUp(false);
                if (s != null) {
                    s.close();
                }
                session = null;
            }
            if (stopping) {
                break;
            }
            try {
                Thread.sleep(backoff.next());
            } catch (InterruptedException e) {
                break;
            }
        }
        setUp(false);
    }

    private Session open() throws IOException {
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(settings.server(), settings.port()), CONNECT_TIMEOUT_MILLIS);
            plain.setTcpNoDelay(true);
            plain.setKeepAlive(true);
            Socket socket = plain;
            SSLSocketFactory factory = tlsFactory;
            if (factory != null) {
                SSLSocket tls = (SSLSocket) factory.createSocket(plain, settings.server(), settings.port(), true);
                SSLParameters p = tls.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                tls.setSSLParameters(p);
                tls.setSoTimeout(CONNECT_TIMEOUT_MILLIS);
                tls.startHandshake();
                socket = tls;
            }
            socket.setSoTimeout((int) TICK_MILLIS);
            return new Session(socket);
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    private void register(Session s) throws IOException {
        if (!settings.saslUser().isEmpty()) {
            s.write("CAP LS 302");
        }
        if (!settings.password().isEmpty()) {
            s.write("PASS " + settings.password().reveal());
        }
        s.write("NICK " + s.nick);
        s.write("USER " + settings.nick() + " 0 * :PulseBus");
    }

    private void read(Session s, Reconnects backoff) throws IOException {
        LineReader in = new LineReader(s.socket.getInputStream());
        while (true) {
            String line;
            try {
                line = in.readLine();
            } catch (SocketTimeoutException e) {
                line = null;
            }
            long now = System.nanoTime();
            if (stopping && now - stoppedAt > QUIT_WAIT_NANOS) {
                return; // after QUIT, reads until the server closes (its ERROR), for a while
            }
            if (line != null) {
                metrics.received.increment();
                IrcLine m = IrcLine.parse(line);
                if (m != null) {
                    handle(s, m, now, backoff);
                }
            }
            check(s, now);
        }
    }

    /** The connection's clocks: registration within its time, a PING now and then, its PONG in time. */
    private void check(Session s, long now) throws IOException {
        if (!s.registered) {
            if (now - s.openedAt > timing.registerTimeout().toNanos()) {
                throw new IOException("not welcomed (001) within " + timing.registerTimeout().toSeconds() + " s");
            }
            return;
        }
        if (s.pingSentAt != 0) {
            if (now - s.pingSentAt > timing.pongTimeout().toNanos()) {
                throw new IOException("no PONG within " + timing.pongTimeout().toSeconds() + " s of a PING");
            }
        } else if (s.lastPingAt == 0 || now - s.lastPingAt >= timing.pingEvery().toNanos()) {
            s.pingToken = "pb" + Long.toString(now & 0xffffffffffL, 36);
            s.pingSentAt = now;
            s.lastPingAt = now;
            s.write("PING :" + s.pingToken);
        }
    }

    private void handle(Session s, IrcLine m, long now, Reconnects backoff) throws IOException {
        switch (m.command()) {
            case "PING" -> s.write("PONG :" + m.last());
            case "PONG" -> {
                if (s.pingSentAt != 0 && m.last().equals(s.pingToken)) {
                    metrics.lagNanos.set(now - s.pingSentAt);
                    s.pingSentAt = 0;
                }
            }
            case "CAP" -> cap(s, m);
            case "AUTHENTICATE" -> {
                if (m.param(0).equals("+")) {
                    authenticate(s);
                }
            }
            case "903", "907" -> {
                s.saslDone = true;
                s.write("CAP END");
            }
            case "902", "904", "905", "906" -> throw new GiveUp("SASL PLAIN login of " + settings.saslUser()
                    + " refused (" + m.command() + " " + m.last() + ")");
            case "464" -> throw new GiveUp("the server refused its password (464 " + m.last() + ")");
            case "001" -> welcomed(s, m, backoff);
            case "005" -> {
                for (String p : m.params()) {
                    if (p.startsWith("CHANTYPES=")) {
                        s.chanTypes = p.substring("CHANTYPES=".length());
                    }
                }
            }
            case "432", "433", "436", "437" -> {
                if (!s.registered) {
                    s.nick = nextNick(s, m);
                    s.write("NICK " + s.nick);
                } else {
                    LOG.warn("IRC {}: nick change refused: {} {}", settings.server(), m.command(), m.last());
                }
            }
            case "NICK" -> {
                if (m.nick().equalsIgnoreCase(s.nick)) {
                    s.nick = m.param(0);
                }
            }
            case "PRIVMSG" -> message(s, m, false);
            case "NOTICE" -> message(s, m, true);
            case "ERROR" -> throw new EOFException("the server closed the connection: " + m.last());
            case "KICK" -> {
                if (m.param(1).equalsIgnoreCase(s.nick)) {
                    LOG.warn("IRC {}: kicked from {} by {}: {}", settings.server(), m.param(0), m.nick(), m.last());
                }
            }
            case "403", "405", "471", "473", "474", "475", "476", "477" -> LOG.warn("IRC {}: cannot join {}: {} {}",
                    settings.server(), m.param(1), m.command(), m.last());
            default -> {
                // other numerics and commands: nothing to do
            }
        }
    }

    private void welcomed(Session s, IrcLine m, Reconnects backoff) throws IOException {
        if (!settings.saslUser().isEmpty() && !s.saslDone) {
            throw new GiveUp("registered without SASL (the server does not speak CAP), while sasl_user is set");
        }
        s.nick = m.param(0).isEmpty() ? s.nick : m.param(0);
        s.registered = true;
        backoff.reset();
        metrics.connects.increment();
        if (!s.nick.equals(settings.nick())) {
            LOG.warn("IRC {}: nick {} is taken; connected as {}", settings.server(), settings.nick(), s.nick);
        }
        for (IrcSettings.Channel c : settings.channels()) {
            s.write("JOIN " + c.name() + (c.key().isEmpty() ? "" : " " + c.key().reveal()));
        }
        s.ready = true;
        setUp(true);
        LOG.info("IRC {}:{}: registered as {}, joining {}", settings.server(), settings.port(), s.nick,
                settings.channels().stream().map(IrcSettings.Channel::name).toList());
    }

    /** The nick after the one refused: the next alternate, then the nick with more and more {@code _}. */
    private String nextNick(Session s, IrcLine m) throws IOException {
        int i = s.nickAttempt++;
        List<String> alt = settings.altNicks();
        if (i < alt.size()) {
            return alt.get(i);
        }
        int underscores = i - alt.size() + 1;
        if (underscores > MAX_UNDERSCORES) {
            throw new IOException("no nick free: " + settings.nick() + ", " + alt + " and " + MAX_UNDERSCORES
                    + " with _ appended were refused (" + m.command() + " " + m.last() + ")");
        }
        return settings.nick() + "_".repeat(underscores);
    }

    private void cap(Session s, IrcLine m) throws IOException {
        String sub = m.param(1);
        if (settings.saslUser().isEmpty() || s.saslDone) {
            return;
        }
        switch (sub) {
            case "LS" -> {
                boolean more = m.params().size() > 3 && m.param(2).equals("*");
                s.capLs.append(' ').append(m.last());
                if (more) {
                    return;
                }
                for (String cap : s.capLs.toString().trim().split("\\s+", -1)) {
                    int eq = cap.indexOf('=');
                    String name = eq < 0 ? cap : cap.substring(0, eq);
                    if (name.equals("sasl")) {
                        if (eq >= 0 && !List.of(cap.substring(eq + 1).split(",", -1)).contains("PLAIN")) {
                            throw new GiveUp("the server offers SASL " + cap.substring(eq + 1) + ", not PLAIN");
                        }
                        s.write("CAP REQ :sasl");
                        return;
                    }
                }
                throw new GiveUp("the server does not offer SASL (CAP LS:" + s.capLs + "), while sasl_user is set");
            }
            case "ACK" -> {
                if (List.of(m.last().trim().split("\\s+", -1)).contains("sasl")) {
                    s.write("AUTHENTICATE PLAIN");
                }
            }
            case "NAK" -> throw new GiveUp("the server refused the SASL capability (CAP NAK " + m.last() + ")");
            default -> {
                // NEW, DEL, LIST: nothing to do
            }
        }
    }

    /** SASL PLAIN's answer ({@code \0user\0password}, base64, in pieces of 400 bytes; RFC 4616, IRCv3 SASL 3.1). */
    private void authenticate(Session s) throws IOException {
        String plain = "\0" + settings.saslUser() + "\0" + settings.saslPassword().reveal();
        String b64 = Base64.getEncoder().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
        for (int at = 0; at < b64.length(); at += 400) {
            s.write("AUTHENTICATE " + b64.substring(at, Math.min(b64.length(), at + 400)));
        }
        if (b64.length() % 400 == 0) {
            s.write("AUTHENTICATE +");
        }
    }

    // ------------------------------------------------------------------ inbound

    private void message(Session s, IrcLine m, boolean notice) throws IOException {
        if (closing || m.params().size() < 2 || !m.fromUser() || m.param(0).isEmpty()) {
            return; // a server's notice, or a broken line
        }
        String from = m.nick();
        if (from.equalsIgnoreCase(s.nick)) {
            return; // its own, echoed
        }
        String target = m.param(0);
        String text = m.last();
        String subType = "";
        if (text.length() > 1 && text.charAt(0) == '\u0001') {
            String ctcp = text.substring(1, text.charAt(text.length() - 1) == '\u0001' ? text.length() - 1
                    : text.length());
            int sp = ctcp.indexOf(' ');
            String verb = (sp < 0 ? ctcp : ctcp.substring(0, sp)).toUpperCase(Locale.ROOT);
            String arg = sp < 0 ? "" : ctcp.substring(sp + 1);
            if (!verb.equals("ACTION")) {
                if (!notice) {
                    ctcp(from, verb, arg);
                }
                return;
            }
            text = arg;
            subType = "action";
        }
        boolean channel = s.chanTypes.indexOf(target.charAt(0)) >= 0;
        String id = eventId(m);
        Instant time = time(m);
        Map<String, Object> extra = new HashMap<>(4);
        extra.put("prefix", m.prefix());
        extra.put("target", target);
        if (notice) {
            extra.put("text", text);
            extra.put("user_id", from);
            if (channel) {
                extra.put("group_id", target.toLowerCase(Locale.ROOT));
            }
            offer(new NoticeEvent(id, time, self, "irc_notice", channel ? "group" : "private", extra));
            return;
        }
        Message msg = commandForm(text, s.nick);
        Event e = channel
                ? new GroupMessage(id, time, self, subType, id, msg, from, target.toLowerCase(Locale.ROOT),
                        ReplyChannel.UNBOUND, extra)
                : new PrivateMessage(id, time, self, subType, id, msg, from, ReplyChannel.UNBOUND, extra);
        offer(e);
    }

    /**
     * The text as the command router reads it: {@code !echo hi} as {@code /echo hi}; {@code nick: echo hi} or
     * {@code nick, !echo hi} as a mention of the bot and {@code /echo hi}.
     */
    Message commandForm(String text, String nick) {
        String prefix = settings.commandPrefix();
        int n = nick.length();
        if (text.length() > n + 1 && text.regionMatches(true, 0, nick, 0, n)
                && (text.charAt(n) == ':' || text.charAt(n) == ',')) {
            String rest = text.substring(n + 1).strip();
            if (rest.startsWith(prefix)) {
                rest = rest.substring(prefix.length());
            } else if (rest.startsWith(ROUTER_PREFIX)) {
                rest = rest.substring(ROUTER_PREFIX.length());
            }
            return Message.of(new Segment.Mention(self.userId()), new Segment.Text(ROUTER_PREFIX + rest));
        }
        if (!prefix.equals(ROUTER_PREFIX) && text.startsWith(prefix) && text.length() > prefix.length()
                && !Character.isWhitespace(text.charAt(prefix.length()))) {
            return Message.text(ROUTER_PREFIX + text.substring(prefix.length()));
        }
        return Message.text(text);
    }

    /** Answers CTCP {@code VERSION} and {@code PING} with a NOTICE, through the flood control. */
    private void ctcp(String from, String verb, String arg) {
        String answer = switch (verb) {
            case "VERSION" -> "VERSION PulseBus " + version;
            case "PING" -> "PING " + arg;
            default -> null;
        };
        if (answer != null) {
            String clean = answer.length() > 200 ? answer.substring(0, 200) : answer;
            enqueue("NOTICE", from, List.of("\u0001" + clean.replace("\u0001", "").replace("\0", "") + "\u0001"));
        }
    }

    private String eventId(IrcLine m) {
        String msgid = m.tags().get("msgid");
        if (msgid != null && !msgid.isEmpty() && msgid.length() <= 60) {
            return msgid;
        }
        return runId + "-" + inSeq.incrementAndGet();
    }

    private Instant time(IrcLine m) {
        String t = m.tags().get("time");
        if (t != null) {
            try {
                return Instant.parse(t);
            } catch (DateTimeParseException e) {
                // the local clock, then
            }
        }
        return clock.instant();
    }

    private void offer(Event e) {
        if (!lanes.offer(e)) {
            metrics.droppedEvents.increment();
            LOG.warn("IRC {}: the lane of {} is full; message dropped (pulsebus_irc_dropped_events_total)",
                    settings.server(), chatOf(e));
        }
    }

    private void handOver(Event e) {
        Inbound in = inbound;
        if (in != null) {
            in.accept(e);
        }
    }

    private static Object chatOf(Event e) {
        return e instanceof MessageEvent me ? me.chat().id() : "notice";
    }

    private void setUp(boolean now) {
        if (up != now) {
            up = now;
            healthState.incrementAndGet();
        }
    }

    // ------------------------------------------------------------------ setup

    private static String version() {
        Properties p = new Properties();
        try (InputStream in = IrcAdapter.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            LOG.debug("version.properties: {}", e.toString());
        }
        String v = p.getProperty("version", "");
        return v.isEmpty() || v.startsWith("${") ? "dev" : v;
    }

    /** TLS trusting the certificates of {@code caFile} (PEM), or the JDK's trust store when empty. */
    static SSLSocketFactory tlsFactory(String caFile) {
        if (caFile.isEmpty()) {
            return (SSLSocketFactory) SSLSocketFactory.getDefault();
        }
        try (InputStream in = Files.newInputStream(Path.of(caFile))) {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca" + i++, c);
            }
            if (i == 0) {
                throw new IllegalArgumentException("adapters.irc.tls_ca_file " + caFile + " holds no certificate");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (IOException e) {
            throw new UncheckedIOException("adapters.irc.tls_ca_file " + caFile + " cannot be read", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("adapters.irc.tls_ca_file " + caFile + " is not PEM certificates: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Lines of a stream, LF-terminated (a CR before it dropped), read as UTF-8 (bytes that are not become
     * U+FFFD); a line past {@link #MAX_LINE_BYTES} is cut there and its rest passed over. A read timeout
     * ({@link SocketTimeoutException}) keeps what was read of the line.
     */
    static final class LineReader {
        private final InputStream in;
        private final byte[] buf = new byte[16 * 1024];
        private int start;
        private int end;
        private final byte[] line = new byte[MAX_LINE_BYTES];
        private int len;
        private boolean skipping;

        LineReader(InputStream in) {
            this.in = in;
        }

        /** The next line; throws {@link EOFException} at the end of the stream. */
        String readLine() throws IOException {
            while (true) {
                while (start < end) {
                    byte b = buf[start++];
                    if (b == '\n') {
                        boolean skipped = skipping;
                        skipping = false;
                        int n = len > 0 && line[len - 1] == '\r' ? len - 1 : len;
                        len = 0;
                        if (!skipped || n > 0) {
                            return new String(line, 0, n, StandardCharsets.UTF_8);
                        }
                    } else if (len < line.length) {
                        line[len++] = b;
                    } else {
                        skipping = true;
                    }
                }
                int r = in.read(buf, 0, buf.length);
                if (r < 0) {
                    throw new EOFException("the server closed the connection");
                }
                start = 0;
                end = r;
            }
        }
    }
}

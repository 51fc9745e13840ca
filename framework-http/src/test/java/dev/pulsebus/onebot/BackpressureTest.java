package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.server.TestCluster;
import dev.pulsebus.testing.Await;
import java.io.IOException;
import java.io.OutputStream;
import java.io.BufferedOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reverse-WebSocket peer that sends and never reads what it is sent (a raw socket with a small receive
 * buffer): the server stops reading it while its answers wait, answers only its latest ping, holds actions
 * until their timeout and then fails them saying why, and closes it with 1008 once more than
 * {@code server.max_pending_write_bytes} is queued for it; the server goes on serving meanwhile. And an
 * implementation that answers slowly: its actions wait for the window instead of being refused, nothing lost.
 */
@Timeout(120)
class BackpressureTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How long the slow implementation's answers may stop coming before its test gives up on the rest. */
    private static final Duration STALL = Duration.ofSeconds(30);
    private static final String ACTIONS = "pulsebus_onebot_actions_total";
    private static final String SELF = "10001000";
    private static final String CLOSED = "pulsebus_http_connections_closed_total";
    private static final String PAUSED = "pulsebus_http_connections_paused_total";

    @TempDir
    Path dir;
    private OneBotServer server;
    private RawWebSocket peer;
    /**
     * The slow implementation's one writer, taken in turn: its sender blocks holding it while the server reads
     * slowly, and an answer must then go next, as it would from an implementation's write queue (a monitor let
     * the sender take it again and again, and answers sat behind it until their actions timed out).
     */
    private final ReentrantLock writing = new ReentrantLock(true);

    private RawWebSocket start(String serverToml, String adapterToml) throws Exception {
        server = new OneBotServer(dir, serverToml, """
                [adapters.onebot11]
                enabled = true
                mode = "reverse-ws"
                access_token = "0123"
                """ + adapterToml);
        peer = new RawWebSocket(server.server.port(), "/onebot/v11/ws", 4096, "X-Self-ID", SELF,
                "Authorization", "Bearer 0123");
        return peer;
    }

    private double metric(String name, String labels) throws Exception {
        return TestCluster.metric(server.server, name, labels);
    }

    @AfterEach
    void close() throws Exception {
        if (peer != null) {
            peer.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** Sends {@code count} group messages {@code /echo <size x's>} from a thread of its own, until it cannot. */
    private Thread echoes(int count, int size) {
        String text = "/echo " + "x".repeat(size);
        return Thread.ofPlatform().daemon().start(() -> {
            try {
                for (int i = 1; i <= count; i++) {
                    peer.text(Fixtures.v11Group(Long.parseLong(SELF), i, 123456, text));
                }
            } catch (IOException closed) {
                // the server closed the connection
            }
        });
    }

    @Test
    void aPeerThatDoesNotReadIsClosedWith1008OnceTooMuchIsQueuedForIt() throws Exception {
        start("max_pending_write_bytes = 65536\n", "");
        echoes(100, 100_000); // each reply frame alone is past the limit once the socket's buffers are full

        assertThat(Await.until(WAIT, () -> metric(CLOSED, "reason=\"slow_reader\"") == 1)).isTrue();
        assertThat(server.status("/health/live")).isEqualTo(200);
        RawWebSocket.Frame close = peer.readUntilClose(); // what it had not read, then the close frame
        assertThat(close).isNotNull();
        assertThat(close.closeCode()).isEqualTo(1008);
        assertThat(peer.read()).as("the connection ends after the close frame").isNull();
        assertThat(metric(CLOSED, "reason=\"slow_reader\"")).isEqualTo(1);
    }

    @Test
    void aPeerThatPingsAndDoesNotReadStopsBeingReadAndGetsOnlyItsLatestPingAnswered() throws Exception {
        start("", "");
        int pings = 60_000; // 125-byte payloads: 7.9 MB each way, more than the sockets' buffers hold
        Thread sender = Thread.ofPlatform().daemon().start(() -> {
            try {
                OutputStream out = new BufferedOutputStream(peer.socket.getOutputStream(), 64 * 1024);
                byte[] payload = new byte[125];
                for (int i = 0; i < pings; i++) {
                    ByteBuffer.wrap(payload).putInt(i);
                    out.write(RawWebSocket.frame(RawWebSocket.PING, payload));
                }
                out.flush();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(Await.until(WAIT, () -> metric(PAUSED, "") >= 1)).as("reading it paused").isTrue();
        assertThat(server.status("/health/live")).isEqualTo(200);

        int pongs = 0;
        int last = -1;
        while (last != pings - 1) {
            RawWebSocket.Frame f = peer.read();
            assertThat(f).isNotNull();
            assertThat(f.opcode()).isEqualTo(RawWebSocket.PONG);
            int n = ByteBuffer.wrap(f.payload()).getInt();
            assertThat(n).as("pongs answer pings in order").isGreaterThan(last);
            last = n;
            pongs++;
        }
        sender.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(pongs).as("the pings that came while it did not read were answered once").isLessThan(pings);
        assertThat(metric(CLOSED, "")).isZero();
    }

    @Test
    void anActionToABotThatDoesNotReadWaitsForItsTimeoutThenFailsSayingTheConnectionIsNotWritable() throws Exception {
        start("", "action_timeout_ms = 1000\n");
        echoes(100, 100_000);
        // replies refused because the connection was not writable: it is, or was a moment ago, full
        assertThat(Await.until(WAIT, () -> metric(ACTIONS, "outcome=\"refused\"") >= 1))
                .isTrue();
        OneBotActionException failed = null;
        for (int attempt = 0; attempt < 10 && failed == null; attempt++) {
            try {
                server.adapter().actions(SELF).getLoginInfo().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                OneBotActionException a = (OneBotActionException) e.getCause();
                if (a.kind() != OneBotActionException.Kind.TIMEOUT) { // TIMEOUT: it went out, the socket took it
                    failed = a;
                }
            }
        }
        assertThat(failed).isNotNull();
        assertThat(failed.kind()).isEqualTo(OneBotActionException.Kind.REFUSED);
        assertThat(failed).hasMessageContaining("get_login_info").hasMessageContaining("not writable for 1000 ms");
        assertThat(metric(CLOSED, "")).as("under the limit: not closed").isZero();
        assertThat(server.status("/health/live")).isEqualTo(200);
    }

    @Test
    @Timeout(300) // a busy machine drains its 30,000 replies more slowly (it waits while they keep coming)
    void anImplementationThatAnswersAfterTwoSecondsAtThreeThousandASecondLosesNoReply() throws Exception {
        start("", "");
        int rate = 3000;
        int seconds = 10;
        int total = rate * seconds; // 6000 would be out at once at 2 s each: past the window of 4096
        Pattern echo = Pattern.compile("\"echo\"\\s*:\\s*\"([^\"]+)\"");
        Set<String> asked = ConcurrentHashMap.newKeySet();
        ScheduledExecutorService answers = Executors.newSingleThreadScheduledExecutor();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                for (RawWebSocket.Frame f; (f = peer.read()) != null; ) {
                    String text = new String(f.payload(), StandardCharsets.UTF_8);
                    Matcher m = echo.matcher(text);
                    if (f.opcode() != RawWebSocket.TEXT || !text.contains("send_group_msg") || !m.find()) {
                        continue;
                    }
                    String id = m.group(1);
                    asked.add(id);
                    answers.schedule(() -> answer(id), 2, TimeUnit.SECONDS);
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        try {
            long t0 = System.nanoTime();
            for (int i = 1; i <= total; i++) { // open loop: each event at its scheduled time
                LockSupport.parkNanos(t0 + i * 1_000_000_000L / rate - System.nanoTime());
                String event = Fixtures.v11Group(Long.parseLong(SELF), i, 1000 + i % 64, "/echo hi");
                writing.lock();
                try {
                    peer.text(event);
                } finally {
                    writing.unlock();
                }
            }
            // As long as answers keep coming: a busy machine drains the load more slowly, and loses none of it.
            assertThat(Await.whileGrowing(total, STALL, () -> metric(ACTIONS, "outcome=\"ok\"")))
                    .as("every reply answered: %s of %s ok, %s refused, %s timed out; %s asked", metric(ACTIONS,
                            "outcome=\"ok\""), total, metric(ACTIONS, "outcome=\"refused\""),
                            metric(ACTIONS, "outcome=\"timeout\""), asked.size())
                    .isTrue();
        } finally {
            answers.shutdownNow();
        }
        assertThat(asked).hasSize(total);
        assertThat(metric(ACTIONS, "outcome=\"refused\"")).isZero();
        assertThat(metric(ACTIONS, "outcome=\"timeout\"")).isZero();
        assertThat(metric("pulsebus_onebot_bad_frames_total", "reason=\"lane_full\"")).as("no event dropped").isZero();
        assertThat(metric("pulsebus_http_connections_slowed_total", "")).as("reading it slowed").isGreaterThan(0);
        reader.interrupt();
    }

    private void answer(String id) {
        String response = "{\"status\":\"ok\",\"retcode\":0,\"data\":{\"message_id\":" + id.hashCode()
                + "},\"echo\":\"" + id + "\"}";
        try {
            writing.lock();
            try {
                peer.text(response);
            } finally {
                writing.unlock();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

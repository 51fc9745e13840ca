package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.server.TestCluster;
import dev.pulsebus.testing.Await;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A text frame that is not UTF-8 fails the WebSocket with 1007 (RFC 6455, 8.1), on v11 and v12 alike, and is
 * counted as {@code not_utf8}; a frame that is UTF-8 but not JSON is still only counted, the connection up.
 */
@Timeout(60)
class Utf8FrameTest {

    @TempDir
    Path dir;

    /** {@code before}, the raw bytes, then {@code after}. */
    private static byte[] bytes(String before, int[] raw, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
        for (int b : raw) {
            out.write(b);
        }
        out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** Frames that are not UTF-8: a bad continuation, an overlong form, a surrogate, and one after a JSON error. */
    private static final List<byte[]> NOT_UTF8 = List.of(
            bytes("{\"post_type\": \"message\", \"a\": \"", new int[] {0xC3, 0x28}, "\"}"),
            bytes("{\"type\": \"meta\", \"a\": \"", new int[] {0xC0, 0xAF}, "\"}"),
            bytes("{\"retcode\": 0, \"a\": \"", new int[] {0xED, 0xA0, 0x80}, "\"}"),
            bytes("{\"a\": , \"b\": \"", new int[] {0xFF}, "\"}"));

    @Test
    void bothDecodersTellBytesThatAreNotUtf8FromTextThatIsNotJson() {
        OneBotMetrics metrics = new OneBotMetrics("11");
        for (Protocol p : List.of(Protocol.of(11), Protocol.of(12))) {
            for (byte[] frame : NOT_UTF8) {
                assertThat(p.decode(Unpooled.wrappedBuffer(frame), "", metrics)).as(p.label + ": " + new String(frame,
                        StandardCharsets.ISO_8859_1)).isSameAs(Protocol.NOT_UTF8);
            }
            assertThat(p.decode(Unpooled.wrappedBuffer("{\"a\": é}".getBytes(StandardCharsets.UTF_8)), "", metrics))
                    .isSameAs(Protocol.NOT_JSON);
        }
    }

    @Test
    void aTextFrameThatIsNotUtf8ClosesTheConnectionWith1007OnBothVersions() throws Exception {
        try (OneBotServer server = new OneBotServer(dir, """
                [adapters.onebot11]
                enabled = true
                mode = "reverse-ws"

                [adapters.onebot12]
                enabled = true
                mode = "reverse-ws"
                """)) {
            int port = server.server.port();
            for (String path : List.of("/onebot/v11/ws", "/onebot/v12/ws")) {
                for (byte[] frame : NOT_UTF8) {
                    try (RawWebSocket peer = new RawWebSocket(port, path, 0, "X-Self-ID", "10001000")) {
                        peer.send(RawWebSocket.TEXT, "{\"a\": é}".getBytes(StandardCharsets.UTF_8)); // counted only
                        peer.send(RawWebSocket.TEXT, frame);
                        RawWebSocket.Frame close = peer.readUntilClose();
                        assertThat(close).as(path).isNotNull();
                        assertThat(close.closeCode()).as(path).isEqualTo(1007);
                        assertThat(peer.read()).as("the connection ends").isNull();
                    }
                }
            }
            assertThat(Await.until(Duration.ofSeconds(10), () -> TestCluster.metric(server.server,
                    "pulsebus_onebot_bad_frames_total", "reason=\"not_utf8\"") == 2 * NOT_UTF8.size())).isTrue();
            assertThat(TestCluster.metric(server.server, "pulsebus_onebot_bad_frames_total", "reason=\"not_json\""))
                    .isEqualTo(2 * NOT_UTF8.size());
        }
    }
}

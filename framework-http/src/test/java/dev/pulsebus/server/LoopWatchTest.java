package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.testing.Await;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoopWatchTest {

    @TempDir
    Path dir;

    @Test
    void aLoopBlockedForMoreThanFiveSecondsIsWedgedAndRecovers() throws Exception {
        MultiThreadIoEventLoopGroup loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        CountDownLatch release = new CountDownLatch(1);
        try {
            LoopWatch watch = new LoopWatch(loops);
            assertThat(watch.wedged()).isZero();

            loops.next().execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });

            assertThat(Await.until(Duration.ofSeconds(15), () -> watch.wedged() == 1)).isTrue();
            release.countDown();
            assertThat(Await.until(Duration.ofSeconds(5), () -> watch.wedged() == 0)).isTrue();
        } finally {
            release.countDown();
            loops.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void theProbesAnswerUpOnAServingServer() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            var live = t.get("/health/live");
            var ready = t.get("/health/ready");

            assertThat(live.statusCode()).isEqualTo(200);
            assertThat(live.body()).isEqualTo("{\"status\":\"UP\"}");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(t.client.send(java.net.http.HttpRequest.newBuilder(t.uri("/health/ready"))
                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
        }
    }
}

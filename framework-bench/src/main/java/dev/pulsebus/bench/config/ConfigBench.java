package dev.pulsebus.bench.config;

import dev.pulsebus.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The config suite, on a file shaped like the shipped {@code config/pulsebus.toml}: a hot read of one
 * setting, and a write from code (seen at once, written to the runtime file in the background).
 */
@State(Scope.Benchmark)
public class ConfigBench {

    private Config config;
    private long n;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("pulsebus.bench.dir",
                System.getProperty("java.io.tmpdir"))), "config-");
        Path file = Files.writeString(dir.resolve("pulsebus.toml"), """
                [server]
                host = "127.0.0.1"
                port = 8080
                token = ""
                max_body_bytes = 65536
                max_header_bytes = 8192
                max_connections = 1024
                request_timeout_ms = 10000
                max_pending_messages = 10000
                max_poll_timeout_ms = 120000
                [bot]
                instance = ""
                [metrics]
                enabled = true
                [storage]
                data_dir = "data"
                jdbc_url = ""
                synchronous = "NORMAL"
                cache_size = 10000
                [transcript]
                keep_per_chat = 10000
                max_age_days = 30
                [modules.example]
                enabled = true
                [modules.bench]
                n = 0
                """);
        config = Config.builder(file).env(Map.of()).watch(false).flushDelay(Duration.ofMillis(200)).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        config.close();
    }

    @Benchmark
    public int get_hot__pulsebus() {
        return config.getInt("server.port", 0);
    }

    @Benchmark
    public void set_lazy__pulsebus() {
        config.set("modules.bench.n", n++);
    }
}

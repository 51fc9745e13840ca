package dev.pulsebus.bench.overall;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.config.Config;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.storage.Storage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code overall.mixed}: what a bot in real use does per message, in one operation: 20 config reads, 1
 * config write, 1 KV write (awaited: committed to SQLite), 1 KV read, 1 event published to a handler, and
 * 1 reply sent through the pipeline.
 */
@State(Scope.Benchmark)
public class MixedBench {

    record Tick(long n) {
    }

    private static final String[] CONFIG_KEYS = {"server.port", "server.max_body_bytes", "server.max_connections",
        "storage.cache_size", "transcript.keep_per_chat"};

    private Config config;
    private Storage storage;
    private Kv kv;
    private EventBus bus;
    private MessagePipeline pipeline;
    private OutboundMessage reply;
    private final String[] keys = new String[1024];
    private long n;

    @Setup(Level.Trial)
    public void setUp(Blackhole bh) throws Exception {
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("pulsebus.bench.dir",
                System.getProperty("java.io.tmpdir"))), "mixed-");
        Path file = Files.writeString(dir.resolve("pulsebus.toml"), """
                [server]
                port = 8080
                max_body_bytes = 65536
                max_connections = 1024
                [storage]
                cache_size = 10000
                [transcript]
                keep_per_chat = 10000
                [modules.bench]
                n = 0
                """);
        config = Config.builder(file).env(Map.of()).watch(false).build();
        storage = Storage.builder().dataDir(dir.resolve("data")).open();
        kv = storage.kv().namespace("bench");
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "user:" + i;
        }
        bus = EventBus.create();
        bus.subscribe(Tick.class, bh::consume);
        InMemoryAdapter adapter = new InMemoryAdapter("bench", "bot", 16);
        pipeline = MessagePipeline.builder(bus).adapter(adapter).build().start();
        reply = new OutboundMessage(adapter.bot(), ChatRef.group("bench", "room"), Message.text("pong"), "");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        pipeline.close();
        bus.close();
        storage.close();
        config.close();
    }

    @Benchmark
    public void mixed__pulsebus(Blackhole bh) {
        once(bh);
    }

    @Benchmark
    public void mixed__pulsebus_round(Blackhole bh) {
        once(bh);
    }

    private void once(Blackhole bh) {
        for (int i = 0; i < 20; i++) {
            bh.consume(config.getInt(CONFIG_KEYS[i % CONFIG_KEYS.length], 0));
        }
        long i = n++;
        config.set("modules.bench.n", i);
        String key = keys[(int) (i & 1023)];
        kv.set(key, "v");
        bh.consume(kv.get(key));
        bus.publish(new Tick(i));
        bh.consume(pipeline.send(reply));
    }
}

package dev.pulsebus.bench.storage;

import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Suite;
import java.util.List;

/**
 * The {@code storage} suite: KV writes (sequential and 64 concurrent, both awaited: durable), cached and
 * uncached reads, and transcript batches, on the backend chosen by {@code --backend}, in the run's
 * temporary data directory (SQLite) or a schema of its own that is dropped afterwards.
 */
public final class StorageSuite {

    private StorageSuite() {
    }

    public static Suite create() {
        return new JmhSuite("storage", StorageBench.class, List.of(), List.of(
                new JmhSuite.RowSpec("kv_set", true,
                        "one set, awaited until committed (group commit of one), 1024 keys upserted in turn",
                        JmhSuite.Target.atLeast(30e3)),
                new JmhSuite.RowSpec("kv_set_concurrent", true,
                        "64 sets in flight, all awaited; ops/s counts sets, latency is the round of 64",
                        JmhSuite.Target.atLeast(100e3)),
                new JmhSuite.RowSpec("kv_get_hot", true, "a get answered by the read cache (1024 hot keys)",
                        JmhSuite.Target.atLeast(10e6).allocAtMost(1)),
                new JmhSuite.RowSpec("kv_get_cold", true,
                        "a get with the cache off: one indexed SELECT among 100k rows, random keys",
                        JmhSuite.Target.atLeast(120e3).p99AtMost(15)),
                new JmhSuite.RowSpec("transcript_batch", true,
                        "batches of 512 transcript rows, multi-row INSERTs in one transaction; ops/s counts rows,"
                                + " latency is one batch",
                        JmhSuite.Target.atLeast(200e3))));
    }
}

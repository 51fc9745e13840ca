package dev.pulsebus.bench.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One row of results, as {@code results.json} holds it (field names in snake case there). Latencies are
 * microseconds; {@code null} where one operation is too short to time on its own.
 */
public record Row(String suite, String name, String unit, Double opsPerSec,
           Double p50Us, Double p90Us, Double p99Us, Double p999Us, Double maxUs,
           Double allocBytesPerOp, int samples, Map<String, Double> peers, String note) {

    public Row {
        peers = Collections.unmodifiableMap(new LinkedHashMap<>(peers)); // keeps the suite's peer order
    }

    /** Ours divided by the peer's throughput; {@code null} when either is missing. */
    Double ratioTo(String peer) {
        Double theirs = peers.get(peer);
        return opsPerSec == null || theirs == null || theirs == 0 ? null : opsPerSec / theirs;
    }
}

package dev.pulsebus.bench.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of results, as {@code results.json} holds it (field names in snake case there). Latencies are
 * microseconds; {@code null} where one operation is too short to time on its own. {@code rounds} are the
 * row's headline figure in each measured round (ops/s where the row has throughput, else p50 in
 * microseconds), empty where the row is measured once; {@code spread} is derived from them.
 */
public record Row(String suite, String name, String unit, Double opsPerSec,
           Double p50Us, Double p90Us, Double p99Us, Double p999Us, Double maxUs,
           Double allocBytesPerOp, int samples, Map<String, Double> peers, String note,
           List<Double> rounds, Spread spread) {

    public Row {
        peers = Collections.unmodifiableMap(new LinkedHashMap<>(peers)); // keeps the suite's peer order
        rounds = rounds == null ? List.of() : List.copyOf(rounds); // a baseline from before rounds has none
        spread = Spread.of(rounds);
    }

    /** A row measured once: no rounds. */
    public Row(String suite, String name, String unit, Double opsPerSec,
               Double p50Us, Double p90Us, Double p99Us, Double p999Us, Double maxUs,
               Double allocBytesPerOp, int samples, Map<String, Double> peers, String note) {
        this(suite, name, unit, opsPerSec, p50Us, p90Us, p99Us, p999Us, maxUs, allocBytesPerOp, samples, peers, note,
                List.of(), null);
    }

    /** This row with {@code rounds}. */
    public Row withRounds(List<Double> rounds) {
        return new Row(suite, name, unit, opsPerSec, p50Us, p90Us, p99Us, p999Us, maxUs, allocBytesPerOp, samples,
                peers, note, rounds, null);
    }

    /** Whether its rounds lie more than {@link Spread#UNSTABLE_RATIO} apart. */
    boolean unstable() {
        return spread != null && spread.unstable();
    }

    /** Ours divided by the peer's throughput; {@code null} when either is missing. */
    Double ratioTo(String peer) {
        Double theirs = peers.get(peer);
        return opsPerSec == null || theirs == null || theirs == 0 ? null : opsPerSec / theirs;
    }
}

package dev.pulsebus.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FieldMapTest {

    @Test
    void copiesTheRangeKeepingTheLastValueOfARepeatedKeyAndEqualsAnyMapOfTheSameFields() {
        Object[] entries = {"x", 1, "a", "b", "c", 2L, "a", "d", "y", 3};

        Map<String, Object> m = FieldMap.copyOf(entries, 2, 8);
        entries[3] = "changed";

        assertThat(m).isInstanceOf(FieldMap.class).containsExactly(Map.entry("a", "d"), Map.entry("c", 2L));
        assertThat(m).isEqualTo(Map.of("a", "d", "c", 2L)).hasSameHashCodeAs(Map.of("a", "d", "c", 2L));
        assertThat(m.get("x")).isNull();
        assertThat(FieldMap.copyOf(entries, 0, 0)).isEmpty();
    }

    @Test
    void cannotBeChangedAndRefusesNulls() {
        Map<String, Object> m = FieldMap.copyOf(new Object[] {"a", 1}, 0, 2);

        assertThatThrownBy(() -> m.put("b", 2)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(m::clear).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.entrySet().iterator().next().setValue(3))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> FieldMap.copyOf(new Object[] {"a", null}, 0, 2))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void pastSixteenKeysItIsAHashedMapOfTheSameFields() {
        Object[] entries = new Object[40];
        Map<String, Object> expected = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            entries[2 * i] = "k" + i;
            entries[2 * i + 1] = i;
            expected.put("k" + i, i);
        }

        Map<String, Object> m = FieldMap.copyOf(entries, 0, 40);

        assertThat(m).isNotInstanceOf(FieldMap.class).isEqualTo(expected);
    }

    @Test
    void theRecordsKeepAFieldMapAsItIsAndCopyAnyOtherMap() {
        Map<String, Object> fields = FieldMap.copyOf(new Object[] {"a", 1}, 0, 2);
        Map<String, Object> other = new LinkedHashMap<>(Map.of("a", 1));
        Self self = new Self("p", "1");

        assertThat(new NoticeEvent("n", Instant.EPOCH, self, "t", "", fields).fields()).isSameAs(fields);
        NoticeEvent copied = new NoticeEvent("n", Instant.EPOCH, self, "t", "", other);
        other.put("b", 2);
        assertThat(copied.fields()).isEqualTo(Map.of("a", 1));
    }

    @Test
    void aDeferredMapIsBuiltAtItsFirstReadOnlyAndTheRecordsKeepItAsItIs() {
        AtomicInteger builds = new AtomicInteger();
        Map<String, Object> fields = FieldMap.deferred(() -> {
            builds.incrementAndGet();
            return new LinkedHashMap<>(Map.of("a", 1, "b", "x"));
        });
        NoticeEvent n = new NoticeEvent("n", Instant.EPOCH, new Self("p", "1"), "t", "", fields);

        assertThat(n.fields()).isSameAs(fields);
        assertThat(builds).hasValue(0);
        assertThat(fields.get("a")).isEqualTo(1);
        assertThat(fields).isEqualTo(Map.of("a", 1, "b", "x")).hasSameHashCodeAs(Map.of("a", 1, "b", "x"))
                .hasSize(2).containsKey("b");
        assertThat(fields.toString()).contains("a=1");
        assertThat(builds).hasValue(1);
        assertThatThrownBy(() -> fields.put("c", 2)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(fields::clear).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aDeferredMapWhoseBuildFailsIsBuiltAgainAtTheNextRead() {
        AtomicInteger builds = new AtomicInteger();
        Map<String, Object> fields = FieldMap.deferred(() -> {
            if (builds.incrementAndGet() == 1) {
                throw new IllegalStateException("first build fails");
            }
            return Map.of("a", 1);
        });

        assertThatThrownBy(fields::size).isInstanceOf(IllegalStateException.class).hasMessage("first build fails");
        assertThat(fields).containsExactly(Map.entry("a", 1));
        assertThat(builds).hasValue(2);
    }

    @Test
    void threadsReadingADeferredMapAtOnceAllSeeTheSameFields() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 200; round++) {
                Map<String, Object> fields = FieldMap.deferred(
                        () -> FieldMap.copyOf(new Object[] {"a", 1, "b", 2}, 0, 4));
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Map<String, Object>>> seen = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    seen.add(pool.submit(() -> {
                        start.await();
                        return Map.copyOf(fields);
                    }));
                }
                for (Future<Map<String, Object>> f : seen) {
                    assertThat(f.get()).isEqualTo(Map.of("a", 1, "b", 2));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}

package dev.pulsebus.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemorySnapshotsTest {

    @Test
    void aSecondSnapshotOfALabelCarriesTheChange() {
        MemorySnapshot first = MemorySnapshots.snapshot("test.delta");
        assertThat(first.first()).isTrue();
        assertThat(first.heapUsedBytes()).isPositive();
        List<byte[]> kept = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            kept.add(new byte[1 << 20]); // 64 MB allocated by this thread, and held
        }
        MemorySnapshot second = MemorySnapshots.snapshot("test.delta");
        assertThat(second.first()).isFalse();
        assertThat(second.allocatedDelta()).isGreaterThanOrEqualTo(64L << 20);
        assertThat(second.threadAllocatedBytes()).isEqualTo(first.threadAllocatedBytes() + second.allocatedDelta());
        assertThat(second.heapDelta()).isEqualTo(second.heapUsedBytes() - first.heapUsedBytes());
        if (first.rssBytes() > 0) { // Linux
            assertThat(second.rssBytes()).isPositive();
            assertThat(second.rssDelta()).isEqualTo(second.rssBytes() - first.rssBytes());
        }
        assertThat(second.toString()).startsWith("test.delta: rss ").contains("allocated").contains("since");
        assertThat(kept).hasSize(64);
    }

    @Test
    void labelsAreBoundedSoEndlessNewLabelsLeakNothing() {
        for (int i = 0; i < MemorySnapshots.MAX_LABELS * 3; i++) {
            MemorySnapshots.logSnapshot("test.many." + i);
        }
        assertThat(MemorySnapshots.labels()).isEqualTo(MemorySnapshots.MAX_LABELS);
        assertThat(MemorySnapshots.snapshot("test.many.0").first()).as("the oldest was evicted").isTrue();
    }
}

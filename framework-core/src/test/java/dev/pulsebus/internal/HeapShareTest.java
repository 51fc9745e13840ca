package dev.pulsebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeapShareTest {

    private static final long MB = 1 << 20;

    @Test
    void anEighthOfThirtyTwoMegabytesHoldsEightThousandRecordsOfHalfAKilobyte() {
        assertThat(HeapShare.entries(32 * MB, 8, 512, 1024, 65_536)).isEqualTo(8192);
        assertThat(HeapShare.entries(32 * MB, 8, 32 * 1024, 16, 1024)).isEqualTo(128);
    }

    @Test
    void aLargerHeapHoldsMoreUpToTheMaximum() {
        assertThat(HeapShare.entries(128 * MB, 8, 512, 1024, 65_536)).isEqualTo(32_768);
        assertThat(HeapShare.entries(1024 * MB, 8, 512, 1024, 65_536)).isEqualTo(65_536);
    }

    @Test
    void aTinyOrUnlimitedHeapStaysWithinTheBounds() {
        assertThat(HeapShare.entries(4 * MB, 8, 32 * 1024, 16, 1024)).isEqualTo(16);
        assertThat(HeapShare.entries(Long.MAX_VALUE, 8, 512, 1024, 65_536)).isEqualTo(65_536);
    }
}

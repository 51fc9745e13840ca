package dev.pulsebus.module;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class VersionOrderTest {

    private static int cmp(String a, String b) {
        return Integer.signum(VersionOrder.INSTANCE.compare(a, b));
    }

    @Test
    void numbersCompareAsNumbers() {
        assertThat(cmp("1.10", "1.9")).isEqualTo(1);
        assertThat(cmp("1.9", "1.10")).isEqualTo(-1);
        assertThat(cmp("2.0", "1.99.99")).isEqualTo(1);
        assertThat(cmp("1.0.10", "1.0.9")).isEqualTo(1);
        assertThat(cmp("10", "9")).isEqualTo(1);
        assertThat(cmp("1.0.99999999999999999999", "1.0.99999999999999999998")).as("past long").isEqualTo(1);
    }

    @Test
    void missingPartsAndReleaseWordsCountAsNothing() {
        assertThat(cmp("1", "1.0")).isZero();
        assertThat(cmp("1.0.0", "1")).isZero();
        assertThat(cmp("1.0-final", "1.0")).isZero();
        assertThat(cmp("1.0.GA", "1")).isZero();
        assertThat(cmp("1.0.0-rc1", "1-rc1")).isZero();
        assertThat(cmp("1.0.1", "1.0")).isEqualTo(1);
    }

    @Test
    void aQualifierIsBelowTheReleaseButSpAndUnknownWordsAreAbove() {
        assertThat(cmp("1.0-SNAPSHOT", "1.0")).isEqualTo(-1);
        assertThat(cmp("1.0-rc1", "1.0")).isEqualTo(-1);
        assertThat(cmp("1.1-SNAPSHOT", "1.0")).isEqualTo(1);
        assertThat(cmp("1.0-rc1", "1.0-rc2")).isEqualTo(-1);
        assertThat(cmp("1.0-rc10", "1.0-rc9")).isEqualTo(1);
        assertThat(cmp("1.0-CR1", "1.0-rc1")).isZero();
        assertThat(cmp("1.0-sp1", "1.0")).isEqualTo(1);
        assertThat(cmp("1.0-foo", "1.0-sp")).isEqualTo(1);
        assertThat(cmp("1.0-bar", "1.0-foo")).isEqualTo(-1);
        assertThat(cmp("1.0.1", "1.0-rc1")).as("a number beats a word").isEqualTo(1);
        assertThat(cmp("1.0-rc1", "1.0-RC1")).as("case").isZero();
    }

    @Test
    void qualifiersRankAsMavenRanksThem() {
        List<String> ordered = List.of("1.0-alpha1", "1.0-a2", "1.0-beta1", "1.0-b2", "1.0-milestone1", "1.0-m2",
                "1.0-rc1", "1.0-SNAPSHOT", "1.0", "1.0-sp1", "1.0-zeta", "1.0.1-SNAPSHOT", "1.0.1", "1.1", "1.9",
                "1.10");
        List<String> shuffled = new ArrayList<>(ordered);
        Collections.reverse(shuffled);
        shuffled.sort(VersionOrder.INSTANCE);
        assertThat(shuffled).containsExactlyElementsOf(ordered);
    }
}

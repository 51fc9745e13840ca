package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OpenFilesTest {

    @Test
    void everythingFitsWhereTheLimitAllows() {
        OpenFiles roomy = new OpenFiles(20_000, 20_000, 100);

        assertThat(roomy.fit(10_000, 1)).isEqualTo(10_000);
        assertThat(roomy.fit(1000, 2)).isEqualTo(1000);
        assertThat(new OpenFiles(Long.MAX_VALUE, Long.MAX_VALUE, 0).fit(10_000, 1)).isEqualTo(10_000);
    }

    @Test
    void underALowLimitWhatFitsBesideTheMarginRoundedToHundreds() {
        OpenFiles low = new OpenFiles(1024, 1024, 60); // 1024 - 60 - 128 = 836 free

        assertThat(low.room()).isEqualTo(836);
        assertThat(low.fit(10_000, 1)).isEqualTo(800);
        assertThat(low.fit(1000, 2)).isEqualTo(400);
        assertThat(new OpenFiles(256, 256, 60).fit(10_000, 1)).isEqualTo(68); // under a hundred: as is
        assertThat(new OpenFiles(100, 100, 60).fit(10_000, 1)).isZero();
        assertThat(low.shortOf(10_000, 800)).contains("measured at 800, not 10000").contains("soft 1024, hard 1024");
    }

    @Test
    void readsThisProcessFromProc() {
        OpenFiles self = OpenFiles.ofThisProcess();

        if (System.getProperty("os.name").startsWith("Linux")) {
            assertThat(self.soft()).isPositive().isLessThanOrEqualTo(self.hard());
            assertThat(self.open()).isPositive();
        } else {
            assertThat(self.room()).isEqualTo(Long.MAX_VALUE);
        }
    }
}

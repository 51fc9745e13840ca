package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The chat API's message times: the same text as {@link Instant#toString()}, written without it. */
class IsoInstantTest {

    private static String written(Instant t) {
        char[] out = new char[IsoInstant.MAX_LENGTH];
        int n = IsoInstant.write(t, out);
        return n < 0 ? null : new String(out, 0, n);
    }

    @Test
    void writesWhatToStringWritesAcrossYearsLeapDaysAndFractions() {
        for (String s : new String[] {"1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "2000-02-29T12:00:00.5Z",
                "2024-02-29T23:59:59.000001Z", "2100-03-01T00:00:00.000000001Z", "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999999Z", "2026-12-01T04:38:00.120Z", "1900-02-28T01:02:03.004005Z"}) {
            Instant t = Instant.parse(s);
            assertThat(written(t)).as(s).isEqualTo(t.toString());
        }
        SplittableRandom random = new SplittableRandom(42);
        long lo = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long hi = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant t = Instant.ofEpochSecond(random.nextLong(lo, hi + 1), nanos);
            assertThat(written(t)).isEqualTo(t.toString());
        }
    }

    @Test
    void yearsOutsideFourDigitsAreLeftToToString() {
        assertThat(written(Instant.parse("+10000-01-01T00:00:00Z"))).isNull();
        assertThat(written(Instant.parse("-0001-12-31T23:59:59Z"))).isNull();
    }
}

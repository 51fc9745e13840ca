package dev.pulsebus.server;

import java.time.Instant;

/**
 * Writes an {@link Instant} as {@link Instant#toString()} does ({@code 2026-12-01T04:38:00.123Z}: UTC,
 * the fraction in 0, 3, 6 or 9 digits as needed) into a char array, without the formatter's objects:
 * a history of 50 messages wrote 50 of them per request. Years outside 0000-9999 are left to
 * {@code toString} (the caller falls back when this returns -1).
 */
final class IsoInstant {

    /** The longest text written: {@code yyyy-mm-ddThh:mm:ss.nnnnnnnnnZ}. */
    static final int MAX_LENGTH = 30;

    private static final long SECONDS_PER_DAY = 86_400;
    /** Days from 0000-03-01 to 1970-01-01, for the civil-from-days arithmetic. */
    private static final long DAYS_0000_TO_1970 = 719_468;

    private IsoInstant() {
    }

    /** Writes {@code t} into {@code out} (at least {@link #MAX_LENGTH} long); its length, or -1 out of range. */
    static int write(Instant t, char[] out) {
        long seconds = t.getEpochSecond();
        long days = Math.floorDiv(seconds, SECONDS_PER_DAY);
        int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
        // Howard Hinnant's days_from_civil inverse, on eras of 400 years starting at March 1st.
        long z = days + DAYS_0000_TO_1970;
        long era = Math.floorDiv(z, 146_097);
        long dayOfEra = z - era * 146_097;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long mp = (5 * dayOfYear + 2) / 153;
        int day = (int) (dayOfYear - (153 * mp + 2) / 5 + 1);
        int month = (int) (mp < 10 ? mp + 3 : mp - 9);
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        if (year < 0 || year > 9999) {
            return -1;
        }
        int i = digits(out, 0, (int) year, 4);
        out[i++] = '-';
        i = digits(out, i, month, 2);
        out[i++] = '-';
        i = digits(out, i, day, 2);
        out[i++] = 'T';
        i = digits(out, i, secondOfDay / 3600, 2);
        out[i++] = ':';
        i = digits(out, i, secondOfDay / 60 % 60, 2);
        out[i++] = ':';
        i = digits(out, i, secondOfDay % 60, 2);
        int nanos = t.getNano();
        if (nanos != 0) {
            out[i++] = '.';
            if (nanos % 1_000_000 == 0) {
                i = digits(out, i, nanos / 1_000_000, 3);
            } else if (nanos % 1000 == 0) {
                i = digits(out, i, nanos / 1000, 6);
            } else {
                i = digits(out, i, nanos, 9);
            }
        }
        out[i++] = 'Z';
        return i;
    }

    /** {@code value} as {@code width} decimal digits, zero-padded, at {@code at}; returns the index after. */
    private static int digits(char[] out, int at, int value, int width) {
        for (int k = at + width - 1; k >= at; k--) {
            out[k] = (char) ('0' + value % 10);
            value /= 10;
        }
        return at + width;
    }
}

package dev.pulsebus.command;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;

/** A calendar period of a quota, in the router clock's time zone. Weeks start on Monday (ISO). */
public enum QuotaPeriod {
    DAY,
    WEEK;

    /** The first day of the period that contains {@code now}. */
    LocalDate start(Instant now, ZoneId zone) {
        LocalDate day = LocalDate.ofInstant(now, zone);
        return this == DAY ? day : day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
    }

    /** When the period containing {@code now} ends, in epoch millis. */
    long endMillis(Instant now, ZoneId zone) {
        LocalDate next = this == DAY ? start(now, zone).plusDays(1) : start(now, zone).plusWeeks(1);
        return next.atStartOfDay(zone).toInstant().toEpochMilli();
    }
}

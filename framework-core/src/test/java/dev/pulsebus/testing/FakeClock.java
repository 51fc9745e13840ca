package dev.pulsebus.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so (shared with other modules' tests through the test jar). */
public final class FakeClock extends Clock {

    private final AtomicLong millis;
    private final ZoneId zone;

    public FakeClock(Instant start, ZoneId zone) {
        this.millis = new AtomicLong(start.toEpochMilli());
        this.zone = zone;
    }

    public FakeClock() {
        this(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId z) {
        return new FakeClock(instant(), z);
    }
}

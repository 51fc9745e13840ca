package dev.pulsebus.module;

import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import org.jspecify.annotations.Nullable;

/**
 * A cron expression of five fields (minute, hour, day of month, month, day of week; {@code 0} and {@code 7}
 * are Sunday) or an alias ({@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly},
 * {@code @daily}, {@code @midnight}, {@code @hourly}), parsed by cron-utils, in a time zone. Daylight-saving
 * changes follow cron-utils: a time that does not exist on the day clocks go forward is skipped that day,
 * and a time that happens twice on the day they go back runs at its first occurrence only. Immutable.
 */
final class Cron {

    private static final CronDefinition FIVE_FIELDS = CronDefinitionBuilder.defineCron()
            .withMinutes().withValidRange(0, 59).withStrictRange().and()
            .withHours().withValidRange(0, 23).withStrictRange().and()
            .withDayOfMonth().withValidRange(1, 31).withStrictRange().and()
            .withMonth().withValidRange(1, 12).withStrictRange().and()
            .withDayOfWeek().withValidRange(0, 7).withMondayDoWValue(1).withIntMapping(7, 0).withStrictRange().and()
            .withSupportedNicknameYearly().withSupportedNicknameAnnually().withSupportedNicknameMonthly()
            .withSupportedNicknameWeekly().withSupportedNicknameDaily().withSupportedNicknameMidnight()
            .withSupportedNicknameHourly()
            .instance();
    private static final CronParser PARSER = new CronParser(FIVE_FIELDS);

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime times;

    private Cron(String expression, ZoneId zone, ExecutionTime times) {
        this.expression = expression;
        this.zone = zone;
        this.times = times;
    }

    /**
     * Parses {@code expression} for {@code zone}.
     *
     * @throws IllegalArgumentException naming the expression and what is wrong with it
     */
    static Cron parse(String expression, ZoneId zone) {
        String e = expression.strip();
        try {
            return new Cron(e, zone, ExecutionTime.forCron(PARSER.parse(e)));
        } catch (IllegalArgumentException bad) {
            throw new IllegalArgumentException("bad cron expression '" + expression + "': " + bad.getMessage()
                    + " (five fields: minute hour day-of-month month day-of-week, or @daily, @hourly, ...)", bad);
        }
    }

    /** The first time of the expression strictly after {@code after}, or {@code null} when there is none. */
    @Nullable Instant next(Instant after) {
        return times.nextExecution(after.atZone(zone)).map(t -> t.toInstant()).orElse(null);
    }

    String expression() {
        return expression;
    }

    ZoneId zone() {
        return zone;
    }

    @Override
    public String toString() {
        return expression + " in " + zone;
    }
}

package dev.pulsebus.server;

/**
 * The routes of {@code pulsebus_http_requests_total}: a bounded label set, these routes times the status
 * codes. {@link #label} is the metric's {@code route} label value.
 */
enum Route {
    HEALTH("health"),
    METRICS("metrics"),
    SAY("say"),
    HISTORY("history"),
    POLL("poll"),
    MESSAGES("messages"),
    API("api"),
    MODULE("module"),
    UNKNOWN("unknown"),
    BAD("bad"),
    /** The browser console's page and files ({@link ConsoleAssets}). */
    CONSOLE("console"),
    /** {@code /api/admin/*} ({@link AdminApi}). */
    ADMIN("admin"),
    /** A platform's mounted route ({@link Mounts}): a OneBot intake, a Telegram webhook. */
    PLATFORM("platform");

    final String label;

    Route(String label) {
        this.label = label;
    }
}

package dev.pulsebus.server;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The console's recent errors: the last {@link #CAPACITY} warnings and errors the server logged (handler
 * and command failures, module load failures, storage trouble), oldest dropped first. Fed by a Logback
 * appender ({@link LogbackErrorTap}) on the root logger, so it holds what the log holds: a failure that
 * repeats is logged by {@code FailureLog} once and then a line a minute with its count, and appears here
 * as often. Each entry names the module and the handler when the line does ({@code Handler 'module/name'},
 * {@code Module x}, a module's timer thread).
 *
 * <p>Logback is optional: the library depends on SLF4J only, and the server jar brings Logback. Under
 * another SLF4J binding, or none, the ring stays empty and no Logback class is loaded.
 */
final class RecentErrors implements AutoCloseable {

    static final int CAPACITY = 200;
    private static final String LOGBACK_CONTEXT = "ch.qos.logback.classic.LoggerContext";

    private static final Pattern HANDLER = Pattern.compile("^(?:Handler|Command|Route) '([^']+)'");
    private static final Pattern MODULE = Pattern.compile("[Mm]odule '?([A-Za-z0-9._-]+)'?");
    private static final String MODULE_THREAD = "pulsebus-module-";

    /** One warning or error, as the console shows it. */
    record Entry(long timeMs, String level, String module, String handler, String logger, String message) {
    }

    private final Entry[] ring = new Entry[CAPACITY];
    private long total; // guarded by ring
    private @Nullable AutoCloseable tap; // a LogbackErrorTap, typed so that this class never loads Logback's

    /** Starts keeping the server's warnings and errors (nothing when the logging is not Logback). */
    RecentErrors attach() {
        if (LoggerFactory.getILoggerFactory().getClass().getName().equals(LOGBACK_CONTEXT)) {
            tap = LogbackErrorTap.attach(this);
        }
        return this;
    }

    /** Keeps one warning or error line; the module and handler are read from the line or its thread. */
    void record(long timeMs, String level, String logger, @Nullable String thread, String message) {
        String handler = "";
        String module = "";
        Matcher h = HANDLER.matcher(message);
        if (h.find()) {
            handler = h.group(1);
            int slash = handler.indexOf('/');
            module = slash > 0 ? handler.substring(0, slash) : "";
        }
        if (module.isEmpty()) {
            if (thread != null && thread.startsWith(MODULE_THREAD)) {
                module = thread.substring(MODULE_THREAD.length());
            } else {
                Matcher m = MODULE.matcher(message);
                module = m.find() ? m.group(1) : "";
            }
        }
        add(new Entry(timeMs, level, module, handler, logger, message));
    }

    void add(Entry entry) {
        synchronized (ring) {
            ring[(int) (total % CAPACITY)] = entry;
            total++;
        }
    }

    /** The entries kept, oldest first. */
    List<Entry> entries() {
        synchronized (ring) {
            int n = (int) Math.min(total, CAPACITY);
            List<Entry> out = new ArrayList<>(n);
            for (long i = total - n; i < total; i++) {
                out.add(ring[(int) (i % CAPACITY)]);
            }
            return out;
        }
    }

    /** How many were ever added, kept or not. */
    long total() {
        synchronized (ring) {
            return total;
        }
    }

    /** Stops keeping them (the server's shutdown). */
    @Override
    public void close() throws Exception {
        AutoCloseable t = tap;
        tap = null;
        if (t != null) {
            t.close();
        }
    }
}

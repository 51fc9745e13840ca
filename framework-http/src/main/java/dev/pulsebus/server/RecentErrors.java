package dev.pulsebus.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * The console's recent errors: the last {@link #CAPACITY} warnings and errors the server logged (handler
 * and command failures, module load failures, storage trouble), oldest dropped first. A Logback appender
 * on the root logger, so it holds what the log holds: a failure that repeats is logged by
 * {@code FailureLog} once and then a line a minute with its count, and appears here as often. It is also
 * on the {@code dev.pulsebus} logger, so a configuration that keeps PulseBus's lines from the root
 * (additivity off) still fills it; a line that reaches both is kept once. Each entry
 * names the module and the handler when the line does ({@code Handler 'module/name'}, {@code Module x},
 * a module's timer thread). Under another SLF4J binding than Logback the ring stays empty.
 */
final class RecentErrors extends UnsynchronizedAppenderBase<ILoggingEvent> implements AutoCloseable {

    static final int CAPACITY = 200;

    private static final Pattern HANDLER = Pattern.compile("^(?:Handler|Command|Route) '([^']+)'");
    private static final Pattern MODULE = Pattern.compile("[Mm]odule '?([A-Za-z0-9._-]+)'?");
    private static final String MODULE_THREAD = "pulsebus-module-";

    /** One warning or error, as the console shows it. */
    record Entry(long timeMs, String level, String module, String handler, String logger, String message) {
    }

    private final Entry[] ring = new Entry[CAPACITY];
    private long total; // guarded by ring
    private final List<Logger> attached = new ArrayList<>();
    /**
     * The identity of the last event this thread appended: an event reaches the {@code dev.pulsebus} logger's
     * appenders and then the root's, on the same thread, one after the other. An identity, not the event,
     * which could hold a module's objects after it unloaded.
     */
    private final ThreadLocal<long[]> lastSeen = ThreadLocal.withInitial(() -> new long[2]);

    /** Starts keeping the server's warnings and errors (nothing when the logging is not Logback). */
    RecentErrors attach() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            setContext(context);
            setName("pulsebus-recent-errors");
            start();
            for (String name : List.of("dev.pulsebus", org.slf4j.Logger.ROOT_LOGGER_NAME)) {
                Logger logger = context.getLogger(name);
                logger.addAppender(this);
                attached.add(logger);
            }
        }
        return this;
    }

    @Override
    protected void append(ILoggingEvent e) {
        if (!e.getLevel().isGreaterOrEqual(Level.WARN)) {
            return;
        }
        long[] last = lastSeen.get();
        long id = System.identityHashCode(e);
        if (last[0] == id && last[1] == e.getTimeStamp()) {
            return; // the same event, at its second logger
        }
        last[0] = id;
        last[1] = e.getTimeStamp();
        String message = e.getFormattedMessage();
        IThrowableProxy thrown = e.getThrowableProxy();
        if (thrown != null) {
            message = message + ": " + thrown.getClassName() + ": " + thrown.getMessage();
        }
        String handler = "";
        String module = "";
        Matcher h = HANDLER.matcher(message);
        if (h.find()) {
            handler = h.group(1);
            int slash = handler.indexOf('/');
            module = slash > 0 ? handler.substring(0, slash) : "";
        }
        if (module.isEmpty()) {
            String thread = e.getThreadName();
            if (thread != null && thread.startsWith(MODULE_THREAD)) {
                module = thread.substring(MODULE_THREAD.length());
            } else {
                Matcher m = MODULE.matcher(message);
                module = m.find() ? m.group(1) : "";
            }
        }
        add(new Entry(e.getTimeStamp(), e.getLevel().toString(), module, handler, e.getLoggerName(), message));
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
    public void close() {
        for (Logger logger : attached) {
            logger.detachAppender(this);
        }
        attached.clear();
        stop();
    }
}

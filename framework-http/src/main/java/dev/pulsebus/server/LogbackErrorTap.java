package dev.pulsebus.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The Logback appender that feeds {@link RecentErrors}: on the root logger and on {@code dev.pulsebus}, so
 * a configuration that keeps PulseBus's lines from the root (additivity off) still fills it; a line that
 * reaches both is kept once. Loaded only when Logback is the SLF4J binding ({@link RecentErrors#attach}).
 */
final class LogbackErrorTap extends UnsynchronizedAppenderBase<ILoggingEvent> implements AutoCloseable {

    private final RecentErrors errors;
    private final List<Logger> attached = new ArrayList<>();
    /**
     * The identity of the last event this thread appended: an event reaches the {@code dev.pulsebus} logger's
     * appenders and then the root's, on the same thread, one after the other. An identity, not the event,
     * which could hold a module's objects after it unloaded.
     */
    private final ThreadLocal<long[]> lastSeen = ThreadLocal.withInitial(() -> new long[2]);

    LogbackErrorTap(RecentErrors errors) {
        this.errors = errors;
    }

    /** Starts the tap on the current Logback context; the caller has checked that the binding is Logback's. */
    static AutoCloseable attach(RecentErrors errors) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        LogbackErrorTap tap = new LogbackErrorTap(errors);
        tap.setContext(context);
        tap.setName("pulsebus-recent-errors");
        tap.start();
        for (String name : List.of("dev.pulsebus", org.slf4j.Logger.ROOT_LOGGER_NAME)) {
            Logger logger = context.getLogger(name);
            logger.addAppender(tap);
            tap.attached.add(logger);
        }
        return tap;
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
        errors.record(e.getTimeStamp(), e.getLevel().toString(), e.getLoggerName(), e.getThreadName(), message);
    }

    @Override
    public void close() {
        for (Logger logger : attached) {
            logger.detachAppender(this);
        }
        attached.clear();
        stop();
    }
}

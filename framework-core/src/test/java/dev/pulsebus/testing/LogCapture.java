package dev.pulsebus.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Keeps what one logger writes at WARN (or a given level) and above during each test ({@code @RegisterExtension}), whatever
 * level the tests' logging configuration gives it.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    private final Logger logger;
    private final Level level;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    /** The logger's own level before the test, given back after it. */
    private @Nullable Level before;

    public LogCapture(Class<?> loggerOf) {
        this(loggerOf, Level.WARN);
    }

    /** Keeps what the logger writes at {@code level} and above. */
    public LogCapture(Class<?> loggerOf, Level level) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerOf);
        this.level = level;
    }

    /** The lines logged so far in this test, formatted. */
    public List<String> lines() {
        return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        appender.list.clear();
        appender.start();
        before = logger.getLevel();
        logger.setLevel(level);
        logger.addAppender(appender);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(appender);
        logger.setLevel(before);
    }
}

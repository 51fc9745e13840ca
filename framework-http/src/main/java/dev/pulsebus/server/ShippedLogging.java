package dev.pulsebus.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.pattern.TargetLengthBasedClassNameAbbreviator;
import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.DefaultJoranConfigurator;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.encoder.EncoderBase;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.util.CachingDateFormatter;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.Charset;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;

/**
 * Sets up the shipped logging ({@code config/logback.xml}, also the jar's {@code logback.xml}) without
 * Logback's XML machinery when the configuration Logback would read is that file, byte for byte: Joran
 * (an XML parser, its actions and model handlers) costs about 150 ms of a server's start here, for four
 * settings. Its pattern is written out by hand ({@link LineEncoder}) rather than compiled by
 * {@code PatternLayout}, whose class initialisation alone (a lambda for each of some 60 converters) costs
 * about 40 ms of a cold start. The file is recognised by its length and CRC-32, and found the way Logback
 * finds it (Logback's own search: {@code logback.configurationFile}, then {@code logback-test.xml}, then
 * {@code logback.xml} on the class path), so an edited file, another file, or an application's own
 * {@code logback.xml} is left to Logback as usual. {@code ShippedLoggingTest} checks that both ways give
 * the same set-up and write the same bytes, and that the recognised length and CRC are the shipped file's.
 *
 * <p>Found by Logback through {@code META-INF/services/ch.qos.logback.classic.spi.Configurator}. It has
 * no {@code @ConfiguratorRank} (the default rank): reading an annotation in a cold JVM generates a proxy
 * class, some 15 ms here, and the rank matters only beside another configurator, which this one defers
 * to for any file but the shipped one anyway.
 */
public final class ShippedLogging extends ContextAwareBase implements Configurator {

    /** The shipped file's settings: keep them as {@code config/logback.xml} says (the test compares). */
    static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n";
    static final String APPENDER = "CONSOLE";
    static final Level PULSEBUS_LEVEL = Level.INFO;
    static final Level ROOT_LEVEL = Level.WARN;
    /** Lettuce's reconnect warnings: a cluster's Redis outage is warned about by PulseBus itself. */
    static final String LETTUCE_WATCHDOG = "io.lettuce.core.protocol.ConnectionWatchdog";
    /** The shipped file's length and CRC-32: change them with the file (the test says the new ones). */
    static final int SHIPPED_LENGTH = 668;
    static final long SHIPPED_CRC = 0xa1d9a519L;

    @Override
    @SuppressWarnings("deprecation") // Logback's own search, so that a user's logback.xml is found as Logback finds it
    public ExecutionStatus configure(LoggerContext context) {
        DefaultJoranConfigurator logbacksOwnSearch = new DefaultJoranConfigurator();
        logbacksOwnSearch.setContext(context);
        if (!isShipped(read(logbacksOwnSearch.findURLOfDefaultConfigurationFile(false)))) {
            return ExecutionStatus.NEUTRAL; // Logback reads the configuration itself
        }
        apply(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    static boolean isShipped(byte @Nullable [] config) {
        if (config == null || config.length != SHIPPED_LENGTH) {
            return false;
        }
        CRC32 crc = new CRC32();
        crc.update(config);
        return crc.getValue() == SHIPPED_CRC;
    }

    private static byte @Nullable [] read(@Nullable URL url) {
        if (url == null) {
            return null;
        }
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            return null; // Logback says what it makes of it
        }
    }

    /**
     * What the shipped XML declares: a console appender with its pattern, INFO for PulseBus, ERROR for
     * Lettuce's reconnect watchdog, WARN for the rest.
     */
    static void apply(LoggerContext context) {
        LineEncoder encoder = new LineEncoder();
        encoder.setContext(context);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName(APPENDER);
        console.setEncoder(encoder);
        console.start();
        context.getLogger("dev.pulsebus").setLevel(PULSEBUS_LEVEL);
        context.getLogger(LETTUCE_WATCHDOG).setLevel(Level.ERROR);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(ROOT_LEVEL);
        root.addAppender(console);
    }

    /**
     * {@link #PATTERN} by hand: {@code %d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n},
     * then the stack trace of an event's throwable as {@code PatternLayout} appends it to a pattern
     * without one. Logback's own date formatter, abbreviator and throwable converter do the parts.
     */
    static final class LineEncoder extends EncoderBase<ILoggingEvent> {

        private static final byte[] NONE = {}; // no header or footer, as PatternLayoutEncoder without them

        private final CachingDateFormatter date = new CachingDateFormatter("yyyy-MM-dd HH:mm:ss.SSS");
        private final TargetLengthBasedClassNameAbbreviator logger = new TargetLengthBasedClassNameAbbreviator(36);
        private final ThrowableProxyConverter throwable = new ThrowableProxyConverter();

        @Override
        public void start() {
            throwable.setContext(getContext());
            throwable.start();
            super.start();
        }

        @Override
        public byte[] headerBytes() {
            return NONE;
        }

        @Override
        public byte[] encode(ILoggingEvent event) {
            String level = event.getLevel().toString();
            StringBuilder sb = new StringBuilder(128).append(date.format(event.getTimeStamp())).append(' ').append(level);
            for (int i = level.length(); i < 5; i++) {
                sb.append(' ');
            }
            sb.append(" [").append(event.getThreadName()).append("] ").append(logger.abbreviate(event.getLoggerName()))
                    .append(" - ").append(event.getFormattedMessage()).append(CoreConstants.LINE_SEPARATOR)
                    .append(throwable.convert(event));
            return sb.toString().getBytes(Charset.defaultCharset()); // as PatternLayoutEncoder without a charset
        }

        @Override
        public byte[] footerBytes() {
            return NONE;
        }
    }
}
